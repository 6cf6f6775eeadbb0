//! The hook fed Claude Code's own PreToolUse JSON (the shape Claude Code sends: session_id,
//! transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input, tool_use_id),
//! against a project whose session is in a known state.

use super::hook::{self, Decision};
use crate::query_frame::Intent;
use crate::session::Phase;
use crate::session::SessionStore;
use crate::session::state::SessionState;
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
            "not a gated tool",
            claude_input(
                &root(&ready),
                "Read",
                json!({"file_path": "src/config/loader.py"}),
            ),
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

#[test]
fn shell_commands_go_through_the_gate() {
    let ready = project_in(Some(Phase::Ready), "{}");
    let exploring = project_in(Some(Phase::Exploration), "{}");
    let idle = project_in(None, "{}");
    let root = |d: &tempfile::TempDir| d.path().canonicalize().unwrap();
    // The hook's cwd is the project's src/ (see claude_input).
    let bash = |d: &tempfile::TempDir, command: &str| {
        claude_input(
            &root(d),
            "Bash",
            json!({"command": command, "description": "test", "timeout": 120000}),
        )
    };
    let cases: Vec<(&str, String, bool, &str)> = vec![
        (
            "search while exploring",
            bash(&exploring, "rg -n 'def login' . | head -20"),
            true,
            "",
        ),
        (
            "git log while exploring",
            bash(&exploring, "git log --oneline -5 -- auth/service.py"),
            true,
            "",
        ),
        (
            "sed -i while exploring",
            bash(&exploring, "sed -i 's/pass/return 1/' auth/service.py"),
            false,
            "src/auth/service.py",
        ),
        (
            "heredoc while exploring",
            bash(&exploring, "cat > auth/new.py <<'EOF'\nx = 1\nEOF"),
            false,
            "src/auth/new.py",
        ),
        (
            "inline python while exploring",
            bash(&exploring, "python3 -c \"open('auth/service.py','w')\""),
            false,
            "python3 -c",
        ),
        (
            "nested bash -c while exploring",
            bash(&exploring, "bash -c 'cd .. && echo x >> docs/a.md'"),
            false,
            "docs/a.md",
        ),
        (
            "write outside the project",
            bash(&exploring, "git diff > /tmp/review.diff"),
            true,
            "",
        ),
        (
            "commit while exploring",
            bash(&exploring, "git add -A && git commit -m wip"),
            true,
            "",
        ),
        (
            "sed -i on an explored file in READY",
            bash(&ready, "sed -i 's/pass/return 1/' auth/service.py"),
            true,
            "",
        ),
        (
            "sed -i on an unexplored file in READY",
            bash(&ready, "sed -i 's/a/b/' config/loader.py"),
            false,
            "add_explored_files",
        ),
        (
            "mv of an unexplored file in READY",
            bash(&ready, "mv config/loader.py auth/loader.py"),
            false,
            "src/config/loader.py",
        ),
        (
            "new doc in an explored directory in READY",
            bash(&ready, "cd .. && printf '# Login' > docs/login.md"),
            true,
            "",
        ),
        (
            "inline python in READY",
            bash(&ready, "python3 -c 'print(1)'"),
            true,
            "",
        ),
        ("no active session", bash(&idle, "rm -rf config"), true, ""),
    ];
    for (name, input, allowed, mention) in cases {
        let decision =
            hook::decide(&input, None, Path::new("/")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decision == Decision::Allow, allowed, "{name}: {decision:?}");
        if let Decision::Deny(reason) = decision {
            assert!(
                reason.contains("shell command is blocked"),
                "{name}: {reason}"
            );
            assert!(reason.contains(mention), "{name}: {reason}");
        }
    }
    // Denied shell writes are in the session's record; commands that write nothing gated are not.
    let calls = SessionStore::new(&root(&exploring).join(".code-intel"))
        .calls("session_test_1")
        .unwrap();
    let bash_calls: Vec<bool> = calls
        .iter()
        .filter(|c| c.source == "hook" && c.tool == "Bash")
        .map(|c| c.ok)
        .collect();
    assert_eq!(bash_calls, [false, false, false, false]);
}

#[test]
fn stop_hook_asks_for_the_outcome_once() {
    let ready = project_in(Some(Phase::Ready), "{}");
    let root = ready.path().canonicalize().unwrap();
    let stop = json!({
        "session_id": "4f1c2a9e-8d6b-4c1e-9f2a-3b5d7e9a1c20",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": root.display().to_string(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string();
    // No edit yet: nothing to ask.
    assert_eq!(hook::run_stop(&stop), (0, String::new(), String::new()));
    let edit = claude_input(
        &root,
        "Edit",
        json!({"file_path": root.join("src/auth/service.py").display().to_string()}),
    );
    assert_eq!(
        hook::decide(&edit, None, Path::new("/")).unwrap(),
        Decision::Allow
    );
    let (code, stdout, _) = hook::run_stop(&stop);
    assert_eq!(code, 0);
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["decision"], "block");
    assert!(out["reason"].as_str().unwrap().contains("record_outcome"));
    // Once per session: the second stop ends normally, and so does a stop Claude Code marks
    // as already continuing.
    assert_eq!(hook::run_stop(&stop), (0, String::new(), String::new()));
    let active = stop.replace("\"stop_hook_active\":false", "\"stop_hook_active\":true");
    assert_eq!(hook::run_stop(&active), (0, String::new(), String::new()));
    let (code, _, stderr) = hook::run_stop("not json");
    assert_eq!(
        code, 0,
        "a broken Stop input never keeps the agent from stopping"
    );
    assert!(stderr.contains("not Stop JSON"));
}

/// Every gated tool, in every phase: writes to an explored file pass only in READY; read-only
/// shell commands pass in every phase.
#[test]
fn every_gated_tool_in_every_phase() {
    for phase in [
        Phase::Exploration,
        Phase::Semantic,
        Phase::Verification,
        Phase::Ready,
    ] {
        let project = project_in(Some(phase), "{}");
        let root = project.path().canonicalize().unwrap();
        let explored = root.join("src/auth/service.py").display().to_string();
        let inputs = [
            (
                "Edit",
                json!({"file_path": explored, "old_string": "pass", "new_string": "x"}),
            ),
            (
                "Write",
                json!({"file_path": explored, "content": "x = 1\n"}),
            ),
            ("MultiEdit", json!({"file_path": explored, "edits": []})),
            (
                "NotebookEdit",
                json!({"notebook_path": explored, "new_source": "1"}),
            ),
            (
                "Bash",
                json!({"command": "sed -i 's/pass/x/' auth/service.py"}),
            ),
        ];
        for (tool, tool_input) in inputs {
            let decision =
                hook::decide(&claude_input(&root, tool, tool_input), None, Path::new("/")).unwrap();
            assert_eq!(
                decision == Decision::Allow,
                phase == Phase::Ready,
                "{tool} in {phase:?}: {decision:?}"
            );
        }
        let read = claude_input(
            &root,
            "Bash",
            json!({"command": "rg -n login . && git status"}),
        );
        assert_eq!(
            hook::decide(&read, None, Path::new("/")).unwrap(),
            Decision::Allow,
            "{phase:?}"
        );
    }
}
