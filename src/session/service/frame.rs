//! `set_query_frame`: each proposed slot checked against the request (its quote must be there),
//! then the router's plan for the frame.

use super::*;

#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidSlot {
    pub slot: Slot,
    #[serde(flatten)]
    pub value: SlotValue,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SetFrameOutput {
    pub session_id: String,
    pub valid_slots: Vec<ValidSlot>,
    pub rejected_slots: Vec<RejectedSlot>,
    pub missing_slots: Vec<Slot>,
    pub risk_level: RiskLevel,
    pub plan: ExecutionPlan,
}

/// One proposed slot: `(slot, value, quote)`.
pub type ProposedSlot = (Slot, String, String);

pub fn set_query_frame(
    env: &Env,
    id: Option<&str>,
    slots: Vec<ProposedSlot>,
) -> SessionResult<SetFrameOutput> {
    let state = env.session(id)?;
    state
        .require("set_query_frame", &[Phase::Exploration])
        .map_err(|r| env.refused(r))?;
    if slots.is_empty() {
        return Err(SessionError::invalid(
            "no slot given: pass at least one of target_feature, trigger_condition, observed_issue, desired_action as {value, quote}",
        ));
    }
    let relevance = env.relevance();
    let verdicts: Vec<SlotVerdict> = slots
        .iter()
        .map(|(slot, value, quote)| {
            validate_slot(*slot, value, quote, &state.query, relevance.as_ref())
        })
        .collect();
    let state = env.update(&state.session_id, |s| {
        s.apply_query_frame(&verdicts)?;
        Ok(s.clone())
    })?;
    let (_, stamp) = now();
    let indexed = env.snapshot()?.files.len();
    let tool_names: Vec<&str> = env.tools.iter().map(|t| t.name).collect();
    let plan = create_plan(
        &state.query_frame,
        state.intent,
        &PlanContext {
            session_id: Some(&state.session_id),
            available_tools: &tool_names,
            indexed_files: Some(indexed),
            hinted_symbols: if state.shortcircuit.found {
                &state.shortcircuit.symbols
            } else {
                &[]
            },
            risk_floor: state.risk_floor,
            now: stamp,
        },
    );
    if let Some(log) = &plan.decision_log
        && let Err(err) = env.sessions.memory.record_decision(log)
    {
        tracing::warn!("could not append the decision log: {err}");
    }
    let mut valid_slots = Vec::new();
    let mut rejected_slots = Vec::new();
    for verdict in verdicts {
        match verdict {
            SlotVerdict::Accepted { slot, value } => valid_slots.push(ValidSlot { slot, value }),
            SlotVerdict::Rejected(r) => rejected_slots.push(r),
        }
    }
    Ok(SetFrameOutput {
        session_id: state.session_id.clone(),
        valid_slots,
        rejected_slots,
        missing_slots: state.query_frame.missing_slots(),
        risk_level: state.risk_level,
        plan,
    })
}
