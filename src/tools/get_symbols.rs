//! `get_symbols`: every symbol of a file or a directory, optionally filtered by kind.

use super::find_definitions::{Definition, in_scope, parse_kind};
use super::search_text::bounded;
use super::{Context, ParseIssue, parse_issues};
use crate::error::{ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "List the symbols (functions, methods, classes, interfaces, types, constants, \
properties …) of a file, or of every supported file in a directory, in file and line order. Filter \
with `kinds`. A file with syntax errors still returns the symbols the parser recovered, with \
`partial: true` and the errors.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File or directory, relative to the workspace root.
    pub path: String,
    /// Only these kinds (`class`, `method`, `function`, `interface`, …).
    pub kinds: Option<Vec<String>>,
    /// Maximum symbols returned (1-20000, default 2000).
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub symbols: Vec<Definition>,
    pub total: usize,
    pub truncated: bool,
    pub files: usize,
    /// True when some file had syntax errors (its symbols are what could be recovered).
    pub partial: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ParseIssue>,
    /// Files under the path that were not parsed, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<crate::index::SkippedFile>,
    /// Files that are not valid UTF-8 and were decoded with U+FFFD replacements (README's text
    /// policy): their symbols are listed, but their text is not byte-exact.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lossy_files: Vec<String>,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let max_results = bounded("max_results", p.max_results.unwrap_or(2000), 1, 20000)?;
    let kinds = p
        .kinds
        .unwrap_or_default()
        .iter()
        .map(|k| parse_kind(k))
        .collect::<ToolResult<Vec<_>>>()?;
    let target = ctx.ws.resolve(&p.path)?;
    ctx.touched(&target);
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    if target.is_dir {
        let (snapshot, _) = ctx
            .symbols
            .refresh(&ctx.ws, &target.abs)
            .map_err(ToolError::from)?;
        for (file, entry) in snapshot
            .files
            .iter()
            .filter(|(f, _)| in_scope(f, &target.rel))
        {
            entries.push((file.clone(), entry.clone()));
        }
        for (file, reason) in snapshot
            .skipped
            .iter()
            .filter(|(f, _)| in_scope(f, &target.rel))
        {
            skipped.push(crate::index::SkippedFile {
                file: file.clone(),
                reason: reason.clone(),
            });
        }
        skipped.sort_by(|a, b| a.file.cmp(&b.file));
    } else {
        let (_, entry) = ctx.file_entry(&target)?;
        entries.push((target.rel.clone(), entry));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut symbols = Vec::new();
    let mut errors = Vec::new();
    for (file, entry) in &entries {
        errors.extend(parse_issues(file, entry));
        for s in &entry.symbols.symbols {
            if kinds.is_empty() || kinds.contains(&s.kind) {
                symbols.push(Definition {
                    file: file.clone(),
                    language: entry.symbols.language.clone(),
                    symbol: s.clone(),
                });
            }
        }
    }
    let total = symbols.len();
    symbols.truncate(max_results);
    Ok(Output {
        truncated: total > symbols.len(),
        total,
        symbols,
        files: entries.len(),
        partial: !errors.is_empty(),
        errors,
        skipped,
        lossy_files: entries
            .iter()
            .filter(|(_, entry)| entry.lossy)
            .map(|(file, _)| file.clone())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn file_directory_kinds_and_partial() {
        let (_d, ctx) = project(&[
            ("src/a.py", "class A:\n    def m(self):\n        pass\n"),
            (
                "src/broken.py",
                "def ok():\n    pass\n\ndef bad(:\n    pass\n",
            ),
            ("src/big.js", &"x".repeat(3 * 1024 * 1024)),
        ]);
        let out = run(
            &ctx,
            "get_symbols",
            json!({"path": "src/a.py", "kinds": ["method"]}),
        )
        .unwrap();
        assert_eq!(out["total"], 1);
        assert_eq!(out["symbols"][0]["name"], "m");
        let out = run(&ctx, "get_symbols", json!({"path": "src"})).unwrap();
        assert_eq!(out["files"], 2);
        assert_eq!(out["partial"], true);
        assert_eq!(out["errors"][0]["code"], "PARSE_ERROR");
        assert_eq!(out["skipped"][0]["file"], "src/big.js");
        let err = run(&ctx, "get_symbols", json!({"path": "src/big.js"})).unwrap_err();
        assert_eq!(err.code.as_str(), "FILE_TOO_LARGE");
        let err = run(
            &ctx,
            "get_symbols",
            json!({"path": "src", "kinds": ["bogus"]}),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
    }
}
