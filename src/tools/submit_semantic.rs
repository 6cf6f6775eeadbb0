//! `submit_semantic`: hypotheses from semantic search, and why it was needed (seed 000 step 5).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Finish SEMANTIC: submit hypotheses ({symbol?, file?, reason}, each naming \
something that exists) found with semantic_search on the forest, and semantic_reason: one of the values \
submit_understanding (or submit_verification) returned in accepted_semantic_reasons for what is missing \
(no_definition_found, no_reference_found, no_similar_implementation, architecture_unknown, \
context_fragmented). The server judges each hypothesis against target_feature as it judges symbols \
(similarity, tier): one judged REJECTED (< 0.3) cannot be confirmed, and a round of only such \
hypotheses is refused. Moves to VERIFICATION; hypotheses get ids H1, H2, ... (continuing earlier rounds).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HypothesisParam {
    /// A symbol name (bare or qualified).
    pub symbol: Option<String>,
    /// A file, relative to the project root.
    pub file: Option<String>,
    /// Why it may be relevant.
    pub reason: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// What semantic search suggested: each names an existing symbol or file, with why.
    pub hypotheses: Vec<HypothesisParam>,
    /// Why the code tools were not enough; must be one of the session's
    /// accepted_semantic_reasons (returned by submit_understanding).
    #[schemars(extend("enum" = crate::session::rules::SEMANTIC_REASONS))]
    pub semantic_reason: String,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::WithSession<crate::session::state::SemanticOutcome>;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let hypotheses = p
        .hypotheses
        .into_iter()
        .map(|h| service::ProposedHypothesis {
            symbol: h.symbol,
            file: h.file,
            reason: h.reason,
        })
        .collect();
    service::submit_semantic(
        &gate::env(ctx),
        p.session_id.as_deref(),
        hypotheses,
        &p.semantic_reason,
    )
    .map_err(ToolError::from)
}
