//! Claude Code integration: what makes the phase-gated session enforceable in the editor, not
//! only inside the MCP server.
//!
//! - [`workflow`]: the /code workflow text, served as the MCP prompt `code` and written to
//!   `.claude/commands/code.md`.
//! - [`init`]: `code-intel init`, which registers the server (`.mcp.json`), the command, the
//!   `PreToolUse` hook (`.claude/settings.json`) and the project's `config.json`, merging into
//!   whatever the user already has.
//! - [`hook`]: `code-intel hook pre-tool-use`, which asks the active session's write gate before
//!   Claude Code's own Edit / Write / MultiEdit / NotebookEdit run.
//!
//! **Architecture Invariant:** this module only adapts; every decision is made by
//! `crate::session`.

pub mod hook;
pub mod init;
pub mod workflow;

#[cfg(test)]
mod tests;
