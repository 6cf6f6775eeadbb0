//! Every tool's parameters, through the same dispatch the MCP server uses, on a copy of the
//! polyglot fixture. A panic inside a tool is caught by the dispatcher and turned into an
//! `INTERNAL` error (so one bad call never takes the server down); here that error is the crash.

use code_intel::error::ErrorCode;
use code_intel::tools::{self, Context, ToolDef};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Tools that embed with the model or write the vector store: seconds per call. Their
/// parameters are parsed and checked here as the dispatch does, without running them.
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

/// Input: one byte choosing the tool, then the arguments as JSON.
pub fn dispatch(data: &[u8]) {
    let Some((&which, args)) = data.split_first() else {
        return;
    };
    // JSON syntax is serde_json's business; what the tools make of the values is ours.
    let Ok(args) = serde_json::from_slice::<Value>(args) else {
        return;
    };
    let all: Vec<&'static ToolDef> = tools::TOOLS.iter().collect();
    let tool = all[usize::from(which) % all.len()];
    if SLOW.contains(&tool.name) {
        return parse_only(tool.name, args);
    }
    CONTEXT.with(|ctx| {
        if let Err(err) = tools::dispatch(ctx, tool.name, args.clone())
            && matches!(err.code, ErrorCode::Internal)
        {
            panic!("{} with {args}: {}", tool.name, err.message);
        }
    });
}

/// What the dispatch does with a slow tool's arguments before the tool runs: parse them, and
/// for `semantic_search` check the query and the count. A refusal must be a parameter error.
fn parse_only(name: &str, args: Value) {
    let refused = match name {
        "semantic_search" => tools::params::<tools::semantic_search::Params>(args.clone())
            .and_then(|p| p.checked().map(drop))
            .err(),
        "sync_index" => tools::params::<tools::sync_index::Params>(args.clone()).err(),
        other => unreachable!("{other} is not a slow tool"),
    };
    if let Some(err) = refused
        && !matches!(err.code, ErrorCode::InvalidParameter)
    {
        panic!("{name} with {args}: {:?} {}", err.code, err.message);
    }
}
