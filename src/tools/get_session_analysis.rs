//! `get_session_analysis`: one session's decision joined with its outcomes (seed 000).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "The improvement cycle's view of one session: its last routing decision \
(decisions.jsonl), its outcomes (outcomes.jsonl) and a summary (had_decision, had_outcome, \
final_outcome, tools_planned, failure_point).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Defaults to the active session, else the latest one.
    pub session_id: Option<String>,
}

pub type Output = crate::memory::SessionAnalysis;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::get_session_analysis(&gate::env(ctx), p.session_id.as_deref()).map_err(ToolError::from)
}
