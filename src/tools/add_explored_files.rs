//! `add_explored_files`: the light recovery when a write is blocked (seed 004 v3.10).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "READY only: add files or directories (ending in '/') to the session's \
explored list so they may be written, without leaving READY. Paths are relative to the project root \
(or absolute inside it). Returns added and explored_files.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Files or directories (ending in '/'), relative to the project root.
    pub files: Vec<String>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::WithSession<crate::session::state::ExploredOutcome>;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::add_explored_files(&gate::env(ctx), p.session_id.as_deref(), p.files)
        .map_err(ToolError::from)
}
