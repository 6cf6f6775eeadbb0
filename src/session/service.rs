//! The session operations behind the session tools: gather the facts (symbol index, calibrated
//! relevance, the server's call record, the file system), hand them to the pure state machine,
//! persist the result, and log decisions and outcomes to memory.
//!
//! Every operation takes an optional session id; without one it uses the project's active
//! session. The phase gate and the call record live in `tools::gate`, which wraps every tool
//! call; here are only the operations themselves.

use super::gate;
use super::lookup::{self, SymbolDef};
use super::phase::Phase;
use super::state::{
    ConfirmResult, ExploredOutcome, HypothesisInput, Refusal, RevertOutcome, SemanticOutcome,
    SessionState, SessionStatus, ShortcircuitHint, SymbolCheck, SymbolScore, ToolCall,
    UnderstandingOutcome, UnderstandingReport, VerificationInput, VerificationOutcome,
};
use super::store::{SessionStore, StoreError, new_session_id};
use super::write_gate::WriteDecision;
use crate::error::{ErrorCode, ToolError, ToolResult};
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
use crate::router::{ExecutionPlan, PlanContext, create_plan};
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

pub(crate) fn store_error(err: StoreError) -> ToolError {
    match err {
        StoreError::NotFound(id) => ToolError::new(
            ErrorCode::NoSession,
            format!("no session '{id}' in this project"),
        )
        .with("session_id", id)
        .with(
            "hint",
            "omit session_id to use the active session, or call start_session",
        ),
        StoreError::BadId(id) => {
            ToolError::invalid_parameter(format!("'{id}' is not a session id"))
                .with("session_id", id)
        }
        other => ToolError::internal(other.to_string()),
    }
}

/// A state-machine refusal as the agent sees it.
pub(crate) fn refusal_error(refusal: Refusal, tools: &[gate::GatedTool]) -> ToolError {
    match refusal {
        Refusal::Phase {
            phase,
            operation,
            allowed_in,
        } => {
            let allowed_tools = gate::allowed_in(phase, tools);
            ToolError::new(
                ErrorCode::PhaseViolation,
                format!(
                    "{operation} is not allowed in the {} phase (only in {})",
                    phase.as_str(),
                    allowed_in
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .with("phase", phase.as_str())
            .with("tool", operation)
            .with("allowed_in", json!(allowed_in))
            .with("allowed", json!(allowed_tools))
            .with("next_step", phase.next_step())
        }
        Refusal::Invalid { message, details } => {
            let mut err = ToolError::invalid_parameter(message);
            if let Value::Object(map) = details {
                err.details.extend(map);
            }
            err
        }
    }
}

fn relevance_error(err: RelevanceError) -> ToolError {
    ToolError::new(ErrorCode::EmbeddingUnavailable, err.to_string()).with(
        "hint",
        "relevance checks need the embedding model: run `code-intel model install`, or retry when it has loaded",
    )
}

impl Env<'_> {
    fn relevance(&self) -> Arc<dyn Relevance> {
        self.sessions.relevance.get()
    }

    /// The session named by `id`, or the active one.
    fn session(&self, id: Option<&str>) -> ToolResult<SessionState> {
        let state = self.session_any(id)?;
        if state.status != SessionStatus::Active {
            return Err(ToolError::new(
                ErrorCode::NoSession,
                format!(
                    "session '{}' is {} and can no longer change",
                    state.session_id,
                    serde_json::to_value(state.status)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                ),
            )
            .with("session_id", state.session_id)
            .with("hint", "start_session begins a new session"));
        }
        Ok(state)
    }

    /// The session named by `id` (active or not), or the active one.
    fn session_any(&self, id: Option<&str>) -> ToolResult<SessionState> {
        match id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => self.sessions.store.load(id).map_err(store_error),
            None => self
                .sessions
                .store
                .active()
                .map_err(store_error)?
                .ok_or_else(no_session),
        }
    }

    /// Applies `f` to the session under the store's lock; refusals become tool errors.
    fn update<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut SessionState) -> Result<T, Refusal>,
    ) -> ToolResult<T> {
        let (_, stamp) = now();
        self.sessions
            .store
            .update(id, &stamp, f)
            .map_err(store_error)?
            .map_err(|r| refusal_error(r, self.tools))
    }

    fn snapshot(&self) -> ToolResult<Arc<Snapshot>> {
        self.symbols
            .refresh(self.ws, self.ws.root())
            .map(|(s, _)| s)
            .map_err(ToolError::internal)
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

    /// The judge's candidates (description, code) for definitions, files read once each.
    fn contexts(&self, snapshot: &Snapshot, defs: &[SymbolDef]) -> Vec<Candidate> {
        let defs: Vec<(&str, &crate::analysis::Symbol)> =
            defs.iter().map(|d| (d.file.as_str(), &d.symbol)).collect();
        judge::candidates(snapshot, &defs, &|f| self.ws.read_text(f))
    }

    /// The judge's calibrated relevance of `term` to a symbol (the best of its definitions),
    /// against this project's background.
    fn similarity(
        &self,
        snapshot: &Snapshot,
        term: &str,
        candidates: &[Candidate],
    ) -> Result<f32, RelevanceError> {
        if candidates.is_empty() {
            return Ok(0.0);
        }
        // The background only matters to the fitted combination.
        let background = match judge::SESSION_MODE {
            judge::Mode::Fitted => {
                judge::project_background(self.ws.root(), snapshot, &|f| self.ws.read_text(f))
            }
            judge::Mode::DescriptionOnly => Arc::new(Vec::new()),
        };
        let relevance = self.relevance();
        Ok(Judge::new(relevance.as_ref())
            .with_mode(judge::SESSION_MODE)
            .verdict(term, candidates, &background)?
            .score)
    }

    fn calls(&self, id: &str) -> Vec<ToolCall> {
        self.sessions.store.calls(id).unwrap_or_default()
    }
}

