//! `code-intel hook pre-tool-use`: Claude Code's `PreToolUse` hook for file edits, through the
//! editor tools and through the shell.
//!
//! Claude Code runs it before every Edit / Write / MultiEdit / NotebookEdit / Bash call with a
//! JSON object on stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`,
//! `tool_input` with `file_path`, `notebook_path` for NotebookEdit, `command` for Bash). An
//! editor write goes to the project's active session's write gate; a shell command is first
//! analysed for what it may write (`crate::shell`, relative to the hook's `cwd`): a read-only
//! command passes at once, anything else is judged by `session::hooks::shell_command`. Both record
//! the attempt in the session.
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
use crate::session::{Env, Sessions, hooks};
use crate::workspace::Workspace;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Tools whose calls the hook gates (the matcher `code-intel init` registers).
pub const GATED_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"];

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
) -> Result<Decision, HookError> {
    let input: HookInput = serde_json::from_str(input)?;
    if input
        .hook_event_name
        .as_deref()
        .is_some_and(|e| e != "PreToolUse")
        || !GATED_TOOLS.contains(&input.tool_name.as_str())
    {
        return Ok(Decision::Allow);
    }
    let cwd = input
        .cwd
        .as_ref()
        .map(PathBuf::from)
        .unwrap_or_else(|| process_cwd.to_path_buf());
    let start = project_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| cwd.clone());
    let verdict = if input.tool_name == "Bash" {
        let Some(command) = input.tool_input.get("command").and_then(Value::as_str) else {
            return Ok(Decision::Allow);
        };
        // The common case, exploration, answers without opening the project.
        let effects = crate::shell::analyze(command, &cwd);
        if effects.is_read_only() {
            return Ok(Decision::Allow);
        }
        with_env(&start, |env| hooks::shell_command(env, command, &effects))?
    } else {
        let Some(file) = ["file_path", "notebook_path"]
            .iter()
            .find_map(|k| input.tool_input.get(*k).and_then(Value::as_str))
        else {
            return Ok(Decision::Allow);
        };
        with_env(&start, |env| {
            hooks::editor_write(env, &input.tool_name, file)
        })?
    };
    Ok(match verdict {
        Some(v) if !v.allowed => Decision::Deny(
            v.reason
                .unwrap_or_else(|| "blocked by the code-intel write gate".into()),
        ),
        _ => Decision::Allow,
    })
}

/// Why the hook could not decide (it then lets the call through and says why on stderr).
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("the hook input is not PreToolUse JSON: {0}")]
    Input(#[from] serde_json::Error),
    #[error(transparent)]
    Open(#[from] crate::workspace::OpenError),
    /// The session could not answer; worded as the tools word it, so the hook's message
    /// matches what `check_write_target` says.
    #[error("{0}")]
    Session(crate::error::ToolError),
}

/// Runs `f` against the code-intel project at or above `start`; `None` when there is none.
fn with_env<T>(
    start: &Path,
    f: impl FnOnce(&Env) -> crate::session::SessionResult<T>,
) -> Result<Option<T>, HookError> {
    let Some(root) = project_root(start) else {
        return Ok(None);
    };
    let ws = Workspace::open(&root)?;
    let state_dir = ws.state_dir();
    let symbols = SymbolIndex::new(&state_dir);
    let sessions = Sessions::open(&state_dir, crate::session::SessionSettings::of(&ws));
    let env = Env {
        ws: &ws,
        symbols: &symbols,
        sessions: &sessions,
        tools: crate::tools::gated(),
        field_search: None,
        judged: Default::default(),
    };
    f(&env).map(Some).map_err(|e| HookError::Session(e.into()))
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

#[derive(Debug, Deserialize)]
struct StopInput {
    #[serde(default)]
    cwd: Option<String>,
    /// Claude Code sets it when the agent is already continuing because of a Stop hook.
    #[serde(default)]
    stop_hook_active: bool,
}

/// Runs the Stop hook on `stdin`: `{"decision": "block", "reason": …}` asks the agent once per
/// session to record the outcome; anything else lets it stop. Never an error exit: a broken
/// Stop hook must not keep an agent from finishing.
pub fn run_stop(stdin: &str) -> (i32, String, String) {
    let input: StopInput = match serde_json::from_str(stdin) {
        Ok(input) => input,
        Err(e) => {
            return (
                0,
                String::new(),
                format!("code-intel hook stop: the input is not Stop JSON: {e}\n"),
            );
        }
    };
    if input.stop_hook_active {
        return (0, String::new(), String::new());
    }
    let project_dir = std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from);
    let start = project_dir
        .or_else(|| input.cwd.map(PathBuf::from))
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    match with_env(&start, hooks::stop) {
        Ok(Some(Some(reason))) => {
            let out = json!({"decision": "block", "reason": reason});
            (0, format!("{out}\n"), String::new())
        }
        Ok(_) => (0, String::new(), String::new()),
        Err(err) => (0, String::new(), format!("code-intel hook stop: {err}\n")),
    }
}
