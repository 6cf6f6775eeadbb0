//! The phase-gated session (seeds 000, 001, 003, 004): the server structures the request,
//! decides when understanding is sufficient, checks every claimed link between the request's
//! words and code symbols, allows edits only to explored files, and learns from outcomes.
//!
//! "LLM に判断をさせない。守らせるのではなく、守らないと進めない設計。" — the agent does not
//! grade itself. Concretely:
//!
//! - [`state`]: the pure phase machine (EXPLORATION → READY, or → SEMANTIC → VERIFICATION →
//!   READY) over plain facts; refusals name the phase and the next step.
//! - [`rules`]: `evaluate_exploration`, `validate_exploration_consistency`,
//!   `validate_semantic_reason`, the 3-tier rule.
//! - [`gate`]: the v3.9 tool/phase matrix the server enforces on its own tools.
//! - [`write_gate`]: `validate_write_target` and the recovery options.
//! - [`failure_check`]: seed 000's Step 0, a request that says the last change failed.
//! - [`hooks`]: the write gate as Claude Code's hooks ask it, for editor tools and for shell
//!   commands (through [`crate::shell`]), and the outcome request when the agent stops.
//! - [`lookup`]: symbol existence from the symbol index (an unknown name is a hallucination)
//!   and code-evidence checks against a symbol's source.
//! - [`store`]: persistence under `.code-intel/sessions/` with atomic writes and a lock file,
//!   including the server's own record of every tool call.
//! - [`service`]: the operations the session tools call, gathering facts (index, relevance,
//!   call record) and applying the state machine.
//!
//! Design choices beyond the seeds, all in the direction of "check, don't trust":
//! a paraphrased slot quote must also be close to some clause of the request; the tools an
//! exploration used come from the call record; a HIGH risk (gray-zone confirmation or a MODIFY
//! without an observed issue) adds `search_text` and a third file to the IMPLEMENT / MODIFY quota
//! (seed 003: "探索ノルマ増加"); a verified short-circuit hint lowers it (seed 004: "EXPLORATION
//! を一部スキップ可能"); code evidence must name something in the symbol's own code.

pub mod error;
pub mod failure_check;
pub mod gate;
pub mod hooks;
pub mod lookup;
pub mod rules;
pub mod service;
pub mod state;
pub mod store;
pub mod write_gate;

pub use crate::router::Phase;
pub use error::{SessionError, SessionResult};
pub use service::{Env, SessionSettings, Sessions};
pub use state::{SessionState, SessionStatus, ToolCall};
pub use store::SessionStore;
