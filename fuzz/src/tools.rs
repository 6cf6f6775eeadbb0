//! Every tool's parameters, through the same dispatch the MCP server uses, on a copy of the
//! polyglot fixture. A panic inside a tool is caught by the dispatcher and turned into an
//! `INTERNAL` error (so one bad call never takes the server down); here that error is the crash.

use code_intel::error::ErrorCode;
use code_intel::tools::{self, Context, ToolDef};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Tools that embed with the model or write the vector store: seconds per call, and their
/// parameters are plain paths and strings already covered by the others.
const SLOW: &[&str] = &["semantic_search", "sync_index"];

thread_local! {
    static CONTEXT: Context = {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/polyglot");
        let root = crate::project(&[]);
        copy_dir(&fixture, &root);
        Context::open(&root).expect("the fixture copy opens")
    };
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("the fixture") {
        let entry = entry.expect("a fixture entry");
        let target: PathBuf = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            std::fs::create_dir_all(&target).expect("a dir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a file");
        }
    }
}

fn fast_tools() -> Vec<&'static ToolDef> {
    tools::TOOLS
        .iter()
        .filter(|t| !SLOW.contains(&t.name))
        .collect()
}

/// Input: one byte choosing the tool, then the arguments as JSON.
pub fn dispatch(data: &[u8]) {
    let Some((&which, args)) = data.split_first() else {
        return;
    };
    // JSON syntax is serde_json's business; what the tools make of the values is ours.
    let Ok(args) = serde_json::from_slice::<Value>(args) else {
        return;
    };
    let tools = fast_tools();
    let tool = tools[usize::from(which) % tools.len()];
    CONTEXT.with(|ctx| {
        if let Err(err) = tools::dispatch(ctx, tool.name, args.clone())
            && matches!(err.code, ErrorCode::Internal)
        {
            panic!("{} with {args}: {}", tool.name, err.message);
        }
    });
}
