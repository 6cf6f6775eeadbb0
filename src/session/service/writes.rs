//! The write gate's operations (`check_write_target`, `add_explored_files`) and the way back to
//! EXPLORATION (`revert_to_exploration`).

use super::*;

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckWriteOutput {
    pub allowed: bool,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_options: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The write gate for `file_path` (absolute or relative). With no session (and `session_id`
/// not given) writes are not gated unless `strict_write_gate` is set.
pub fn check_write_target(
    env: &Env,
    id: Option<&str>,
    file_path: &str,
    allow_new_files: bool,
) -> SessionResult<CheckWriteOutput> {
    if file_path.trim().is_empty() {
        return Err(SessionError::invalid("file_path is empty"));
    }
    let session = match id {
        Some(_) => Some(env.session_any(id)?).filter(|s| s.status == SessionStatus::Active),
        None => env.sessions.store.active().map_err(SessionError::from)?,
    };
    let Some(rel) = env.relative_path(file_path) else {
        return Ok(CheckWriteOutput {
            allowed: true,
            file: file_path.to_string(),
            session_id: session.map(|s| s.session_id),
            phase: None,
            error: None,
            recovery_options: None,
            note: Some("the path is outside the project: code-intel does not gate it".into()),
        });
    };
    let Some(session) = session else {
        let strict = env.sessions.settings.strict_write_gate;
        return Ok(CheckWriteOutput {
            allowed: !strict,
            file: rel,
            session_id: None,
            phase: None,
            error: strict.then(|| "strict_write_gate is set and there is no active session: start one with start_session".to_string()),
            recovery_options: strict.then(|| json!({"start_session": {"description": "start a session, explore, and reach READY", "example": {"tool": "start_session", "arguments": {"intent": "MODIFY", "query": "…"}}}})),
            note: (!strict).then(|| "no active session: writes are not gated".to_string()),
        });
    };
    let exists = env.ws.root().join(&rel).exists();
    let WriteDecision {
        allowed,
        file,
        error,
        recovery_options,
    } = session.check_write(&rel, exists, allow_new_files);
    Ok(CheckWriteOutput {
        allowed,
        file,
        session_id: Some(session.session_id.clone()),
        phase: Some(session.phase),
        error,
        recovery_options,
        note: None,
    })
}

pub fn add_explored_files(
    env: &Env,
    id: Option<&str>,
    files: Vec<String>,
) -> SessionResult<WithSession<ExploredOutcome>> {
    let state = env.session(id)?;
    if files.is_empty() {
        return Err(SessionError::invalid("files is empty"));
    }
    let mut entries = Vec::new();
    let mut outside = Vec::new();
    for f in &files {
        let dir_hint = f.ends_with('/');
        match env.relative_path(f) {
            Some(rel) if rel.is_empty() => entries.push("/".to_string()),
            Some(rel) if dir_hint || env.ws.root().join(&rel).is_dir() => {
                entries.push(format!("{}/", rel.trim_end_matches('/')))
            }
            Some(rel) => entries.push(rel),
            None => outside.push(f.clone()),
        }
    }
    if !outside.is_empty() {
        return Err(SessionError::Outside { paths: outside });
    }
    let result = env.update(&state.session_id, |s| s.add_explored_files(entries))?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

pub fn revert_to_exploration(
    env: &Env,
    id: Option<&str>,
    keep_results: bool,
) -> SessionResult<WithSession<RevertOutcome>> {
    let state = env.session(id)?;
    let (_, stamp) = now();
    let result = env.update(&state.session_id, |s| {
        Ok(s.revert_to_exploration(keep_results, &stamp))
    })?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}
