//! `submit_verification`: hypotheses confirmed or rejected with evidence (seed 000 step 6).

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Finish VERIFICATION: for each hypothesis (by id H1..., symbol or file) give \
status confirmed|rejected and evidence. A confirmation's evidence must name something in the \
hypothesis's code or, for a symbol, a function that calls it. Confirmed hypotheses become FACT (their files become writable), rejected ones are \
dropped; the session moves to READY only when no hypothesis is left open.";

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
