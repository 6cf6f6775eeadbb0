//! `get_session_status`: where the session stands and what is allowed now.

use super::Context;
use super::gate;
use crate::error::{ToolError, ToolResult};
use crate::session::service;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "The session's state: phase, intent, risk_level, QueryFrame (slots, mapped \
symbols), exploration / semantic / verification results, explored_files, short-circuit hint, phase \
history, allowed_tools in this phase, next_step, and the server's record of its tool calls. Without an \
active session: {active: false}. `config_problems` lists entries of .code-intel/config.json that do not \
apply as written (the rest of the file does).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Defaults to the active session.
    pub session_id: Option<String>,
}

pub type Output = service::StatusOutput;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    service::get_session_status(&gate::env(ctx), p.session_id.as_deref()).map_err(ToolError::from)
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support;
    use serde_json::json;

    /// The problems reach the agent through the status tools, not only stderr.
    #[test]
    fn status_tools_carry_the_problems() {
        let (_dir, ctx) = test_support::project(&[
            ("app/cart.py", "class Cart:\n    pass\n"),
            (".code-intel/config.json", r#"{"max_chunks": "abc"}"#),
        ]);
        let status = test_support::run(&ctx, "get_session_status", json!({})).unwrap();
        assert_eq!(status["config_problems"][0]["path"], "$.max_chunks");
        assert_eq!(ctx.semantic.status().config_problems.len(), 1);
        let (_dir, clean) = test_support::project(&[("app/cart.py", "class Cart:\n    pass\n")]);
        let status = test_support::run(&clean, "get_session_status", json!({})).unwrap();
        assert!(status.get("config_problems").is_none());
    }
}
