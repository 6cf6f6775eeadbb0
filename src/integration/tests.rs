//! The hook fed Claude Code's own PreToolUse JSON (the shape Claude Code sends: session_id,
//! transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input, tool_use_id),
//! against a project whose session is in a known state.

use super::hook::{self, Decision};
use crate::query_frame::Intent;
use crate::session::SessionStore;
use crate::session::state::{Phase, SessionState};
use serde_json::{Value, json};
use std::path::Path;

fn claude_input(root: &Path, tool: &str, tool_input: Value) -> String {
    json!({
        "session_id": "4f1c2a9e-8d6b-4c1e-9f2a-3b5d7e9a1c20",
        "transcript_path": "/home/dev/.claude/projects/-work-shop/4f1c2a9e-8d6b-4c1e-9f2a-3b5d7e9a1c20.jsonl",
        "cwd": root.join("src").display().to_string(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01HookTest",
    })
    .to_string()
}

/// A project with an active session in `phase` that explored `src/auth/service.py` and `docs/`.
fn project_in(phase: Option<Phase>, config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("src/auth/service.py", "class AuthService:\n    pass\n"),
        ("src/config/loader.py", "class ConfigLoader:\n    pass\n"),
        ("notebooks/analysis.ipynb", "{}"),
        (".code-intel/config.json", config),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    if let Some(phase) = phase {
        let root = root.canonicalize().unwrap();
        let mut state = SessionState::new(
            "session_test_1",
            Intent::Modify,
            "fix login",
            &root.display().to_string(),
            "2026-11-01T00:00:00Z",
        );
        state.phase = phase;
        state.explored_files.insert("src/auth/service.py".into());
        state.explored_files.insert("docs/".into());
        SessionStore::new(&root.join(".code-intel"))
            .create(&state)
            .unwrap();
    }
    dir
}

#[test]
fn hook_decisions_on_real_hook_input() {
    let ready = project_in(Some(Phase::Ready), "{}");
    let exploring = project_in(Some(Phase::Exploration), "{}");
    let idle = project_in(None, "{}");
    let strict = project_in(None, r#"{"strict_write_gate": true}"#);
    let root = |d: &tempfile::TempDir| d.path().canonicalize().unwrap();
    let edit = |d: &tempfile::TempDir, file: &str| {
        claude_input(
            &root(d),
            "Edit",
            json!({"file_path": root(d).join(file).display().to_string(), "old_string": "pass", "new_string": "return 1", "replace_all": false}),
        )
    };
    let write = |d: &tempfile::TempDir, file: &str| {
        claude_input(
            &root(d),
            "Write",
            json!({"file_path": root(d).join(file).display().to_string(), "content": "x = 1\n"}),
        )
    };
    let cases: Vec<(&str, String, bool)> = vec![
        (
            "explored file, READY",
            edit(&ready, "src/auth/service.py"),
            true,
        ),
        (
            "unexplored file, READY",
            edit(&ready, "src/config/loader.py"),
            false,
        ),
        (
            "new file in an explored directory",
            write(&ready, "docs/login.md"),
            true,
        ),
        (
            "new file in an unexplored directory",
            write(&ready, "src/billing/new.py"),
            false,
        ),
        (
            "MultiEdit of an explored file",
            claude_input(
                &root(&ready),
                "MultiEdit",
                json!({"file_path": root(&ready).join("src/auth/service.py").display().to_string(), "edits": []}),
            ),
            true,
        ),
        (
            "NotebookEdit of an unexplored notebook",
            claude_input(
                &root(&ready),
                "NotebookEdit",
                json!({"notebook_path": root(&ready).join("notebooks/analysis.ipynb").display().to_string(), "new_source": "1", "cell_id": "a"}),
            ),
            false,
        ),
        (
            "explored file, but EXPLORATION",
            edit(&exploring, "src/auth/service.py"),
            false,
        ),
        (
            "a file outside the project",
            claude_input(
                &root(&ready),
                "Write",
                json!({"file_path": "/tmp/elsewhere/plan.md", "content": ""}),
            ),
            true,
        ),
        (
            "not an edit tool",
            claude_input(&root(&ready), "Bash", json!({"command": "rm -rf src"})),
            true,
        ),
        (
            "no active session",
            edit(&idle, "src/config/loader.py"),
            true,
        ),
        (
            "no active session, strict_write_gate",
            edit(&strict, "src/config/loader.py"),
            false,
        ),
    ];
    for (name, input, allowed) in cases {
        let decision =
            hook::decide(&input, None, Path::new("/")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decision == Decision::Allow, allowed, "{name}: {decision:?}");
        if let Decision::Deny(reason) = decision {
            assert!(reason.contains("code-intel write gate"), "{name}: {reason}");
            let recovery = if name.contains("strict") {
                "start_session"
            } else {
                "revert_to_exploration"
            };
            assert!(reason.contains(recovery), "{name}: {reason}");
        }
    }
    // The attempts were recorded in the session as the server's own record.
    let calls = SessionStore::new(&root(&ready).join(".code-intel"))
        .calls("session_test_1")
        .unwrap();
    let hook_calls: Vec<(&str, bool)> = calls
        .iter()
        .filter(|c| c.source == "hook")
        .map(|c| (c.tool.as_str(), c.ok))
        .collect();
    assert_eq!(
        hook_calls,
        [
            ("Edit", true),
            ("Edit", false),
            ("Write", true),
            ("Write", false),
            ("MultiEdit", true),
            ("NotebookEdit", false),
            ("Write", true)
        ]
    );
}

#[test]
fn hook_exit_codes_and_output_forms() {
    let ready = project_in(Some(Phase::Ready), "{}");
    let root = ready.path().canonicalize().unwrap();
    let blocked = claude_input(
        &root,
        "Edit",
        json!({"file_path": root.join("src/config/loader.py").display().to_string()}),
    );
    let (code, stdout, stderr) = run_with_root(&blocked, false);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.contains("src/config/loader.py") && stderr.contains("add_explored_files"),
        "{stderr}"
    );
    let (code, stdout, _) = run_with_root(&blocked, true);
    assert_eq!(code, 0);
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        out["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("loader.py")
    );
    let allowed = claude_input(
        &root,
        "Edit",
        json!({"file_path": root.join("src/auth/service.py").display().to_string()}),
    );
    assert_eq!(
        run_with_root(&allowed, false),
        (0, String::new(), String::new())
    );
    let (code, _, stderr) = run_with_root("not json", false);
    assert_eq!(code, 1, "malformed input is a non-blocking error");
    assert!(stderr.contains("not PreToolUse JSON"));
    // A directory that is not a code-intel project: allowed, nothing written there.
    let plain = tempfile::tempdir().unwrap();
    let input = claude_input(
        plain.path(),
        "Write",
        json!({"file_path": plain.path().join("a.py").display().to_string()}),
    );
    assert_eq!(
        hook::decide(&input, None, Path::new("/")).unwrap(),
        Decision::Allow
    );
    assert!(!plain.path().join(".code-intel").exists());
}

/// `hook::run` reads `CLAUDE_PROJECT_DIR`; the inputs carry the project in `cwd`, as Claude
/// Code sends it, so the variable is not needed.
fn run_with_root(input: &str, json_output: bool) -> (i32, String, String) {
    hook::run(input, json_output)
}
