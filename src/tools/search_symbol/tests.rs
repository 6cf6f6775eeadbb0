//! `search_symbol` on the spec's example project and across languages: match types, type
//! filters, case and identifier-word options, result fields, and `INVALID_SYMBOL`.

use crate::tools::test_support::{fixture_copy, project, run};
use serde_json::{Value, json};

fn search(ctx: &crate::tools::Context, args: Value) -> Value {
    run(ctx, "search_symbol", args).unwrap()
}

fn names(out: &Value) -> Vec<String> {
    out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"].as_str().unwrap().to_string())
        .collect()
}

/// The 1-based (line, column) where `name` first appears after `prefix` in `file`.
fn position(root: &std::path::Path, file: &str, prefix: &str, name: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    for (i, line) in text.lines().enumerate() {
        if let Some(at) = line.find(&format!("{prefix}{name}")) {
            return (i + 1, at + prefix.len() + 1);
        }
    }
    panic!("{prefix}{name} not in {file}");
}

#[test]
fn spec_example_results() {
    let (dir, ctx) = fixture_copy("api-spec");
    let out = search(&ctx, json!({"symbol": "UserService"}));
    let class = &out["results"][0];
    let (line, column) = position(
        dir.path(),
        "src/services/UserService.ts",
        "export class ",
        "UserService",
    );
    assert_eq!(
        (
            &class["symbol"],
            &class["type"],
            &class["file"],
            &class["line"],
            &class["column"],
            &class["exported"]
        ),
        (
            &json!("UserService"),
            &json!("class"),
            &json!("src/services/UserService.ts"),
            &json!(line),
            &json!(column),
            &json!(true)
        )
    );
    assert!(
        class["context"]
            .as_str()
            .unwrap()
            .starts_with("export class UserService {\n")
    );
    assert!(class.get("signature").is_none());
    assert!(out["searchTime"].as_f64().unwrap() >= 0.0);
    assert!(out["filesScanned"].as_u64().unwrap() >= 10);

    let out = search(
        &ctx,
        json!({"symbol": "getUserById", "type": "function", "matchType": "exact"}),
    );
    let (line, column) = position(
        dir.path(),
        "src/utils/userHelper.ts",
        "export function ",
        "getUserById",
    );
    assert_eq!(
        out["results"][0],
        json!({
            "symbol": "getUserById", "type": "function", "file": "src/utils/userHelper.ts",
            "line": line, "column": column,
            "signature": "getUserById(id: string): User | undefined",
            "exported": true, "language": "typescript",
            "context": out["results"][0]["context"].clone()
        })
    );
    let user = search(&ctx, json!({"symbol": "User", "type": "type"}));
    assert_eq!(user["results"][0]["type"], "interface");
    assert_eq!(user["results"][0]["file"], "src/types/User.ts");
    assert_eq!(
        user["results"][0]["column"],
        position(dir.path(), "src/types/User.ts", "export interface ", "User").1
    );
}

#[test]
fn match_types_filters_and_options() {
    let (_dir, ctx) = project(&[
        (
            "src/users.ts",
            "export class UserService {}\nexport class UserRepository {}\nexport function getCurrentUser() {}\nexport const user_count = 1;\n",
        ),
        (
            "src/auth.py",
            "class AuthService:\n    def get_user_by_id(self, user_id: int):\n        pass\n",
        ),
        ("src/Main.java", "class Main { void getUserById() {} }\n"),
    ]);
    let matched = |args: Value| {
        let mut n = names(&search(&ctx, args));
        n.sort();
        n
    };
    assert_eq!(
        matched(json!({"symbol": "User", "matchType": "prefix"})),
        ["UserRepository", "UserService"]
    );
    assert_eq!(
        matched(json!({"symbol": "Service", "matchType": "suffix"})),
        ["AuthService", "UserService"]
    );
    assert_eq!(
        matched(json!({"symbol": "User", "matchType": "contains"})),
        [
            "UserRepository",
            "UserService",
            "getCurrentUser",
            "getUserById"
        ]
    );
    assert_eq!(
        matched(json!({"symbol": "user", "matchType": "contains", "caseSensitive": false})),
        [
            "UserRepository",
            "UserService",
            "getCurrentUser",
            "getUserById",
            "get_user_by_id",
            "user_count"
        ]
    );
    assert_eq!(
        matched(json!({"symbol": "getUserById", "identifierWords": true})),
        ["getUserById", "get_user_by_id"]
    );
    assert_eq!(
        matched(json!({"symbol": "User", "matchType": "contains", "type": "class"})),
        ["UserRepository", "UserService"]
    );
    assert_eq!(
        matched(json!({"symbol": "user", "matchType": "contains", "type": "variable"})),
        ["user_count"]
    );
    assert_eq!(
        matched(json!({"symbol": "get", "matchType": "prefix", "language": "python"})),
        ["get_user_by_id"]
    );
    let method = search(&ctx, json!({"symbol": "get_user_by_id"}));
    assert_eq!(method["results"][0]["type"], "method");
    assert_eq!(
        method["results"][0]["signature"],
        "get_user_by_id(self, user_id: int)"
    );
    assert_eq!(method["results"][0]["scope"], "AuthService");
    let limited = search(
        &ctx,
        json!({"symbol": "User", "matchType": "contains", "maxResults": 1}),
    );
    assert_eq!(
        (&limited["total"], &limited["truncated"]),
        (&json!(4), &json!(true))
    );
    // No match is an empty result, not an error.
    let none = search(&ctx, json!({"symbol": "Nope"}));
    assert_eq!(none["results"], json!([]));
}

#[test]
fn invalid_input() {
    let (_dir, ctx) = project(&[("a.ts", "export const a = 1;\n")]);
    let code = |args: Value| {
        run(&ctx, "search_symbol", args)
            .unwrap_err()
            .code
            .as_str()
            .to_string()
    };
    assert_eq!(code(json!({"symbol": ""})), "INVALID_SYMBOL");
    assert_eq!(code(json!({"symbol": "  "})), "INVALID_SYMBOL");
    assert_eq!(code(json!({"symbol": "two words"})), "INVALID_SYMBOL");
    assert_eq!(
        code(json!({"symbol": "a", "type": "gizmo"})),
        "INVALID_PARAMETER"
    );
    assert_eq!(
        code(json!({"symbol": "a", "matchType": "fuzzy"})),
        "INVALID_PARAMETER"
    );
    assert_eq!(
        code(json!({"symbol": "a", "maxResults": 0})),
        "INVALID_PARAMETER"
    );
    assert_eq!(
        code(json!({"symbol": "a", "path": "../x"})),
        "OUTSIDE_WORKSPACE"
    );
}
