//! `analyze_project`: totals, structure, dependencies, exports and statistics checked against
//! the fixture files themselves; patterns; partial analysis; error codes.

use crate::tools::test_support::{fixture_copy, project, run};
use serde_json::{Value, json};

fn analyze(ctx: &crate::tools::Context, args: Value) -> Value {
    run(ctx, "analyze_project", args).unwrap()
}

/// Supported source files under `root`, with their sizes and line counts, walked directly.
fn files_on_disk(root: &std::path::Path, ext: &[&str]) -> Vec<(String, u64, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if ext.iter().any(|e| name.ends_with(&format!(".{e}"))) {
                let text = std::fs::read_to_string(&path).unwrap();
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                out.push((rel, text.len() as u64, text.lines().count()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn totals_statistics_dependencies_and_exports_of_the_spec_project() {
    let (dir, ctx) = fixture_copy("api-spec");
    let out = analyze(&ctx, json!({"rootPath": "."}));
    let on_disk = files_on_disk(dir.path(), &["ts", "tsx", "js", "jsx"]);
    let lines: usize = on_disk.iter().map(|f| f.2).sum();
    let size: u64 = on_disk.iter().map(|f| f.1).sum();
    assert_eq!(out["project"]["totalFiles"], on_disk.len());
    assert_eq!(out["project"]["totalLines"], lines);
    assert!(out["project"]["analyzedAt"].as_i64().unwrap() > 1_700_000_000_000);
    let stats = &out["statistics"];
    assert_eq!(stats["averageLines"], lines / on_disk.len());
    assert_eq!(stats["averageFileSize"], size / on_disk.len() as u64);
    let by_language: usize = stats["filesByLanguage"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap() as usize)
        .sum();
    assert_eq!(by_language, on_disk.len());
    assert!(stats["totalClasses"].as_u64().unwrap() >= 2);
    assert!(stats["totalInterfaces"].as_u64().unwrap() >= 1);
    assert_eq!(stats["totalEnums"], 1); // enums/Role.ts
    // package.json's dependencies are what the code imports.
    let external = out["dependencies"]["external"].as_array().unwrap();
    assert!(external.contains(&json!("@modelcontextprotocol/sdk")));
    assert!(external.contains(&json!("react")));
    let internal = out["dependencies"]["internal"].as_array().unwrap();
    assert!(internal.contains(&json!("src/types/User.ts")));
    assert_eq!(
        out["exports"]["src/services/UserService.ts"],
        json!([{"name": "UserService", "type": "class", "default": false, "reExport": false}])
    );
    assert!(
        out["exports"]["src/index.ts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "startServer" && e["type"] == "function")
    );
    assert_eq!(
        out["circularDependencies"][0]["message"],
        "Circular dependency detected: A -> B -> C -> A"
    );
    assert!(
        out["summary"]
            .as_str()
            .unwrap()
            .starts_with("A TypeScript project (user-directory-mcp: "),
        "{}",
        out["summary"]
    );
    assert_eq!(out["partial"], false);
    // The tree: src/ holds everything, files carry size and lines.
    let src = &out["structure"][0];
    assert_eq!(
        (&src["name"], &src["type"], &src["fileCount"]),
        (&json!("src"), &json!("directory"), &json!(on_disk.len()))
    );
    let index = src["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "index.ts")
        .unwrap();
    let on_disk_index = on_disk.iter().find(|f| f.0 == "src/index.ts").unwrap();
    assert_eq!(
        (
            &index["path"],
            &index["type"],
            &index["size"],
            &index["lines"]
        ),
        (
            &json!("src/index.ts"),
            &json!("file"),
            &json!(on_disk_index.1),
            &json!(on_disk_index.2)
        )
    );
}

#[test]
fn every_language_by_default_and_patterns() {
    let (dir, ctx) = fixture_copy("polyglot");
    let out = analyze(&ctx, json!({"rootPath": "."}));
    let langs = &out["statistics"]["filesByLanguage"];
    for lang in ["go", "java", "rust", "vue", "typescript"] {
        assert!(langs[lang].as_u64().unwrap() >= 1, "{lang}: {langs}");
    }
    let go_only = analyze(
        &ctx,
        json!({"rootPath": "go", "includePatterns": ["**/*.go"]}),
    );
    let go_files = files_on_disk(&dir.path().join("go"), &["go"]);
    assert_eq!(go_only["project"]["totalFiles"], go_files.len());
    assert_eq!(
        go_only["statistics"]["filesByLanguage"],
        json!({"go": go_files.len()})
    );
    assert!(
        go_only["project"]["rootPath"]
            .as_str()
            .unwrap()
            .ends_with("/go")
    );
    let no_cmd = analyze(
        &ctx,
        json!({"rootPath": "go", "excludePatterns": ["cmd/**"]}),
    );
    assert_eq!(no_cmd["project"]["totalFiles"], go_files.len() - 1);
    let detailed = analyze(&ctx, json!({"rootPath": "rust", "mode": "detailed"}));
    let files = detailed["files"].as_array().unwrap();
    assert_eq!(files.len(), 4);
    assert!(
        files
            .iter()
            .all(|f| !f["summary"].as_str().unwrap().is_empty())
    );
    assert!(out.get("files").is_none(), "concise mode lists no files");
}

#[test]
fn partial_analysis_and_error_codes() {
    let (_dir, ctx) = project(&[
        ("ok.py", "def fine():\n    return 1\n"),
        (
            "bad.py",
            "def broken(:\n    pass\n\ndef after():\n    pass\n",
        ),
        ("README.md", "# no code\n"),
    ]);
    let out = analyze(&ctx, json!({"rootPath": "."}));
    assert_eq!(out["partial"], true);
    assert_eq!(out["errors"][0]["code"], "PARTIAL_ANALYSIS");
    assert_eq!(out["errors"][0]["files"][0]["file"], "bad.py");
    assert_eq!(out["project"]["totalFiles"], 2);
    let code = |args: Value| {
        run(&ctx, "analyze_project", args)
            .unwrap_err()
            .code
            .as_str()
            .to_string()
    };
    assert_eq!(code(json!({"rootPath": "missing"})), "INVALID_ROOT_PATH");
    assert_eq!(code(json!({"rootPath": "ok.py"})), "INVALID_ROOT_PATH");
    assert_eq!(code(json!({"rootPath": "../.."})), "INVALID_ROOT_PATH");
    assert_eq!(
        code(json!({"rootPath": ".", "includePatterns": ["**/*.rb"]})),
        "NO_FILES_FOUND"
    );
    assert_eq!(
        code(json!({"rootPath": ".", "includePatterns": ["[bad"]})),
        "INVALID_PARAMETER"
    );
    assert_eq!(code(json!({})), "INVALID_PARAMETER");
}

#[test]
fn a_warm_call_parses_nothing() {
    let (_dir, ctx) = fixture_copy("laravel-shop");
    let cold = analyze(&ctx, json!({"rootPath": "."}));
    let (_, stats) = ctx.outlines.refresh(&ctx.ws, ctx.ws.root()).unwrap();
    assert_eq!(stats.parsed, 0);
    let warm = analyze(&ctx, json!({"rootPath": "."}));
    assert_eq!(cold["statistics"], warm["statistics"]);
    assert_eq!(cold["dependencies"], warm["dependencies"]);
    // Laravel: the PSR-4 namespace App\ is internal, the framework is external.
    let external = warm["dependencies"]["external"].as_array().unwrap();
    assert!(external.contains(&json!("Illuminate\\Database")));
    assert!(
        !external
            .iter()
            .any(|e| e.as_str().unwrap().starts_with("App\\"))
    );
}
