//! `revert_to_exploration`: the full recovery, back to EXPLORATION (seed 004 v3.10).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Go back to EXPLORATION from any phase to explore more or differently. \
keep_results (default true) keeps the exploration, hypotheses, mapped symbols and explored files; false \
clears them (the request's QueryFrame stays).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Keep earlier results (default true).
    pub keep_results: Option<bool>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::WithSession<crate::session::state::RevertOutcome>;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::revert_to_exploration(
        &gate::env(ctx),
        p.session_id.as_deref(),
        p.keep_results.unwrap_or(true),
    )
    .map_err(ToolError::from)
}