fn no_session() -> ToolError {
    ToolError::new(ErrorCode::NoSession, "there is no active session")
        .with("hint", "call start_session {intent, query} first; without a session every code tool works as a plain tool")
}

fn files_of(defs: &[SymbolDef]) -> Vec<String> {
    let set: BTreeSet<String> = defs.iter().map(|d| d.file.clone()).collect();
    set.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// start_session

#[derive(Debug, Serialize, JsonSchema)]
pub struct StartOutput {
    pub session_id: String,
    pub phase: Phase,
    pub intent: Intent,
    /// The QueryDecomposer prompt: fill the slots from it and call set_query_frame.
    pub extraction_prompt: String,
    pub shortcircuit_hint: ShortcircuitHint,
    pub sync_status: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_session: Option<String>,
    /// Seed 000's Step 0: the previous session, when it ended without an outcome or the request
    /// says its change failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_session: Option<PreviousSession>,
    pub next_step: String,
}

/// The previous session as `start_session` found it (Step 0, 失敗チェック).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PreviousSession {
    pub session_id: String,
    pub phase: Phase,
    /// Edits the write gate let through in it.
    pub edits: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The request says the previous change failed, and that failure is now recorded.
    pub failure_recorded: bool,
    pub note: String,
}

/// Step 0: reports a previous session left without an outcome, and records its failure when
/// the new request says the change did not work (before the new session replaces it).
fn failure_check(env: &Env, query: &str) -> ToolResult<Option<PreviousSession>> {
    let Some(last) = env.sessions.store.latest().map_err(store_error)? else {
        return Ok(None);
    };
    let failed = super::failure_check::reports_failure(query);
    if last.outcome.is_some() && !failed {
        return Ok(None);
    }
    let edits = super::hooks::edits(&env.calls(&last.session_id));
    let mut report = PreviousSession {
        session_id: last.session_id.clone(),
        phase: last.phase,
        edits,
        outcome: last.outcome,
        failure_recorded: false,
        note: String::new(),
    };
    report.note = match (last.outcome, failed) {
        (None, true) => {
            record_outcome(
                env,
                Some(&last.session_id),
                Outcome::Failure,
                Some("recorded by start_session: the next request reports that this session's change did not work".into()),
                Some(query.to_string()),
            )?;
            report.failure_recorded = true;
            report.outcome = Some(Outcome::Failure);
            "the request says the previous change did not work: its failure is recorded (record_outcome failure, with the request as trigger_message)".into()
        }
        (Some(outcome), _) => format!(
            "the request says the previous change did not work, but that session already has outcome {}; if it was wrong, call record_outcome with session_id {} and outcome failure",
            outcome.as_str(),
            last.session_id
        ),
        (None, false) => format!(
            "the previous session ended without an outcome ({edits} edit(s)); if its change was checked, call record_outcome with session_id {}",
            last.session_id
        ),
    };
    Ok(Some(report))
}

pub fn start_session(env: &Env, intent: &str, query: &str) -> ToolResult<StartOutput> {
    let intent = Intent::parse(intent).ok_or_else(|| {
        ToolError::invalid_parameter(format!("unknown intent '{intent}'"))
            .with("intents", Intent::NAMES)
    })?;
    let query = query.trim();
    if query.is_empty() {
        return Err(ToolError::invalid_parameter(
            "query is empty: pass the user's request as written",
        ));
    }
    let started = std::time::Instant::now();
    let (snapshot, stats) = env
        .symbols
        .refresh(env.ws, env.ws.root())
        .map_err(ToolError::internal)?;
    let symbols_status = json!({
        "files": stats.files,
        "parsed": stats.parsed,
        "removed": stats.removed,
        "elapsed_ms": started.elapsed().as_millis() as u64,
    });
    let map = env.sessions.map();
    let (hint, map_status) = match map.search(query, 3) {
        Ok(hits) => {
            let entries = map.len().unwrap_or(hits.len());
            let best = hits.first();
            let hint = match best {
                Some(hit) if hit.score >= SHORTCIRCUIT_THRESHOLD => {
                    // Only symbols that still exist are worth verifying first.
                    let symbols: Vec<String> = hit
                        .symbols
                        .iter()
                        .filter(|s| !lookup::find_symbol(&snapshot, s).is_empty())
                        .cloned()
                        .collect();
                    ShortcircuitHint {
                        found: !symbols.is_empty(),
                        symbols,
                        confidence: Some(hit.score),
                        nl_term: Some(hit.nl_term.clone()),
                        files: Some(hit.files.clone()),
                        recommendation: Some("Past success pattern found. Verify these symbols first (find_definitions), then submit_understanding with them.".into()),
                    }
                }
                _ => ShortcircuitHint {
                    found: false,
                    confidence: best.map(|h| h.score),
                    ..ShortcircuitHint::default()
                },
            };
            (hint, json!({"store": map.kind(), "entries": entries}))
        }
        Err(err) => (
            ShortcircuitHint::default(),
            json!({"store": map.kind(), "error": err.to_string()}),
        ),
    };
    let (t, stamp) = now();
    let id = new_session_id(t);
    let mut state = SessionState::new(
        &id,
        intent,
        query,
        &env.ws.root().display().to_string(),
        &stamp,
    );
    state.shortcircuit = hint.clone();
    let previous_session = failure_check(env, query)?;
    let previous = env.sessions.store.create(&state).map_err(store_error)?;
    Ok(StartOutput {
        session_id: id,
        phase: state.phase,
        intent,
        extraction_prompt: extraction_prompt(query),
        shortcircuit_hint: hint,
        sync_status: json!({"symbols": symbols_status, "map": map_status}),
        superseded_session: previous,
        previous_session,
        next_step: "fill the slots with the extraction_prompt and call set_query_frame".into(),
    })
}

