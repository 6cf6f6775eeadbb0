//! `code-intel hook pre-tool-use`: Claude Code's `PreToolUse` hook for file edits.
//!
//! Claude Code runs it before every Edit / Write / MultiEdit / NotebookEdit with a JSON object on
//! stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`
//! with `file_path`, or `notebook_path` for NotebookEdit). The hook asks the project's active
//! session's write gate (`session::service::hook_pre_tool_use`, which also records the attempt):
//!
//! - allowed, or no active session (and `strict_write_gate` unset), or not a code-intel
//!   project: exit 0 with no output, so Claude Code's normal permission flow continues;
//! - denied: exit 2 with the reason and the recovery options on stderr, which Claude Code shows
//!   to the model; with `--json`, exit 0 and
//!   `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
//!   "permissionDecisionReason": …}}` on stdout instead.
//!
//! Unreadable input is a non-blocking error (exit 1): a broken hook must not brick the editor.

use crate::index::SymbolIndex;
use crate::session::{Env, Sessions, service};
use crate::workspace::Workspace;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Tools whose calls the hook gates (the matcher `code-intel init` registers).
pub const GATED_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

#[derive(Debug, Deserialize)]
struct HookInput {
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
}

/// What the hook decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Allow,
    Deny(String),
}

/// The nearest directory at or above `start` holding `.code-intel/`.
fn project_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(crate::config::STATE_DIR).is_dir())
        .map(Path::to_path_buf)
}

/// Decides on one hook input. `project_dir` is `$CLAUDE_PROJECT_DIR` when Claude Code set it.
pub fn decide(
    input: &str,
    project_dir: Option<&Path>,
    process_cwd: &Path,
) -> Result<Decision, String> {
    let input: HookInput = serde_json::from_str(input)
        .map_err(|e| format!("the hook input is not PreToolUse JSON: {e}"))?;
    if input
        .hook_event_name
        .as_deref()
        .is_some_and(|e| e != "PreToolUse")
        || !GATED_TOOLS.contains(&input.tool_name.as_str())
    {
        return Ok(Decision::Allow);
    }
    let Some(file) = ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.tool_input.get(*k).and_then(Value::as_str))
    else {
        return Ok(Decision::Allow);
    };
    let start = project_dir
        .map(Path::to_path_buf)
        .or_else(|| input.cwd.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| process_cwd.to_path_buf());
    let Some(root) = project_root(&start) else {
        return Ok(Decision::Allow);
    };
    let ws = Workspace::open(&root).map_err(|e| e.to_string())?;
    let state_dir = ws.state_dir();
    let symbols = SymbolIndex::new(&state_dir);
    let sessions = Sessions::open(&state_dir);
    let env = Env {
        ws: &ws,
        symbols: &symbols,
        sessions: &sessions,
        tool_names: &[],
    };
    let verdict =
        service::hook_pre_tool_use(&env, &input.tool_name, file).map_err(|e| e.to_string())?;
    Ok(if verdict.allowed {
        Decision::Allow
    } else {
        Decision::Deny(
            verdict
                .reason
                .unwrap_or_else(|| "blocked by the code-intel write gate".into()),
        )
    })
}

/// Runs the hook on `stdin`; returns the exit code and what to print on stdout and stderr.
pub fn run(stdin: &str, json_output: bool) -> (i32, String, String) {
    let project_dir = std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match decide(stdin, project_dir.as_deref(), &cwd) {
        Ok(Decision::Allow) => (0, String::new(), String::new()),
        Ok(Decision::Deny(reason)) if json_output => {
            let out = json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            });
            (0, format!("{out}\n"), String::new())
        }
        Ok(Decision::Deny(reason)) => (2, String::new(), format!("{reason}\n")),
        Err(err) => (1, String::new(), format!("code-intel hook: {err}\n")),
    }
}
