//! The MCP front end: tools from [`crate::tools::TOOLS`] served over stdio with rmcp.
//!
//! Thin by design: arguments go to [`crate::tools::dispatch`] unchanged, results come back as
//! `structuredContent` plus the same JSON as text; a tool error is a tool result with
//! `isError: true` carrying seed 002's error object, never a protocol error. Tools run on the
//! blocking pool (they parse and walk files) under the configured time limit.

use crate::error::{ErrorCode, ToolError};
use crate::tools::{Context, ProgressSink, TOOLS, dispatch, with_progress};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, Role, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Why serving over stdio stopped with a failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the MCP handshake failed: {0}")]
    Handshake(Box<rmcp::service::ServerInitializeError>),
    #[error("the MCP service stopped abnormally: {0}")]
    Stopped(#[from] tokio::task::JoinError),
}

#[derive(Clone)]
pub struct Server {
    ctx: Arc<Context>,
    tools: Arc<Vec<Tool>>,
    /// Whether a tool result already carried the configuration's problems: the agent is told
    /// once per server, in the first result, since stderr never reaches it.
    config_told: Arc<AtomicBool>,
}

impl Server {
    pub fn new(ctx: Context) -> Server {
        let tools = TOOLS
            .iter()
            .map(|def| {
                let mut tool = Tool::new(def.name, def.description, Arc::new((def.input_schema)()))
                    .with_title(def.title)
                    .with_raw_output_schema(Arc::new((def.output_schema)()));
                tool.annotations = Some(
                    ToolAnnotations::with_title(def.title)
                        .read_only(def.read_only)
                        .destructive(false)
                        .idempotent(def.read_only)
                        .open_world(false),
                );
                tool
            })
            .collect();
        Server {
            ctx: Arc::new(ctx),
            tools: Arc::new(tools),
            config_told: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Serves MCP on stdin/stdout until the client disconnects; fails when the handshake does
    /// or the connection breaks.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        crate::tools::sync_index::start_background(self.ctx.clone());
        // Pipes (how MCP clients start servers) are driven by the IO reactor; plain stdio
        // would hand every read and write to the blocking pool, a thread switch per message.
        let service = self
            .serve(rmcp::transport::stdio_pipes())
            .await
            .map_err(|e| ServeError::Handshake(Box::new(e)))?;
        service.waiting().await?;
        Ok(())
    }

    async fn run_tool(
        &self,
        name: String,
        args: Value,
        progress: Option<ProgressSink>,
    ) -> Result<Value, ToolError> {
        let ctx = self.ctx.clone();
        let limit = Duration::from_secs(ctx.ws.config.tool_timeout_secs);
        let task_name = name.clone();
        let task = tokio::task::spawn_blocking(move || match progress {
            Some(sink) => with_progress(sink, || dispatch(&ctx, &task_name, args)),
            None => dispatch(&ctx, &task_name, args),
        });
        match tokio::time::timeout(limit, task).await {
            Ok(Ok(result)) => result,
            Ok(Err(join_error)) => Err(ToolError::internal(format!("{name} stopped unexpectedly: {join_error}"))),
            Err(_) => Err(ToolError::new(ErrorCode::Timeout, format!("{name} did not finish within {} s", limit.as_secs()))
                .with("limit_secs", limit.as_secs())
                .with("hint", "narrow the request with path or filters, or raise tool_timeout_secs in .code-intel/config.json")),
        }
    }
}

/// The server's instructions to the client's model. Claude Code cuts instructions and tool
/// descriptions at 2 KB (tested below).
pub const INSTRUCTIONS: &str = "code-intel answers questions about this codebase: search_text (ripgrep), search_files, \
     find_definitions, find_references, get_symbols, analyze_structure, get_function_at_line; \
     analyze_file, search_symbol, analyze_project, get_dependencies (seed 002's analysis \
     tools) and repo_pack. Paths are relative to the project root; lines are 1-based. For changes, follow the `code` \
     prompt: start_session begins a phase-gated session in which the server checks your \
     understanding and gates writes (get_session_status shows the phase and next step).";

/// Claude Code's cut-off for tool descriptions and server instructions, in bytes.
pub const CLIENT_TEXT_LIMIT: usize = 2048;

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("code-intel", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    /// One prompt: `code`, the phase-gated /code workflow (`integration::workflow`).
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        use crate::integration::workflow;
        let prompt = Prompt::new(
            workflow::PROMPT_NAME,
            Some(workflow::DESCRIPTION),
            Some(vec![
                PromptArgument::new("request")
                    .with_description("The user's request, as written")
                    .with_required(false),
            ]),
        );
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        use crate::integration::workflow;
        if request.name != workflow::PROMPT_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt named '{}'; the server offers '{}'",
                    request.name,
                    workflow::PROMPT_NAME
                ),
                None,
            ));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("request"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            workflow::workflow(text),
        )]);
        result.description = Some(workflow::DESCRIPTION.to_string());
        Ok(result.into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let (progress, forwarder) = match context.meta.get_progress_token() {
            Some(token) => {
                let (sink, task) = progress_sink(token, context.peer.clone());
                (Some(sink), Some(task))
            }
            None => (None, None),
        };
        let outcome = self
            .run_tool(request.name.to_string(), args, progress)
            .await;
        if let Some(task) = forwarder {
            // Progress notifications go out before the result (the sink is gone by now).
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
        let mut result = match outcome {
            Ok(value) => structured(value, false),
            Err(err) => structured(err.to_json(), true),
        };
        if !self.config_told.swap(true, Ordering::Relaxed)
            && let Some(warning) = self.ctx.ws.config_report.warning()
        {
            // A second text block: the JSON block and `structuredContent` stay the tool's
            // answer, exactly as its output schema describes.
            result.content.push(rmcp::model::ContentBlock::text(format!(
                "warning: {warning}"
            )));
        }
        Ok(result.into())
    }
}

/// A tool result carrying `value` as `structuredContent` and as JSON text (for clients that
/// read only `content`). rmcp's own constructors write the text through `Display`, which is
/// about twice as slow as `serde_json::to_string` on large answers.
fn structured(value: Value, is_error: bool) -> CallToolResult {
    let text = serde_json::to_string(&value).unwrap_or_else(|_| value.to_string());
    let mut result = if is_error {
        CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
    };
    result.structured_content = Some(value);
    result
}

/// Forwards a tool's progress reports to the client as `notifications/progress` for `token`,
/// in order (one forwarding task drains a channel), without blocking the tool.
fn progress_sink(
    token: ProgressToken,
    peer: Peer<RoleServer>,
) -> (ProgressSink, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
    let task = tokio::spawn(async move {
        while let Some(param) = rx.recv().await {
            if let Err(err) = peer.notify_progress(param).await {
                tracing::debug!("progress notification not sent: {err}");
                break;
            }
        }
    });
    let sink: ProgressSink = Arc::new(move |progress: f64, total: Option<f64>, message: &str| {
        let mut param = ProgressNotificationParam::new(token.clone(), progress);
        param.total = total;
        param.message = (!message.is_empty()).then(|| message.to_string());
        let _ = tx.send(param);
    });
    (sink, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_fit_claude_codes_cap() {
        assert!(
            INSTRUCTIONS.len() <= CLIENT_TEXT_LIMIT,
            "{} bytes",
            INSTRUCTIONS.len()
        );
        for tool in crate::tools::TOOLS {
            assert!(
                tool.description.len() <= CLIENT_TEXT_LIMIT,
                "{}: {} bytes",
                tool.name,
                tool.description.len()
            );
        }
    }
}
