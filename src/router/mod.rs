//! The seeds' Router: intent + the QueryFrame's missing slots → an [`ExecutionPlan`] and a
//! [`DecisionLog`].
//!
//! v3.7 (seed 003, proposal 1) removed every keyword regex from routing: the plan depends only on
//! the intent and on which slots the request left open. A missing slot says what exploration has
//! to find out, and [`SLOT_TO_TOOLS`] says which tools find it. The intent adds what its phase
//! requirements need (IMPLEMENT / MODIFY must use `find_definitions` and `find_references` before
//! `submit_understanding` can pass) and orders the steps. Nothing here reads files or the request
//! text: the plan is a pure function of its inputs, so the decision log can be replayed.
//!
//! The caller (the session service) appends each plan's [`DecisionLog`] to
//! `.code-intel/logs/decisions.jsonl` through `crate::memory`.

use crate::query_frame::{Intent, QueryFrame, RiskLevel, Slot, assess_risk_level};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which tools find out what a missing slot would have said (seed 003 `SLOT_TO_TOOLS`).
pub const SLOT_TO_TOOLS: [(Slot, &[&str]); 4] = [
    (Slot::TargetFeature, &["find_definitions", "search_text"]),
    (Slot::TriggerCondition, &["find_references", "search_text"]),
    (Slot::ObservedIssue, &["search_text", "analyze_structure"]),
    (Slot::DesiredAction, &[]),
];

/// One planned call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecutionStep {
    pub tool: String,
    /// The phase the step belongs to (EXPLORATION, SEMANTIC, VERIFICATION, READY).
    pub phase: String,
    /// Why the step is in the plan.
    pub purpose: String,
}

/// The improvement cycle's record of one routing decision (seed 000).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DecisionLog {
    pub query: String,
    pub timestamp: String,
    pub intent: Intent,
    pub required_phases: Vec<String>,
    pub missing_slots: Vec<Slot>,
    pub risk_level: RiskLevel,
    pub tools_planned: Vec<String>,
    pub needs_bootstrap: bool,
    pub bootstrap_reason: Option<String>,
    pub session_id: Option<String>,
}

/// The plan (seed 000 `ExecutionPlan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecutionPlan {
    pub steps: Vec<ExecutionStep>,
    pub reasoning: String,
    pub needs_bootstrap: bool,
    pub decision_log: Option<DecisionLog>,
    pub intent: Intent,
    pub risk_level: RiskLevel,
    pub missing_slots: Vec<Slot>,
}

/// What the router may know besides the frame; all of it is data the caller already has.
#[derive(Debug, Clone, Default)]
pub struct PlanContext<'a> {
    pub session_id: Option<&'a str>,
    /// Names of the tools this server offers; planned tools it lacks are left out.
    pub available_tools: &'a [&'a str],
    /// Files in the symbol index, when known; 0 means the project has not been indexed yet.
    pub indexed_files: Option<usize>,
    /// Symbols a past agreement suggests (the map's short-circuit hint).
    pub hinted_symbols: &'a [String],
    /// A risk raised elsewhere (e.g. a gray-zone symbol confirmation); the plan never lowers it.
    pub risk_floor: RiskLevel,
    /// RFC 3339 time stamped on the decision log.
    pub now: String,
}

