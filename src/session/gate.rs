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
//! Session tools and maintenance tools (`sync_index`) are never refused here; each session tool
//! checks its own phase. Which class a tool is in is a column of the tool table ([`Gate`]), set
//! where the tool is declared. `collection: "auto"` may fall through to the forest, so it counts
//! as a forest search. Writes are gated by `check_write_target` and the Claude Code hook, not
//! here.

use crate::router::Phase;
use serde_json::Value;

/// Which part of the matrix a tool belongs to: a column of the server's tool table
/// (`tools::TOOLS`), so a new tool is classified where it is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Session tools: always callable; they enforce their own phase preconditions.
    Session,
    /// Tools that maintain or report on indexes and never explore code themselves.
    Maintenance,
    /// Code exploration (search_text, find_definitions, get_symbols, …).
    Code,
    /// `semantic_search`: map or forest, as its `collection` says.
    Search,
}

/// A tool as the gate sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatedTool {
    pub name: &'static str,
    pub gate: Gate,
}

/// How the matrix sees a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    Session,
    Maintenance,
    Code,
    /// `semantic_search` on the learned map only.
    MapSearch,
    /// `semantic_search` that may read the forest (`forest` or `auto`).
    ForestSearch,
}

/// The class of one call of a tool of class `gate` with arguments `args`.
pub fn classify(gate: Gate, args: &Value) -> ToolClass {
    match gate {
        Gate::Session => ToolClass::Session,
        Gate::Maintenance => ToolClass::Maintenance,
        Gate::Code => ToolClass::Code,
        Gate::Search => match args.get("collection").and_then(Value::as_str) {
            Some("map") => ToolClass::MapSearch,
            _ => ToolClass::ForestSearch,
        },
    }
}

/// The gate of the tool named `name` among `tools`; a name the table does not know is treated as
/// code exploration, the side the matrix restricts.
pub fn gate_of(tools: &[GatedTool], name: &str) -> Gate {
    tools
        .iter()
        .find(|t| t.name == name)
        .map_or(Gate::Code, |t| t.gate)
}

/// The tools of `tools` that `phase` allows (a search counted by its forest use).
pub fn allowed_in(phase: Phase, tools: &[GatedTool]) -> Vec<&'static str> {
    tools
        .iter()
        .filter(|t| allows(phase, classify(t.gate, &Value::Null)))
        .map(|t| t.name)
        .collect()
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

/// Checks one call against the matrix. `all_tools` is the server's tool table, from which the
/// allowed ones are named in the refusal.
pub fn check(
    phase: Phase,
    tool: &str,
    args: &Value,
    all_tools: &[GatedTool],
) -> Result<(), Violation> {
    let class = classify(gate_of(all_tools, tool), args);
    if allows(phase, class) {
        return Ok(());
    }
    let mut allowed: Vec<String> = allowed_in(phase, all_tools)
        .into_iter()
        .map(String::from)
        .collect();
    let search = all_tools.iter().find(|t| t.gate == Gate::Search);
    if let Some(search) = search
        && !allowed.iter().any(|t| t == search.name)
    {
        allowed.push(format!("{} (collection: \"map\")", search.name));
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

    const fn tool(name: &'static str, gate: Gate) -> GatedTool {
        GatedTool { name, gate }
    }

    /// A table like the server's (its real classes are tested with `tools::TOOLS`).
    const TABLE: &[GatedTool] = &[
        tool("search_text", Gate::Code),
        tool("find_definitions", Gate::Code),
        tool("semantic_search", Gate::Search),
        tool("start_session", Gate::Session),
        tool("submit_semantic", Gate::Session),
        tool("sync_index", Gate::Maintenance),
    ];

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
            ("submit_semantic", &none, [true, true, true, true]),
            ("sync_index", &none, [true, true, true, true]),
            // A name the table does not know is held to the code tools' rule.
            ("no_such_tool", &none, [true, false, true, true]),
        ];
        for (tool, args, want) in cases {
            for (phase, want) in [Exploration, Semantic, Verification, Ready]
                .into_iter()
                .zip(want)
            {
                assert_eq!(
                    check(phase, tool, args, TABLE).is_ok(),
                    *want,
                    "{tool} {args} in {phase:?}"
                );
            }
        }
    }

    #[test]
    fn refusal_names_phase_allowed_tools_and_next_step() {
        let all = &TABLE[..4];
        let v = check(Phase::Semantic, "find_definitions", &Value::Null, all).unwrap_err();
        assert!(v.message.contains("SEMANTIC"), "{}", v.message);
        assert_eq!(v.allowed, ["semantic_search", "start_session"]);
        assert!(v.next_step.contains("submit_semantic"));
        let v = check(
            Phase::Exploration,
            "semantic_search",
            &json!({"collection": "forest"}),
            all,
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
