//! The session operations behind Claude Code's hooks: the write gate for editor tools and for
//! shell commands (`PreToolUse`), and the request for an outcome when the agent stops (`Stop`).
//!
//! Every gated attempt is recorded in the session's call record (source `hook`), allowed or not,
//! so the session analysis sees edits made outside the MCP tools.

use super::error::SessionResult;
use super::service::{Env, check_write_target};
use super::state::{SessionState, ToolCall};
use super::write_gate::recovery_options;
use crate::router::Phase;
use crate::shell::Effects;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;

/// The hook's verdict on one tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookVerdict {
    pub allowed: bool,
    /// The paths the decision is about, relative to the project root.
    pub files: Vec<String>,
    pub session_id: Option<String>,
    /// Why it is denied, with the recovery options, as the agent will read it.
    pub reason: Option<String>,
}

/// Asks the active session's write gate about an editor tool's write (Edit, Write, MultiEdit,
/// NotebookEdit) and records the attempt.
pub fn editor_write(env: &Env, tool_name: &str, file_path: &str) -> SessionResult<HookVerdict> {
    // Only Write creates files; the other tools edit what exists.
    let allow_new = tool_name == "Write";
    let out = check_write_target(env, None, file_path, allow_new)?;
    let reason = (!out.allowed).then(|| {
        let mut text = format!(
            "code-intel write gate: {} is blocked. {}",
            out.file,
            out.error.clone().unwrap_or_default()
        );
        push_recovery(&mut text, out.recovery_options.as_ref());
        text
    });
    record(
        env,
        out.session_id.as_deref(),
        out.phase,
        tool_name,
        json!({"file_path": file_path}),
        vec![out.file.clone()],
        out.allowed,
    );
    Ok(HookVerdict {
        allowed: out.allowed,
        files: vec![out.file],
        session_id: out.session_id,
        reason,
    })
}

