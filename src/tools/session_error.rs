//! A session operation's refusal as the agent sees it: each [`SessionError`] becomes the seeds'
//! error object with its stable code and the details that tell the agent what to do next (the
//! phase's allowed tools and next step, the hallucinated names, a hint naming the tool to call).

use crate::error::{ErrorCode, ToolError};
use crate::session::SessionError;
use serde_json::json;

impl From<SessionError> for ToolError {
    fn from(err: SessionError) -> ToolError {
        let message = err.to_string();
        match err {
            SessionError::NoActive => ToolError::new(ErrorCode::NoSession, message).with(
                "hint",
                "call start_session {intent, query} first; without a session every code tool works as a plain tool",
            ),
            SessionError::NotFound(id) => ToolError::new(ErrorCode::NoSession, message)
                .with("session_id", id)
                .with(
                    "hint",
                    "omit session_id to use the active session, or call start_session",
                ),
            SessionError::BadId(id) => {
                ToolError::invalid_parameter(message).with("session_id", id)
            }
            SessionError::Closed { id, .. } => ToolError::new(ErrorCode::NoSession, message)
                .with("session_id", id)
                .with("hint", "start_session begins a new session"),
            SessionError::WrongPhase {
                phase,
                operation,
                allowed_in,
                allowed_tools,
            } => ToolError::new(ErrorCode::PhaseViolation, message)
                .with("phase", phase.as_str())
                .with("tool", operation)
                .with("allowed_in", json!(allowed_in))
                .with("allowed", json!(allowed_tools))
                .with("next_step", phase.next_step()),
            SessionError::Invalid { details, .. } => {
                let mut err = ToolError::invalid_parameter(message);
                err.details.extend(details);
                err
            }
            SessionError::Hallucinated { symbols, files } => {
                ToolError::new(ErrorCode::InvalidSymbol, message)
                    .with("hallucinated_symbols", json!(symbols))
                    .with("missing_files", json!(files))
            }
            SessionError::Outside { paths } => {
                ToolError::new(ErrorCode::OutsideWorkspace, message).with("paths", json!(paths))
            }
            SessionError::Relevance(_) => ToolError::new(ErrorCode::EmbeddingUnavailable, message)
                .with(
                    "hint",
                    "relevance checks need the embedding model: run `code-intel model install`, or retry when it has loaded",
                ),
            SessionError::Internal(_) => ToolError::internal(message),
        }
    }
}
