//! `analyze_structure`: each file's symbols as a tree (class → methods, module → functions).

use super::find_definitions::in_scope;
use super::search_text::bounded;
use super::{Context, ParseIssue, parse_issues};
use crate::analysis::Symbol;
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Show the structure of a file or directory: per file, its symbols nested as in \
the code (namespace → class → methods and properties, module → functions) with start and end \
lines and signatures. Use it to see the shape of code before reading it.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File or directory, relative to the workspace root.
    pub path: String,
    /// For a directory: maximum files described (1-2000, default 200).
    pub max_files: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub files: Vec<FileStructure>,
    pub total_files: usize,
    pub truncated: bool,
    pub partial: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileStructure {
    pub file: String,
    pub language: String,
    pub symbols: Vec<Node>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ParseIssue>,
    /// True when the file is not valid UTF-8 and was decoded with U+FFFD replacements.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Node {
    pub name: String,
    pub kind: &'static str,
    pub line: usize,
    pub end_line: usize,
    pub signature: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Value>")]
    pub children: Vec<Node>,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let max_files = bounded("max_files", p.max_files.unwrap_or(200), 1, 2000)?;
    let target = ctx.ws.resolve(&p.path)?;
    ctx.touched(&target);
    let mut entries = Vec::new();
    if target.is_dir {
        let (snapshot, _) = ctx
            .symbols
            .refresh(&ctx.ws, &target.abs)
            .map_err(ToolError::from)?;
        entries.extend(
            snapshot
                .files
                .iter()
                .filter(|(f, _)| in_scope(f, &target.rel))
                .map(|(f, e)| (f.clone(), e.clone())),
        );
    } else {
        let (_, entry) = ctx.file_entry(&target)?;
        entries.push((target.rel.clone(), entry));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let total_files = entries.len();
    let files: Vec<FileStructure> = entries
        .into_iter()
        .take(max_files)
        .map(|(file, entry)| FileStructure {
            errors: parse_issues(&file, &entry),
            lossy: entry.lossy,
            language: entry.symbols.language.clone(),
            symbols: nest(&entry.symbols.symbols),
            file,
        })
        .collect();
    let partial = files.iter().any(|f| !f.errors.is_empty());
    Ok(Output {
        truncated: total_files > files.len(),
        total_files,
        files,
        partial,
    })
}

/// Nests symbols by line containment. Symbols arrive in source order, outer before inner.
fn nest(symbols: &[Symbol]) -> Vec<Node> {
    let mut roots: Vec<Node> = Vec::new();
    // Path of indices from the roots to the current innermost open node.
    let mut open: Vec<usize> = Vec::new();
    for s in symbols {
        let node = Node {
            name: s.name.clone(),
            kind: s.kind.as_str(),
            line: s.line,
            end_line: s.end_line,
            signature: s.signature.clone(),
            children: Vec::new(),
        };
        // Close the open nodes that do not contain this symbol. A property never contains
        // anything, even a same-line neighbour (a promoted constructor property).
        while let Some(parent) = open_node(&mut roots, &open) {
            if s.line >= parent.line && s.end_line <= parent.end_line && parent.kind != "property" {
                break;
            }
            open.pop();
        }
        let siblings = match open_node(&mut roots, &open) {
            Some(parent) => &mut parent.children,
            None => &mut roots,
        };
        siblings.push(node);
        open.push(siblings.len() - 1);
    }
    roots
}

fn open_node<'a>(roots: &'a mut [Node], path: &[usize]) -> Option<&'a mut Node> {
    let (first, rest) = path.split_first()?;
    let mut node = roots.get_mut(*first)?;
    for i in rest {
        node = node.children.get_mut(*i)?;
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn classes_contain_their_methods() {
        let (_d, ctx) = project(&[(
            "svc.py",
            "class A:\n    def one(self):\n        pass\n\n    def two(self):\n        pass\n\ndef top():\n    pass\n",
        )]);
        let out = run(&ctx, "analyze_structure", json!({"path": "svc.py"})).unwrap();
        let symbols = &out["files"][0]["symbols"];
        assert_eq!(symbols[0]["name"], "A");
        assert_eq!(symbols[0]["children"][1]["name"], "two");
        assert_eq!(symbols[1]["name"], "top");
    }
}
