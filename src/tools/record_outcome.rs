//! `record_outcome`: how the session ended, and what the project learns from it (seed 000/001).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::memory::Outcome;
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Record the outcome of the session (success, failure or partial) with an \
optional analysis; appends to .code-intel/logs/outcomes.jsonl and closes the session. On success every \
symbol confirmed with confirm_symbol_relevance becomes an agreement (.code-intel/agreements/*.md), a \
learned pair (learned_pairs.json, 30-day expiry) and a map entry, so the next start_session on a similar \
request gets a short-circuit hint. Without session_id: the active session, else the latest one (to record \
a previous session's failure).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// success, failure or partial.
    pub outcome: Outcome,
    /// What worked or went wrong.
    pub analysis: Option<String>,
    /// The user's message that revealed the outcome (e.g. "it still fails").
    pub trigger_message: Option<String>,
    /// Defaults to the active session, else the latest session.
    pub session_id: Option<String>,
}

pub type Output = service::RecordOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::record_outcome(
        &gate::env(ctx),
        p.session_id.as_deref(),
        p.outcome,
        p.analysis,
        p.trigger_message,
    )
    .map_err(ToolError::from)
}
