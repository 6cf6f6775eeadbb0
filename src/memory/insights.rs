//! The improvement cycle's analyses (seed 000): one session's decision joined with its outcomes,
//! and failure patterns across sessions (which planned tools, risk levels and phases go with
//! failures), so the routing rules can be corrected from data.

use super::{Memory, MemoryError, Outcome, OutcomeLog};
use crate::router::DecisionLog;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Seed 000 `get_session_analysis`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionAnalysis {
    pub session_id: String,
    /// The session's last routing decision.
    pub decision: Option<DecisionLog>,
    pub outcomes: Vec<OutcomeLog>,
    pub analysis: AnalysisSummary,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AnalysisSummary {
    pub had_decision: bool,
    pub had_outcome: bool,
    pub final_outcome: Option<Outcome>,
    pub tools_planned: Vec<String>,
    /// The phase a failed or partial session ended in.
    pub failure_point: Option<String>,
}

pub fn session_analysis(memory: &Memory, session_id: &str) -> Result<SessionAnalysis, MemoryError> {
    let decision = memory
        .decisions()?
        .into_iter()
        .rfind(|d| d.session_id.as_deref() == Some(session_id));
    let outcomes: Vec<OutcomeLog> = memory
        .outcomes()?
        .into_iter()
        .filter(|o| o.session_id == session_id)
        .collect();
    let last = outcomes.last();
    let analysis = AnalysisSummary {
        had_decision: decision.is_some(),
        had_outcome: last.is_some(),
        final_outcome: last.map(|o| o.outcome),
        tools_planned: decision
            .as_ref()
            .map(|d| d.tools_planned.clone())
            .unwrap_or_default(),
        failure_point: last
            .filter(|o| o.outcome != Outcome::Success)
            .map(|o| o.phase_at_outcome.clone()),
    };
    Ok(SessionAnalysis {
        session_id: session_id.to_string(),
        decision,
        outcomes,
        analysis,
    })
}

/// Per tool: sessions that planned or used it, and how many of them failed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ToolStats {
    pub sessions: usize,
    pub failures: usize,
    pub failure_rate: f64,
}

/// Per risk level: outcome counts and the share that was not a success.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RiskStats {
    pub outcomes: BTreeMap<String, usize>,
    pub failure_rate: f64,
}

/// Seed 000 `get_improvement_insights`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Insights {
    pub total_sessions_with_outcomes: usize,
    pub sessions_with_decisions: usize,
    pub tool_failure_correlation: BTreeMap<String, ToolStats>,
    pub risk_level_correlation: BTreeMap<String, RiskStats>,
    /// Phase at failure (or partial success) → sessions.
    pub common_failure_points: BTreeMap<String, usize>,
}

/// Seed 000 `get_improvement_insights` over the last `limit` sessions with an outcome.
pub fn improvement_insights(memory: &Memory, limit: usize) -> Result<Insights, MemoryError> {
    // The last outcome of each session, newest sessions last.
    let mut last_outcome: BTreeMap<String, (usize, OutcomeLog)> = BTreeMap::new();
    for (i, o) in memory.outcomes()?.into_iter().enumerate() {
        last_outcome.insert(o.session_id.clone(), (i, o));
    }
    let mut sessions: Vec<(usize, OutcomeLog)> = last_outcome.into_values().collect();
    sessions.sort_by_key(|(i, _)| *i);
    let skip = sessions.len().saturating_sub(limit);
    let sessions: Vec<OutcomeLog> = sessions.into_iter().skip(skip).map(|(_, o)| o).collect();

    let mut decisions: BTreeMap<String, DecisionLog> = BTreeMap::new();
    for d in memory.decisions()? {
        if let Some(id) = d.session_id.clone() {
            decisions.insert(id, d);
        }
    }

    let failed = |o: &OutcomeLog| o.outcome != Outcome::Success;
    let mut tool_stats: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut risk_stats: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut failure_points: BTreeMap<String, usize> = BTreeMap::new();
    let mut with_decisions = 0;
    for o in &sessions {
        let planned: BTreeSet<String> = match decisions.get(&o.session_id) {
            Some(d) => {
                with_decisions += 1;
                d.tools_planned.iter().cloned().collect()
            }
            None => BTreeSet::new(),
        };
        let used: BTreeSet<String> = o.tools_used.iter().cloned().collect();
        for tool in planned.union(&used) {
            let entry = tool_stats.entry(tool.clone()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(failed(o));
        }
        *risk_stats
            .entry(o.risk_level.as_str().to_string())
            .or_default()
            .entry(o.outcome.as_str())
            .or_default() += 1;
        if failed(o) {
            *failure_points
                .entry(o.phase_at_outcome.clone())
                .or_default() += 1;
        }
    }
    let tool_failure_correlation = tool_stats
        .into_iter()
        .map(|(tool, (n, f))| {
            (
                tool,
                ToolStats {
                    sessions: n,
                    failures: f,
                    failure_rate: ratio(f, n),
                },
            )
        })
        .collect();
    let risk_level_correlation = risk_stats
        .into_iter()
        .map(|(risk, counts)| {
            let total: usize = counts.values().sum();
            let failures = total - counts.get("success").copied().unwrap_or(0);
            let outcomes = counts
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            (
                risk,
                RiskStats {
                    outcomes,
                    failure_rate: ratio(failures, total),
                },
            )
        })
        .collect();
    Ok(Insights {
        total_sessions_with_outcomes: sessions.len(),
        sessions_with_decisions: with_decisions,
        tool_failure_correlation,
        risk_level_correlation,
        common_failure_points: failure_points,
    })
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 1000.0
    }
}