/// Judges a shell command by what it may write (`effects`, from [`crate::shell::analyze`]):
/// each write inside the project goes through the write gate like an editor write (new files
/// allowed in explored directories); a part whose writes are unknown runs only in READY.
/// Writes outside the project, and to git's and code-intel's own state, are not gated.
pub fn shell_command(env: &Env, command: &str, effects: &Effects) -> SessionResult<HookVerdict> {
    let mut files = Vec::new();
    for path in &effects.writes {
        match env.relative_path(&path.to_string_lossy()) {
            Some(rel) if !is_tool_state(&rel) => files.push(rel),
            _ => {}
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() && effects.opaque.is_empty() {
        return Ok(HookVerdict {
            allowed: true,
            files,
            session_id: None,
            reason: None,
        });
    }

    // The session is read once for the whole command, not once per target.
    let active: Option<SessionState> = env.sessions.store().active()?;
    let mut problems = Vec::new();
    let mut options: Option<Value> = None;
    if let Some(session) = &active {
        for file in &files {
            let exists = env.ws.root().join(file).exists();
            let decision = session.check_write(file, exists, true);
            if !decision.allowed {
                problems.push(format!(
                    "- it writes {}: {}",
                    decision.file,
                    decision.error.unwrap_or_default()
                ));
                options = options.or(decision.recovery_options);
            }
        }
    }
    let active = active.map(|s| (s.session_id, s.phase));
    let strict = env.sessions.settings().strict_write_gate;
    match &active {
        Some((_, phase)) if *phase != Phase::Ready => {
            for part in &effects.opaque {
                problems.push(format!(
                    "- `{}`: {}; a command whose writes cannot be known runs only in READY (the session is in {})",
                    part.part,
                    part.reason,
                    phase.as_str()
                ));
            }
            if options.is_none() && !effects.opaque.is_empty() {
                options = Some(recovery_options(*phase, ""));
            }
        }
        None if strict => problems.push(
            "- strict_write_gate is set and there is no active session: start one with start_session"
                .to_string(),
        ),
        _ => {}
    }
    let allowed = problems.is_empty();
    let reason = (!allowed).then(|| {
        let mut text = format!(
            "code-intel write gate: this shell command is blocked.\n{}\n\
             Read-only commands (rg, grep, find, cat, git log/diff/status, test runners) always pass. \
             To change files, use the editor tools on explored files once the session is in READY.",
            problems.join("\n")
        );
        push_recovery(&mut text, options.as_ref());
        text
    });
    let (id, phase) = match &active {
        Some((id, phase)) => (Some(id.as_str()), Some(*phase)),
        None => (None, None),
    };
    record(
        env,
        id,
        phase,
        "Bash",
        json!({"command": command}),
        files.clone(),
        allowed,
    );
    Ok(HookVerdict {
        allowed,
        files,
        session_id: id.map(str::to_string),
        reason,
    })
}

/// Git's own directory and code-intel's state change with every commit or session step; they
/// are not the project's sources.
fn is_tool_state(rel: &str) -> bool {
    let first = Path::new(rel)
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first == ".git" || first == crate::config::STATE_DIR
}

fn push_recovery(text: &mut String, options: Option<&Value>) {
    let Some(map) = options.and_then(Value::as_object) else {
        return;
    };
    text.push_str("\nRecovery options (code-intel MCP tools):");
    for (name, option) in map {
        let description = option["description"].as_str().unwrap_or("");
        let example = if option["example"].is_null() {
            String::new()
        } else {
            format!(" e.g. {}", option["example"])
        };
        text.push_str(&format!("\n- {name}: {description}{example}"));
    }
}

fn record(
    env: &Env,
    session_id: Option<&str>,
    phase: Option<Phase>,
    tool: &str,
    args: Value,
    files: Vec<String>,
    ok: bool,
) {
    let Some(session_id) = session_id else {
        return;
    };
    let call = ToolCall {
        tool: tool.to_string(),
        args,
        files,
        result_files: vec![],
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        phase: phase.unwrap_or(Phase::Exploration),
        ok,
        error_code: (!ok).then(|| "WRITE_BLOCKED".to_string()),
        duration_ms: 0,
        source: "hook".into(),
    };
    if let Err(err) = env.sessions.store().record_call(session_id, &call) {
        tracing::warn!("could not record the hook call: {err}");
    }
}

/// Editor tools whose allowed calls are edits.
const EDITOR_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// The call-record entry that says the Stop hook asked for an outcome.
const STOP_MARK: &str = "Stop";

/// Edits the hook let through in a session: allowed editor writes, and allowed shell commands
/// that wrote project files.
pub fn edits(calls: &[ToolCall]) -> usize {
    calls
        .iter()
        .filter(|c| c.source == "hook" && c.ok)
        .filter(|c| {
            EDITOR_TOOLS.contains(&c.tool.as_str()) || (c.tool == "Bash" && !c.files.is_empty())
        })
        .count()
}

/// Claude Code's `Stop` hook: when the active session reached READY, made edits and has no
/// outcome, the agent is asked once to call `record_outcome` (seed 000's learning loop). The
/// request is recorded in the session, so a second stop ends normally: never a loop.
pub fn stop(env: &Env) -> SessionResult<Option<String>> {
    let Some(session) = env.sessions.store().active()? else {
        return Ok(None);
    };
    if session.phase != Phase::Ready || session.outcome.is_some() {
        return Ok(None);
    }
    let calls = env
        .sessions
        .store()
        .calls(&session.session_id)
        .unwrap_or_default();
    let edited = edits(&calls);
    if edited == 0
        || calls
            .iter()
            .any(|c| c.source == "hook" && c.tool == STOP_MARK)
    {
        return Ok(None);
    }
    record(
        env,
        Some(&session.session_id),
        Some(session.phase),
        STOP_MARK,
        json!({}),
        vec![],
        true,
    );
    Ok(Some(format!(
        "code-intel: session {} made {edited} edit(s) in READY and has no outcome yet. Before \
         finishing, check the change (tests, or the behaviour the request asked for) and call the \
         code-intel MCP tool `record_outcome` with outcome `success`, `partial` or `failure` and a \
         one-sentence `analysis`. A success turns the confirmed symbols into agreements the next \
         session on a similar request starts from; a failure teaches what to avoid.",
        session.session_id
    )))
}