// ---------------------------------------------------------------------------------------------
// set_query_frame

#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidSlot {
    pub slot: Slot,
    #[serde(flatten)]
    pub value: SlotValue,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SetFrameOutput {
    pub session_id: String,
    pub valid_slots: Vec<ValidSlot>,
    pub rejected_slots: Vec<RejectedSlot>,
    pub missing_slots: Vec<Slot>,
    pub risk_level: RiskLevel,
    pub plan: ExecutionPlan,
}

/// One proposed slot: `(slot, value, quote)`.
pub type ProposedSlot = (Slot, String, String);

pub fn set_query_frame(
    env: &Env,
    id: Option<&str>,
    slots: Vec<ProposedSlot>,
) -> ToolResult<SetFrameOutput> {
    let state = env.session(id)?;
    state
        .require("set_query_frame", &[Phase::Exploration])
        .map_err(|r| refusal_error(r, env.tools))?;
    if slots.is_empty() {
        return Err(ToolError::invalid_parameter(
            "no slot given: pass at least one of target_feature, trigger_condition, observed_issue, desired_action as {value, quote}",
        ));
    }
    let relevance = env.relevance();
    let verdicts: Vec<SlotVerdict> = slots
        .iter()
        .map(|(slot, value, quote)| {
            validate_slot(*slot, value, quote, &state.query, relevance.as_ref())
        })
        .collect();
    let state = env.update(&state.session_id, |s| {
        s.apply_query_frame(&verdicts)?;
        Ok(s.clone())
    })?;
    let (_, stamp) = now();
    let indexed = env.snapshot()?.files.len();
    let tool_names: Vec<&str> = env.tools.iter().map(|t| t.name).collect();
    let plan = create_plan(
        &state.query_frame,
        state.intent,
        &PlanContext {
            session_id: Some(&state.session_id),
            available_tools: &tool_names,
            indexed_files: Some(indexed),
            hinted_symbols: if state.shortcircuit.found {
                &state.shortcircuit.symbols
            } else {
                &[]
            },
            risk_floor: state.risk_floor,
            now: stamp,
        },
    );
    if let Some(log) = &plan.decision_log
        && let Err(err) = env.sessions.memory.record_decision(log)
    {
        tracing::warn!("could not append the decision log: {err}");
    }
    let mut valid_slots = Vec::new();
    let mut rejected_slots = Vec::new();
    for verdict in verdicts {
        match verdict {
            SlotVerdict::Accepted { slot, value } => valid_slots.push(ValidSlot { slot, value }),
            SlotVerdict::Rejected(r) => rejected_slots.push(r),
        }
    }
    Ok(SetFrameOutput {
        session_id: state.session_id.clone(),
        valid_slots,
        rejected_slots,
        missing_slots: state.query_frame.missing_slots(),
        risk_level: state.risk_level,
        plan,
    })
}

// ---------------------------------------------------------------------------------------------
// submit_understanding

/// What the agent reports at the end of EXPLORATION.
#[derive(Debug, Clone, Default)]
pub struct Understanding {
    pub symbols_identified: Vec<String>,
    pub entry_points: Vec<String>,
    pub files_analyzed: Vec<String>,
    pub patterns: Vec<String>,
}

/// Tools counted as exploration from the call record: successful calls of non-session tools.
fn tools_used(calls: &[ToolCall], tools: &[gate::GatedTool]) -> BTreeSet<String> {
    calls
        .iter()
        .filter(|c| {
            c.ok && c.source == "mcp" && gate::gate_of(tools, &c.tool) != gate::Gate::Session
        })
        .map(|c| c.tool.clone())
        .collect()
}

