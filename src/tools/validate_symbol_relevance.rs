//! `validate_symbol_relevance`: the relevance prompt plus the server's scores (seed 003).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Get the validation prompt for choosing which symbols serve a target feature, \
with the server's calibrated similarity of each symbol to it (embedding_suggestions: symbol, exists, \
similarity, tier FACT/GRAY_ZONE/REJECTED, files, why? when a rule holds the symbol down) and cached_matches (pairs confirmed in past successful \
sessions of this project). Answer with confirm_symbol_relevance, citing code_evidence.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The feature in the request's words (usually the QueryFrame's target_feature).
    pub target_feature: String,
    /// Candidate symbols.
    pub symbols_identified: Vec<String>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::ValidateOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::validate_symbol_relevance(
        &gate::env(ctx),
        p.session_id.as_deref(),
        &p.target_feature,
        p.symbols_identified,
    )
    .map_err(ToolError::from)
}
