//! code-intel: code intelligence for coding agents, served over MCP.
//!
//! Data flows one way: files (`workspace`) → syntax trees (`syntax`, driven by the `lang`
//! registry) → plain data (`analysis`) → per-project indexes (`index`) and engines (`search`) →
//! tools (`tools`) → front ends (`mcp`, `cli`). See ARCHITECTURE.md for the map and invariants.

pub mod allocator;
pub mod analysis;
pub mod background;
pub mod chunk;
pub mod cli;
pub mod config;
pub mod deps;
pub mod digest;
pub mod embed;
pub mod error;
pub mod fsutil;
pub mod index;
pub mod integration;
pub mod judge;
pub mod lang;
pub mod lexical;
pub mod mcp;
pub mod memory;
pub mod overview;
pub mod pack;
pub mod query_frame;
pub mod relevance;
pub mod router;
pub mod search;
pub mod session;
pub mod shell;
pub mod store;
pub mod syntax;
pub mod timing;
pub mod tools;
pub mod workspace;
