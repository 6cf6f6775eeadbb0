//! Where the session meets every tool call: the phase gate and the call record, in the one
//! place every call passes ([`super::dispatch`]).
//!
//! With no active session a call runs untouched (every tool is a plain code tool). With one, the
//! call is checked against the v3.9 matrix (`session::gate`), refused with `PHASE_VIOLATION`
//! when the phase does not allow it, and recorded either way (tool, arguments, files targeted,
//! files in the result, time, outcome) in the session's call record, the server's own account
//! of what the agent did, which `submit_understanding` and the outcome log read instead of the
//! agent's claims.

use super::{Context, ToolDef};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::session::{Env, Phase, ToolCall, gate};
use serde_json::{Value, json};
use std::time::Instant;

/// The session service's view of the context.
pub(super) fn env(ctx: &Context) -> Env<'_> {
    Env {
        ws: &ctx.ws,
        symbols: &ctx.symbols,
        sessions: &ctx.sessions,
        tools: super::gated(),
        field_search: Some(ctx.field_search()),
        judged: Default::default(),
    }
}

/// Argument keys that name files a call targets.
const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "file",
    "files",
    "paths",
    "notebook_path",
];
/// At most this many result files are recorded per call.
const MAX_RESULT_FILES: usize = 100;

/// Runs `run` for `tool` under the active session's phase gate and records the call.
pub(super) fn guarded(
    ctx: &Context,
    tool: &ToolDef,
    args: Value,
    run: impl FnOnce(Value) -> ToolResult<Value>,
) -> ToolResult<Value> {
    let store = ctx.sessions.store();
    let active = match store.active() {
        Ok(active) => active,
        Err(err) => {
            tracing::warn!(
                "session store unreadable, running {} ungated: {err}",
                tool.name
            );
            None
        }
    };
    let started = Instant::now();
    let env = env(ctx);
    let targeted = targeted_files(&env, &args);
    if let Some(session) = &active
        && let Err(v) = gate::check(session.phase, tool.name, &args, super::gated())
    {
        let err = ToolError::new(ErrorCode::PhaseViolation, v.message)
            .with("phase", v.phase.as_str())
            .with("tool", v.tool)
            .with("allowed", json!(v.allowed))
            .with("next_step", v.next_step)
            .with("session_id", session.session_id.clone());
        record(
            ctx,
            &session.session_id,
            tool.name,
            &args,
            targeted,
            vec![],
            session.phase,
            &Err(err.clone()),
            started,
        );
        return Err(err);
    }
    let recorded_args = args.clone();
    let result = run(args);
    // The session the call belongs to: the one it named, the new one for start_session, else
    // the one active when it started.
    let named = recorded_args
        .get("session_id")
        .and_then(Value::as_str)
        .map(String::from);
    let target = if tool.name == "start_session" {
        result
            .as_ref()
            .ok()
            .and_then(|v| v["session_id"].as_str().map(String::from))
    } else {
        named.or_else(|| active.as_ref().map(|s| s.session_id.clone()))
    };
    if let Some(id) = target {
        let phase = store
            .load(&id)
            .map(|s| s.phase)
            .unwrap_or_else(|_| active.as_ref().map_or(Phase::Exploration, |s| s.phase));
        let result_files = result.as_ref().map(result_files).unwrap_or_default();
        record(
            ctx,
            &id,
            tool.name,
            &recorded_args,
            targeted,
            result_files,
            phase,
            &result,
            started,
        );
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn record(
    ctx: &Context,
    id: &str,
    tool: &str,
    args: &Value,
    files: Vec<String>,
    result_files: Vec<String>,
    phase: Phase,
    result: &ToolResult<Value>,
    started: Instant,
) {
    let call = ToolCall {
        tool: tool.to_string(),
        args: args.clone(),
        files,
        result_files,
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        phase,
        ok: result.is_ok(),
        error_code: result.as_ref().err().map(|e| e.code.as_str().to_string()),
        duration_ms: started.elapsed().as_millis() as u64,
        source: "mcp".into(),
    };
    if let Err(err) = ctx.sessions.store().record_call(id, &call) {
        tracing::warn!("could not record {tool} in session {id}: {err}");
    }
}

/// Workspace-relative files named by a call's arguments.
fn targeted_files(env: &Env, args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(map) = args.as_object() else {
        return out;
    };
    for key in PATH_KEYS {
        let values: Vec<&str> = match map.get(*key) {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        for v in values {
            if let Some(rel) = env.relative_path(v)
                && !rel.is_empty()
                && !out.contains(&rel)
            {
                out.push(rel);
            }
        }
    }
    out
}

/// `file` fields anywhere in a result (definitions, matches, …), first [`MAX_RESULT_FILES`].
fn result_files(value: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>, depth: usize) {
        if out.len() >= MAX_RESULT_FILES || depth > 6 {
            return;
        }
        match v {
            Value::Object(map) => {
                if let Some(Value::String(f)) = map.get("file")
                    && !out.contains(f)
                {
                    out.push(f.clone());
                }
                for child in map.values() {
                    walk(child, out, depth + 1);
                }
            }
            Value::Array(items) => {
                for child in items {
                    walk(child, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out, 0);
    out
}
