//! The one error type every tool returns, shaped as seed 002's common error response.
//!
//! Tools never panic on bad input and never turn a failure into an empty result: they return a
//! [`ToolError`] with a stable machine-readable [`ErrorCode`], a sentence an agent can act on and
//! structured `details` (the file, the reason, what to try instead). The MCP layer sends it as a
//! tool result with `isError: true`; the CLI prints it and exits 1.

use serde::Serialize;
use serde_json::{Map, Value, json};

/// An error and its sources, `: `-separated (a source whose text the message already holds is
/// not repeated): what `{err:#}` prints for `anyhow`, for typed errors too.
pub fn chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// `text` without the source locations libraries append to their messages (`, /home/u/.cargo/
/// registry/src/…/writer.rs:254:9`, `/rustc/…/function.rs:250:5`, or in debug form
/// `location: Location { file: "…", line: 1576, column: 42 }, backtrace: MaybeBacktrace`): what
/// the agent reads names what failed, not where in someone's code.
pub fn without_source_locations(text: &str) -> String {
    static LOCATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#",?\s*(?:/[^\s,:]+\.rs:\d+(?::\d+)?|location: Location \{[^}]*\}|backtrace: MaybeBacktrace)"#,
        )
        .expect("a valid pattern")
    });
    LOCATION.replace_all(text, "").into_owned()
}

/// Stable error codes. Agents branch on these, so existing codes never change meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The path does not exist inside the workspace.
    FileNotFound,
    /// The path (after `..` resolution or through a symlink) leaves the workspace root.
    OutsideWorkspace,
    /// The file could not be parsed; partial results accompany this code where possible.
    ParseError,
    /// The file is not text in an encoding we read (binary, UTF-16).
    EncodingError,
    /// The file is larger than the configured size cap.
    FileTooLarge,
    /// A parameter is missing, has the wrong type, or an unknown parameter was given.
    InvalidParameter,
    /// The symbol name is empty or not a possible identifier.
    InvalidSymbol,
    /// The operation did not finish within its time limit.
    Timeout,
    /// Some files of a multi-file analysis failed; the rest are returned.
    PartialAnalysis,
    /// `get_function_at_line`: the line is not inside any function or method.
    NoEnclosingFunction,
    /// The tool name is not one this server offers.
    UnknownTool,
    /// An unexpected internal failure (a bug); the server stays up.
    Internal,
    /// `analyze_project`: the root path is missing, not a directory, or outside the workspace.
    InvalidRootPath,
    /// `analyze_project`: no file matches the include/exclude patterns.
    NoFilesFound,
    /// `get_dependencies`: the requested depth is above the supported maximum.
    DepthLimitExceeded,
    /// `get_dependencies`: an import cycle (reported as a warning next to the result).
    CircularDependency,
    /// `repo_pack`: the packed files exceed `max_tokens` (and splitting was not requested).
    TokenBudgetExceeded,
    /// A session is active and its phase does not allow this call; details name the phase,
    /// the allowed tools and the next step.
    PhaseViolation,
    /// A session tool was called with no active session (or an unknown `session_id`).
    NoSession,
    /// A check that needs the embedding model (calibrated relevance) could not run.
    EmbeddingUnavailable,
    /// The semantic index cannot write: its disk is full or read-only. Details say which
    /// (`state`); the index resumes by itself once writes succeed, meanwhile searches answer
    /// from what is stored and the code tools are unaffected.
    IndexNotWritable,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::FileNotFound => "FILE_NOT_FOUND",
            ErrorCode::OutsideWorkspace => "OUTSIDE_WORKSPACE",
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::EncodingError => "ENCODING_ERROR",
            ErrorCode::FileTooLarge => "FILE_TOO_LARGE",
            ErrorCode::InvalidParameter => "INVALID_PARAMETER",
            ErrorCode::InvalidSymbol => "INVALID_SYMBOL",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::PartialAnalysis => "PARTIAL_ANALYSIS",
            ErrorCode::NoEnclosingFunction => "NO_ENCLOSING_FUNCTION",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::InvalidRootPath => "INVALID_ROOT_PATH",
            ErrorCode::NoFilesFound => "NO_FILES_FOUND",
            ErrorCode::DepthLimitExceeded => "DEPTH_LIMIT_EXCEEDED",
            ErrorCode::CircularDependency => "CIRCULAR_DEPENDENCY",
            ErrorCode::TokenBudgetExceeded => "TOKEN_BUDGET_EXCEEDED",
            ErrorCode::PhaseViolation => "PHASE_VIOLATION",
            ErrorCode::NoSession => "NO_SESSION",
            ErrorCode::EmbeddingUnavailable => "EMBEDDING_UNAVAILABLE",
            ErrorCode::IndexNotWritable => "INDEX_NOT_WRITABLE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool failure: code, message and free-form structured details.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds one `details` entry; chainable.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }

    pub fn invalid_parameter(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::InvalidParameter, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Internal, message)
    }

    /// The wire form of seed 002: `{"error": {"code", "message", "details"}}`.
    pub fn to_json(&self) -> Value {
        json!({ "error": { "code": self.code, "message": self.message, "details": self.details } })
    }
}

pub type ToolResult<T> = Result<T, ToolError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_locations_are_left_out_of_messages() {
        assert_eq!(
            without_source_locations(
                "lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole \
                 buffer, /rustc/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23/library/core/src/ops/function.rs:250:5"
            ),
            "lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer"
        );
        assert_eq!(
            without_source_locations(
                "LanceError(IO): No space left on device (os error 28), /root/.cargo/registry/src/x-1/lance-file-14.0.2/src/writer/structural.rs:254:9: more"
            ),
            "LanceError(IO): No space left on device (os error 28): more"
        );
        assert_eq!(
            without_source_locations(
                "NotADirectory } } } }, location: Location { file: \"/root/.cargo/registry/src/x-1/lance-io-14.0.2/src/object_store.rs\", line: 1576, column: 42 }, backtrace: MaybeBacktrace }"
            ),
            "NotADirectory } } } } }"
        );
        assert_eq!(
            without_source_locations("see src/main.py"),
            "see src/main.py"
        );
    }
}
