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

mod phase;

pub use phase::Phase;

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
    /// The phase the step belongs to.
    pub phase: Phase,
    /// Why the step is in the plan.
    pub purpose: String,
}

/// The improvement cycle's record of one routing decision (seed 000).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DecisionLog {
    pub query: String,
    pub timestamp: String,
    pub intent: Intent,
    pub required_phases: Vec<Phase>,
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
    let mut plan = Planner {
        available_tools: cx.available_tools,
        steps: Vec::new(),
        reasons: Vec::new(),
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
        plan.bootstrap();
    }
    plan.learned_map(cx.hinted_symbols);
    plan.intent_tools(intent);
    plan.missing_slots(&missing);
    plan.intent_reason(intent);
    plan.understanding(frame.target_feature.is_some());
    let semantic_likely = risk_level == RiskLevel::High;
    if semantic_likely {
        plan.semantic_and_verification(risk_level);
    }
    plan.ready(intent);

    let mut required_phases = vec![Phase::Exploration];
    if semantic_likely {
        required_phases.push(Phase::Semantic);
        required_phases.push(Phase::Verification);
    }
    required_phases.push(Phase::Ready);

    let Planner {
        steps, mut reasons, ..
    } = plan;
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

/// The plan as it is built: steps in order (each tool at most once per phase) and the reasons
/// the decision log gives for them.
struct Planner<'a> {
    available_tools: &'a [&'a str],
    steps: Vec<ExecutionStep>,
    reasons: Vec<String>,
}

impl Planner<'_> {
    /// Adds a step unless the server lacks the tool or the phase already has it.
    fn push(&mut self, tool: &str, phase: Phase, purpose: impl Into<String>) {
        let available = self.available_tools.is_empty() || self.available_tools.contains(&tool);
        if available
            && !self
                .steps
                .iter()
                .any(|s| s.tool == tool && s.phase == phase)
        {
            self.steps.push(ExecutionStep {
                tool: tool.to_string(),
                phase,
                purpose: purpose.into(),
            });
        }
    }

    fn bootstrap(&mut self) {
        self.push(
            "get_symbols",
            Phase::Exploration,
            "bootstrap: list the project's main symbols",
        );
        self.push(
            "analyze_structure",
            Phase::Exploration,
            "bootstrap: see how the relevant files are organised",
        );
    }

    /// The learned map is always readable and may already know the answer.
    fn learned_map(&mut self, hinted_symbols: &[String]) {
        if !hinted_symbols.is_empty() {
            self.push(
                "find_definitions",
                Phase::Exploration,
                format!(
                    "verify the symbols a past success suggests first: {}",
                    hinted_symbols.join(", ")
                ),
            );
            self.reasons.push(
                "a past agreement matches this request; its symbols are verified first".into(),
            );
        } else {
            self.push(
                "semantic_search",
                Phase::Exploration,
                "search the learned map (collection \"map\") for a past success on a similar request",
            );
        }
    }

    /// Intent first: its order and its required tools.
    fn intent_tools(&mut self, intent: Intent) {
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
            self.push(
                tool,
                Phase::Exploration,
                format!("{} requires it", intent.as_str()),
            );
        }
    }

    /// Then what each missing slot needs.
    fn missing_slots(&mut self, missing: &[Slot]) {
        for (slot, tools) in SLOT_TO_TOOLS {
            if missing.contains(&slot) {
                for tool in tools {
                    self.push(
                        tool,
                        Phase::Exploration,
                        format!("find out {} (missing from the request)", slot.as_str()),
                    );
                }
            }
        }
        if missing.is_empty() {
            return;
        }
        let tools: std::collections::BTreeSet<&str> = SLOT_TO_TOOLS
            .iter()
            .filter(|(s, t)| missing.contains(s) && !t.is_empty())
            .flat_map(|(_, t)| t.iter().copied())
            .collect();
        let reason = format!(
            "missing slots {} are explored with {}",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            tools.into_iter().collect::<Vec<_>>().join(", ")
        );
        self.reasons.push(reason);
    }

    /// Why the intent orders exploration as it does.
    fn intent_reason(&mut self, intent: Intent) {
        self.reasons.push(
            match intent {
                Intent::Implement => {
                    "IMPLEMENT: definitions, references, structure and text search before writing"
                }
                Intent::Modify => "MODIFY: references first, to know what a change breaks",
                Intent::Investigate => "INVESTIGATE: structure and semantic search first",
                Intent::Question => "QUESTION: minimal exploration",
            }
            .into(),
        );
    }

    fn understanding(&mut self, has_target: bool) {
        self.push(
            "submit_understanding",
            Phase::Exploration,
            "hand in symbols, entry points, files and patterns; the server evaluates them",
        );
        if has_target {
            self.push(
                "validate_symbol_relevance",
                Phase::Exploration,
                "get the relevance prompt and the server's similarity scores",
            );
            self.push(
                "confirm_symbol_relevance",
                Phase::Exploration,
                "confirm the relevant symbols with code evidence",
            );
        }
    }

    fn semantic_and_verification(&mut self, risk_level: RiskLevel) {
        self.push(
            "semantic_search",
            Phase::Semantic,
            "if exploration is judged insufficient: search the forest (collection \"forest\")",
        );
        self.push(
            "submit_semantic",
            Phase::Semantic,
            "record hypotheses with the reason semantic search was needed",
        );
        self.push(
            "submit_verification",
            Phase::Verification,
            "confirm or reject every hypothesis with code tools",
        );
        self.reasons.push(format!(
            "risk {}: expect the SEMANTIC and VERIFICATION phases",
            risk_level.as_str()
        ));
    }

    fn ready(&mut self, intent: Intent) {
        if matches!(intent, Intent::Implement | Intent::Modify) {
            self.push(
                "check_write_target",
                Phase::Ready,
                "ask before every file written",
            );
        }
        self.push(
            "record_outcome",
            Phase::Ready,
            "record success or failure so the next session learns from it",
        );
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
            .filter(|s| s.phase == Phase::Exploration)
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
                log.required_phases.contains(&Phase::Semantic),
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
