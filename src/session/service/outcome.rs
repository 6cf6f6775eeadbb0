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
    // Without an id: the active session, else the latest one (the /code workflow's step 0
    // records the previous session's failure after it ended).
    let state = match id {
        Some(_) => env.session_any(id)?,
        None => match env.sessions.store.active().map_err(SessionError::from)? {
            Some(s) => s,
            None => env.sessions.store.latest()?.ok_or(SessionError::NoActive)?,
        },
    };
    let (t, stamp) = now();
    let calls = env.calls(&state.session_id);
    let log = OutcomeLog {
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
        timestamp: stamp.clone(),
    };
    env.sessions
        .memory
        .record_outcome(&log)
        .map_err(SessionError::internal)?;

    let mut agreements_created = Vec::new();
    let mut learned = Vec::new();
    let mut map_errors = Vec::new();
    let mut notes = Vec::new();
    if outcome == Outcome::Success {
        let nl_term = state
            .query_frame
            .target_term()
            .map(String::from)
            .unwrap_or_else(|| state.query.clone());
        let confirmed = state.confirmed_symbols();
        if confirmed.is_empty() {
            notes.push(
                "no symbol was confirmed with confirm_symbol_relevance, so nothing was learned"
                    .to_string(),
            );
        }
        let map = env.sessions.map();
        for mapped in confirmed {
            let Some(evidence) = &mapped.evidence else {
                continue;
            };
            let agreement = Agreement {
                nl_term: nl_term.clone(),
                symbol: mapped.name.clone(),
                similarity: mapped.confidence,
                session_id: state.session_id.clone(),
                code_evidence: evidence.code_evidence.clone(),
                files: evidence.files.clone(),
                query: state.query.clone(),
                created_at: stamp.clone(),
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
                symbols: vec![mapped.name.clone()],
                files: evidence.files.clone(),
                code_evidence: evidence.code_evidence.clone(),
                similarity: mapped.confidence,
                session_id: state.session_id.clone(),
                query: state.query.clone(),
                created_at: stamp.clone(),
            };
            if let Err(err) = map.upsert(&entry) {
                map_errors.push(err.to_string());
            }
            agreements_created.push(
                path.strip_prefix(env.ws.root())
                    .map(|p| p.to_string_lossy().to_string())
                    .unwrap_or_else(|_| path.display().to_string()),
            );
            learned.push(LearnedPair {
                nl_term: nl_term.clone(),
                symbol: mapped.name.clone(),
                similarity: mapped.confidence,
                code_evidence: evidence.code_evidence.clone(),
                session_id: state.session_id.clone(),
                learned_at: stamp.clone(),
            });
        }
    }
    let learned_pairs = if learned.is_empty() {
        None
    } else {
        let snapshot = env.snapshot()?;
        let exists = |name: &str| !lookup::find_symbol(&snapshot, name).is_empty();
        Some(
            env.sessions
                .memory
                .learn_pairs(&learned, t, &exists)
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
        map_updated: !agreements_created.is_empty() && map_errors.is_empty(),
        agreements_created,
        learned_pairs,
        map_store: env.sessions.map().kind().to_string(),
        map_errors,
        notes,
    })
}
