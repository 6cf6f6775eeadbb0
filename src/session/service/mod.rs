//! The session operations behind the session tools: gather the facts (symbol index, calibrated
//! relevance, the server's call record, the file system), hand them to the pure state machine,
//! persist the result, and log decisions and outcomes to memory.
//!
//! Every operation takes an optional session id; without one it uses the project's active
//! session. The phase gate and the call record live in `tools::gate`, which wraps every tool
//! call; here are only the operations themselves.

mod frame;
mod hypotheses;
mod outcome;
mod start;
mod status;
mod symbol_relevance;
mod understanding;
mod writes;

pub use frame::*;
pub use hypotheses::*;
pub use outcome::*;
pub use start::*;
pub use status::*;
pub use symbol_relevance::*;
pub use understanding::*;
pub use writes::*;

use crate::index::{Snapshot, SymbolIndex};
use crate::judge::{self, Candidate, Judge};
use crate::memory::{
    Agreement, JsonMapStore, LearnedPair, MapEntry, MapStore, Memory, Outcome, OutcomeLog,
};
use crate::query_frame::{
    Intent, RejectedSlot, RiskLevel, Slot, SlotValue, SlotVerdict, prompt::extraction_prompt,
    validate_slot,
};
use crate::relevance::{
    Relevance, RelevanceError, SHORTCIRCUIT_THRESHOLD, SharedRelevance, Unavailable,
};
use crate::router::Phase;
use crate::router::{ExecutionPlan, PlanContext, create_plan};
pub use crate::session::error::{SessionError, SessionResult};
use crate::session::gate;
use crate::session::lookup::{self, SymbolDef};
use crate::session::state::{
    ConfirmResult, Establishment, ExploredOutcome, HypothesisInput, Refusal, RevertOutcome,
    SemanticOutcome, SessionState, SessionStatus, ShortcircuitHint, SymbolCheck, SymbolScore,
    ToolCall, UnderstandingOutcome, UnderstandingReport, VerificationInput, VerificationOutcome,
};
use crate::session::store::{SessionStore, new_session_id};
use crate::session::write_gate::WriteDecision;
use crate::workspace::{Workspace, read_source};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The session's part of the project configuration (`crate::config::Config`, loaded and checked
/// once with the workspace), plus the problems that loading found, which the status reports.
#[derive(Debug, Clone)]
pub struct SessionSettings {
    /// With no active session, the Claude Code hook denies edits instead of allowing them.
    pub strict_write_gate: bool,
    /// Days before a learned pair expires (`auto_purge_days`).
    pub purge_days: u64,
    pub config_problems: Vec<crate::config::ConfigProblem>,
}

impl Default for SessionSettings {
    fn default() -> Self {
        SessionSettings::from_workspace(&crate::config::Config::default(), &[])
    }
}

impl SessionSettings {
    pub fn from_workspace(
        config: &crate::config::Config,
        problems: &[crate::config::ConfigProblem],
    ) -> SessionSettings {
        SessionSettings {
            strict_write_gate: config.strict_write_gate,
            purge_days: config.auto_purge_days,
            config_problems: problems.to_vec(),
        }
    }

    pub fn of(ws: &Workspace) -> SessionSettings {
        SessionSettings::from_workspace(&ws.config, &ws.config_report.problems)
    }
}

/// Everything the session tools share in one server: the store, the memory, the relevance
/// scorer and the map store (both replaceable: the model loads lazily, the vector store plugs in).
pub struct Sessions {
    store: SessionStore,
    memory: Memory,
    relevance: SharedRelevance,
    map: RwLock<Arc<dyn MapStore>>,
    settings: SessionSettings,
}

