//! `submit_verification`: hypotheses confirmed or rejected with evidence (seed 000 step 6).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Finish VERIFICATION: results is a list of {hypothesis, status, evidence}: \
hypothesis is the id (\"H1\"), symbol or file of a hypothesis; status is \"confirmed\" or \"rejected\"; \
evidence is what the code shows. The server checks each confirmation: the hypothesis must not be judged \
REJECTED against target_feature; this session must have read its code (find_definitions, \
get_function_at_line, get_symbols on its file); the evidence must name something in that code or a \
function that calls it; and one in the gray zone (0.3-0.6) must call or be called by code the request \
is about. A refused confirmation stays open with what is missing. Confirmed hypotheses become FACT \
(their files become writable), rejected ones are dropped. Once none is open: READY if every \
requirement of the exploration is met (counting confirmed symbols and files), else back to SEMANTIC \
with missing_requirements and accepted_semantic_reasons.";

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Confirmed,
    Rejected,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultParam {
    /// Hypothesis id (H1), symbol or file.
    pub hypothesis: String,
    /// confirmed or rejected.
    pub status: Status,
    /// What the code shows (required to confirm; must name something in the hypothesis's code).
    #[serde(default)]
    pub evidence: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// One result per hypothesis verified.
    pub results: Vec<ResultParam>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::WithSession<crate::session::state::VerificationOutcome>;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let results = p
        .results
        .into_iter()
        .map(|r| service::ProposedVerification {
            hypothesis: r.hypothesis,
            confirmed: matches!(r.status, Status::Confirmed),
            evidence: r.evidence,
        })
        .collect();
    service::submit_verification(&gate::env(ctx), p.session_id.as_deref(), results)
        .map_err(ToolError::from)
}
