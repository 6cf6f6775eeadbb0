//! `search_files`: find files by glob or by a ranked fuzzy match on their path.

use super::search_text::bounded;
use super::{Context, resolve_or_root};
use crate::error::{ToolError, ToolResult};
use crate::workspace::{WalkOptions, walk_files};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Find files by name. A pattern with glob characters (`*`, `?`, `[`, `{`) is a \
glob matched against the path relative to the root (`**/*.blade.php`, `app/Models/*.php`); anything \
else is matched against file names and paths, best first: exact name, name prefix, name substring, \
path substring, then in-order (fuzzy) characters. Respects .gitignore. Returns path, size and language.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// A glob (`**/*Controller.php`) or a name fragment (`usercontroller`, `auth/service`).
    pub pattern: String,
    /// Directory to search in, relative to the workspace root (default: the whole workspace).
    pub path: Option<String>,
    /// Maximum files returned (1-2000, default 50).
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub files: Vec<FoundFile>,
    pub total: usize,
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FoundFile {
    pub path: String,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<&'static str>,
    /// Match quality, higher is better (globs all score 1.0).
    pub score: f64,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let pattern = p.pattern.trim();
    if pattern.is_empty() {
        return Err(ToolError::invalid_parameter("pattern is empty").with("parameter", "pattern"));
    }
    let max_results = bounded("max_results", p.max_results.unwrap_or(50), 1, 2000)?;
    let base = resolve_or_root(ctx, p.path.as_deref())?;
    let files = walk_files(&ctx.ws, &base.abs, &WalkOptions::default()).map_err(ToolError::from)?;
    let is_glob = pattern.contains(['*', '?', '[', '{']);
    let mut found: Vec<FoundFile> = if is_glob {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(false)
            .build()
            .map_err(|err| {
                ToolError::invalid_parameter(format!("invalid glob: {err}"))
                    .with("pattern", pattern)
            })?
            .compile_matcher();
        files
            .into_iter()
            .filter(|f| {
                glob.is_match(&f.rel) || glob.is_match(f.rel.rsplit('/').next().unwrap_or(&f.rel))
            })
            .map(|f| FoundFile {
                language: crate::lang::detect(&f.rel).map(|l| l.id),
                path: f.rel,
                size: f.size,
                score: 1.0,
            })
            .collect()
    } else {
        let needle = pattern.to_lowercase();
        files
            .into_iter()
            .filter_map(|f| {
                let score = fuzzy_score(&needle, &f.rel.to_lowercase())?;
                Some(FoundFile {
                    language: crate::lang::detect(&f.rel).map(|l| l.id),
                    path: f.rel,
                    size: f.size,
                    score,
                })
            })
            .collect()
    };
    found.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.path.len().cmp(&b.path.len()))
            .then(a.path.cmp(&b.path))
    });
    let total = found.len();
    found.truncate(max_results);
    Ok(Output {
        truncated: total > found.len(),
        total,
        files: found,
    })
}

/// Scores a lowercase needle against a lowercase path; `None` when it does not match at all.
fn fuzzy_score(needle: &str, path: &str) -> Option<f64> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    if name == needle || stem == needle {
        return Some(1.0);
    }
    if name.starts_with(needle) {
        return Some(0.9);
    }
    if name.contains(needle) {
        return Some(0.8);
    }
    if path.contains(needle) {
        return Some(0.7);
    }
    // In-order characters; tighter spans score higher, and matches in the file name higher still.
    let mut chars = needle.chars().filter(|c| !c.is_whitespace());
    let mut want = chars.next()?;
    let mut first = None;
    for (i, c) in path.char_indices() {
        if c == want {
            first.get_or_insert(i);
            match chars.next() {
                Some(next) => want = next,
                None => {
                    let span = (i - first.unwrap_or(0) + 1) as f64;
                    let density = needle.len() as f64 / span;
                    let in_name = first.unwrap_or(0) >= path.len() - name.len();
                    return Some(0.3 + 0.3 * density.min(1.0) + if in_name { 0.05 } else { 0.0 });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn ranks_exact_names_first_and_supports_globs() {
        let (_d, ctx) = project(&[
            ("app/Http/Controllers/UserController.php", "<?php"),
            ("app/Models/User.php", "<?php"),
            ("resources/views/user/index.blade.php", "x"),
            ("tests/UserControllerTest.php", "<?php"),
        ]);
        let out = run(&ctx, "search_files", json!({"pattern": "UserController"})).unwrap();
        assert_eq!(
            out["files"][0]["path"],
            "app/Http/Controllers/UserController.php"
        );
        assert_eq!(out["files"][0]["language"], "php");
        let out = run(&ctx, "search_files", json!({"pattern": "**/*.blade.php"})).unwrap();
        assert_eq!(out["total"], 1);
        assert_eq!(out["files"][0]["language"], "blade");
        let out = run(&ctx, "search_files", json!({"pattern": "usrctl"})).unwrap();
        assert!(out["total"].as_u64().unwrap() >= 1);
    }
}