impl Sessions {
    /// The sessions of the project whose state directory is `state_dir` (`.code-intel/`).
    /// Relevance starts unavailable until a scorer is installed with [`Sessions::relevance`].
    pub fn open(state_dir: &Path, settings: SessionSettings) -> Sessions {
        let relevance = SharedRelevance::new(Arc::new(Unavailable(
            "no embedding model is connected to the session service; run `code-intel model install`".into(),
        )));
        let map: Arc<dyn MapStore> = Arc::new(JsonMapStore::new(state_dir, relevance.clone()));
        Sessions {
            store: SessionStore::new(state_dir),
            memory: Memory::new(state_dir).with_expiry_days(settings.purge_days),
            relevance,
            map: RwLock::new(map),
            settings,
        }
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The scorer slot: `sessions.relevance().set(...)` installs the model (or a fake in tests).
    pub fn relevance(&self) -> &SharedRelevance {
        &self.relevance
    }

    pub fn settings(&self) -> &SessionSettings {
        &self.settings
    }

    pub fn map(&self) -> Arc<dyn MapStore> {
        self.map.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replaces the map store (the vector store's `map` table, once it exists).
    pub fn set_map_store(&self, store: Arc<dyn MapStore>) {
        *self.map.write().unwrap_or_else(|p| p.into_inner()) = store;
    }
}

/// What an operation needs from the server: the workspace, the symbol index, the sessions and
/// the server's tools with their gate classes (for plans, refusals and the call record).
pub struct Env<'a> {
    pub ws: &'a Workspace,
    pub symbols: &'a SymbolIndex,
    pub sessions: &'a Sessions,
    pub tools: &'a [gate::GatedTool],
    /// The project's search, for the judge's field (`None` where there is no semantic index,
    /// as in the hook's process).
    pub field_search: Option<judge::FieldSearch<'a>>,
    /// What the judge reuses within this call: a verdict on ten symbols of one term samples the
    /// background and searches the field once.
    pub judged: judge::CallCache,
}

/// A state-machine answer with the session it belongs to.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WithSession<T> {
    pub session_id: String,
    #[serde(flatten)]
    pub result: T,
}

fn now() -> (DateTime<Utc>, String) {
    let t = Utc::now();
    (t, t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

impl Env<'_> {
    /// A state-machine refusal, with the tools the session's phase allows.
    fn refused(&self, refusal: Refusal) -> SessionError {
        SessionError::refused(refusal, |phase| {
            gate::allowed_in(phase, self.tools)
                .into_iter()
                .map(String::from)
                .collect()
        })
    }

    fn relevance(&self) -> Arc<dyn Relevance> {
        self.sessions.relevance.get()
    }

    /// The session named by `id`, or the active one.
    fn session(&self, id: Option<&str>) -> SessionResult<SessionState> {
        let state = self.session_any(id)?;
        if state.status != SessionStatus::Active {
            return Err(SessionError::Closed {
                id: state.session_id,
                status: serde_json::to_value(state.status)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
            });
        }
        Ok(state)
    }

    /// The session named by `id` (active or not), or the active one.
    fn session_any(&self, id: Option<&str>) -> SessionResult<SessionState> {
        match id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => self.sessions.store.load(id).map_err(SessionError::from),
            None => self.sessions.store.active()?.ok_or(SessionError::NoActive),
        }
    }

    /// Applies `f` to the session under the store's lock; refusals become tool errors.
    fn update<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut SessionState) -> Result<T, Refusal>,
    ) -> SessionResult<T> {
        let (_, stamp) = now();
        self.sessions
            .store
            .update(id, &stamp, f)
            .map_err(SessionError::from)?
            .map_err(|r| self.refused(r))
    }

    fn snapshot(&self) -> SessionResult<Arc<Snapshot>> {
        self.symbols
            .refresh(self.ws, self.ws.root())
            .map(|(s, _)| s)
            .map_err(SessionError::internal)
    }

    /// A user path (absolute or relative) as a workspace-relative path, without requiring it to
    /// exist; `None` when it lies outside the workspace. Symlinks of the existing part are
    /// resolved, so `/tmp/x` and its canonical form agree.
    pub fn relative_path(&self, input: &str) -> Option<String> {
        let raw = Path::new(input.trim());
        let joined = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            self.ws.root().join(raw)
        };
        let mut clean = PathBuf::new();
        for part in joined.components() {
            match part {
                Component::ParentDir => {
                    clean.pop();
                }
                Component::CurDir => {}
                other => clean.push(other),
            }
        }
        // Canonicalise the longest existing prefix, keep the rest as written.
        let mut existing = clean.clone();
        let mut rest: Vec<std::ffi::OsString> = Vec::new();
        while !existing.exists() {
            match (
                existing.file_name().map(|n| n.to_os_string()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let mut full = existing.canonicalize().unwrap_or(existing);
        for part in rest.into_iter().rev() {
            full.push(part);
        }
        let rel = full.strip_prefix(self.ws.root()).ok()?;
        Some(self.ws.relative(&self.ws.root().join(rel)))
    }

    fn definitions(&self, snapshot: &Snapshot, name: &str) -> Vec<SymbolDef> {
        lookup::find_symbol(snapshot, name)
    }

    /// The judge's candidates (description, code, callers) for definitions, files read once each.
    fn contexts(&self, snapshot: &Snapshot, defs: &[SymbolDef]) -> Vec<Candidate> {
        let defs: Vec<(&str, &crate::analysis::Symbol)> =
            defs.iter().map(|d| (d.file.as_str(), &d.symbol)).collect();
        judge::claimed(self.ws, snapshot, &defs, &self.judged)
    }

    /// Tells the judge which symbols this call will ask about, so that it looks for what calls
    /// them all in one pass over the project (see [`judge::CallCache::expect`]).
    fn expect_symbols<'s>(&self, snapshot: &Snapshot, symbols: impl IntoIterator<Item = &'s str>) {
        let names: Vec<String> = symbols.into_iter().map(lookup::bare_name).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.judged.expect(self.ws, snapshot, &names);
    }

    /// The judge's verdict on `term` and a symbol (the best of its definitions), against this
    /// project's background: its calibrated relevance, and the rule that bounded it.
    fn verdict(
        &self,
        snapshot: &Snapshot,
        term: &str,
        candidates: &[Candidate],
    ) -> Result<judge::Verdict, RelevanceError> {
        if candidates.is_empty() {
            return Ok(judge::Verdict::undefined());
        }
        // The project's ground only matters to the fitted combination.
        let grounds = (judge::SESSION_MODE != judge::Mode::DescriptionOnly).then(|| {
            let project = judge::Project {
                ws: self.ws,
                snapshot,
                search: self.field_search,
            };
            self.judged.grounds(project, term)
        });
        let ground = grounds
            .as_ref()
            .map_or_else(judge::Ground::default, judge::Grounds::ground);
        let relevance = self.relevance();
        Judge::new(relevance.as_ref())
            .with_mode(judge::SESSION_MODE)
            .verdict(term, candidates, ground)
    }

    /// The bare names of the definitions the project's own search ranks first for `term` (the
    /// judge's field leaders) that the judge puts at FACT for it; none where the project cannot
    /// be searched.
    fn field_leaders(&self, snapshot: &Snapshot, term: &str) -> Vec<String> {
        if judge::SESSION_MODE == judge::Mode::DescriptionOnly {
            return Vec::new();
        }
        let project = judge::Project {
            ws: self.ws,
            snapshot,
            search: self.field_search,
        };
        let leaders: Vec<Candidate> = self.judged.grounds(project, term).ground().leaders.to_vec();
        let mut names: Vec<String> = Vec::new();
        for leader in leaders {
            if names.contains(&leader.context.name) {
                continue;
            }
            let fact = self
                .verdict(snapshot, term, std::slice::from_ref(&leader))
                .is_ok_and(|v| {
                    crate::session::rules::three_tier(v.score) == crate::session::rules::Tier::Fact
                });
            if fact {
                names.push(leader.context.name.clone());
            }
        }
        names
    }

    /// The share of `term`'s words, as the judge reads them in this project (its keys, Japanese
    /// words bridged to the project's vocabulary), that `text` names.
    fn term_coverage(&self, snapshot: &Snapshot, term: &str, text: &str) -> f32 {
        let project = judge::Project {
            ws: self.ws,
            snapshot,
            search: self.field_search,
        };
        let grounds = self.judged.grounds(project, term);
        grounds
            .ground()
            .keys
            .map_or(0.0, |keys| keys.coverage(&judge::Bag::of(text)))
    }

    fn calls(&self, id: &str) -> Vec<ToolCall> {
        self.sessions.store.calls(id).unwrap_or_default()
    }
}

fn files_of(defs: &[SymbolDef]) -> Vec<String> {
    let set: BTreeSet<String> = defs.iter().map(|d| d.file.clone()).collect();
    set.into_iter().collect()
}
