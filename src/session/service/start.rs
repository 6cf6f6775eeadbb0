//! `start_session`: Step 0's failure check on the previous session, the symbol index refreshed,
//! the request's extraction prompt and the map's short-circuit hint.

use super::*;

#[derive(Debug, Serialize, JsonSchema)]
pub struct StartOutput {
    pub session_id: String,
    pub phase: Phase,
    pub intent: Intent,
    /// The QueryDecomposer prompt: fill the slots from it and call set_query_frame.
    pub extraction_prompt: String,
    pub shortcircuit_hint: ShortcircuitHint,
    pub sync_status: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_session: Option<String>,
    /// Seed 000's Step 0: the previous session, when it ended without an outcome or the request
    /// says its change failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_session: Option<PreviousSession>,
    pub next_step: String,
}

/// The previous session as `start_session` found it (Step 0, 失敗チェック).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PreviousSession {
    pub session_id: String,
    pub phase: Phase,
    /// Edits the write gate let through in it.
    pub edits: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The request says the previous change failed, and that failure is now recorded.
    pub failure_recorded: bool,
    pub note: String,
}

/// Step 0: reports a previous session left without an outcome, and records its failure when
/// the new request says the change did not work (before the new session replaces it).
pub(super) fn failure_check(env: &Env, query: &str) -> SessionResult<Option<PreviousSession>> {
    let Some(last) = env.sessions.store.latest().map_err(SessionError::from)? else {
        return Ok(None);
    };
    let failed = crate::session::failure_check::reports_failure(query);
    if last.outcome.is_some() && !failed {
        return Ok(None);
    }
    let edits = crate::session::hooks::edits(&env.calls(&last.session_id));
    let mut report = PreviousSession {
        session_id: last.session_id.clone(),
        phase: last.phase,
        edits,
        outcome: last.outcome,
        failure_recorded: false,
        note: String::new(),
    };
    report.note = match (last.outcome, failed) {
        (None, true) => {
            record_outcome(
                env,
                Some(&last.session_id),
                Outcome::Failure,
                Some("recorded by start_session: the next request reports that this session's change did not work".into()),
                Some(query.to_string()),
            )?;
            report.failure_recorded = true;
            report.outcome = Some(Outcome::Failure);
            "the request says the previous change did not work: its failure is recorded (record_outcome failure, with the request as trigger_message)".into()
        }
        (Some(outcome), _) => format!(
            "the request says the previous change did not work, but that session already has outcome {}; if it was wrong, call record_outcome with session_id {} and outcome failure",
            outcome.as_str(),
            last.session_id
        ),
        (None, false) => format!(
            "the previous session ended without an outcome ({edits} edit(s)); if its change was checked, call record_outcome with session_id {}",
            last.session_id
        ),
    };
    Ok(Some(report))
}

pub fn start_session(env: &Env, intent: Intent, query: &str) -> SessionResult<StartOutput> {
    let query = query.trim();
    if query.is_empty() {
        return Err(SessionError::invalid(
            "query is empty: pass the user's request as written",
        ));
    }
    let started = std::time::Instant::now();
    let (snapshot, stats) = env
        .symbols
        .refresh(env.ws, env.ws.root())
        .map_err(SessionError::internal)?;
    let symbols_status = json!({
        "files": stats.files,
        "parsed": stats.parsed,
        "removed": stats.removed,
        "elapsed_ms": started.elapsed().as_millis() as u64,
    });
    let map = env.sessions.map();
    let (hint, map_status) = match map.search(query, PATTERN_HITS) {
        Ok(hits) => {
            let entries = map.len().unwrap_or(hits.len());
            (
                shortcircuit_hint(&snapshot, &hits),
                json!({"store": map.kind(), "entries": entries}),
            )
        }
        Err(err) => (
            ShortcircuitHint::default(),
            json!({"store": map.kind(), "error": err.to_string()}),
        ),
    };
    let (t, stamp) = now();
    let id = new_session_id(t);
    let mut state = SessionState::new(
        &id,
        intent,
        query,
        &env.ws.root().display().to_string(),
        &stamp,
    );
    state.shortcircuit = hint.clone();
    let previous_session = failure_check(env, query)?;
    let previous = env
        .sessions
        .store
        .create(&state)
        .map_err(SessionError::from)?;
    Ok(StartOutput {
        session_id: id,
        phase: state.phase,
        intent,
        extraction_prompt: extraction_prompt(query),
        shortcircuit_hint: hint,
        sync_status: json!({"symbols": symbols_status, "map": map_status}),
        superseded_session: previous,
        previous_session,
        next_step: "fill the slots with the extraction_prompt and call set_query_frame".into(),
    })
}

/// How many map hits are read for one hint.
const PATTERN_HITS: usize = 10;
/// Hits within this much of the best one's score are the same past pattern: a success leaves
/// one agreement per symbol, all learned from the same request and term, so they score alike.
const PATTERN_MARGIN: f32 = 0.05;

/// Seed 004's short-circuit hint from the map's hits for a request: when the best scores at
/// least [`SHORTCIRCUIT_THRESHOLD`], the symbols of every agreement of that pattern that still
/// exist, the strongest link first.
fn shortcircuit_hint(snapshot: &Snapshot, hits: &[crate::memory::MapHit]) -> ShortcircuitHint {
    let Some(best) = hits.first() else {
        return ShortcircuitHint::default();
    };
    if best.score < SHORTCIRCUIT_THRESHOLD {
        return ShortcircuitHint {
            found: false,
            confidence: Some(best.score),
            ..ShortcircuitHint::default()
        };
    }
    let mut pattern: Vec<&crate::memory::MapHit> = hits
        .iter()
        .filter(|h| h.score >= SHORTCIRCUIT_THRESHOLD && best.score - h.score <= PATTERN_MARGIN)
        .collect();
    pattern.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    let mut symbols: Vec<String> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for hit in pattern {
        // Only symbols that still exist are worth verifying first.
        for s in &hit.symbols {
            if !symbols.contains(s) && !lookup::find_symbol(snapshot, s).is_empty() {
                symbols.push(s.clone());
            }
        }
        for f in &hit.files {
            if !files.contains(f) {
                files.push(f.clone());
            }
        }
    }
    ShortcircuitHint {
        found: !symbols.is_empty(),
        symbols,
        confidence: Some(best.score),
        nl_term: Some(best.nl_term.clone()),
        files: Some(files),
        recommendation: Some("Past success pattern found. Verify these symbols first (find_definitions), then submit_understanding with them.".into()),
    }
}