pub fn submit_understanding(
    env: &Env,
    id: Option<&str>,
    u: Understanding,
) -> ToolResult<WithSession<UnderstandingOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_understanding", &[Phase::Exploration])
        .map_err(|r| refusal_error(r, env.tools))?;
    let snapshot = env.snapshot()?;
    let trim = |v: Vec<String>| {
        v.into_iter()
            .map(|s| s.trim().to_string())
            .collect::<Vec<_>>()
    };
    let (symbols, entry_points, files, patterns) = (
        trim(u.symbols_identified),
        trim(u.entry_points),
        trim(u.files_analyzed),
        trim(u.patterns),
    );

    let mut report = UnderstandingReport {
        consistency_errors: super::rules::validate_exploration_consistency(
            &symbols,
            &entry_points,
            &files,
            &patterns,
        ),
        ..UnderstandingReport::default()
    };
    let mut defs_by_symbol: Vec<(String, Vec<SymbolDef>)> = Vec::new();
    for symbol in &symbols {
        let defs = env.definitions(&snapshot, symbol);
        if defs.is_empty() {
            report
                .hallucinated
                .push((symbol.clone(), lookup::near_names(&snapshot, symbol, 5)));
        }
        defs_by_symbol.push((symbol.clone(), defs));
    }
    for entry in &entry_points {
        let resolves = !env.definitions(&snapshot, entry).is_empty()
            || env.ws.resolve(entry).is_ok()
            || entry
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .filter(|w| w.len() >= 2)
                .any(|w| lookup::name_exists(&snapshot, w));
        if !resolves {
            report
                .hallucinated
                .push((entry.clone(), lookup::near_names(&snapshot, entry, 5)));
        }
    }
    let mut rel_files = Vec::new();
    for file in &files {
        match env.ws.resolve(file) {
            Ok(p) if p.is_dir => rel_files.push(format!("{}/", p.rel.trim_end_matches('/'))),
            Ok(p) => rel_files.push(p.rel),
            Err(_) => report.missing_files.push(file.clone()),
        }
    }

    let term = state.query_frame.target_term().map(String::from);
    let defs_by_symbol: Vec<(String, Vec<SymbolDef>)> = defs_by_symbol
        .into_iter()
        .map(|(symbol, defs)| (symbol, lookup::in_files(defs, &rel_files)))
        .collect();
    for (symbol, defs) in &defs_by_symbol {
        let similarity = match (&term, &report.relevance_unavailable) {
            (Some(term), None) if !defs.is_empty() => {
                match env.similarity(&snapshot, term, &env.contexts(&snapshot, defs)) {
                    Ok(s) => Some(s),
                    Err(err) => {
                        report.relevance_unavailable = Some(err.to_string());
                        None
                    }
                }
            }
            _ => None,
        };
        report.symbol_scores.push(SymbolScore {
            symbol: symbol.clone(),
            similarity,
            files: files_of(defs),
        });
    }
    let calls = env.calls(&state.session_id);
    report.tools_used = tools_used(&calls, env.tools);
    report.call_files = calls
        .iter()
        .filter(|c| c.ok && c.source == "mcp")
        .flat_map(|c| c.files.iter())
        .filter(|f| env.ws.root().join(f).is_file())
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    report.symbols_identified = symbols;
    report.entry_points = entry_points;
    report.files_analyzed = rel_files;
    report.patterns = patterns;
    let (_, stamp) = now();
    let result = env.update(&state.session_id, |s| {
        s.submit_understanding(report, &stamp)
    })?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

// ---------------------------------------------------------------------------------------------
// validate_symbol_relevance / confirm_symbol_relevance

/// Seed 003's validation prompt: the agent judges, the server checks its judgement.
fn validation_prompt(target: &str, symbols: &[String]) -> String {
    let list: String = symbols.iter().map(|s| format!("- {s}\n")).collect();
    format!(
        "From the symbols below, choose those related to the target feature 「{target}」.\n\n\
         Symbols:\n{list}\n\
         Answer by calling confirm_symbol_relevance with:\n\
         {{\"relevant_symbols\": [\"the related symbol names\"],\n \
         \"code_evidence\": \"where the code shows it: method names, calls, fields or comments of each symbol, e.g. `AuthService.login()` checks the password\"}}\n\n\
         code_evidence is required: the server checks that it names things that exist in each symbol's code, \
         and scores each symbol against the target feature (calibrated: > 0.6 FACT; 0.3-0.6 approved with HIGH risk; \
         < 0.3 rejected)."
    )
}

/// One candidate symbol as the server scores it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Suggestion {
    pub symbol: String,
    /// Whether the symbol index knows the name (false: a hallucination).
    pub exists: bool,
    /// Calibrated relevance to the target feature.
    pub similarity: Option<f32>,
    /// The 3-tier verdict the similarity would get.
    pub tier: Option<super::rules::Tier>,
    pub files: Vec<String>,
    /// Close existing names, for a symbol that does not exist.
    pub did_you_mean: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidateOutput {
    pub session_id: Option<String>,
    pub target_feature: String,
    /// Seed 003's prompt: answer it with confirm_symbol_relevance.
    pub validation_prompt: String,
    /// Candidates, most relevant first.
    pub embedding_suggestions: Vec<Suggestion>,
    /// Pairs confirmed in past successful sessions of this project.
    pub cached_matches: Vec<LearnedPair>,
    /// Why there are no similarities, when the model could not score.
    pub relevance_unavailable: Option<String>,
    pub note: String,
}

