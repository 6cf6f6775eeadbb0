//! `record_outcome`: how the change ended, logged for the improvement cycle; a success teaches
//! the map and the learned pairs.

use super::*;

#[derive(Debug, Serialize, JsonSchema)]
pub struct RecordOutput {
    pub session_id: String,
    pub outcome: Outcome,
    pub phase_at_outcome: Phase,
    /// The outcome line was appended to `.code-intel/logs/outcomes.jsonl`.
    pub recorded: bool,
    /// Agreement files written (relative to the project root).
    pub agreements_created: Vec<String>,
    /// Size of the learned-pair cache after the update, when pairs were learned.
    pub learned_pairs: Option<usize>,
    /// Whether every agreement reached the map store.
    pub map_updated: bool,
    pub map_store: String,
    pub map_errors: Vec<String>,
    pub notes: Vec<String>,
}

pub fn record_outcome(
    env: &Env,
    id: Option<&str>,
    outcome: Outcome,
    analysis: Option<String>,
    trigger_message: Option<String>,
) -> SessionResult<RecordOutput> {
    let state = outcome_session(env, id)?;
    let (t, stamp) = now();
    let log = outcome_log(env, &state, outcome, analysis, trigger_message, &stamp);
    env.sessions
        .memory
        .record_outcome(&log)
        .map_err(SessionError::internal)?;
    let learning = if outcome == Outcome::Success {
        learn_agreements(env, &state, &stamp)?
    } else {
        Learning::default()
    };
    let learned_pairs = if learning.learned.is_empty() {
        None
    } else {
        let snapshot = env.snapshot()?;
        let exists = |name: &str| !lookup::find_symbol(&snapshot, name).is_empty();
        Some(
            env.sessions
                .memory
                .learn_pairs(&learning.learned, t, &exists)
                .map_err(SessionError::internal)?
                .pairs
                .len(),
        )
    };
    if state.status != SessionStatus::Closed {
        env.update(&state.session_id, |s| {
            s.close(outcome);
            Ok(())
        })?;
    }
    Ok(RecordOutput {
        session_id: state.session_id,
        outcome,
        phase_at_outcome: state.phase,
        recorded: true,
        map_updated: !learning.agreements_created.is_empty() && learning.map_errors.is_empty(),
        agreements_created: learning.agreements_created,
        learned_pairs,
        map_store: env.sessions.map().kind().to_string(),
        map_errors: learning.map_errors,
        notes: learning.notes,
    })
}

/// The session an outcome is for: the one named, else the active session, else the latest
/// one (the /code workflow's step 0 records the previous session's failure after it ended).
fn outcome_session(env: &Env, id: Option<&str>) -> SessionResult<SessionState> {
    match id {
        Some(_) => env.session_any(id),
        None => match env.sessions.store.active().map_err(SessionError::from)? {
            Some(s) => Ok(s),
            None => env.sessions.store.latest()?.ok_or(SessionError::NoActive),
        },
    }
}

/// The outcome's log line: where the session stood, what it used, how often the gate refused.
fn outcome_log(
    env: &Env,
    state: &SessionState,
    outcome: Outcome,
    analysis: Option<String>,
    trigger_message: Option<String>,
    stamp: &str,
) -> OutcomeLog {
    let calls = env.calls(&state.session_id);
    OutcomeLog {
        session_id: state.session_id.clone(),
        outcome,
        phase_at_outcome: state.phase.as_str().to_string(),
        intent: state.intent,
        risk_level: state.risk_level,
        semantic_used: state.semantic.is_some(),
        analysis: analysis.filter(|a| !a.trim().is_empty()),
        trigger_message: trigger_message.filter(|a| !a.trim().is_empty()),
        tools_used: tools_used(&calls, env.tools).into_iter().collect(),
        phase_violations: calls
            .iter()
            .filter(|c| {
                c.error_code.as_deref() == Some(crate::error::ErrorCode::PhaseViolation.as_str())
            })
            .count(),
        timestamp: stamp.to_string(),
    }
}

/// What a successful session taught the project.
#[derive(Default)]
struct Learning {
    /// Agreement files written, relative to the project root.
    agreements_created: Vec<String>,
    learned: Vec<LearnedPair>,
    map_errors: Vec<String>,
    notes: Vec<String>,
}

/// One agreement per link the server judged relevant in the session
/// ([`SessionState::judged_links`]: verified hypotheses, FACT confirmations, the exploration's
/// FACT symbols, strongest first): written as a file, put in the map, and kept as a learned pair
/// of the request's term and the symbol. What the agent only asserted is not taught.
fn learn_agreements(env: &Env, state: &SessionState, stamp: &str) -> SessionResult<Learning> {
    let mut learning = Learning::default();
    let nl_term = state
        .query_frame
        .target_term()
        .map(String::from)
        .unwrap_or_else(|| state.query.clone());
    let links = state.judged_links();
    if links.is_empty() {
        learning.notes.push(
            "no link to the request was judged relevant (no symbol at FACT, none confirmed at FACT with evidence, no hypothesis verified), so nothing was learned"
                .to_string(),
        );
    }
    let gray = state.gray_only_confirmations();
    if !gray.is_empty() {
        learning.notes.push(format!(
            "not taught, confirmed only in the gray zone without verification: {}",
            gray.join(", ")
        ));
    }
    let map = env.sessions.map();
    for link in links {
        let code_evidence = format!(
            "{} ({})",
            link.code_evidence.trim(),
            establishment(link.how)
        );
        let agreement = Agreement {
            nl_term: nl_term.clone(),
            symbol: link.symbol.clone(),
            similarity: link.similarity,
            session_id: state.session_id.clone(),
            code_evidence: code_evidence.clone(),
            files: link.files.clone(),
            query: state.query.clone(),
            created_at: stamp.to_string(),
        };
        let path = env
            .sessions
            .memory
            .write_agreement(&agreement)
            .map_err(SessionError::internal)?;
        let entry = MapEntry {
            id: path
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default(),
            nl_term: nl_term.clone(),
            symbols: vec![link.symbol.clone()],
            files: link.files.clone(),
            code_evidence: code_evidence.clone(),
            similarity: link.similarity,
            session_id: state.session_id.clone(),
            query: state.query.clone(),
            created_at: stamp.to_string(),
        };
        if let Err(err) = map.upsert(&entry) {
            learning.map_errors.push(err.to_string());
        }
        learning.agreements_created.push(
            path.strip_prefix(env.ws.root())
                .map(|p| p.to_string_lossy().to_string())
                .unwrap_or_else(|_| path.display().to_string()),
        );
        learning.learned.push(LearnedPair {
            nl_term: nl_term.clone(),
            symbol: link.symbol.clone(),
            similarity: link.similarity,
            code_evidence,
            session_id: state.session_id.clone(),
            learned_at: stamp.to_string(),
        });
    }
    Ok(learning)
}

/// How a link was established, as the agreement records it.
fn establishment(how: Establishment) -> &'static str {
    match how {
        Establishment::Verified => "verified in VERIFICATION",
        Establishment::Confirmed => "confirmed at FACT with code evidence",
        Establishment::Judged => "judged FACT in EXPLORATION",
    }
}
