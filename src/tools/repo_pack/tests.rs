//! `repo_pack` through the tool interface: output fields, the budget error, parameters.

use crate::tools::test_support::{project, run};
use serde_json::json;

#[test]
fn output_fields_budget_error_and_parameters() {
    let (_dir, ctx) = project(&[
        ("a.ts", "export const a = 1;\n"),
        (
            "big.ts",
            &"export const long_name_value = 12345;\n".repeat(200),
        ),
        (".env", "SECRET=abc\n"),
    ]);
    let out = run(&ctx, "repo_pack", json!({"style": "markdown"})).unwrap();
    assert_eq!(out["file_count"], 2, "hidden .env is not walked");
    assert_eq!(out["style"], "markdown");
    assert_eq!(out["encoding"], "o200k_base");
    let tokens: Vec<u64> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tokens"].as_u64().unwrap())
        .collect();
    assert!(tokens.iter().all(|t| *t > 0));
    assert!(out["total_tokens"].as_u64().unwrap() > tokens.iter().sum::<u64>());
    assert!(out["content"].as_str().unwrap().starts_with("# "));
    assert!(out.get("parts").is_none());

    let err = run(&ctx, "repo_pack", json!({"max_tokens": 100})).unwrap_err();
    assert_eq!(err.code.as_str(), "TOKEN_BUDGET_EXCEEDED");
    assert_eq!(err.details["largest_files"][0]["path"], "big.ts");
    assert!(err.message.contains("big.ts"));

    let split = run(
        &ctx,
        "repo_pack",
        json!({"max_tokens": 4000, "split": true, "compress": true}),
    )
    .unwrap();
    assert_eq!(split["compressed"], true);
    let parts: Vec<u64> = match split["parts"].as_array() {
        Some(parts) => parts
            .iter()
            .map(|p| p["tokens"].as_u64().unwrap())
            .collect(),
        None => vec![split["total_tokens"].as_u64().unwrap()],
    };
    assert!(parts.iter().all(|t| *t <= 4000), "{parts:?}");

    let code = |args: serde_json::Value| {
        run(&ctx, "repo_pack", args)
            .unwrap_err()
            .code
            .as_str()
            .to_string()
    };
    assert_eq!(code(json!({"split": true})), "INVALID_PARAMETER");
    assert_eq!(code(json!({"max_tokens": 0})), "INVALID_PARAMETER");
    assert_eq!(code(json!({"style": "html"})), "INVALID_PARAMETER");
    assert_eq!(code(json!({"include": ["*.rb"]})), "NO_FILES_FOUND");
}

#[test]
fn explored_files_of_the_session() {
    let (_dir, ctx) = project(&[
        ("src/a.ts", "export const a = 1;\n"),
        ("src/lib/b.ts", "export const b = 2;\n"),
        ("src/lib/c.ts", "export const c = 3;\n"),
        ("other.ts", "export const o = 4;\n"),
    ]);
    let err = run(&ctx, "repo_pack", json!({"explored": true})).unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
    let mut state = crate::session::SessionState::new(
        "s1",
        crate::query_frame::Intent::Investigate,
        "how are totals computed",
        &ctx.ws.root().display().to_string(),
        "2026-01-01T00:00:00Z",
    );
    state.explored_files = ["src/a.ts".to_string(), "src/lib/".to_string()]
        .into_iter()
        .collect();
    ctx.sessions.store().create(&state).unwrap();
    let out = run(&ctx, "repo_pack", json!({"explored": true})).unwrap();
    let files: Vec<&str> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["src/a.ts", "src/lib/b.ts", "src/lib/c.ts"]);
}
