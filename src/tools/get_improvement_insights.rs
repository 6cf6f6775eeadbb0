//! `get_improvement_insights`: failure patterns across sessions (seed 000).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Failure patterns over the project's last sessions with an outcome: \
tool_failure_correlation (per planned or used tool: sessions, failures, failure_rate), \
risk_level_correlation, common_failure_points (phase at failure), total_sessions_with_outcomes, \
sessions_with_decisions.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Sessions to look at, most recent first (default 100).
    pub limit: Option<usize>,
}

pub type Output = crate::memory::Insights;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::get_improvement_insights(&gate::env(ctx), p.limit.unwrap_or(100).max(1))
        .map_err(ToolError::from)
}
