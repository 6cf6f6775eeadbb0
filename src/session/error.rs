//! Why a session operation did not happen, as data. The tool layer turns each case into the wire
//! error the agent sees (`tools::session_error`), with the codes and details the seeds promise
//! (`NO_SESSION`, `PHASE_VIOLATION`, `INVALID_SYMBOL`, …); nothing here knows that format.

use super::state::Refusal;
use super::store::StoreError;
use crate::relevance::RelevanceError;
use crate::router::Phase;
use serde_json::{Map, Value};

pub type SessionResult<T> = Result<T, SessionError>;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session is active and none was named.
    #[error("there is no active session")]
    NoActive,
    /// A named session does not exist in this project.
    #[error("no session '{0}' in this project")]
    NotFound(String),
    /// A session id this server could not have made (it also names a file: never trusted).
    #[error("'{0}' is not a session id")]
    BadId(String),
    /// The session ended and can no longer change.
    #[error("session '{id}' is {status} and can no longer change")]
    Closed { id: String, status: String },
    /// The operation belongs to other phases.
    #[error(
        "{operation} is not allowed in the {} phase (only in {})",
        phase.as_str(),
        allowed_in.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
    )]
    WrongPhase {
        phase: Phase,
        operation: String,
        allowed_in: Vec<Phase>,
        /// The tools this phase allows, for the agent's next call.
        allowed_tools: Vec<String>,
    },
    /// A parameter or a claim the operation cannot accept as given; `details` say which.
    #[error("{message}")]
    Invalid {
        message: String,
        details: Map<String, Value>,
    },
    /// Hypotheses that name symbols or files the code does not have (each symbol with the
    /// nearest names that do exist).
    #[error("hypotheses must name symbols and files that exist in the code")]
    Hallucinated {
        symbols: Vec<Value>,
        files: Vec<String>,
    },
    /// Paths outside the project.
    #[error("some paths are outside the workspace")]
    Outside { paths: Vec<String> },
    /// The judge needs the embedding model.
    #[error(transparent)]
    Relevance(#[from] RelevanceError),
    /// The session store, the memory or the symbol index failed underneath.
    #[error("{0}")]
    Internal(String),
}

impl SessionError {
    pub fn invalid(message: impl Into<String>) -> SessionError {
        SessionError::Invalid {
            message: message.into(),
            details: Map::new(),
        }
    }

    pub fn internal(err: impl std::fmt::Display) -> SessionError {
        SessionError::Internal(err.to_string())
    }

    /// A state-machine refusal, with the tools the current phase allows.
    pub(crate) fn refused(
        refusal: Refusal,
        allowed_tools: impl FnOnce(Phase) -> Vec<String>,
    ) -> SessionError {
        match refusal {
            Refusal::Phase {
                phase,
                operation,
                allowed_in,
            } => SessionError::WrongPhase {
                phase,
                operation,
                allowed_in,
                allowed_tools: allowed_tools(phase),
            },
            Refusal::Invalid { message, details } => SessionError::Invalid {
                message,
                details: match details {
                    Value::Object(map) => map,
                    _ => Map::new(),
                },
            },
        }
    }
}

impl From<StoreError> for SessionError {
    fn from(err: StoreError) -> SessionError {
        match err {
            StoreError::NotFound(id) => SessionError::NotFound(id),
            StoreError::BadId(id) => SessionError::BadId(id),
            other => SessionError::Internal(other.to_string()),
        }
    }
}