pub fn validate_symbol_relevance(
    env: &Env,
    id: Option<&str>,
    target_feature: &str,
    symbols: Vec<String>,
) -> ToolResult<ValidateOutput> {
    let target = target_feature.trim();
    if target.is_empty() {
        return Err(ToolError::invalid_parameter("target_feature is empty"));
    }
    if symbols.is_empty() {
        return Err(ToolError::invalid_parameter("symbols_identified is empty"));
    }
    let session = match id {
        Some(_) => Some(env.session_any(id)?),
        None => env.sessions.store.active().map_err(store_error)?,
    };
    let snapshot = env.snapshot()?;
    let mut suggestions = Vec::new();
    let mut relevance_note = None;
    for symbol in &symbols {
        let defs = env.definitions(&snapshot, symbol);
        let similarity = if defs.is_empty() || relevance_note.is_some() {
            None
        } else {
            match env.similarity(&snapshot, target, &env.contexts(&snapshot, &defs)) {
                Ok(s) => Some(s),
                Err(err) => {
                    relevance_note = Some(err.to_string());
                    None
                }
            }
        };
        suggestions.push(Suggestion {
            symbol: symbol.clone(),
            exists: !defs.is_empty(),
            similarity,
            tier: similarity.map(super::rules::three_tier),
            files: files_of(&defs),
            did_you_mean: if defs.is_empty() {
                lookup::near_names(&snapshot, symbol, 3)
            } else {
                Vec::new()
            },
        });
    }
    suggestions.sort_by(|a, b| {
        let s = |v: &Suggestion| v.similarity.unwrap_or(-1.0);
        s(b).total_cmp(&s(a))
    });
    let exists = |name: &str| !lookup::find_symbol(&snapshot, name).is_empty();
    let cached = env
        .sessions
        .memory
        .learned_pairs(Utc::now(), &exists)
        .map(|p| p.matches(target, &symbols))
        .unwrap_or_default();
    Ok(ValidateOutput {
        session_id: session.as_ref().map(|s| s.session_id.clone()),
        target_feature: target.to_string(),
        validation_prompt: validation_prompt(target, &symbols),
        embedding_suggestions: suggestions,
        cached_matches: cached,
        relevance_unavailable: relevance_note,
        note: "embedding_suggestions are calibrated server scores; cached_matches are pairs confirmed in past successful sessions. Prefer them, but cite code evidence either way.".into(),
    })
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfirmOutput {
    pub session_id: String,
    pub target_feature: String,
    pub results: Vec<ConfirmResult>,
    pub risk_level: RiskLevel,
    pub phase: Phase,
    pub next_step: String,
}

pub fn confirm_symbol_relevance(
    env: &Env,
    id: Option<&str>,
    relevant_symbols: Vec<String>,
    code_evidence: &str,
) -> ToolResult<ConfirmOutput> {
    let state = env.session(id)?;
    if code_evidence.trim().is_empty() {
        return Err(ToolError::invalid_parameter(
            "code_evidence is required: name the methods, calls, fields or comments that show each symbol serves the target feature",
        ));
    }
    if relevant_symbols.is_empty() {
        return Err(ToolError::invalid_parameter("relevant_symbols is empty"));
    }
    let Some(term) = state.query_frame.target_term().map(String::from) else {
        return Err(ToolError::invalid_parameter(
            "the session has no target_feature: call set_query_frame with target_feature first",
        ));
    };
    let snapshot = env.snapshot()?;
    let mut checks = Vec::new();
    for symbol in relevant_symbols.iter().map(|s| s.trim()) {
        let defs = env.definitions(&snapshot, symbol);
        if defs.is_empty() {
            checks.push(SymbolCheck {
                symbol: symbol.to_string(),
                exists: false,
                near_names: lookup::near_names(&snapshot, symbol, 5),
                similarity: 0.0,
                files: vec![],
                verified_names: vec![],
                unknown_names: vec![],
            });
            continue;
        }
        let contexts = env.contexts(&snapshot, &defs);
        let similarity = env
            .similarity(&snapshot, &term, &contexts)
            .map_err(relevance_error)?;
        let code: String = contexts
            .iter()
            .map(|c| c.code.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut parts: Vec<&str> = symbol
            .split(['.', ':', '\\', '#'])
            .filter(|p| !p.is_empty())
            .collect();
        parts.push(symbol);
        let exists = |name: &str| lookup::name_exists(&snapshot, name);
        let evidence = lookup::check_evidence(code_evidence, &parts, &code, &exists);
        checks.push(SymbolCheck {
            symbol: symbol.to_string(),
            exists: true,
            near_names: vec![],
            similarity,
            files: files_of(&defs),
            verified_names: evidence.verified,
            unknown_names: evidence.unknown,
        });
    }
    let evidence = code_evidence.trim().to_string();
    let (results, state) = env.update(&state.session_id, |s| {
        let results = s.confirm_symbols(checks, &evidence);
        Ok((results, s.clone()))
    })?;
    let next_step = if results.iter().any(|r| !r.approved) {
        "rejected symbols: follow their reinvestigation_guidance; approved ones are FACT and become agreements on record_outcome(success)"
    } else {
        "symbols confirmed: they become agreements on record_outcome(success)"
    };
    Ok(ConfirmOutput {
        session_id: state.session_id.clone(),
        target_feature: term,
        results,
        risk_level: state.risk_level,
        phase: state.phase,
        next_step: next_step.into(),
    })
}

// ---------------------------------------------------------------------------------------------
// submit_semantic / submit_verification

/// A hypothesis as the tool receives it.
#[derive(Debug, Clone)]
pub struct ProposedHypothesis {
    pub symbol: Option<String>,
    pub file: Option<String>,
    pub reason: String,
}

pub fn submit_semantic(
    env: &Env,
    id: Option<&str>,
    hypotheses: Vec<ProposedHypothesis>,
    semantic_reason: &str,
) -> ToolResult<WithSession<SemanticOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_semantic", &[Phase::Semantic])
        .map_err(|r| refusal_error(r, env.tools))?;
    let snapshot = env.snapshot()?;
    let mut hallucinated = Vec::new();
    let mut missing_files = Vec::new();
    let mut inputs = Vec::new();
    for h in hypotheses {
        let symbol = h
            .symbol
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let file = h
            .file
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        if let Some(s) = &symbol
            && env.definitions(&snapshot, s).is_empty()
        {
            hallucinated
                .push(json!({"symbol": s, "did_you_mean": lookup::near_names(&snapshot, s, 3)}));
        }
        let file = match file {
            Some(f) => match env.ws.resolve(&f) {
                Ok(p) => Some(p.rel),
                Err(_) => {
                    missing_files.push(f.clone());
                    Some(f)
                }
            },
            None => None,
        };
        inputs.push(HypothesisInput {
            symbol,
            file,
            reason: h.reason,
        });
    }
    if !hallucinated.is_empty() || !missing_files.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidSymbol,
            "hypotheses must name symbols and files that exist in the code",
        )
        .with("hallucinated_symbols", json!(hallucinated))
        .with("missing_files", json!(missing_files)));
    }
    let used = env
        .calls(&state.session_id)
        .iter()
        .any(|c| c.ok && c.tool == "semantic_search" && c.phase == Phase::Semantic);
    let (_, stamp) = now();
    let reason = semantic_reason.to_string();
    let result = env.update(&state.session_id, |s| {
        s.submit_semantic(inputs, &reason, used, &stamp)
    })?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

