//! The improvement cycle's logs (seed 000): one JSON object per line, append-only.

use super::MemoryError;
use crate::query_frame::{Intent, RiskLevel};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How a session ended, as the agent (or the user through it) reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Success,
    Failure,
    Partial,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
            Outcome::Partial => "partial",
        }
    }
}

/// One line of `logs/outcomes.jsonl` (seed 000 OutcomeLog, plus what the server knows itself).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutcomeLog {
    pub session_id: String,
    pub outcome: Outcome,
    /// The phase the session was in when the outcome was recorded.
    pub phase_at_outcome: String,
    pub intent: Intent,
    pub risk_level: RiskLevel,
    /// Whether the session went through SEMANTIC (seed 000's `devrag_used`).
    pub semantic_used: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_message: Option<String>,
    /// Distinct tools the session called, from the server's own record.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// Calls the phase gate refused in the session.
    #[serde(default)]
    pub phase_violations: usize,
    pub timestamp: String,
}

/// Reads a JSON-lines file; a missing file is empty, unparsable lines (a torn last line, a
/// hand edit) are skipped.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, MemoryError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MemoryError::io(path, e)),
    };
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}
