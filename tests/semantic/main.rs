//! Integration tests of the semantic index, in one binary (each test binary links LanceDB, so
//! scenarios share this one): sync scenarios on a real store, a sync killed with SIGKILL at
//! arbitrary moments and resumed, the map short-circuit, lightweight mode, and the MCP server
//! end to end (`sync_index` with progress notifications, `semantic_search`).
//!
//! The deterministic fake embedder stands in for the model (`CODE_INTEL_EMBEDDER=fake`), so
//! these tests check the plumbing, not the model's quality (the evaluation does that).

mod support;

mod kill_resume;
mod mcp;
mod scenarios;