/// One verification result as the tool receives it.
#[derive(Debug, Clone)]
pub struct ProposedVerification {
    pub hypothesis: String,
    pub confirmed: bool,
    pub evidence: String,
}

pub fn submit_verification(
    env: &Env,
    id: Option<&str>,
    results: Vec<ProposedVerification>,
) -> ToolResult<WithSession<VerificationOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_verification", &[Phase::Verification])
        .map_err(|r| refusal_error(r, env.tools))?;
    if results.is_empty() {
        return Err(ToolError::invalid_parameter(
            "results is empty: give a result for each hypothesis",
        ));
    }
    let snapshot = env.snapshot()?;
    let term = state.query_frame.target_term().map(String::from);
    let hypotheses = state
        .semantic
        .as_ref()
        .map(|s| s.hypotheses.clone())
        .unwrap_or_default();
    let mut inputs = Vec::new();
    for r in results {
        let hypothesis = hypotheses.iter().find(|h| h.is_named_by(&r.hypothesis));
        let (mut evidence_ok, mut symbol_files, mut similarity) = (true, Vec::new(), None);
        if let (true, Some(h)) = (r.confirmed, hypothesis) {
            if let Some(symbol) = &h.symbol {
                let defs = env.definitions(&snapshot, symbol);
                let contexts = env.contexts(&snapshot, &defs);
                let code: String = contexts
                    .iter()
                    .map(|c| c.code.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                let exists = |n: &str| lookup::name_exists(&snapshot, n);
                evidence_ok =
                    !lookup::check_evidence(&r.evidence, &[symbol.as_str()], &code, &exists)
                        .verified
                        .is_empty();
                symbol_files = files_of(&defs);
                if let Some(term) = &term {
                    similarity = env.similarity(&snapshot, term, &contexts).ok();
                }
            } else if let Some(file) = &h.file {
                let text = read_source(
                    &env.ws.root().join(file),
                    file,
                    env.ws.config.max_file_bytes,
                )
                .map(|s| s.text)
                .unwrap_or_default();
                let exists = |n: &str| lookup::name_exists(&snapshot, n);
                evidence_ok = !lookup::check_evidence(&r.evidence, &[], &text, &exists)
                    .verified
                    .is_empty();
            }
        }
        inputs.push(VerificationInput {
            hypothesis: r.hypothesis,
            confirmed: r.confirmed,
            evidence: r.evidence,
            evidence_ok,
            symbol_files,
            similarity,
        });
    }
    let (_, stamp) = now();
    let result = env.update(&state.session_id, |s| s.submit_verification(inputs, &stamp))?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

// ---------------------------------------------------------------------------------------------
// Write gate and recovery

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckWriteOutput {
    pub allowed: bool,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_options: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The write gate for `file_path` (absolute or relative). With no session (and `session_id`
/// not given) writes are not gated unless `strict_write_gate` is set.
pub fn check_write_target(
    env: &Env,
    id: Option<&str>,
    file_path: &str,
    allow_new_files: bool,
) -> ToolResult<CheckWriteOutput> {
    if file_path.trim().is_empty() {
        return Err(ToolError::invalid_parameter("file_path is empty"));
    }
    let session = match id {
        Some(_) => Some(env.session_any(id)?).filter(|s| s.status == SessionStatus::Active),
        None => env.sessions.store.active().map_err(store_error)?,
    };
    let Some(rel) = env.relative_path(file_path) else {
        return Ok(CheckWriteOutput {
            allowed: true,
            file: file_path.to_string(),
            session_id: session.map(|s| s.session_id),
            phase: None,
            error: None,
            recovery_options: None,
            note: Some("the path is outside the project: code-intel does not gate it".into()),
        });
    };
    let Some(session) = session else {
        let strict = env.sessions.settings.strict_write_gate;
        return Ok(CheckWriteOutput {
            allowed: !strict,
            file: rel,
            session_id: None,
            phase: None,
            error: strict.then(|| "strict_write_gate is set and there is no active session: start one with start_session".to_string()),
            recovery_options: strict.then(|| json!({"start_session": {"description": "start a session, explore, and reach READY", "example": {"tool": "start_session", "arguments": {"intent": "MODIFY", "query": "…"}}}})),
            note: (!strict).then(|| "no active session: writes are not gated".to_string()),
        });
    };
    let exists = env.ws.root().join(&rel).exists();
    let WriteDecision {
        allowed,
        file,
        error,
        recovery_options,
    } = session.check_write(&rel, exists, allow_new_files);
    Ok(CheckWriteOutput {
        allowed,
        file,
        session_id: Some(session.session_id.clone()),
        phase: Some(session.phase),
        error,
        recovery_options,
        note: None,
    })
}

pub fn add_explored_files(
    env: &Env,
    id: Option<&str>,
    files: Vec<String>,
) -> ToolResult<WithSession<ExploredOutcome>> {
    let state = env.session(id)?;
    if files.is_empty() {
        return Err(ToolError::invalid_parameter("files is empty"));
    }
    let mut entries = Vec::new();
    let mut outside = Vec::new();
    for f in &files {
        let dir_hint = f.ends_with('/');
        match env.relative_path(f) {
            Some(rel) if rel.is_empty() => entries.push("/".to_string()),
            Some(rel) if dir_hint || env.ws.root().join(&rel).is_dir() => {
                entries.push(format!("{}/", rel.trim_end_matches('/')))
            }
            Some(rel) => entries.push(rel),
            None => outside.push(f.clone()),
        }
    }
    if !outside.is_empty() {
        return Err(ToolError::new(
            ErrorCode::OutsideWorkspace,
            "some paths are outside the workspace",
        )
        .with("paths", json!(outside)));
    }
    let result = env.update(&state.session_id, |s| s.add_explored_files(entries))?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

pub fn revert_to_exploration(
    env: &Env,
    id: Option<&str>,
    keep_results: bool,
) -> ToolResult<WithSession<RevertOutcome>> {
    let state = env.session(id)?;
    let (_, stamp) = now();
    let result = env.update(&state.session_id, |s| {
        Ok(s.revert_to_exploration(keep_results, &stamp))
    })?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

// ---------------------------------------------------------------------------------------------
// record_outcome

#[derive(Debug, Serialize, JsonSchema)]
pub struct RecordOutput {
    pub session_id: String,
    pub outcome: Outcome,
    pub phase_at_outcome: Phase,
    /// The outcome line was appended to `.code-intel/logs/outcomes.jsonl`.
    pub recorded: bool,
    /// Agreement files written (relative to the project root).
    pub agreements_created: Vec<String>,
    /// Size of the learned-pair cache after the update, when pairs were learned.
    pub learned_pairs: Option<usize>,
    /// Whether every agreement reached the map store.
    pub map_updated: bool,
    pub map_store: String,
    pub map_errors: Vec<String>,
    pub notes: Vec<String>,
}

pub fn record_outcome(
    env: &Env,
    id: Option<&str>,
    outcome: Outcome,
    analysis: Option<String>,
    trigger_message: Option<String>,
) -> ToolResult<RecordOutput> {
    // Without an id: the active session, else the latest one (the /code workflow's step 0
    // records the previous session's failure after it ended).
    let state = match id {
        Some(_) => env.session_any(id)?,
        None => match env.sessions.store.active().map_err(store_error)? {
            Some(s) => s,
            None => env
                .sessions
                .store
                .latest()
                .map_err(store_error)?
                .ok_or_else(no_session)?,
        },
    };
    let (t, stamp) = now();
    let calls = env.calls(&state.session_id);
    let log = OutcomeLog {
        session_id: state.session_id.clone(),
        outcome,
        phase_at_outcome: state.phase.as_str().to_string(),
        intent: state.intent,
        risk_level: state.risk_level,
        semantic_used: state.semantic.is_some(),
        analysis: analysis.filter(|a| !a.trim().is_empty()),
        trigger_message: trigger_message.filter(|a| !a.trim().is_empty()),
        tools_used: tools_used(&calls, env.tools).into_iter().collect(),
        phase_violations: calls
            .iter()
            .filter(|c| c.error_code.as_deref() == Some(ErrorCode::PhaseViolation.as_str()))
            .count(),
        timestamp: stamp.clone(),
    };
    env.sessions
        .memory
        .record_outcome(&log)
        .map_err(|e| ToolError::internal(e.to_string()))?;

    let mut agreements_created = Vec::new();
    let mut learned = Vec::new();
    let mut map_errors = Vec::new();
    let mut notes = Vec::new();
    if outcome == Outcome::Success {
        let nl_term = state
            .query_frame
            .target_term()
            .map(String::from)
            .unwrap_or_else(|| state.query.clone());
        let confirmed = state.confirmed_symbols();
        if confirmed.is_empty() {
            notes.push(
                "no symbol was confirmed with confirm_symbol_relevance, so nothing was learned"
                    .to_string(),
            );
        }
        let map = env.sessions.map();
        for mapped in confirmed {
            let Some(evidence) = &mapped.evidence else {
                continue;
            };
            let agreement = Agreement {
                nl_term: nl_term.clone(),
                symbol: mapped.name.clone(),
                similarity: mapped.confidence,
                session_id: state.session_id.clone(),
                code_evidence: evidence.code_evidence.clone(),
                files: evidence.files.clone(),
                query: state.query.clone(),
                created_at: stamp.clone(),
            };
            let path = env
                .sessions
                .memory
                .write_agreement(&agreement)
                .map_err(|e| ToolError::internal(e.to_string()))?;
            let entry = MapEntry {
                id: path
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default(),
                nl_term: nl_term.clone(),
                symbols: vec![mapped.name.clone()],
                files: evidence.files.clone(),
                code_evidence: evidence.code_evidence.clone(),
                similarity: mapped.confidence,
                session_id: state.session_id.clone(),
                query: state.query.clone(),
                created_at: stamp.clone(),
            };
            if let Err(err) = map.upsert(&entry) {
                map_errors.push(err.to_string());
            }
            agreements_created.push(
                path.strip_prefix(env.ws.root())
                    .map(|p| p.to_string_lossy().to_string())
                    .unwrap_or_else(|_| path.display().to_string()),
            );
            learned.push(LearnedPair {
                nl_term: nl_term.clone(),
                symbol: mapped.name.clone(),
                similarity: mapped.confidence,
                code_evidence: evidence.code_evidence.clone(),
                session_id: state.session_id.clone(),
                learned_at: stamp.clone(),
            });
        }
    }
    let learned_pairs = if learned.is_empty() {
        None
    } else {
        let snapshot = env.snapshot()?;
        let exists = |name: &str| !lookup::find_symbol(&snapshot, name).is_empty();
        Some(
            env.sessions
                .memory
                .learn_pairs(&learned, t, &exists)
                .map_err(|e| ToolError::internal(e.to_string()))?
                .pairs
                .len(),
        )
    };
    if state.status != SessionStatus::Closed {
        env.update(&state.session_id, |s| {
            s.close(outcome);
            Ok(())
        })?;
    }
    Ok(RecordOutput {
        session_id: state.session_id,
        outcome,
        phase_at_outcome: state.phase,
        recorded: true,
        map_updated: !agreements_created.is_empty() && map_errors.is_empty(),
        agreements_created,
        learned_pairs,
        map_store: env.sessions.map().kind().to_string(),
        map_errors,
        notes,
    })
}

// ---------------------------------------------------------------------------------------------
// Status and analysis

/// One recorded call, as the status shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallView {
    pub tool: String,
    pub at: String,
    pub phase: Phase,
    pub ok: bool,
    pub error_code: Option<String>,
    pub files: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallSummary {
    pub count: usize,
    /// The last ten calls, newest first.
    pub recent: Vec<CallView>,
}

/// The session part of `get_session_status`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionView {
    pub session_id: String,
    pub status: SessionStatus,
    pub intent: Intent,
    pub query: String,
    pub phase: Phase,
    pub risk_level: RiskLevel,
    pub query_frame: crate::query_frame::QueryFrame,
    pub missing_slots: Vec<Slot>,
    pub exploration: Option<super::state::ExplorationResult>,
    pub semantic: Option<super::state::SemanticResult>,
    pub verification: Option<super::state::VerificationResult>,
    pub explored_files: BTreeSet<String>,
    pub shortcircuit_hint: ShortcircuitHint,
    pub history: Vec<super::state::PhaseChange>,
    pub outcome: Option<Outcome>,
    /// Tools the current phase allows.
    pub allowed_tools: Vec<String>,
    pub next_step: String,
    /// The server's own record of the session's calls.
    pub tool_calls: CallSummary,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusOutput {
    /// Whether a session is active (the phase gate applies).
    pub active: bool,
    pub strict_write_gate: bool,
    /// Entries of `.code-intel/config.json` that do not apply as written (the rest does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config_problems: Vec<crate::config::ConfigProblem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(flatten)]
    pub session: Option<SessionView>,
}

pub fn get_session_status(env: &Env, id: Option<&str>) -> ToolResult<StatusOutput> {
    let state = match id {
        Some(_) => Some(env.session_any(id)?),
        None => env.sessions.store.active().map_err(store_error)?,
    };
    let strict_write_gate = env.sessions.settings.strict_write_gate;
    let Some(state) = state else {
        return Ok(StatusOutput {
            active: false,
            strict_write_gate,
            config_problems: env.sessions.settings.config_problems.clone(),
            message: Some("no active session: every tool works as a plain code tool; start_session begins the phase-gated workflow".into()),
            session: None,
        });
    };
    let calls = env.calls(&state.session_id);
    let allowed_tools: Vec<String> = gate::allowed_in(state.phase, env.tools)
        .into_iter()
        .map(String::from)
        .collect();
    let recent: Vec<CallView> = calls
        .iter()
        .rev()
        .take(10)
        .map(|c| CallView {
            tool: c.tool.clone(),
            at: c.at.clone(),
            phase: c.phase,
            ok: c.ok,
            error_code: c.error_code.clone(),
            files: c.files.clone(),
        })
        .collect();
    Ok(StatusOutput {
        active: state.status == SessionStatus::Active,
        strict_write_gate,
        config_problems: env.sessions.settings.config_problems.clone(),
        message: None,
        session: Some(SessionView {
            missing_slots: state.query_frame.missing_slots(),
            next_step: state.phase.next_step().to_string(),
            tool_calls: CallSummary {
                count: calls.len(),
                recent,
            },
            allowed_tools,
            session_id: state.session_id,
            status: state.status,
            intent: state.intent,
            query: state.query,
            phase: state.phase,
            risk_level: state.risk_level,
            query_frame: state.query_frame,
            exploration: state.exploration,
            semantic: state.semantic,
            verification: state.verification,
            explored_files: state.explored_files,
            shortcircuit_hint: state.shortcircuit,
            history: state.history,
            outcome: state.outcome,
            created_at: state.created_at,
            updated_at: state.updated_at,
        }),
    })
}

pub fn get_session_analysis(
    env: &Env,
    id: Option<&str>,
) -> ToolResult<crate::memory::SessionAnalysis> {
    let session_id = match id.map(str::trim).filter(|s| !s.is_empty()) {
        Some(id) => {
            SessionStore::check_id(id).map_err(store_error)?;
            id.to_string()
        }
        None => match env.sessions.store.active().map_err(store_error)? {
            Some(s) => s.session_id,
            None => {
                env.sessions
                    .store
                    .latest()
                    .map_err(store_error)?
                    .ok_or_else(no_session)?
                    .session_id
            }
        },
    };
    crate::memory::session_analysis(&env.sessions.memory, &session_id)
        .map_err(|e| ToolError::internal(e.to_string()))
}

pub fn get_improvement_insights(env: &Env, limit: usize) -> ToolResult<crate::memory::Insights> {
    crate::memory::improvement_insights(&env.sessions.memory, limit)
        .map_err(|e| ToolError::internal(e.to_string()))
}
