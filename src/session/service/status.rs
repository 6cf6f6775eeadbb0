//! `get_session_status`, `get_session_analysis` and `get_improvement_insights`: what the session
//! and the project's memory hold, as the agent sees it.

use super::*;

/// One recorded call, as the status shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallView {
    pub tool: String,
    pub at: String,
    pub phase: Phase,
    pub ok: bool,
    pub error_code: Option<String>,
    pub files: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallSummary {
    pub count: usize,
    /// The last ten calls, newest first.
    pub recent: Vec<CallView>,
}

/// The session part of `get_session_status`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionView {
    pub session_id: String,
    pub status: SessionStatus,
    pub intent: Intent,
    pub query: String,
    pub phase: Phase,
    pub risk_level: RiskLevel,
    pub query_frame: crate::query_frame::QueryFrame,
    pub missing_slots: Vec<Slot>,
    pub exploration: Option<crate::session::state::ExplorationResult>,
    pub semantic: Option<crate::session::state::SemanticResult>,
    pub verification: Option<crate::session::state::VerificationResult>,
    pub explored_files: BTreeSet<String>,
    pub shortcircuit_hint: ShortcircuitHint,
    pub history: Vec<crate::session::state::PhaseChange>,
    pub outcome: Option<Outcome>,
    /// Tools the current phase allows.
    pub allowed_tools: Vec<String>,
    pub next_step: String,
    /// The server's own record of the session's calls.
    pub tool_calls: CallSummary,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusOutput {
    /// Whether a session is active (the phase gate applies).
    pub active: bool,
    pub strict_write_gate: bool,
    /// Entries of `.code-intel/config.json` that do not apply as written (the rest does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config_problems: Vec<crate::config::ConfigProblem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(flatten)]
    pub session: Option<SessionView>,
}

pub fn get_session_status(env: &Env, id: Option<&str>) -> SessionResult<StatusOutput> {
    let state = match id {
        Some(_) => Some(env.session_any(id)?),
        None => env.sessions.store.active().map_err(SessionError::from)?,
    };
    let strict_write_gate = env.sessions.settings.strict_write_gate;
    let Some(state) = state else {
        return Ok(StatusOutput {
            active: false,
            strict_write_gate,
            config_problems: env.sessions.settings.config_problems.clone(),
            message: Some("no active session: every tool works as a plain code tool; start_session begins the phase-gated workflow".into()),
            session: None,
        });
    };
    let calls = env.calls(&state.session_id);
    let allowed_tools: Vec<String> = gate::allowed_in(state.phase, env.tools)
        .into_iter()
        .map(String::from)
        .collect();
    let recent: Vec<CallView> = calls
        .iter()
        .rev()
        .take(10)
        .map(|c| CallView {
            tool: c.tool.clone(),
            at: c.at.clone(),
            phase: c.phase,
            ok: c.ok,
            error_code: c.error_code.clone(),
            files: c.files.clone(),
        })
        .collect();
    Ok(StatusOutput {
        active: state.status == SessionStatus::Active,
        strict_write_gate,
        config_problems: env.sessions.settings.config_problems.clone(),
        message: None,
        session: Some(SessionView {
            missing_slots: state.query_frame.missing_slots(),
            next_step: state.phase.next_step().to_string(),
            tool_calls: CallSummary {
                count: calls.len(),
                recent,
            },
            allowed_tools,
            session_id: state.session_id,
            status: state.status,
            intent: state.intent,
            query: state.query,
            phase: state.phase,
            risk_level: state.risk_level,
            query_frame: state.query_frame,
            exploration: state.exploration,
            semantic: state.semantic,
            verification: state.verification,
            explored_files: state.explored_files,
            shortcircuit_hint: state.shortcircuit,
            history: state.history,
            outcome: state.outcome,
            created_at: state.created_at,
            updated_at: state.updated_at,
        }),
    })
}

pub fn get_session_analysis(
    env: &Env,
    id: Option<&str>,
) -> SessionResult<crate::memory::SessionAnalysis> {
    let session_id = match id.map(str::trim).filter(|s| !s.is_empty()) {
        Some(id) => {
            SessionStore::check_id(id).map_err(SessionError::from)?;
            id.to_string()
        }
        None => match env.sessions.store.active().map_err(SessionError::from)? {
            Some(s) => s.session_id,
            None => {
                env.sessions
                    .store
                    .latest()
                    .map_err(SessionError::from)?
                    .ok_or(SessionError::NoActive)?
                    .session_id
            }
        },
    };
    crate::memory::session_analysis(&env.sessions.memory, &session_id)
        .map_err(SessionError::internal)
}

pub fn get_improvement_insights(env: &Env, limit: usize) -> SessionResult<crate::memory::Insights> {
    crate::memory::improvement_insights(&env.sessions.memory, limit).map_err(SessionError::internal)
}
