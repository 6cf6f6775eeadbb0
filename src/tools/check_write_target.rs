//! `check_write_target`: may this file be written now (seed 000 `validate_write_target`)?

use super::{Context, gate};
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Ask before writing a file. In an active session, files are written only in \
READY and only if explored (files_analyzed, files the session's tools read, verified hypotheses, \
add_explored_files); a new file needs allow_new_files and an explored parent directory. Returns \
{allowed, error?, recovery_options?} with add_explored_files / revert_to_exploration when blocked. \
Without an active session writes are not gated (unless strict_write_gate is set in .code-intel/config.json).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Path relative to the project root, or absolute.
    pub file_path: String,
    /// The write creates a new file (default false).
    pub allow_new_files: Option<bool>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::CheckWriteOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::check_write_target(
        &gate::env(ctx),
        p.session_id.as_deref(),
        &p.file_path,
        p.allow_new_files.unwrap_or(false),
    )
    .map_err(ToolError::from)
}