/// Builds the plan for `frame` and `intent` (seed 000 `create_plan`, v3.7 slot-based).
pub fn create_plan(frame: &QueryFrame, intent: Intent, cx: &PlanContext<'_>) -> ExecutionPlan {
    let missing = frame.missing_slots();
    let risk_level = assess_risk_level(intent, frame).max(cx.risk_floor);
    let mut steps: Vec<ExecutionStep> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    let available =
        |tool: &str| cx.available_tools.is_empty() || cx.available_tools.contains(&tool);
    let push = |steps: &mut Vec<ExecutionStep>, tool: &str, phase: &str, purpose: String| {
        if available(tool) && !steps.iter().any(|s| s.tool == tool && s.phase == phase) {
            steps.push(ExecutionStep {
                tool: tool.to_string(),
                phase: phase.to_string(),
                purpose,
            });
        }
    };

    // Bootstrap: nothing to anchor a symbol search on.
    let bootstrap_reason = if cx.indexed_files == Some(0) {
        Some("the project has no indexed source files yet".to_string())
    } else if frame.target_feature.is_none() {
        Some(
            "target_feature is unknown: map the project's structure before searching for symbols"
                .to_string(),
        )
    } else {
        None
    };
    if bootstrap_reason.is_some() {
        push(
            &mut steps,
            "get_symbols",
            "EXPLORATION",
            "bootstrap: list the project's main symbols".into(),
        );
        push(
            &mut steps,
            "analyze_structure",
            "EXPLORATION",
            "bootstrap: see how the relevant files are organised".into(),
        );
    }

    // The learned map is always readable and may already know the answer.
    if !cx.hinted_symbols.is_empty() {
        push(
            &mut steps,
            "find_definitions",
            "EXPLORATION",
            format!(
                "verify the symbols a past success suggests first: {}",
                cx.hinted_symbols.join(", ")
            ),
        );
        reasons
            .push("a past agreement matches this request; its symbols are verified first".into());
    } else {
        push(
            &mut steps,
            "semantic_search",
            "EXPLORATION",
            "search the learned map (collection \"map\") for a past success on a similar request"
                .into(),
        );
    }

    // Intent first: its order and its required tools.
    let intent_tools: &[&str] = match intent {
        Intent::Implement => &[
            "find_definitions",
            "find_references",
            "analyze_structure",
            "search_text",
        ],
        Intent::Modify => &["find_references", "find_definitions"],
        Intent::Investigate => &["analyze_structure", "find_definitions"],
        Intent::Question => &[],
    };
    for tool in intent_tools {
        push(
            &mut steps,
            tool,
            "EXPLORATION",
            format!("{} requires it", intent.as_str()),
        );
    }
    // Then what each missing slot needs.
    for (slot, tools) in SLOT_TO_TOOLS {
        if missing.contains(&slot) {
            for tool in tools {
                push(
                    &mut steps,
                    tool,
                    "EXPLORATION",
                    format!("find out {} (missing from the request)", slot.as_str()),
                );
            }
        }
    }
    if !missing.is_empty() {
        reasons.push(format!(
            "missing slots {} are explored with {}",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            SLOT_TO_TOOLS
                .iter()
                .filter(|(s, t)| missing.contains(s) && !t.is_empty())
                .flat_map(|(_, t)| t.iter().copied())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match intent {
        Intent::Implement => reasons.push(
            "IMPLEMENT: definitions, references, structure and text search before writing".into(),
        ),
        Intent::Modify => {
            reasons.push("MODIFY: references first, to know what a change breaks".into())
        }
        Intent::Investigate => {
            reasons.push("INVESTIGATE: structure and semantic search first".into())
        }
        Intent::Question => reasons.push("QUESTION: minimal exploration".into()),
    }

    push(
        &mut steps,
        "submit_understanding",
        "EXPLORATION",
        "hand in symbols, entry points, files and patterns; the server evaluates them".into(),
    );
    if frame.target_feature.is_some() {
        push(
            &mut steps,
            "validate_symbol_relevance",
            "EXPLORATION",
            "get the relevance prompt and the server's similarity scores".into(),
        );
        push(
            &mut steps,
            "confirm_symbol_relevance",
            "EXPLORATION",
            "confirm the relevant symbols with code evidence".into(),
        );
    }
    let semantic_likely = risk_level == RiskLevel::High;
    if semantic_likely {
        push(
            &mut steps,
            "semantic_search",
            "SEMANTIC",
            "if exploration is judged insufficient: search the forest (collection \"forest\")"
                .into(),
        );
        push(
            &mut steps,
            "submit_semantic",
            "SEMANTIC",
            "record hypotheses with the reason semantic search was needed".into(),
        );
        push(
            &mut steps,
            "submit_verification",
            "VERIFICATION",
            "confirm or reject every hypothesis with code tools".into(),
        );
        reasons.push(format!(
            "risk {}: expect the SEMANTIC and VERIFICATION phases",
            risk_level.as_str()
        ));
    }
    if matches!(intent, Intent::Implement | Intent::Modify) {
        push(
            &mut steps,
            "check_write_target",
            "READY",
            "ask before every file written".into(),
        );
    }
    push(
        &mut steps,
        "record_outcome",
        "READY",
        "record success or failure so the next session learns from it".into(),
    );

    let mut required_phases = vec!["EXPLORATION".to_string()];
    if semantic_likely {
        required_phases.push("SEMANTIC".into());
        required_phases.push("VERIFICATION".into());
    }
    required_phases.push("READY".into());

    let tools_planned: Vec<String> = steps.iter().map(|s| s.tool.clone()).collect();
    let needs_bootstrap = bootstrap_reason.is_some();
    if let Some(reason) = &bootstrap_reason {
        reasons.insert(0, format!("bootstrap: {reason}"));
    }
    let decision_log = DecisionLog {
        query: frame.raw_query.clone(),
        timestamp: cx.now.clone(),
        intent,
        required_phases,
        missing_slots: missing.clone(),
        risk_level,
        tools_planned,
        needs_bootstrap,
        bootstrap_reason,
        session_id: cx.session_id.map(String::from),
    };
    ExecutionPlan {
        steps,
        reasoning: reasons.join("; "),
        needs_bootstrap,
        decision_log: Some(decision_log),
        intent,
        risk_level,
        missing_slots: missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query_frame::{SlotSource, SlotValue};

    fn frame(slots: &[Slot]) -> QueryFrame {
        let mut f = QueryFrame::new("ログイン機能でパスワードが空のときエラーが出ない");
        for s in slots {
            f.set_slot(
                *s,
                Some(SlotValue {
                    value: "v".into(),
                    quote: "v".into(),
                    source: SlotSource::Fact,
                    confidence: 1.0,
                    note: None,
                }),
            );
        }
        f
    }

    fn exploration_tools(plan: &ExecutionPlan) -> Vec<&str> {
        plan.steps
            .iter()
            .filter(|s| s.phase == "EXPLORATION")
            .map(|s| s.tool.as_str())
            .collect()
    }

    #[test]
    fn plans_follow_intent_and_missing_slots() {
        use Slot::*;
        let all = [
            TargetFeature,
            TriggerCondition,
            ObservedIssue,
            DesiredAction,
        ];
        type Case<'a> = (Intent, &'a [Slot], &'a [&'a str], RiskLevel, bool);
        let cases: &[Case] = &[
            // Full frame, MODIFY: references first, no bootstrap, low risk.
            (
                Intent::Modify,
                &all,
                &[
                    "semantic_search",
                    "find_references",
                    "find_definitions",
                    "submit_understanding",
                    "validate_symbol_relevance",
                    "confirm_symbol_relevance",
                ],
                RiskLevel::Low,
                false,
            ),
            // MODIFY without observed_issue: HIGH, slot tools added.
            (
                Intent::Modify,
                &[TargetFeature, TriggerCondition, DesiredAction],
                &[
                    "semantic_search",
                    "find_references",
                    "find_definitions",
                    "search_text",
                    "analyze_structure",
                    "submit_understanding",
                    "validate_symbol_relevance",
                    "confirm_symbol_relevance",
                ],
                RiskLevel::High,
                false,
            ),
            // Nothing known: bootstrap.
            (
                Intent::Implement,
                &[],
                &[
                    "get_symbols",
                    "analyze_structure",
                    "semantic_search",
                    "find_definitions",
                    "find_references",
                    "search_text",
                    "submit_understanding",
                ],
                RiskLevel::High,
                true,
            ),
            // QUESTION: only the map and what the missing slot needs.
            (
                Intent::Question,
                &[TargetFeature, TriggerCondition, DesiredAction],
                &[
                    "semantic_search",
                    "search_text",
                    "analyze_structure",
                    "submit_understanding",
                    "validate_symbol_relevance",
                    "confirm_symbol_relevance",
                ],
                RiskLevel::Low,
                false,
            ),
        ];
        for (intent, slots, want_tools, want_risk, want_bootstrap) in cases {
            let plan = create_plan(&frame(slots), *intent, &PlanContext::default());
            assert_eq!(
                exploration_tools(&plan),
                *want_tools,
                "{intent:?} {slots:?}"
            );
            assert_eq!(plan.risk_level, *want_risk, "{intent:?} {slots:?}");
            assert_eq!(
                plan.needs_bootstrap, *want_bootstrap,
                "{intent:?} {slots:?}"
            );
            let log = plan.decision_log.as_ref().unwrap();
            assert_eq!(log.missing_slots, plan.missing_slots);
            assert_eq!(
                log.required_phases.contains(&"SEMANTIC".to_string()),
                *want_risk == RiskLevel::High
            );
        }
    }

    #[test]
    fn plan_respects_available_tools_hints_and_risk_floor() {
        let tools = [
            "find_definitions",
            "find_references",
            "submit_understanding",
            "record_outcome",
        ];
        let hinted = vec!["AuthService".to_string()];
        let cx = PlanContext {
            session_id: Some("s1"),
            available_tools: &tools,
            hinted_symbols: &hinted,
            risk_floor: RiskLevel::High,
            ..PlanContext::default()
        };
        let plan = create_plan(&frame(&Slot::ALL), Intent::Modify, &cx);
        let planned: Vec<&str> = plan.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(
            planned,
            [
                "find_definitions",
                "find_references",
                "submit_understanding",
                "record_outcome"
            ]
        );
        assert!(plan.steps[0].purpose.contains("AuthService"));
        assert_eq!(plan.risk_level, RiskLevel::High);
        assert_eq!(plan.decision_log.unwrap().session_id.as_deref(), Some("s1"));
    }
}
