//! `confirm_symbol_relevance`: the 3-tier rule on the agent's chosen symbols (seed 003).

use super::{Context, gate};
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Confirm which symbols serve the session's target_feature. code_evidence is \
required and must name things that exist in each symbol's code (methods, calls, fields, quoted comments) \
or the functions that call it. \
The server scores each symbol against target_feature (calibrated relevance, not raw cosine): > 0.6 FACT; \
0.3-0.6 approved as FACT but the session's risk becomes HIGH; < 0.3 REJECTED with \
reinvestigation_guidance. A symbol the index cannot find is rejected as a hallucination. Returns per \
symbol {symbol, similarity, status FACT|REJECTED, approved, risk?, warning?, reinvestigation_guidance?}; \
a warning or a guidance's reason says when the server holds a symbol down by rule (a name that says the \
reverse of the requested action, a better match in the same file). \
Confirmed symbols become agreements on record_outcome(success).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The symbols judged relevant.
    pub relevant_symbols: Vec<String>,
    /// Where the code shows it, e.g. "`AuthService.login()` checks the password".
    pub code_evidence: String,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::ConfirmOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::confirm_symbol_relevance(
        &gate::env(ctx),
        p.session_id.as_deref(),
        p.relevant_symbols,
        &p.code_evidence,
    )
    .map_err(ToolError::from)
}
