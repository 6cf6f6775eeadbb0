//! The session's phases (seed 000): EXPLORATION → (READY | SEMANTIC → VERIFICATION → READY).
//! The router plans in phases and the session moves through them (its state machine, the
//! tool/phase matrix and the write gate all speak of them), so the word lives here, below both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Phase {
    Exploration,
    Semantic,
    Verification,
    Ready,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Exploration => "EXPLORATION",
            Phase::Semantic => "SEMANTIC",
            Phase::Verification => "VERIFICATION",
            Phase::Ready => "READY",
        }
    }

    /// What the agent should do next in this phase.
    pub fn next_step(self) -> &'static str {
        match self {
            Phase::Exploration => {
                "explore with find_definitions / find_references / search_text, then call submit_understanding"
            }
            Phase::Semantic => {
                "search the forest with semantic_search (collection \"forest\"), then call submit_semantic"
            }
            Phase::Verification => {
                "check each hypothesis with the code tools, then call submit_verification"
            }
            Phase::Ready => "check_write_target before each edit; record_outcome when done",
        }
    }
}
