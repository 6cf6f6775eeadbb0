//! Session persistence under `.code-intel/sessions/`, safe for several processes at once.
//!
//! ```text
//! sessions/
//!   .lock                 advisory lock held around every read-modify-write
//!   active.json           {"session_id": …}: the project's current session
//!   <id>.json             the SessionState, replaced atomically (temp file + rename)
//!   <id>.calls.jsonl      the session's tool calls, appended under the lock
//! ```
//!
//! Every change runs as `lock → read → change → write → unlock`, so two server processes (or a
//! server and the Claude Code hook) on one project never lose each other's updates, and a reader
//! never sees a torn file. State survives a restart because nothing lives only in memory.

use super::state::{STATE_VERSION, SessionState, SessionStatus, ToolCall};
use crate::fsutil::{append_line, with_file_lock, write_atomic};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What can go wrong with the session files.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no session '{0}' in this project")]
    NotFound(String),
    #[error("'{0}' is not a session id (letters, digits, '_' and '-' only)")]
    BadId(String),
    #[error("{path}: {message}")]
    Corrupt { path: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct ActivePointer {
    session_id: String,
}

/// The session files of one project.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    /// The store under `<state_dir>/sessions`. Nothing is created until the first write.
    pub fn new(state_dir: &Path) -> SessionStore {
        SessionStore {
            dir: state_dir.join("sessions"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn state_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn calls_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.calls.jsonl"))
    }

    fn active_path(&self) -> PathBuf {
        self.dir.join("active.json")
    }

    fn locked<T>(&self, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        let lock = self.dir.join(".lock");
        with_file_lock(&lock, f).map_err(|e| io(&lock, e))?
    }

    /// Session ids become file names: only a safe alphabet is accepted.
    pub fn check_id(id: &str) -> Result<(), StoreError> {
        let ok = !id.is_empty()
            && id.len() <= 100
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if ok {
            Ok(())
        } else {
            Err(StoreError::BadId(id.to_string()))
        }
    }

    fn read_state(&self, id: &str) -> Result<SessionState, StoreError> {
        Self::check_id(id)?;
        let path = self.state_path(id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound(id.to_string()));
            }
            Err(e) => return Err(io(&path, e)),
        };
        let state: SessionState = serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        if state.version != STATE_VERSION {
            return Err(StoreError::Corrupt {
                path: path.display().to_string(),
                message: format!(
                    "written by session format {}, this server reads {STATE_VERSION}; start a new session",
                    state.version
                ),
            });
        }
        Ok(state)
    }

    fn write_state(&self, state: &SessionState) -> Result<(), StoreError> {
        let path = self.state_path(&state.session_id);
        let text = serde_json::to_vec_pretty(state).map_err(|e| StoreError::Corrupt {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        write_atomic(&path, &text).map_err(|e| io(&path, e))
    }

    fn read_active(&self) -> Result<Option<String>, StoreError> {
        let path = self.active_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(serde_json::from_str::<ActivePointer>(&text)
                .ok()
                .map(|p| p.session_id)
                .filter(|id| Self::check_id(id).is_ok())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(&path, e)),
        }
    }

    /// Saves a new session and makes it the active one; the previous active session, if it has
    /// no outcome yet, becomes `superseded` (its outcome can still be recorded).
    pub fn create(&self, state: &SessionState) -> Result<Option<String>, StoreError> {
        Self::check_id(&state.session_id)?;
        self.locked(|| {
            let previous = self.read_active()?;
            if let Some(prev) = &previous
                && let Ok(mut old) = self.read_state(prev)
                && old.status == SessionStatus::Active
            {
                old.status = SessionStatus::Superseded;
                self.write_state(&old)?;
            }
            self.write_state(state)?;
            let pointer = serde_json::to_vec(&ActivePointer {
                session_id: state.session_id.clone(),
            })
            .unwrap_or_default();
            let path = self.active_path();
            write_atomic(&path, &pointer).map_err(|e| io(&path, e))?;
            Ok(previous)
        })
    }

    /// The active session's id, if a session is active (its state says `active`).
    pub fn active_id(&self) -> Result<Option<String>, StoreError> {
        let Some(id) = self.read_active()? else {
            return Ok(None);
        };
        match self.read_state(&id) {
            Ok(state) if state.status == SessionStatus::Active => Ok(Some(id)),
            Ok(_) | Err(StoreError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The active session's state, if any.
    pub fn active(&self) -> Result<Option<SessionState>, StoreError> {
        match self.active_id()? {
            Some(id) => self.read_state(&id).map(Some),
            None => Ok(None),
        }
    }

    pub fn load(&self, id: &str) -> Result<SessionState, StoreError> {
        self.read_state(id)
    }

    /// The most recently created session, active or not.
    pub fn latest(&self) -> Result<Option<SessionState>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&self.dir, e)),
        };
        let mut best: Option<SessionState> = None;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            if id == "active" || id.contains('.') {
                continue;
            }
            if let Ok(state) = self.read_state(id)
                && best.as_ref().is_none_or(|b| {
                    (state.created_at.as_str(), state.session_id.as_str())
                        > (b.created_at.as_str(), b.session_id.as_str())
                })
            {
                best = Some(state);
            }
        }
        Ok(best)
    }

    /// Runs `f` on the session's current state under the lock and saves the result when `f`
    /// succeeds (a refusal leaves the file untouched). `now` is stamped as `updated_at`.
    pub fn update<T, E>(
        &self,
        id: &str,
        now: &str,
        f: impl FnOnce(&mut SessionState) -> Result<T, E>,
    ) -> Result<Result<T, E>, StoreError> {
        self.locked(|| {
            let mut state = self.read_state(id)?;
            let result = f(&mut state);
            if result.is_ok() {
                state.updated_at = now.to_string();
                self.write_state(&state)?;
                if state.status != SessionStatus::Active {
                    self.clear_active_if(id)?;
                }
            }
            Ok(result)
        })
    }

    fn clear_active_if(&self, id: &str) -> Result<(), StoreError> {
        if self.read_active()?.as_deref() == Some(id) {
            let path = self.active_path();
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&path, e)),
            }
        }
        Ok(())
    }

    /// Appends one tool call to the session's record.
    pub fn record_call(&self, id: &str, call: &ToolCall) -> Result<(), StoreError> {
        Self::check_id(id)?;
        let path = self.calls_path(id);
        let line = serde_json::to_string(call).map_err(|e| StoreError::Corrupt {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.locked(|| append_line(&path, &line).map_err(|e| io(&path, e)))
    }

    /// The session's tool calls in order (a torn last line is skipped).
    pub fn calls(&self, id: &str) -> Result<Vec<ToolCall>, StoreError> {
        Self::check_id(id)?;
        let path = self.calls_path(id);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io(&path, e)),
        }
    }
}

/// A new session id in the seeds' form (`session_20250112_143000`) plus a random suffix, so two
/// sessions started in the same second never collide.
pub fn new_session_id(now: chrono::DateTime<chrono::Utc>) -> String {
    use sha2::{Digest, Sha256};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = format!(
        "{}-{}-{}",
        std::process::id(),
        now.timestamp_nanos_opt().unwrap_or_default(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let digest = Sha256::digest(seed.as_bytes());
    format!(
        "session_{}_{:02x}{:02x}{:02x}",
        now.format("%Y%m%d_%H%M%S"),
        digest[0],
        digest[1],
        digest[2]
    )
}
