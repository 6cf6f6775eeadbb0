//! `start_session`: opens a phase-gated session for one request (seed 000 step 2).

use super::{Context, gate};
use crate::error::{ToolError, ToolResult};
use crate::query_frame::Intent;
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Start a phase-gated session for a user request (the /code workflow). \
The session begins in EXPLORATION; while it is active the server enforces which tools each phase allows \
(PHASE_VIOLATION otherwise) and records every call. Returns session_id, phase, the extraction_prompt to \
fill the request's slots (then call set_query_frame), shortcircuit_hint (a past success on a similar \
request: found, symbols, confidence) and sync_status. A new session supersedes the previous one.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// IMPLEMENT, MODIFY, INVESTIGATE or QUESTION (ADD = IMPLEMENT, DELETE = MODIFY, EXPLORE = INVESTIGATE).
    pub intent: String,
    /// The user's request, as written (any language).
    pub query: String,
}

pub type Output = service::StartOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let intent = Intent::parse(&p.intent).ok_or_else(|| {
        ToolError::invalid_parameter(format!("unknown intent '{}'", p.intent))
            .with("intents", Intent::NAMES)
    })?;
    service::start_session(&gate::env(ctx), intent, &p.query).map_err(ToolError::from)
}
