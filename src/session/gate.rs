//! The phase gate: which of the server's own tools a session's phase allows (seed 004's v3.9
//! matrix). Enforced by the server on every call while a session is active, so "explore before
//! guessing, verify before writing" does not depend on the agent's discipline.
//!
//! | phase | semantic_search (map) | semantic_search (forest / auto) | code tools | writes |
//! |---|---|---|---|---|
//! | EXPLORATION | allowed | refused | allowed | refused |
//! | SEMANTIC | allowed | allowed | refused | refused |
//! | VERIFICATION | allowed | refused | allowed | refused |
//! | READY | allowed | allowed | allowed | allowed (explored files) |
//!
//! Session tools, status and maintenance tools (`sync_index`, `index_status`) are never refused
//! here; each session tool checks its own phase. `collection: "auto"` may fall through to the
//! forest, so it counts as a forest search. Writes are gated by `check_write_target` and the
//! Claude Code hook, not here. Tools added later default to code tools (read-only exploration),
//! which is the safe side.

use super::state::Phase;
use serde_json::Value;

/// The session tools: always callable; they enforce their own phase preconditions.
pub const SESSION_TOOLS: &[&str] = &[
    "start_session",
    "set_query_frame",
    "submit_understanding",
    "validate_symbol_relevance",
    "confirm_symbol_relevance",
    "submit_semantic",
    "submit_verification",
    "check_write_target",
    "add_explored_files",
    "revert_to_exploration",
    "record_outcome",
    "get_session_status",
    "get_session_analysis",
    "get_improvement_insights",
];

/// Tools that maintain or report on indexes and never explore code themselves.
const MAINTENANCE_TOOLS: &[&str] = &["sync_index", "index_status"];

/// How the matrix sees a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    Session,
    Maintenance,
    /// Code exploration (search_text, find_definitions, get_symbols, …).
    Code,
    /// `semantic_search` on the learned map only.
    MapSearch,
    /// `semantic_search` that may read the forest (`forest` or `auto`).
    ForestSearch,
}

pub fn classify(tool: &str, args: &Value) -> ToolClass {
    if SESSION_TOOLS.contains(&tool) {
        return ToolClass::Session;
    }
    if MAINTENANCE_TOOLS.contains(&tool) {
        return ToolClass::Maintenance;
    }
    if tool == "semantic_search" {
        return match args.get("collection").and_then(Value::as_str) {
            Some("map") => ToolClass::MapSearch,
            _ => ToolClass::ForestSearch,
        };
    }
    ToolClass::Code
}

pub fn allows(phase: Phase, class: ToolClass) -> bool {
    match class {
        ToolClass::Session | ToolClass::Maintenance | ToolClass::MapSearch => true,
        ToolClass::Code => phase != Phase::Semantic,
        ToolClass::ForestSearch => matches!(phase, Phase::Semantic | Phase::Ready),
    }
}

/// A refused call: everything the agent needs to carry on.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub phase: Phase,
    pub tool: String,
    pub message: String,
    /// Tools (of `all_tools`) the phase allows.
    pub allowed: Vec<String>,
    pub next_step: String,
}

/// Checks one call against the matrix. `all_tools` is the server's tool list, from which the
/// allowed ones are named in the refusal.
pub fn check(phase: Phase, tool: &str, args: &Value, all_tools: &[&str]) -> Result<(), Violation> {
    let class = classify(tool, args);
    if allows(phase, class) {
        return Ok(());
    }
    let mut allowed: Vec<String> = all_tools
        .iter()
        .filter(|t| allows(phase, classify(t, &Value::Null)))
        .map(|t| t.to_string())
        .collect();
    if all_tools.contains(&"semantic_search") && !allowed.iter().any(|t| t == "semantic_search") {
        allowed.push("semantic_search (collection: \"map\")".into());
    }
    let what = match class {
        ToolClass::ForestSearch => {
            "semantic search of the forest (collection \"forest\" or \"auto\")"
        }
        _ => "code exploration tools",
    };
    let next_step = match phase {
        Phase::Exploration => "explore with the code tools (find_definitions, find_references, search_text, …), then call submit_understanding; the forest is searched only if the server finds the exploration insufficient and moves the session to SEMANTIC. The learned map (semantic_search with collection \"map\") is always allowed.".to_string(),
        Phase::Semantic => "search the forest with semantic_search (collection \"forest\"), then call submit_semantic with your hypotheses and semantic_reason; code tools come back in VERIFICATION to check them.".to_string(),
        Phase::Verification => "verify each hypothesis with the code tools, then call submit_verification; forest search is not allowed while verifying.".to_string(),
        Phase::Ready => "all tools are allowed in READY.".to_string(),
    };
    Err(Violation {
        phase,
        tool: tool.to_string(),
        message: format!(
            "{tool} is not allowed in the {} phase: {what} are refused there",
            phase.as_str()
        ),
        allowed,
        next_step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_v39_matrix() {
        use Phase::*;
        let map = json!({"collection": "map"});
        let forest = json!({"collection": "forest"});
        let auto = json!({"query": "x"});
        let none = Value::Null;
        // (tool, args, [EXPLORATION, SEMANTIC, VERIFICATION, READY])
        let cases: &[(&str, &Value, [bool; 4])] = &[
            ("semantic_search", &map, [true, true, true, true]),
            ("semantic_search", &forest, [false, true, false, true]),
            ("semantic_search", &auto, [false, true, false, true]),
            ("find_definitions", &none, [true, false, true, true]),
            ("search_text", &none, [true, false, true, true]),
            ("get_function_at_line", &none, [true, false, true, true]),
            ("analyze_file", &none, [true, false, true, true]),
            ("submit_semantic", &none, [true, true, true, true]),
            ("get_session_status", &none, [true, true, true, true]),
            ("sync_index", &none, [true, true, true, true]),
        ];
        for (tool, args, want) in cases {
            for (phase, want) in [Exploration, Semantic, Verification, Ready]
                .into_iter()
                .zip(want)
            {
                assert_eq!(
                    check(phase, tool, args, &[]).is_ok(),
                    *want,
                    "{tool} {args} in {phase:?}"
                );
            }
        }
    }

    #[test]
    fn refusal_names_phase_allowed_tools_and_next_step() {
        let all = [
            "search_text",
            "find_definitions",
            "semantic_search",
            "start_session",
        ];
        let v = check(Phase::Semantic, "find_definitions", &Value::Null, &all).unwrap_err();
        assert!(v.message.contains("SEMANTIC"), "{}", v.message);
        assert_eq!(v.allowed, ["semantic_search", "start_session"]);
        assert!(v.next_step.contains("submit_semantic"));
        let v = check(
            Phase::Exploration,
            "semantic_search",
            &json!({"collection": "forest"}),
            &all,
        )
        .unwrap_err();
        assert!(
            v.allowed
                .contains(&"semantic_search (collection: \"map\")".to_string()),
            "{:?}",
            v.allowed
        );
        assert!(v.next_step.contains("submit_understanding"));
    }
}
