//! `find_references`: uses of a symbol as a whole identifier, its definitions left out.
//!
//! The search is `crate::search::references`: ripgrep's engine with word boundaries over source
//! files, definition sites removed and each use named by the function or class it sits in.

use super::find_definitions::parse_language;
use super::search_text::bounded;
use super::{Context, check_symbol, resolve_or_root};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::search::references::uses;
use crate::workspace::WalkOptions;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Find the uses of a symbol across the code: whole-identifier matches (not inside \
longer names), definitions excluded. Each reference has file, 1-based line and column, the line's \
text and the definition around it (function, method, class, or a variable whose value spans lines, \
such as a wrapped route handler). A qualified name (`App\\Models\\Product`, \
`CartService::add`) searches for its last part.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Symbol name (`AuthService`, `login`, `App\\Models\\Product`).
    pub symbol: String,
    /// Limit to a file or directory, relative to the workspace root.
    pub path: Option<String>,
    /// Limit to one language id.
    pub language: Option<String>,
    /// Maximum references returned (1-5000, default 200); the total is still counted.
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub references: Vec<Reference>,
    /// All uses found (beyond `max_results` too), definitions excluded.
    pub total: usize,
    pub truncated: bool,
    /// Definition sites that matched and were left out.
    pub definitions_excluded: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Reference {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub text: String,
    /// Qualified name of the innermost function, method or class around the use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing_kind: Option<&'static str>,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let symbol = check_symbol(&p.symbol)?;
    let name = symbol.rsplit(['\\', ':', '.']).next().unwrap_or(symbol);
    if name.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidSymbol,
            format!("'{symbol}' has no name part"),
        ));
    }
    let max_results = bounded("max_results", p.max_results.unwrap_or(200), 1, 5000)?;
    let language = p.language.as_deref().map(parse_language).transpose()?;
    let base = resolve_or_root(ctx, p.path.as_deref())?;
    let (snapshot, _) = ctx
        .symbols
        .refresh(&ctx.ws, &base.abs)
        .map_err(ToolError::from)?;

    let types = match language {
        Some(id) => vec![id.to_string()],
        None => crate::lang::ids().into_iter().map(String::from).collect(),
    };
    let found = uses(
        &ctx.ws,
        &base.abs,
        &WalkOptions {
            globs: Vec::new(),
            types,
        },
        &snapshot,
        &[name],
        Some(ctx.deadline()),
    )?;
    if found.timed_out {
        return Err(ToolError::new(
            ErrorCode::Timeout,
            "find_references did not finish within the time limit",
        ));
    }
    let mut references: Vec<Reference> = found
        .uses
        .into_iter()
        .map(|u| Reference {
            file: u.file,
            line: u.line,
            column: u.column,
            text: u.text.trim().to_string(),
            enclosing: u.enclosing.as_ref().map(|s| s.qualified_name.clone()),
            enclosing_kind: u.enclosing.as_ref().map(|s| s.kind.as_str()),
        })
        .collect();
    let total = references.len();
    references.truncate(max_results);
    Ok(Output {
        truncated: total > references.len(),
        total,
        references,
        definitions_excluded: found.definitions_excluded,
    })
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn uses_without_definitions_or_longer_names() {
        let (_d, ctx) = project(&[
            (
                "auth.py",
                "class AuthService:\n    def login(self):\n        return True\n",
            ),
            (
                "api.py",
                "from auth import AuthService\n\ndef handler():\n    svc = AuthService()\n    AuthServiceFactory()\n    return svc.login()\n",
            ),
            ("notes.md", "AuthService is documented here\n"),
        ]);
        let out = run(&ctx, "find_references", json!({"symbol": "AuthService"})).unwrap();
        let refs: Vec<(String, u64)> = out["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["file"].as_str().unwrap().to_string(),
                    r["line"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            refs,
            vec![("api.py".to_string(), 1), ("api.py".to_string(), 4)]
        );
        assert_eq!(out["definitions_excluded"], 1);
        assert_eq!(out["references"][1]["enclosing"], "handler");
        let out = run(&ctx, "find_references", json!({"symbol": "login"})).unwrap();
        assert_eq!(out["total"], 1);
        assert_eq!(out["references"][0]["enclosing"], "handler");
    }

    /// A handler wrapped in a call (`const login = catchAsync(async … => { … })`) is a variable
    /// that holds code: a use inside it is its use. A one-line variable is only a value.
    #[test]
    fn a_variable_spanning_lines_encloses_its_uses() {
        let (_dir, ctx) = project(&[(
            "auth.controller.js",
            "const check = authService.check;\nconst login = catchAsync(async (req, res) => {\n  await authService.check(req.body);\n  res.send();\n});\n",
        )]);
        let out = run(&ctx, "find_references", json!({"symbol": "check"})).unwrap();
        let enclosing: Vec<&serde_json::Value> = out["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["enclosing"])
            .collect();
        assert_eq!(enclosing, [&json!(null), &json!("login")], "{out}");
        assert_eq!(out["references"][1]["enclosing_kind"], "variable");
    }
}
