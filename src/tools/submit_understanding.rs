//! `submit_understanding`: the end of EXPLORATION, judged by the server (seed 000 step 4).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Finish EXPLORATION: report symbols_identified, entry_points, files_analyzed \
and patterns. The server checks that every symbol exists in the code (unknown names are rejected as \
hallucinations, with did_you_mean), that entry points belong to the symbols and files exist, evaluates the \
exploration per intent using the tools this session actually called (IMPLEMENT/MODIFY: >= 3 symbols, \
>= 1 entry point, >= 2 files, >= 1 pattern, find_definitions and find_references used), and scores each \
symbol against target_feature (calibrated). Enough, with a symbol clearly related (> 0.6) -> READY; \
otherwise SEMANTIC with missing_requirements. Returns phase, confidence, missing_requirements, \
symbols_with_confidence, explored_files, next_step.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Symbol names found (bare like `AuthService` or qualified like `AuthService.login`).
    #[serde(default)]
    pub symbols_identified: Vec<String>,
    /// Where the flow starts (e.g. `AuthService.login`, a route handler).
    #[serde(default)]
    pub entry_points: Vec<String>,
    /// Files read, relative to the project root.
    #[serde(default)]
    pub files_analyzed: Vec<String>,
    /// Conventions seen (e.g. "services get repositories by constructor injection").
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::WithSession<crate::session::state::UnderstandingOutcome>;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let u = service::Understanding {
        symbols_identified: p.symbols_identified,
        entry_points: p.entry_points,
        files_analyzed: p.files_analyzed,
        patterns: p.patterns,
    };
    service::submit_understanding(&gate::env(ctx), p.session_id.as_deref(), u)
        .map_err(ToolError::from)
}
