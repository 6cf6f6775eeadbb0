//! `set_query_frame`: the request's slots, each checked against the request (seed 000 step 3).

use super::{Context, gate};
use crate::error::{ToolError, ToolResult};
use crate::query_frame::Slot;
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Set the QueryFrame of the session (EXPLORATION only): target_feature, \
trigger_condition, observed_issue, desired_action, each {value, quote} where quote is copied from the \
request. A quote found in the request (after Unicode normalisation) makes the slot a FACT; a paraphrase \
is accepted only if the calibrated similarity of value, quote and request is >= 0.6; otherwise the slot \
is rejected with the reason. Returns valid_slots, rejected_slots, missing_slots, risk_level and the \
router's plan (steps by phase); the plan is logged to .code-intel/logs/decisions.jsonl.";

/// One slot: the value in short words and the request's words it comes from.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotInput {
    pub value: String,
    /// Copied verbatim from the request.
    pub quote: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The feature the request is about (e.g. 「ログイン機能」).
    pub target_feature: Option<SlotInput>,
    /// When the problem happens (e.g. 「パスワードが空のとき」).
    pub trigger_condition: Option<SlotInput>,
    /// What goes wrong now (e.g. 「エラーが出ない」).
    pub observed_issue: Option<SlotInput>,
    /// What should be done (e.g. 「チェックを追加」).
    pub desired_action: Option<SlotInput>,
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::SetFrameOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let slots: Vec<service::ProposedSlot> = [
        (Slot::TargetFeature, p.target_feature),
        (Slot::TriggerCondition, p.trigger_condition),
        (Slot::ObservedIssue, p.observed_issue),
        (Slot::DesiredAction, p.desired_action),
    ]
    .into_iter()
    .filter_map(|(slot, input)| input.map(|i| (slot, i.value, i.quote)))
    .collect();
    service::set_query_frame(&gate::env(ctx), p.session_id.as_deref(), slots)
        .map_err(ToolError::from)
}
