//! `search_text`: ripgrep's engine over the workspace.

use super::{Context, resolve_or_root};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::search::text::{TextQuery, search};
use crate::workspace::WalkOptions;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Search file contents with a regular expression (ripgrep's engine, in-process). \
Respects .gitignore and skips binary files, dependencies and build output. Smart case by default: \
case-insensitive unless the pattern contains an uppercase letter. Returns matching lines with \
file, 1-based line and column, optional context lines, the true total and `truncated` when \
more matches exist than `max_results`. Use find_definitions / find_references for symbols.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Regular expression (Rust regex syntax, like ripgrep), or a literal when `fixed_strings`.
    pub pattern: String,
    /// File or directory to search, relative to the workspace root (default: the whole workspace).
    pub path: Option<String>,
    /// Restrict to a language or ripgrep file type: `python`, `php`, `typescript`, `py`, `js`, `md`, …
    /// Several may be given separated by commas.
    pub file_type: Option<String>,
    /// Glob filters in gitignore syntax; prefix with `!` to exclude (e.g. `["*.php", "!tests/**"]`).
    pub glob: Option<Vec<String>>,
    /// Treat `pattern` as a literal string (default false).
    pub fixed_strings: Option<bool>,
    /// Force case sensitivity on (true) or off (false); omitted = smart case.
    pub case_sensitive: Option<bool>,
    /// Match whole words only (default false).
    pub word: Option<bool>,
    /// Lines of context before each match (0-20, default 0).
    pub context_before: Option<usize>,
    /// Lines of context after each match (0-20, default 0).
    pub context_after: Option<usize>,
    /// Maximum matches returned (1-5000, default 100); the total is still counted.
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub matches: Vec<TextMatch>,
    /// Matching lines in all searched files, even beyond `max_results`.
    pub total_matches: usize,
    pub files_with_matches: usize,
    pub files_searched: usize,
    /// True when `matches` holds fewer than `total_matches`.
    pub truncated: bool,
    pub elapsed_ms: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TextMatch {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

const MAX_CONTEXT: usize = 20;
const MAX_RESULTS: usize = 5000;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let started = std::time::Instant::now();
    if p.pattern.is_empty() {
        return Err(ToolError::invalid_parameter("pattern is empty").with("parameter", "pattern"));
    }
    let context_before = bounded(
        "context_before",
        p.context_before.unwrap_or(0),
        0,
        MAX_CONTEXT,
    )?;
    let context_after = bounded(
        "context_after",
        p.context_after.unwrap_or(0),
        0,
        MAX_CONTEXT,
    )?;
    let max_results = bounded("max_results", p.max_results.unwrap_or(100), 1, MAX_RESULTS)?;
    let base = resolve_or_root(ctx, p.path.as_deref())?;
    let walk = WalkOptions {
        globs: p.glob.unwrap_or_default(),
        types: p
            .file_type
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
    };
    let query = TextQuery {
        pattern: p.pattern,
        fixed_strings: p.fixed_strings.unwrap_or(false),
        case_sensitive: p.case_sensitive,
        word: p.word.unwrap_or(false),
        context_before,
        context_after,
        max_results,
        deadline: Some(ctx.deadline()),
    };
    let results = search(&ctx.ws, &base.abs, &walk, &query)?;
    if results.timed_out {
        return Err(ToolError::new(
            ErrorCode::Timeout,
            "search_text did not finish within the time limit",
        )
        .with("limit_secs", ctx.ws.config.tool_timeout_secs)
        .with("hint", "narrow the search with path, file_type or glob"));
    }
    Ok(Output {
        matches: results
            .hits
            .into_iter()
            .map(|h| TextMatch {
                file: h.file,
                line: h.line,
                column: h.column,
                text: h.text,
                before: h.before,
                after: h.after,
            })
            .collect(),
        total_matches: results.total_matches,
        files_with_matches: results.files_with_matches,
        files_searched: results.files_searched,
        truncated: results.truncated,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

pub(super) fn bounded(name: &str, value: usize, min: usize, max: usize) -> ToolResult<usize> {
    if value < min || value > max {
        return Err(ToolError::invalid_parameter(format!(
            "{name} must be between {min} and {max}, got {value}"
        ))
        .with("parameter", name)
        .with("min", min)
        .with("max", max));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn finds_matches_with_context_and_counts_past_the_limit() {
        let (_d, ctx) = project(&[
            ("a.py", "one\nneedle here\nthree\n"),
            ("b.py", "needle\nneedle\n"),
            ("c.bin", "needle\0\0"),
        ]);
        let out = run(
            &ctx,
            "search_text",
            json!({"pattern": "needle", "context_before": 1, "context_after": 1, "max_results": 2}),
        )
        .unwrap();
        assert_eq!(out["total_matches"], 3);
        assert_eq!(out["truncated"], true);
        assert_eq!(out["matches"].as_array().unwrap().len(), 2);
        let first = &out["matches"][0];
        assert_eq!(
            (first["file"].as_str(), first["line"].as_u64()),
            (Some("a.py"), Some(2))
        );
        assert_eq!(first["before"], json!(["one"]));
        assert_eq!(first["after"], json!(["three"]));
    }

    #[test]
    fn invalid_regex_is_an_error_not_an_empty_result() {
        let (_d, ctx) = project(&[("a.py", "x\n")]);
        let err = run(&ctx, "search_text", json!({"pattern": "foo("})).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
        assert!(err.message.contains("regular expression"));
    }

    #[test]
    fn smart_case_file_type_and_unknown_arguments() {
        let (_d, ctx) = project(&[("a.py", "Login\n"), ("b.ts", "login\n")]);
        assert_eq!(
            run(&ctx, "search_text", json!({"pattern": "login"})).unwrap()["total_matches"],
            2
        );
        assert_eq!(
            run(&ctx, "search_text", json!({"pattern": "Login"})).unwrap()["total_matches"],
            1
        );
        assert_eq!(
            run(
                &ctx,
                "search_text",
                json!({"pattern": "login", "file_type": "typescript"})
            )
            .unwrap()["total_matches"],
            1
        );
        let err = run(&ctx, "search_text", json!({"pattern": "x", "bogus": 1})).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
        assert!(err.message.contains("bogus"));
    }
}
