//! `get_function_at_line`: the innermost function or method containing a line.

use super::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::workspace::read_source;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Return the innermost function or method that contains a line of a file: name, \
kind, scope, qualified name, signature, start and end lines and its full source. Use it to turn a \
line number from a stack trace, test failure or search hit into the code around it.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File path, relative to the workspace root.
    pub file_path: String,
    /// 1-based line number.
    pub line: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub file: String,
    pub language: String,
    pub name: String,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    pub qualified_name: String,
    pub signature: String,
    pub start_line: usize,
    pub end_line: usize,
    pub content: String,
    /// True when the file has syntax errors (the function was recovered around them).
    pub partial: bool,
    /// True when the file is not valid UTF-8: `content` has U+FFFD where bytes were invalid,
    /// so it is not a byte-exact copy to edit against.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let target = ctx.ws.resolve_file(&p.file_path)?;
    ctx.touched(&target);
    let (_, entry) = ctx.file_entry(&target)?;
    let source = read_source(&target.abs, &target.rel, ctx.ws.config.max_file_bytes)?;
    let lines = source.line_count();
    if p.line == 0 || p.line > lines {
        return Err(ToolError::invalid_parameter(format!(
            "line {} is outside '{}', which has {lines} lines",
            p.line, target.rel
        ))
        .with("file", target.rel)
        .with("line", p.line)
        .with("lines", lines));
    }
    let symbols = &entry.symbols.symbols;
    let Some(found) = crate::analysis::innermost_at(symbols, p.line, |s| s.kind.is_callable())
    else {
        let before = symbols
            .iter()
            .filter(|s| s.kind.is_callable() && s.end_line < p.line)
            .max_by_key(|s| s.end_line);
        let after = symbols
            .iter()
            .filter(|s| s.kind.is_callable() && s.line > p.line)
            .min_by_key(|s| s.line);
        let describe = |s: &crate::analysis::Symbol| {
            format!("{} (lines {}-{})", s.qualified_name, s.line, s.end_line)
        };
        let mut err = ToolError::new(
            ErrorCode::NoEnclosingFunction,
            format!(
                "line {} of '{}' is not inside any function or method",
                p.line, target.rel
            ),
        )
        .with("file", target.rel.clone())
        .with("line", p.line);
        if let Some(s) = before {
            err = err.with("previous_function", describe(s));
        }
        if let Some(s) = after {
            err = err.with("next_function", describe(s));
        }
        return Err(err.with(
            "hint",
            "use analyze_structure to see what the file contains",
        ));
    };
    let content: Vec<&str> = source
        .text
        .lines()
        .skip(found.line - 1)
        .take(found.end_line - found.line + 1)
        .collect();
    Ok(Output {
        file: target.rel,
        language: entry.symbols.language.clone(),
        name: found.name.clone(),
        kind: found.kind.as_str(),
        scope: found.scope.clone(),
        qualified_name: found.qualified_name.clone(),
        signature: found.signature.clone(),
        start_line: found.line,
        end_line: found.end_line,
        content: content.join("\n"),
        partial: !entry.symbols.errors.is_empty(),
        lossy: source.lossy,
    })
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn innermost_function_and_clear_errors() {
        let (_d, ctx) = project(&[(
            "svc.py",
            "import os\n\nclass A:\n    def one(self):\n        def inner():\n            return 1\n        return inner()\n",
        )]);
        let out = run(
            &ctx,
            "get_function_at_line",
            json!({"file_path": "svc.py", "line": 6}),
        )
        .unwrap();
        assert_eq!(out["name"], "inner");
        assert_eq!(out["qualified_name"], "A.one.inner");
        let out = run(
            &ctx,
            "get_function_at_line",
            json!({"file_path": "svc.py", "line": 7}),
        )
        .unwrap();
        assert_eq!(
            (
                out["name"].as_str(),
                out["start_line"].as_u64(),
                out["end_line"].as_u64()
            ),
            (Some("one"), Some(4), Some(7))
        );
        assert!(
            out["content"]
                .as_str()
                .unwrap()
                .starts_with("    def one(self):")
        );
        let err = run(
            &ctx,
            "get_function_at_line",
            json!({"file_path": "svc.py", "line": 1}),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), "NO_ENCLOSING_FUNCTION");
        let err = run(
            &ctx,
            "get_function_at_line",
            json!({"file_path": "svc.py", "line": 99}),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
        let err = run(
            &ctx,
            "get_function_at_line",
            json!({"file_path": "../x.py", "line": 1}),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), "OUTSIDE_WORKSPACE");
    }
}
