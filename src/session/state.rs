//! The session's state and its phase machine, as pure functions: `(state, facts) → new state or
//! refusal`. No I/O here: the service computes the facts (does the symbol exist, what is its
//! calibrated relevance, which tools did the session call) and this module decides.
//!
//! Phases (seed 000): EXPLORATION → (READY | SEMANTIC → VERIFICATION → READY). Every transition
//! is appended to `history` with its reason; `revert_to_exploration` goes back from anywhere.

use super::rules::{
    Confidence, ExplorationCounts, MissingRequirement, Tier, accepted_semantic_reasons,
    evaluate_exploration, three_tier, validate_semantic_reason,
};
use super::write_gate::{WriteDecision, validate_write_target};
use crate::memory::Outcome;
use crate::query_frame::{
    Intent, MappedSymbol, MappingStatus, QueryFrame, RiskLevel, Slot, SlotEvidence, SlotSource,
    SlotVerdict, assess_risk_level,
};
use crate::router::Phase;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Bumped when the stored layout changes incompatibly; older files are refused with a clear
/// message rather than misread.
pub const STATE_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// The project's current session: the phase gate applies.
    Active,
    /// Replaced by a newer `start_session` before an outcome was recorded.
    Superseded,
    /// An outcome was recorded.
    Closed,
}

/// One call the server ran while the session was active: the server's own record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCall {
    pub tool: String,
    pub args: Value,
    /// Files the call targeted (workspace-relative).
    #[serde(default)]
    pub files: Vec<String>,
    /// Files named in the call's result (capped).
    #[serde(default)]
    pub result_files: Vec<String>,
    pub at: String,
    pub phase: Phase,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    pub duration_ms: u64,
    /// `mcp` (a tool call) or `hook` (a Claude Code edit seen by the PreToolUse hook).
    pub source: String,
}

/// A symbol's server-computed relevance to the target feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolScore {
    pub symbol: String,
    /// Calibrated relevance to `target_feature`; absent when there is no target feature or no
    /// model.
    pub similarity: Option<f32>,
    /// Files the symbol is defined in.
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExplorationResult {
    pub symbols_identified: Vec<String>,
    pub entry_points: Vec<String>,
    pub files_analyzed: Vec<String>,
    pub patterns: Vec<String>,
    /// From the server's record, not the agent's claim.
    pub tools_used: Vec<String>,
    pub confidence: Confidence,
    pub missing_requirements: Vec<MissingRequirement>,
    pub symbol_scores: Vec<SymbolScore>,
    pub submitted_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HypothesisStatus {
    Open,
    Confirmed,
    Rejected,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hypothesis {
    /// `H1`, `H2`, … in submission order.
    pub id: String,
    pub symbol: Option<String>,
    pub file: Option<String>,
    pub reason: String,
    pub source: SlotSource,
    pub status: HypothesisStatus,
    pub evidence: Option<String>,
    /// The judge's calibrated relevance of the symbol (for a file: of its best definition) to
    /// the target feature, when it could judge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// The tier of `similarity`: a REJECTED hypothesis cannot be confirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Why the judge held the score down, when a rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Once confirmed: the files it stands for (its file, or its symbol's definitions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Once confirmed: how it connects to the request (the judge, a call, the evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
}

impl Hypothesis {
    /// Whether `reference` names this hypothesis (its id, symbol or file).
    pub fn is_named_by(&self, reference: &str) -> bool {
        let r = reference.trim();
        r.eq_ignore_ascii_case(&self.id)
            || self.symbol.as_deref() == Some(r)
            || self.file.as_deref() == Some(r)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SemanticResult {
    pub hypotheses: Vec<Hypothesis>,
    pub semantic_reason: String,
    /// Whether the session searched the forest before submitting (server's record).
    pub semantic_search_used: bool,
    pub submitted_at: String,
}

/// What applying a round of verification results did.
struct Verified {
    refused: Vec<RefusedResult>,
    /// Files of the confirmed hypotheses and of the symbols their evidence named.
    confirmed_files: Vec<String>,
    /// Confirmed symbols with the similarity their check gave and the evidence they rest on.
    confirmed_symbols: Vec<(String, Option<f32>, SlotEvidence)>,
    /// A hypothesis in the gray zone was confirmed: the session's risk becomes HIGH.
    gray_confirmed: bool,
}

impl SemanticResult {
    /// Refuses results that name no hypothesis (by id, symbol or file).
    fn check_named(&self, results: &[VerificationInput]) -> Result<(), Refusal> {
        let unknown: Vec<&str> = results
            .iter()
            .filter(|r| !self.hypotheses.iter().any(|h| h.is_named_by(&r.hypothesis)))
            .map(|r| r.hypothesis.as_str())
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let known: Vec<Value> = self
            .hypotheses
            .iter()
            .map(|h| json!({"id": h.id, "symbol": h.symbol, "file": h.file}))
            .collect();
        Err(Refusal::invalid(
            "some results name no hypothesis: use a hypothesis id (H1 …), its symbol or its file",
            json!({"unknown": unknown, "hypotheses": known}),
        ))
    }

    /// Marks each named hypothesis confirmed or rejected. A confirmation holds only when the
    /// server finds it true ([`VerificationInput::refusal`]); otherwise the hypothesis stays open
    /// and the refusal says what is missing and which tool finds it.
    fn apply(&mut self, results: &[VerificationInput], term: Option<&str>) -> Verified {
        let mut verified = Verified {
            refused: Vec::new(),
            confirmed_files: Vec::new(),
            confirmed_symbols: Vec::new(),
            gray_confirmed: false,
        };
        for r in results {
            let Some(h) = self
                .hypotheses
                .iter_mut()
                .find(|h| h.is_named_by(&r.hypothesis))
            else {
                continue;
            };
            if !r.confirmed {
                h.status = HypothesisStatus::Rejected;
                h.evidence = Some(r.evidence.clone());
                continue;
            }
            if let Some(reason) = r.refusal(h, term) {
                verified.refused.push(RefusedResult {
                    hypothesis: h.id.clone(),
                    reason,
                });
                continue;
            }
            h.status = HypothesisStatus::Confirmed;
            h.source = SlotSource::Fact;
            h.evidence = Some(r.evidence.clone());
            h.similarity = r.similarity.or(h.similarity);
            h.tier = h.similarity.map(three_tier);
            h.connection = r.connection.clone();
            let mut files: Vec<String> = h.file.iter().cloned().collect();
            files.extend(r.symbol_files.iter().cloned());
            files.sort();
            files.dedup();
            h.files = files.clone();
            verified.gray_confirmed |= h.tier == Some(Tier::GrayZone);
            verified.confirmed_files.extend(files.iter().cloned());
            if let Some(symbol) = &h.symbol {
                verified.confirmed_symbols.push((
                    symbol.clone(),
                    h.similarity,
                    SlotEvidence {
                        code_evidence: r.evidence.clone(),
                        verified_names: r.verified_names.clone(),
                        files,
                    },
                ));
            }
        }
        verified
    }

    /// The ids of the hypotheses in `status`, in order.
    fn ids_with(&self, status: HypothesisStatus) -> Vec<String> {
        self.hypotheses
            .iter()
            .filter(|h| h.status == status)
            .map(|h| h.id.clone())
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerificationResult {
    pub confirmed: Vec<String>,
    pub rejected: Vec<String>,
    pub submitted_at: String,
}

/// Seed 004's short-circuit hint: a past agreement matching this request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShortcircuitHint {
    pub found: bool,
    #[serde(default)]
    pub symbols: Vec<String>,
    /// Calibrated score of the best map hit (present when the map could be searched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseChange {
    pub from: Option<Phase>,
    pub to: Phase,
    pub at: String,
    pub reason: String,
}

/// Everything the server knows about one session (seed 000 SessionState).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    pub version: u32,
    pub session_id: String,
    pub intent: Intent,
    pub query: String,
    pub phase: Phase,
    pub status: SessionStatus,
    pub created_at: String,
    pub updated_at: String,
    pub repo_path: String,
    pub query_frame: QueryFrame,
    pub risk_level: RiskLevel,
    /// Risk raised by evidence (gray-zone confirmations); the frame can never lower it.
    pub risk_floor: RiskLevel,
    pub exploration: Option<ExplorationResult>,
    pub semantic: Option<SemanticResult>,
    pub verification: Option<VerificationResult>,
    /// Workspace-relative files (and directories ending in `/`) the session may write.
    pub explored_files: BTreeSet<String>,
    pub shortcircuit: ShortcircuitHint,
    pub history: Vec<PhaseChange>,
    pub outcome: Option<Outcome>,
    /// What READY still needs, as last evaluated (by `submit_understanding` or
    /// `submit_verification`); `submit_semantic`'s reason must fit it.
    #[serde(default)]
    pub missing_requirements: Vec<MissingRequirement>,
}

/// `submit_understanding`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct UnderstandingOutcome {
    /// READY when the exploration is sufficient, else SEMANTIC.
    pub phase: Phase,
    pub confidence: Confidence,
    /// What the exploration lacked (empty when READY).
    pub missing_requirements: Vec<MissingRequirement>,
    /// In SEMANTIC: the `semantic_reason` values `submit_semantic` accepts for what is missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted_semantic_reasons: Vec<String>,
    /// Each symbol's calibrated relevance to target_feature and its files.
    pub symbols_with_confidence: Vec<SymbolScore>,
    /// Symbols clearly related to target_feature (> 0.6).
    pub high_confidence_symbols: Vec<String>,
    /// Files (and directories ending in `/`) the session may write once READY.
    pub explored_files: BTreeSet<String>,
    pub warnings: Vec<String>,
    pub next_step: String,
}

/// `submit_semantic`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SemanticOutcome {
    pub phase: Phase,
    /// The recorded hypotheses with their ids (H1, H2, …).
    pub hypotheses: Vec<Hypothesis>,
    pub warnings: Vec<String>,
    pub next_step: String,
}

/// A verification result the server did not accept.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RefusedResult {
    pub hypothesis: String,
    pub reason: String,
}

/// `submit_verification`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VerificationOutcome {
    pub phase: Phase,
    /// Hypothesis ids confirmed (now FACT), rejected, and still open.
    pub confirmed: Vec<String>,
    pub rejected: Vec<String>,
    pub open: Vec<String>,
    /// Results refused (a confirmation the server did not find true: no evidence from the
    /// code, a hypothesis judged unrelated, code never read, nothing tying a gray one to the
    /// request); they stay open, each with what is missing and the tool that finds it.
    pub refused: Vec<RefusedResult>,
    /// When every hypothesis is settled but READY still needs more (the session is back in
    /// SEMANTIC): what, and the `semantic_reason` values that fit it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_requirements: Vec<MissingRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted_semantic_reasons: Vec<String>,
    pub explored_files: BTreeSet<String>,
    pub next_step: String,
}

/// `add_explored_files`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ExploredOutcome {
    pub phase: Phase,
    /// Entries that were not explored before.
    pub added: Vec<String>,
    pub explored_files: BTreeSet<String>,
}

/// `revert_to_exploration`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RevertOutcome {
    pub phase: Phase,
    pub reverted_from: Phase,
    pub kept_results: bool,
    pub explored_files: BTreeSet<String>,
    pub next_step: String,
}

/// Why the state machine refused an operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The operation belongs to another phase.
    Phase {
        phase: Phase,
        operation: String,
        allowed_in: Vec<Phase>,
    },
    /// The input does not hold (hallucinated symbols, missing files, bad references …).
    Invalid { message: String, details: Value },
}

impl Refusal {
    fn invalid(message: impl Into<String>, details: Value) -> Refusal {
        Refusal::Invalid {
            message: message.into(),
            details,
        }
    }
}

/// The facts the service gathered for `submit_understanding`.
#[derive(Debug, Clone, Default)]
pub struct UnderstandingReport {
    pub symbols_identified: Vec<String>,
    pub entry_points: Vec<String>,
    pub files_analyzed: Vec<String>,
    pub patterns: Vec<String>,
    /// Symbols and entry points the index cannot find, with near names.
    pub hallucinated: Vec<(String, Vec<String>)>,
    pub missing_files: Vec<String>,
    pub consistency_errors: Vec<String>,
    pub tools_used: BTreeSet<String>,
    pub symbol_scores: Vec<SymbolScore>,
    /// Why scores are missing, when the model could not score.
    pub relevance_unavailable: Option<String>,
    /// Files the session's calls targeted (server's record).
    pub call_files: Vec<String>,
}

impl UnderstandingReport {
    /// Refuses a report whose symbols, files or claims the server did not find in the code.
    fn check_against_code(&self) -> Result<(), Refusal> {
        if self.hallucinated.is_empty()
            && self.missing_files.is_empty()
            && self.consistency_errors.is_empty()
        {
            return Ok(());
        }
        let hallucinated: Vec<Value> = self
            .hallucinated
            .iter()
            .map(|(name, near)| json!({"symbol": name, "did_you_mean": near}))
            .collect();
        Err(Refusal::invalid(
            "the understanding does not match the code: fix the listed items and submit again",
            json!({
                "hallucinated_symbols": hallucinated,
                "missing_files": self.missing_files,
                "consistency_errors": self.consistency_errors,
                "hint": "every symbol and entry point must be found by find_definitions; every file must exist",
            }),
        ))
    }
}

/// How the server came to hold a link between the request's term and a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Establishment {
    /// A hypothesis verified with evidence from code the session read.
    Verified,
    /// Confirmed at FACT with code evidence (`confirm_symbol_relevance`).
    Confirmed,
    /// Put at FACT by the judge when the exploration was submitted.
    Judged,
}

/// One link a successful session teaches ([`SessionState::judged_links`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedLink {
    pub symbol: String,
    pub similarity: f32,
    pub code_evidence: String,
    pub files: Vec<String>,
    pub how: Establishment,
}

/// The facts gathered for one symbol of `confirm_symbol_relevance`.
#[derive(Debug, Clone)]
pub struct SymbolCheck {
    pub symbol: String,
    pub exists: bool,
    pub near_names: Vec<String>,
    pub similarity: f32,
    /// Why the judge's rules held the similarity down, if one did ([`crate::judge::Verdict::why`]).
    pub held_down: Option<String>,
    pub files: Vec<String>,
    /// Names (and quoted phrases) of the evidence found in the symbol's code or among the names
    /// of what calls it.
    pub verified_names: Vec<String>,
    /// Code-like names of the evidence found neither there nor anywhere in the project.
    pub unknown_names: Vec<String>,
}

/// Per-symbol answer of `confirm_symbol_relevance`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConfirmResult {
    pub symbol: String,
    pub similarity: f32,
    /// FACT or REJECTED.
    pub status: String,
    pub approved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskLevel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reinvestigation_guidance: Option<Value>,
    pub verified_names: Vec<String>,
}

/// One hypothesis as `submit_semantic` receives it (after reference checks), with the judge's
/// verdict on it.
#[derive(Debug, Clone, Default)]
pub struct HypothesisInput {
    pub symbol: Option<String>,
    pub file: Option<String>,
    pub reason: String,
    /// Calibrated relevance to the target feature (`None`: no target feature or no model).
    pub similarity: Option<f32>,
    pub why: Option<String>,
}

/// One verification result with the facts the service gathered for it.
#[derive(Debug, Clone, Default)]
pub struct VerificationInput {
    pub hypothesis: String,
    pub confirmed: bool,
    pub evidence: String,
    /// For a confirmation: whether the evidence names something in the hypothesis's code (for a
    /// symbol, also among the names of its callers), and the names it found there.
    pub evidence_ok: bool,
    pub verified_names: Vec<String>,
    /// The symbol's files.
    pub symbol_files: Vec<String>,
    /// The judge's calibrated relevance to the target feature now (`None`: it could not judge),
    /// and why a rule held it down.
    pub similarity: Option<f32>,
    pub why: Option<String>,
    /// Whether the session's own calls read the hypothesis's code (definitions, the function
    /// at a line, the file), as the server recorded them.
    pub read: bool,
    /// How the hypothesis ties to what the request is about, when the server found a way: it
    /// calls or is called by a symbol judged FACT or ranked first for the term by the project's
    /// search, or the evidence names such a symbol.
    pub connection: Option<String>,
    /// The symbols the request is about that the connection was looked for among (for the
    /// refusal's text).
    pub anchors: Vec<String>,
}

impl VerificationInput {
    /// Why a confirmation of `h` does not hold, in the words the agent needs to fix it; `None`
    /// when it holds. In order: evidence given, the judge's tier, code read, evidence found in
    /// the code, and (in the gray zone) a tie to the request.
    fn refusal(&self, h: &Hypothesis, term: Option<&str>) -> Option<String> {
        let what = h
            .symbol
            .as_deref()
            .or(h.file.as_deref())
            .unwrap_or("the hypothesis");
        let term = term.unwrap_or("the target feature");
        let similarity = self.similarity.or(h.similarity);
        let held = self
            .why
            .as_ref()
            .or(h.why.as_ref())
            .map(|w| format!(", {w}"))
            .unwrap_or_default();
        if self.evidence.trim().is_empty() {
            return Some(format!(
                "a confirmation needs evidence: name a call, field, method or comment of {what}'s code (get_function_at_line or find_definitions shows it)"
            ));
        }
        if let Some(s) = similarity
            && three_tier(s) == Tier::Rejected
        {
            return Some(format!(
                "the server judges {what} unrelated to '{term}' (calibrated similarity {s:.3} < 0.3{held}): it cannot be confirmed. Mark it rejected and look for the code of '{term}' with semantic_search (collection \"forest\") or search_text, then submit_semantic with that"
            ));
        }
        if !self.read {
            return Some(format!(
                "this session never read {what}'s code: read it (get_function_at_line, find_definitions, or get_symbols on its file), then confirm with what it shows"
            ));
        }
        if !self.evidence_ok {
            return Some(format!(
                "the evidence names nothing found in {what}'s code or among the names of what calls it: cite its calls, fields, methods or comments (get_function_at_line shows them)"
            ));
        }
        if let Some(s) = similarity
            && three_tier(s) == Tier::GrayZone
            && self.connection.is_none()
        {
            let tie = if self.anchors.is_empty() {
                "nothing in this session is judged related to the request yet, so nothing can vouch for it".to_string()
            } else {
                format!(
                    "it neither calls nor is called by what the request is about ({}), and the evidence names none of them",
                    self.anchors.join(", ")
                )
            };
            return Some(format!(
                "{what} is in the gray zone for '{term}' ({s:.3}{held}) and nothing ties it to the request: {tie}. find_references on {what} shows what calls it; cite the caller or callee that serves '{term}', or reject it"
            ));
        }
        None
    }
}

impl SessionState {
    pub fn new(
        session_id: &str,
        intent: Intent,
        query: &str,
        repo_path: &str,
        now: &str,
    ) -> SessionState {
        let frame = QueryFrame::new(query);
        SessionState {
            version: STATE_VERSION,
            session_id: session_id.to_string(),
            intent,
            query: query.to_string(),
            phase: Phase::Exploration,
            status: SessionStatus::Active,
            created_at: now.to_string(),
            updated_at: now.to_string(),
            repo_path: repo_path.to_string(),
            risk_level: assess_risk_level(intent, &frame),
            query_frame: frame,
            risk_floor: RiskLevel::Low,
            exploration: None,
            semantic: None,
            verification: None,
            explored_files: BTreeSet::new(),
            shortcircuit: ShortcircuitHint::default(),
            history: vec![PhaseChange {
                from: None,
                to: Phase::Exploration,
                at: now.to_string(),
                reason: "start_session".into(),
            }],
            outcome: None,
            missing_requirements: Vec::new(),
        }
    }

    /// Refuses `operation` unless the session is in one of `phases`.
    pub fn require(&self, operation: &str, phases: &[Phase]) -> Result<(), Refusal> {
        if phases.contains(&self.phase) {
            Ok(())
        } else {
            Err(Refusal::Phase {
                phase: self.phase,
                operation: operation.to_string(),
                allowed_in: phases.to_vec(),
            })
        }
    }

    fn transition(&mut self, to: Phase, reason: impl Into<String>, now: &str) {
        if self.phase != to || self.history.is_empty() {
            self.history.push(PhaseChange {
                from: Some(self.phase),
                to,
                at: now.to_string(),
                reason: reason.into(),
            });
        }
        self.phase = to;
    }

    fn refresh_risk(&mut self) {
        self.risk_level = assess_risk_level(self.intent, &self.query_frame).max(self.risk_floor);
    }

    /// Applies `set_query_frame`'s slot verdicts: accepted slots replace earlier values, a
    /// rejected slot leaves an earlier accepted value in place. Returns the accepted slots.
    pub fn apply_query_frame(&mut self, verdicts: &[SlotVerdict]) -> Result<Vec<Slot>, Refusal> {
        self.require("set_query_frame", &[Phase::Exploration])?;
        let mut accepted = Vec::new();
        for verdict in verdicts {
            if let SlotVerdict::Accepted { slot, value } = verdict {
                self.query_frame.set_slot(*slot, Some(value.clone()));
                accepted.push(*slot);
            }
        }
        self.refresh_risk();
        Ok(accepted)
    }

    /// `submit_understanding`: checks the report, evaluates it, maps the symbols and moves to
    /// READY (enough, and the symbols fit the target feature) or SEMANTIC (with what is missing).
    pub fn submit_understanding(
        &mut self,
        report: UnderstandingReport,
        now: &str,
    ) -> Result<UnderstandingOutcome, Refusal> {
        self.require("submit_understanding", &[Phase::Exploration])?;
        report.check_against_code()?;
        let mut warnings: Vec<String> = Vec::new();
        self.relevance_warnings(&report, &mut warnings);
        for score in &report.symbol_scores {
            if self.query_frame.mapped(&score.symbol).is_none() {
                self.query_frame.upsert_mapped(MappedSymbol {
                    name: score.symbol.clone(),
                    source: SlotSource::Fact,
                    status: MappingStatus::Proposed,
                    confidence: score.similarity.unwrap_or(0.5),
                    evidence: None,
                });
            }
        }
        self.explored_files
            .extend(report.files_analyzed.iter().cloned());
        self.explored_files
            .extend(report.call_files.iter().cloned());
        let high_confidence: Vec<String> = report
            .symbol_scores
            .iter()
            .filter(|s| s.similarity.is_some_and(|v| three_tier(v) == Tier::Fact))
            .map(|s| s.symbol.clone())
            .collect();
        self.exploration = Some(ExplorationResult {
            symbols_identified: report.symbols_identified,
            entry_points: report.entry_points,
            files_analyzed: report.files_analyzed,
            patterns: report.patterns,
            tools_used: report.tools_used.iter().cloned().collect(),
            confidence: Confidence::Low,
            missing_requirements: Vec::new(),
            symbol_scores: report.symbol_scores.clone(),
            submitted_at: now.to_string(),
        });
        let missing = self.ready_requirements(&report.tools_used);
        let confidence = if missing.is_empty() {
            Confidence::High
        } else {
            Confidence::Low
        };
        if let Some(exploration) = self.exploration.as_mut() {
            exploration.confidence = confidence;
            exploration.missing_requirements = missing.clone();
        }
        self.missing_requirements = missing.clone();
        let accepted = self.accepted_reasons();
        let next = if missing.is_empty() {
            self.transition(
                Phase::Ready,
                "submit_understanding: exploration sufficient",
                now,
            );
            "READY: call validate_symbol_relevance / confirm_symbol_relevance to confirm the symbols with code evidence, check_write_target before each edit, record_outcome when done".to_string()
        } else {
            self.transition(
                Phase::Semantic,
                "submit_understanding: exploration insufficient",
                now,
            );
            format!(
                "SEMANTIC: search the forest (semantic_search, collection \"forest\") for what is missing, read the code of its hits, then submit_semantic with hypotheses ({{symbol or file, reason}}) and semantic_reason set to one of: {}. Or revert_to_exploration and explore more",
                accepted.join(", ")
            )
        };
        Ok(UnderstandingOutcome {
            phase: self.phase,
            confidence,
            missing_requirements: missing,
            accepted_semantic_reasons: if self.phase == Phase::Semantic {
                accepted
            } else {
                Vec::new()
            },
            symbols_with_confidence: report.symbol_scores,
            high_confidence_symbols: high_confidence,
            explored_files: self.explored_files.clone(),
            warnings,
            next_step: next,
        })
    }

    /// The `semantic_reason` values `submit_semantic` accepts now.
    fn accepted_reasons(&self) -> Vec<String> {
        accepted_semantic_reasons(&self.missing_requirements)
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// What READY still needs, whichever path the session took — the one check every route
    /// to READY passes. The exploration's requirements for the intent, counted over what the
    /// exploration reported and what verification confirmed since (a confirmed hypothesis adds
    /// its symbol and its files), with the tools from the server's record; and a link to the
    /// request the server judged ([`SessionState::relevance_requirement`]).
    fn ready_requirements(&self, tools_used: &BTreeSet<String>) -> Vec<MissingRequirement> {
        let exploration = self.exploration.as_ref();
        let confirmed = self.confirmed_hypotheses();
        let mut symbols: BTreeSet<&str> = exploration
            .map(|e| e.symbols_identified.iter().map(String::as_str).collect())
            .unwrap_or_default();
        symbols.extend(confirmed.iter().filter_map(|h| h.symbol.as_deref()));
        let mut files: BTreeSet<&str> = exploration
            .map(|e| e.files_analyzed.iter().map(String::as_str).collect())
            .unwrap_or_default();
        files.extend(
            confirmed
                .iter()
                .flat_map(|h| h.files.iter().map(String::as_str)),
        );
        let counts = ExplorationCounts {
            symbols: symbols.len(),
            entry_points: exploration.map_or(0, |e| e.entry_points.len()),
            files: files.len(),
            patterns: exploration.map_or(0, |e| e.patterns.len()),
        };
        let shortcircuit_verified = self.shortcircuit.found
            && self
                .shortcircuit
                .symbols
                .iter()
                .any(|s| symbols.contains(s.as_str()));
        let (_, mut missing) = evaluate_exploration(
            self.intent,
            &counts,
            tools_used,
            self.risk_level,
            shortcircuit_verified,
        );
        missing.extend(self.relevance_requirement());
        missing
    }

    /// The hypotheses verification confirmed, in every round.
    fn confirmed_hypotheses(&self) -> Vec<&Hypothesis> {
        self.semantic
            .iter()
            .flat_map(|s| s.hypotheses.iter())
            .filter(|h| h.status == HypothesisStatus::Confirmed)
            .collect()
    }

    /// The requirement a session misses when nothing links it to the request's target feature
    /// by the server's judgement: no symbol of the exploration scores FACT (> 0.6), none was
    /// confirmed at FACT with evidence (`confirm_symbol_relevance`), and no hypothesis was
    /// verified (which needs a judged score ≥ 0.3 and, below 0.6, a tie to the request). Not
    /// required where nothing could be judged (no target feature, no model: the session says
    /// so in its warnings) or for a question.
    fn relevance_requirement(&self) -> Option<MissingRequirement> {
        let term = self.query_frame.target_term()?;
        if self.intent == Intent::Question {
            return None;
        }
        let scores: Vec<f32> = self
            .exploration
            .iter()
            .flat_map(|e| e.symbol_scores.iter().filter_map(|s| s.similarity))
            .collect();
        let hypotheses: Vec<&Hypothesis> = self
            .semantic
            .iter()
            .flat_map(|s| s.hypotheses.iter())
            .collect();
        if scores.is_empty() && hypotheses.iter().all(|h| h.similarity.is_none()) {
            return None;
        }
        let judged_fact = scores.iter().any(|s| three_tier(*s) == Tier::Fact)
            || self.query_frame.mapped_symbols.iter().any(|m| {
                m.status == MappingStatus::Confirmed && three_tier(m.confidence) == Tier::Fact
            })
            || hypotheses
                .iter()
                .any(|h| h.status == HypothesisStatus::Confirmed && h.similarity.is_some());
        if judged_fact {
            return None;
        }
        let best = scores
            .iter()
            .chain(hypotheses.iter().filter_map(|h| h.similarity.as_ref()))
            .copied()
            .fold(0.0f32, f32::max);
        Some(MissingRequirement {
            requirement: "symbol_relevance".into(),
            have: 0,
            need: 1,
            message: format!(
                "nothing is judged related to target_feature '{term}': no identified symbol scores above 0.6 (best calibrated similarity {best:.3}) and no hypothesis was verified"
            ),
        })
    }

    /// Notes in `warnings` when the symbols could not be checked against the request.
    fn relevance_warnings(&self, report: &UnderstandingReport, warnings: &mut Vec<String>) {
        match (
            self.query_frame.target_term(),
            &report.relevance_unavailable,
        ) {
            (Some(_), Some(reason)) => warnings.push(format!(
                "symbol relevance to target_feature was not checked: {reason}"
            )),
            (None, _) if matches!(self.intent, Intent::Implement | Intent::Modify) => warnings.push(
                "target_feature is not set (set_query_frame): symbols could not be checked against the request".into(),
            ),
            _ => {}
        }
    }

    /// `confirm_symbol_relevance`: the 3-tier rule on each symbol, with the evidence check.
    pub fn confirm_symbols(
        &mut self,
        checks: Vec<SymbolCheck>,
        code_evidence: &str,
    ) -> Vec<ConfirmResult> {
        let term = self.query_frame.target_term().unwrap_or("").to_string();
        let mut out = Vec::new();
        for check in checks {
            let result = verdict(&check, &term);
            if result.risk == Some(RiskLevel::High) {
                self.risk_floor = RiskLevel::High;
            }
            let mapped = MappedSymbol {
                name: check.symbol.clone(),
                source: SlotSource::Fact,
                status: if result.approved {
                    MappingStatus::Confirmed
                } else {
                    MappingStatus::Rejected
                },
                confidence: result.similarity,
                evidence: result.approved.then(|| SlotEvidence {
                    code_evidence: code_evidence.to_string(),
                    verified_names: check.verified_names.clone(),
                    files: check.files.clone(),
                }),
            };
            if check.exists {
                self.query_frame.upsert_mapped(mapped);
            }
            out.push(result);
        }
        self.refresh_risk();
        out
    }

    /// `submit_semantic`: records hypotheses and moves to VERIFICATION. Hypotheses confirmed in
    /// an earlier round stay; the new ones continue their numbering. A round whose hypotheses
    /// the judge all rejects is refused: none of them could be confirmed.
    pub fn submit_semantic(
        &mut self,
        hypotheses: Vec<HypothesisInput>,
        semantic_reason: &str,
        semantic_search_used: bool,
        now: &str,
    ) -> Result<SemanticOutcome, Refusal> {
        self.require("submit_semantic", &[Phase::Semantic])?;
        if hypotheses.is_empty() {
            return Err(Refusal::invalid(
                "submit_semantic needs at least one hypothesis (a symbol or file with the reason it is relevant)",
                json!({}),
            ));
        }
        let bad: Vec<usize> = hypotheses
            .iter()
            .enumerate()
            .filter(|(_, h)| h.reason.trim().is_empty() || (h.symbol.is_none() && h.file.is_none()))
            .map(|(i, _)| i)
            .collect();
        if !bad.is_empty() {
            return Err(Refusal::invalid(
                "every hypothesis needs a reason and a symbol or a file",
                json!({"invalid_hypotheses": bad}),
            ));
        }
        let missing = self.missing_requirements.clone();
        if let Err(fitting) = validate_semantic_reason(semantic_reason, &missing) {
            return Err(Refusal::invalid(
                format!(
                    "semantic_reason '{semantic_reason}' does not fit what the exploration lacked"
                ),
                json!({
                    "accepted_reasons": fitting,
                    "missing_requirements": missing,
                }),
            ));
        }
        let term = self
            .query_frame
            .target_term()
            .unwrap_or("the target feature");
        let rejected_tier = |h: &HypothesisInput| {
            h.similarity
                .is_some_and(|s| three_tier(s) == Tier::Rejected)
        };
        if hypotheses.iter().all(rejected_tier) {
            let judged: Vec<Value> = hypotheses
                .iter()
                .map(|h| json!({"symbol": h.symbol, "file": h.file, "similarity": h.similarity, "why": h.why}))
                .collect();
            return Err(Refusal::invalid(
                format!(
                    "the server judges every hypothesis unrelated to '{term}' (calibrated similarity < 0.3): none of them could be confirmed"
                ),
                json!({
                    "hypotheses": judged,
                    "next_actions": [
                        format!("semantic_search (collection \"forest\") for '{term}' and take hypotheses from its hits"),
                        "find_references on the symbols the request names, to reach the code around them",
                    ],
                }),
            ));
        }
        let earlier: Vec<Hypothesis> = self
            .semantic
            .take()
            .map(|s| s.hypotheses)
            .unwrap_or_default()
            .into_iter()
            .filter(|h| h.status != HypothesisStatus::Open)
            .collect();
        let first = earlier.len();
        let mut warnings = Vec::new();
        let added: Vec<Hypothesis> = hypotheses
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                let id = format!("H{}", first + i + 1);
                let tier = h.similarity.map(three_tier);
                if tier == Some(Tier::Rejected) {
                    warnings.push(format!(
                        "{id} ({}) is judged unrelated to '{term}' ({:.3} < 0.3): it cannot be confirmed; reject it in submit_verification",
                        h.symbol.as_deref().or(h.file.as_deref()).unwrap_or(""),
                        h.similarity.unwrap_or(0.0)
                    ));
                }
                Hypothesis {
                    id,
                    symbol: h.symbol,
                    file: h.file,
                    reason: h.reason,
                    source: SlotSource::Hypothesis,
                    status: HypothesisStatus::Open,
                    evidence: None,
                    similarity: h.similarity,
                    tier,
                    why: h.why,
                    files: Vec::new(),
                    connection: None,
                }
            })
            .collect();
        for h in &added {
            if let Some(symbol) = &h.symbol
                && self.query_frame.mapped(symbol).is_none()
            {
                self.query_frame.upsert_mapped(MappedSymbol {
                    name: symbol.clone(),
                    source: SlotSource::Hypothesis,
                    status: MappingStatus::Proposed,
                    confidence: h.similarity.unwrap_or(0.5),
                    evidence: None,
                });
            }
        }
        let mut all = earlier;
        all.extend(added.iter().cloned());
        self.semantic = Some(SemanticResult {
            hypotheses: all,
            semantic_reason: semantic_reason.trim().to_string(),
            semantic_search_used,
            submitted_at: now.to_string(),
        });
        self.transition(Phase::Verification, "submit_semantic", now);
        if !semantic_search_used {
            warnings.push("no semantic_search call was recorded in this session; hypotheses should come from the forest".to_string());
        }
        Ok(SemanticOutcome {
            phase: self.phase,
            hypotheses: added,
            warnings,
            next_step: Phase::Verification.next_step().to_string(),
        })
    }

    /// `submit_verification`: a confirmation the server finds true makes its hypothesis FACT,
    /// a rejection drops it. Once none is left open, READY if every requirement of the path is
    /// met ([`SessionState::ready_requirements`], with the tools of the server's record), else
    /// back to SEMANTIC with what is still missing.
    pub fn submit_verification(
        &mut self,
        results: Vec<VerificationInput>,
        tools_used: &BTreeSet<String>,
        now: &str,
    ) -> Result<VerificationOutcome, Refusal> {
        self.require("submit_verification", &[Phase::Verification])?;
        let term = self.query_frame.target_term().map(String::from);
        let Some(semantic) = self.semantic.as_mut() else {
            return Err(Refusal::invalid(
                "there are no hypotheses to verify",
                json!({}),
            ));
        };
        semantic.check_named(&results)?;
        let applied = semantic.apply(&results, term.as_deref());
        let open = semantic.ids_with(HypothesisStatus::Open);
        let confirmed = semantic.ids_with(HypothesisStatus::Confirmed);
        let rejected = semantic.ids_with(HypothesisStatus::Rejected);
        let rejected_symbols: Vec<String> = semantic
            .hypotheses
            .iter()
            .filter(|h| h.status == HypothesisStatus::Rejected)
            .filter_map(|h| h.symbol.clone())
            .collect();
        let Verified {
            refused,
            confirmed_files,
            confirmed_symbols,
            gray_confirmed,
        } = applied;
        for (symbol, similarity, evidence) in confirmed_symbols {
            self.query_frame.upsert_mapped(MappedSymbol {
                name: symbol,
                source: SlotSource::Fact,
                status: MappingStatus::Verified,
                confidence: similarity.unwrap_or(0.5),
                evidence: Some(evidence),
            });
        }
        self.query_frame.mapped_symbols.retain(|m| {
            !(m.source == SlotSource::Hypothesis && rejected_symbols.contains(&m.name))
        });
        if gray_confirmed {
            // Seed 003: a gray-zone link raises the session's risk, and with it the quota.
            self.risk_floor = RiskLevel::High;
            self.refresh_risk();
        }
        self.explored_files.extend(confirmed_files);
        self.verification = Some(VerificationResult {
            confirmed: confirmed.clone(),
            rejected: rejected.clone(),
            submitted_at: now.to_string(),
        });
        let mut missing = Vec::new();
        let next = if !open.is_empty() {
            "hypotheses are still open: verify them (each refusal says what is missing) and call submit_verification again, or mark them rejected".to_string()
        } else {
            missing = self.ready_requirements(tools_used);
            self.missing_requirements = missing.clone();
            if missing.is_empty() {
                self.transition(
                    Phase::Ready,
                    "submit_verification: every requirement met",
                    now,
                );
                Phase::Ready.next_step().to_string()
            } else {
                self.transition(
                    Phase::Semantic,
                    "submit_verification: READY still needs more",
                    now,
                );
                let needs: Vec<&str> = missing.iter().map(|m| m.message.as_str()).collect();
                format!(
                    "not READY yet: {}. Find what is missing (semantic_search, find_references, get_function_at_line) and submit_semantic again with semantic_reason one of: {}; or revert_to_exploration {{\"keep_results\": true}} and submit_understanding with the fuller exploration",
                    needs.join("; "),
                    self.accepted_reasons().join(", ")
                )
            }
        };
        let accepted = if self.phase == Phase::Semantic {
            self.accepted_reasons()
        } else {
            Vec::new()
        };
        Ok(VerificationOutcome {
            phase: self.phase,
            confirmed,
            rejected,
            open,
            refused,
            missing_requirements: missing,
            accepted_semantic_reasons: accepted,
            explored_files: self.explored_files.clone(),
            next_step: next,
        })
    }

    /// The write gate for this session.
    pub fn check_write(&self, file: &str, exists: bool, allow_new_files: bool) -> WriteDecision {
        validate_write_target(
            self.phase,
            file,
            exists,
            &self.explored_files,
            allow_new_files,
        )
    }

    /// `add_explored_files` (READY only): files and directories (ending in `/`) become writable.
    pub fn add_explored_files(&mut self, files: Vec<String>) -> Result<ExploredOutcome, Refusal> {
        self.require("add_explored_files", &[Phase::Ready])?;
        let added: Vec<String> = files
            .into_iter()
            .filter(|f| self.explored_files.insert(f.clone()))
            .collect();
        Ok(ExploredOutcome {
            phase: self.phase,
            added,
            explored_files: self.explored_files.clone(),
        })
    }

    /// `revert_to_exploration`: back to EXPLORATION from any phase; `keep_results: false` clears
    /// the exploration, semantic and verification results, the mapped symbols and the explored
    /// files (the request's frame stays: the request has not changed).
    pub fn revert_to_exploration(&mut self, keep_results: bool, now: &str) -> RevertOutcome {
        let from = self.phase;
        if !keep_results {
            self.exploration = None;
            self.semantic = None;
            self.verification = None;
            self.query_frame.mapped_symbols.clear();
            self.explored_files.clear();
            self.missing_requirements.clear();
        }
        self.transition(
            Phase::Exploration,
            format!("revert_to_exploration (keep_results: {keep_results})"),
            now,
        );
        RevertOutcome {
            phase: self.phase,
            reverted_from: from,
            kept_results: keep_results,
            explored_files: self.explored_files.clone(),
            next_step: Phase::Exploration.next_step().to_string(),
        }
    }

    /// Records the outcome and closes the session.
    pub fn close(&mut self, outcome: Outcome) {
        self.outcome = Some(outcome);
        self.status = SessionStatus::Closed;
    }

    /// Confirmed mappings (`confirm_symbol_relevance`, any approved tier).
    pub fn confirmed_symbols(&self) -> Vec<&MappedSymbol> {
        self.query_frame
            .mapped_symbols
            .iter()
            .filter(|m| m.status == MappingStatus::Confirmed)
            .collect()
    }

    /// The links between the request's term and symbols that the server judged relevant, which
    /// is what a success teaches: hypotheses verified in VERIFICATION (evidence in their code,
    /// code read, judged ≥ 0.3 and tied to the request), symbols confirmed at FACT with code
    /// evidence, and the exploration's symbols the judge put at FACT. Each symbol once, in that
    /// order of strength, the best score first within each. A gray link the agent only
    /// confirmed (`confirm_symbol_relevance` between 0.3 and 0.6) is not among them: the server
    /// never found it true.
    pub fn judged_links(&self) -> Vec<JudgedLink> {
        let mut links: Vec<JudgedLink> = Vec::new();
        let mut push = |link: JudgedLink| {
            if !links.iter().any(|l| l.symbol == link.symbol) {
                links.push(link);
            }
        };
        let by_kind = |status: MappingStatus, fact_only: bool, how: Establishment| {
            let mut found: Vec<JudgedLink> = self
                .query_frame
                .mapped_symbols
                .iter()
                .filter(|m| m.status == status)
                .filter(|m| !fact_only || three_tier(m.confidence) == Tier::Fact)
                .filter_map(|m| {
                    let evidence = m.evidence.as_ref()?;
                    Some(JudgedLink {
                        symbol: m.name.clone(),
                        similarity: m.confidence,
                        code_evidence: evidence.code_evidence.clone(),
                        files: evidence.files.clone(),
                        how,
                    })
                })
                .collect();
            found.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
            found
        };
        let verified = by_kind(MappingStatus::Verified, false, Establishment::Verified);
        let confirmed = by_kind(MappingStatus::Confirmed, true, Establishment::Confirmed);
        verified.into_iter().chain(confirmed).for_each(&mut push);
        let rejected: BTreeSet<&str> = self
            .query_frame
            .mapped_symbols
            .iter()
            .filter(|m| m.status == MappingStatus::Rejected)
            .map(|m| m.name.as_str())
            .collect();
        let mut judged: Vec<&SymbolScore> = self
            .exploration
            .iter()
            .flat_map(|e| e.symbol_scores.iter())
            .filter(|s| s.similarity.is_some_and(|v| three_tier(v) == Tier::Fact))
            .filter(|s| !rejected.contains(s.symbol.as_str()))
            .collect();
        judged.sort_by(|a, b| {
            b.similarity
                .unwrap_or(0.0)
                .total_cmp(&a.similarity.unwrap_or(0.0))
        });
        for score in judged {
            let similarity = score.similarity.unwrap_or(0.0);
            push(JudgedLink {
                symbol: score.symbol.clone(),
                similarity,
                code_evidence: format!(
                    "Judged FACT ({similarity:.3}) by the server when the exploration was submitted; defined in {}.",
                    score.files.join(", ")
                ),
                files: score.files.clone(),
                how: Establishment::Judged,
            });
        }
        links
    }

    /// Symbols the agent confirmed only in the gray zone: not taught.
    pub fn gray_only_confirmations(&self) -> Vec<&str> {
        let taught: BTreeSet<String> = self.judged_links().into_iter().map(|l| l.symbol).collect();
        self.confirmed_symbols()
            .into_iter()
            .filter(|m| three_tier(m.confidence) != Tier::Fact && !taught.contains(&m.name))
            .map(|m| m.name.as_str())
            .collect()
    }
}

/// The judge's rule that held a symbol's similarity down, as a clause of the verdict's text.
fn because(check: &SymbolCheck) -> String {
    check
        .held_down
        .as_ref()
        .map(|why| format!(": {why}"))
        .unwrap_or_default()
}

/// The verdict on one claimed link between the request's term and a symbol: a symbol that does
/// not exist, or whose cited evidence names nothing in its code, is rejected with guidance;
/// otherwise the 3-tier rule on the server's calibrated similarity decides (> 0.6 fact, 0.3–0.6
/// fact at HIGH risk, < 0.3 rejected).
fn verdict(check: &SymbolCheck, term: &str) -> ConfirmResult {
    let guidance = |reason: String| {
        json!({
            "reason": reason,
            "next_actions": [
                format!("search_text for words of '{term}' to find another symbol"),
                format!("find_references on '{}' to see where it is used and whether it really serves '{term}'", check.symbol),
                "find the code that proves the link (a method, a comment, a naming convention) and cite it in code_evidence",
            ],
            "fallback": "if the code tools cannot find it, submit_understanding reports the gap and the session moves to SEMANTIC (semantic_search on the forest)",
        })
    };
    let rejected = |reason: String, similarity: f32, names: Vec<String>| ConfirmResult {
        symbol: check.symbol.clone(),
        similarity,
        status: "REJECTED".into(),
        approved: false,
        risk: None,
        warning: None,
        reinvestigation_guidance: Some(guidance(reason)),
        verified_names: names,
    };
    if !check.exists {
        let mut r = rejected(
            format!(
                "'{}' does not exist in the code (hallucination)",
                check.symbol
            ),
            0.0,
            vec![],
        );
        if let Some(g) = r.reinvestigation_guidance.as_mut() {
            g["did_you_mean"] = json!(check.near_names);
        }
        r
    } else if check.verified_names.is_empty() {
        let mut r = rejected(
            format!(
                "code_evidence names nothing that exists in {}'s code; cite its methods, fields, calls or comments",
                check.symbol
            ),
            check.similarity,
            vec![],
        );
        if let Some(g) = r.reinvestigation_guidance.as_mut() {
            g["unknown_names"] = json!(check.unknown_names);
        }
        r
    } else {
        match three_tier(check.similarity) {
            Tier::Fact => ConfirmResult {
                symbol: check.symbol.clone(),
                similarity: check.similarity,
                status: "FACT".into(),
                approved: true,
                risk: None,
                warning: None,
                reinvestigation_guidance: None,
                verified_names: check.verified_names.clone(),
            },
            Tier::GrayZone => ConfirmResult {
                symbol: check.symbol.clone(),
                similarity: check.similarity,
                status: "FACT".into(),
                approved: true,
                risk: Some(RiskLevel::High),
                warning: Some(format!(
                    "similarity {:.2} is in the gray zone (0.3–0.6){}: approved, but the session's risk is now HIGH; explore more before writing",
                    check.similarity,
                    because(check)
                )),
                reinvestigation_guidance: None,
                verified_names: check.verified_names.clone(),
            },
            Tier::Rejected => rejected(
                format!(
                    "'{term}' and '{}' are too dissimilar (calibrated similarity {:.2} < 0.3){}",
                    check.symbol,
                    check.similarity,
                    because(check)
                ),
                check.similarity,
                check.verified_names.clone(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query_frame::{SlotValue, SlotVerdict};

    const NOW: &str = "2026-11-01T12:00:00+00:00";

    fn session(intent: Intent) -> SessionState {
        let mut s = SessionState::new(
            "s1",
            intent,
            "ログイン機能でパスワードが空のときエラーが出ない",
            "/p",
            NOW,
        );
        let value = |v: &str| SlotValue {
            value: v.into(),
            quote: v.into(),
            source: SlotSource::Fact,
            confidence: 1.0,
            note: None,
        };
        s.apply_query_frame(&[
            SlotVerdict::Accepted {
                slot: Slot::TargetFeature,
                value: value("ログイン機能"),
            },
            SlotVerdict::Accepted {
                slot: Slot::ObservedIssue,
                value: value("エラーが出ない"),
            },
        ])
        .unwrap();
        s
    }

    fn report(symbols: &[(&str, f32)], tools: &[&str]) -> UnderstandingReport {
        UnderstandingReport {
            symbols_identified: symbols.iter().map(|(s, _)| s.to_string()).collect(),
            entry_points: vec!["AuthService.login".into()],
            files_analyzed: vec![
                "src/auth/service.py".into(),
                "src/api/routes/auth.py".into(),
            ],
            patterns: vec!["service layer".into()],
            tools_used: tools.iter().map(|s| s.to_string()).collect(),
            symbol_scores: symbols
                .iter()
                .map(|(s, v)| SymbolScore {
                    symbol: s.to_string(),
                    similarity: Some(*v),
                    files: vec![],
                })
                .collect(),
            ..UnderstandingReport::default()
        }
    }

    const BOTH: &[&str] = &["find_definitions", "find_references"];

    #[test]
    fn understanding_moves_to_ready_or_semantic() {
        // (symbols with scores, tools used, expected phase, expected missing requirement keys)
        type Case<'a> = (&'a [(&'a str, f32)], &'a [&'a str], Phase, &'a [&'a str]);
        let cases: &[Case] = &[
            (
                &[
                    ("AuthService", 0.8),
                    ("UserRepository", 0.4),
                    ("login", 0.7),
                ],
                BOTH,
                Phase::Ready,
                &[],
            ),
            (
                &[
                    ("AuthService", 0.8),
                    ("UserRepository", 0.4),
                    ("login", 0.7),
                ],
                &["find_definitions"],
                Phase::Semantic,
                &["tools"],
            ),
            (
                &[("ConfigLoader", 0.1), ("Settings", 0.2), ("load", 0.25)],
                BOTH,
                Phase::Semantic,
                &["symbol_relevance"],
            ),
            (
                &[("AuthService", 0.8)],
                BOTH,
                Phase::Semantic,
                &["symbols_identified"],
            ),
        ];
        for (symbols, tools, phase, missing) in cases {
            let mut s = session(Intent::Modify);
            let out = s.submit_understanding(report(symbols, tools), NOW).unwrap();
            assert_eq!(s.phase, *phase, "{symbols:?} {tools:?}: {out:?}");
            let got = requirements(&out.missing_requirements);
            assert_eq!(got, *missing, "{symbols:?}");
            assert_eq!(s.query_frame.mapped_symbols.len(), symbols.len());
            assert!(s.explored_files.contains("src/auth/service.py"));
            // A second submission is refused: the phase has moved on.
            assert!(matches!(
                s.submit_understanding(report(symbols, tools), NOW),
                Err(Refusal::Phase { phase: p, .. }) if p == *phase
            ));
        }
    }

    #[test]
    fn hallucinations_are_refused_without_moving() {
        let mut s = session(Intent::Modify);
        let mut r = report(&[("AuthServise", 0.0)], BOTH);
        r.hallucinated = vec![("AuthServise".into(), vec!["AuthService".into()])];
        r.missing_files = vec!["src/nope.py".into()];
        match s.submit_understanding(r, NOW) {
            Err(Refusal::Invalid { details, .. }) => {
                assert_eq!(
                    details["hallucinated_symbols"][0]["did_you_mean"][0],
                    "AuthService"
                );
                assert_eq!(details["missing_files"][0], "src/nope.py");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.phase, Phase::Exploration);
        assert!(s.exploration.is_none());
    }

    fn check(symbol: &str, similarity: f32, verified: &[&str]) -> SymbolCheck {
        SymbolCheck {
            symbol: symbol.into(),
            exists: true,
            near_names: vec![],
            similarity,
            held_down: None,
            files: vec!["src/auth/service.py".into()],
            verified_names: verified.iter().map(|s| s.to_string()).collect(),
            unknown_names: vec![],
        }
    }

    #[test]
    fn three_tier_confirmation() {
        let mut s = session(Intent::Modify);
        let results = s.confirm_symbols(
            vec![
                check("AuthService", 0.85, &["login"]),
                check("ConfigLoader", 0.12, &["load"]),
                check("UserRepository", 0.45, &["get_by_email"]),
                check("TokenCodec", 0.9, &[]),
                SymbolCheck {
                    exists: false,
                    near_names: vec!["AuthService".into()],
                    ..check("AuthServise", 0.0, &[])
                },
                SymbolCheck {
                    held_down: Some(crate::judge::Bound::Reversed.explain().into()),
                    ..check("logout", 0.15, &["session"])
                },
                SymbolCheck {
                    held_down: Some(crate::judge::Bound::OutrankedInFile.explain().into()),
                    ..check("LoginResult", 0.6, &["token"])
                },
            ],
            "AuthService.login() checks the password",
        );
        let got: Vec<(&str, &str, bool)> = results
            .iter()
            .map(|r| (r.symbol.as_str(), r.status.as_str(), r.approved))
            .collect();
        assert_eq!(
            got,
            [
                ("AuthService", "FACT", true),
                ("ConfigLoader", "REJECTED", false),
                ("UserRepository", "FACT", true),
                ("TokenCodec", "REJECTED", false),
                ("AuthServise", "REJECTED", false),
                ("logout", "REJECTED", false),
                ("LoginResult", "FACT", true),
            ]
        );
        // Why the judge held a symbol down is said.
        let reason = results[5].reinvestigation_guidance.as_ref().unwrap()["reason"]
            .as_str()
            .unwrap();
        assert!(
            reason.contains("reverse of the requested action"),
            "{reason}"
        );
        let warning = results[6].warning.as_deref().unwrap();
        assert!(warning.contains("same file"), "{warning}");
        assert!(
            results[1].reinvestigation_guidance.as_ref().unwrap()["reason"]
                .as_str()
                .unwrap()
                .contains("< 0.3")
        );
        assert_eq!(results[2].risk, Some(RiskLevel::High));
        assert_eq!(
            results[4].reinvestigation_guidance.as_ref().unwrap()["did_you_mean"][0],
            "AuthService"
        );
        // The gray zone raised the session's risk for good.
        assert_eq!(s.risk_level, RiskLevel::High);
        let confirmed: Vec<&str> = s
            .confirmed_symbols()
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        assert_eq!(confirmed, ["AuthService", "UserRepository", "LoginResult"]);
        assert!(s.query_frame.mapped("AuthServise").is_none());
    }

    fn hypothesis(symbol: &str, similarity: f32) -> HypothesisInput {
        HypothesisInput {
            symbol: Some(symbol.into()),
            reason: "semantic_search ranked it first".into(),
            similarity: Some(similarity),
            ..HypothesisInput::default()
        }
    }

    /// A confirmation whose facts all hold: evidence in the code, the code read, tied to the
    /// request; each test takes one away.
    fn confirm(h: &str, similarity: f32, file: &str) -> VerificationInput {
        VerificationInput {
            hypothesis: h.into(),
            confirmed: true,
            evidence: "login() calls is_limited()".into(),
            evidence_ok: true,
            verified_names: vec!["is_limited".into()],
            symbol_files: vec![file.into()],
            similarity: Some(similarity),
            read: true,
            connection: Some("called by login".into()),
            ..VerificationInput::default()
        }
    }

    fn tool_set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn semantic_then_verification_then_ready() {
        let mut s = session(Intent::Modify);
        s.submit_understanding(
            report(&[("AuthService", 0.8), ("UserRepository", 0.4)], BOTH),
            NOW,
        )
        .unwrap();
        assert_eq!(s.phase, Phase::Semantic);
        // Write and exploration-only operations are refused here.
        assert!(s.add_explored_files(vec!["x.py".into()]).is_err());
        assert!(!s.check_write("src/auth/service.py", true, false).allowed);
        // A reason that does not fit the missing requirements is refused.
        let hyps = || {
            vec![
                hypothesis("RateLimiter", 0.7),
                HypothesisInput {
                    file: Some("src/api/deps.py".into()),
                    reason: "wires auth".into(),
                    similarity: Some(0.35),
                    ..HypothesisInput::default()
                },
            ]
        };
        assert!(matches!(
            s.submit_semantic(hyps(), "no_reference_found", true, NOW),
            Err(Refusal::Invalid { .. })
        ));
        assert!(matches!(
            s.submit_semantic(vec![], "no_definition_found", true, NOW),
            Err(Refusal::Invalid { .. })
        ));
        s.submit_semantic(hyps(), "no_definition_found", true, NOW)
            .unwrap();
        assert_eq!(s.phase, Phase::Verification);
        let file = "src/services/rate_limiter.py";
        // Unknown reference → refused, nothing changes.
        assert!(
            s.submit_verification(vec![confirm("H9", 0.7, file)], &tool_set(BOTH), NOW)
                .is_err()
        );
        // Evidence that names nothing in the code leaves the hypothesis open.
        let out = s
            .submit_verification(
                vec![VerificationInput {
                    evidence_ok: false,
                    ..confirm("RateLimiter", 0.7, file)
                }],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Verification);
        assert_eq!(out.open.len(), 2);
        assert!(
            out.refused[0].reason.contains("get_function_at_line"),
            "{out:?}"
        );
        let out = s
            .submit_verification(
                vec![
                    confirm("H1", 0.7, file),
                    VerificationInput {
                        confirmed: false,
                        evidence: "unrelated".into(),
                        ..confirm("src/api/deps.py", 0.35, "src/api/deps.py")
                    },
                ],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Ready, "{out:?}");
        assert_eq!(out.confirmed, ["H1"]);
        assert_eq!(out.rejected, ["H2"]);
        assert!(s.explored_files.contains(file));
        let mapped = s.query_frame.mapped("RateLimiter").unwrap();
        assert_eq!(
            (mapped.source, mapped.status),
            (SlotSource::Fact, MappingStatus::Verified)
        );
        assert!(s.check_write(file, true, false).allowed);
        // History records every step.
        let phases: Vec<Phase> = s.history.iter().map(|h| h.to).collect();
        assert_eq!(
            phases,
            [
                Phase::Exploration,
                Phase::Semantic,
                Phase::Verification,
                Phase::Ready
            ]
        );
    }

    /// What a step of the session lacked, by requirement key.
    fn requirements(missing: &[MissingRequirement]) -> Vec<&str> {
        missing.iter().map(|m| m.requirement.as_str()).collect()
    }

    /// The issue's red-team case: an exploration of unrelated code cannot reach READY by
    /// asserting hypotheses about it.
    #[test]
    fn unrelated_code_does_not_reach_ready_by_assertion() {
        let mut s = session(Intent::Modify);
        let out = s
            .submit_understanding(
                report(&[("create_item", 0.19), ("ItemCreate", 0.2)], BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Semantic);
        assert!(
            out.accepted_semantic_reasons
                .contains(&"no_definition_found".to_string()),
            "{out:?}"
        );
        assert!(out.next_step.contains("no_definition_found"), "{out:?}");
        // A round of hypotheses the judge rejects is refused outright.
        match s.submit_semantic(
            vec![hypothesis("create_item", 0.19)],
            "no_definition_found",
            true,
            NOW,
        ) {
            Err(Refusal::Invalid { message, details }) => {
                assert!(message.contains("unrelated"), "{message}");
                assert!(
                    details["next_actions"][0]
                        .as_str()
                        .unwrap()
                        .contains("semantic_search")
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.phase, Phase::Semantic);
        // Mixed with a gray one, it is recorded, but its confirmation is refused.
        let out = s
            .submit_semantic(
                vec![
                    hypothesis("create_item", 0.19),
                    hypothesis("Settings", 0.31),
                ],
                "no_definition_found",
                true,
                NOW,
            )
            .unwrap();
        assert_eq!(out.hypotheses[0].tier, Some(Tier::Rejected));
        assert!(out.warnings[0].contains("cannot be confirmed"), "{out:?}");
        let out = s
            .submit_verification(
                vec![
                    confirm("H1", 0.19, "backend/app/crud.py"),
                    // Gray, read, evidence in its code, but nothing ties it to the request.
                    VerificationInput {
                        connection: None,
                        anchors: vec!["login_access_token".into()],
                        ..confirm("H2", 0.31, "backend/app/core/config.py")
                    },
                ],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(out.confirmed, Vec::<String>::new());
        assert_eq!(out.open, ["H1", "H2"]);
        assert!(out.refused[0].reason.contains("< 0.3"), "{out:?}");
        assert!(out.refused[1].reason.contains("find_references"), "{out:?}");
        assert!(
            out.refused[1].reason.contains("login_access_token"),
            "{out:?}"
        );
        // Code never read: refused, with the tool that reads it.
        let out = s
            .submit_verification(
                vec![VerificationInput {
                    read: false,
                    ..confirm("H2", 0.31, "backend/app/core/config.py")
                }],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert!(out.refused[0].reason.contains("never read"), "{out:?}");
        // Rejecting them all settles the hypotheses, but READY still needs a judged link:
        // back to SEMANTIC, told what is missing and what to send.
        let out = s
            .submit_verification(
                vec![
                    VerificationInput {
                        confirmed: false,
                        ..confirm("H1", 0.19, "a.py")
                    },
                    VerificationInput {
                        confirmed: false,
                        ..confirm("H2", 0.31, "a.py")
                    },
                ],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Semantic, "{out:?}");
        let missing = requirements(&out.missing_requirements);
        assert!(missing.contains(&"symbol_relevance"), "{missing:?}");
        assert!(missing.contains(&"symbols_identified"), "{missing:?}");
        assert!(!out.accepted_semantic_reasons.is_empty());
        assert!(!s.check_write("backend/app/crud.py", true, false).allowed);
    }

    /// What EXPLORATION required is still required on the gray path: a confirmed hypothesis
    /// counts as a symbol and its files, but a thin exploration stays short.
    #[test]
    fn the_path_requirements_do_not_vanish() {
        let mut s = session(Intent::Modify);
        let mut thin = report(&[("AuthService", 0.45)], BOTH);
        thin.files_analyzed.truncate(1);
        s.submit_understanding(thin, NOW).unwrap();
        s.submit_semantic(
            vec![hypothesis("login", 0.8)],
            "no_definition_found",
            true,
            NOW,
        )
        .unwrap();
        let out = s
            .submit_verification(
                vec![confirm("H1", 0.8, "src/auth/login.py")],
                &tool_set(BOTH),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Semantic, "{out:?}");
        let missing = requirements(&out.missing_requirements);
        assert_eq!(missing, ["symbols_identified"], "{out:?}");
        // A second round continues the numbering and keeps what was confirmed.
        let out = s
            .submit_semantic(
                vec![hypothesis("verify_password", 0.5)],
                "no_definition_found",
                true,
                NOW,
            )
            .unwrap();
        assert_eq!(out.hypotheses[0].id, "H2");
        // The gray confirmation raises the risk, and with it the quota: a third file and
        // search_text, which the server's record shows the session used by now.
        let out = s
            .submit_verification(
                vec![confirm("H2", 0.5, "src/auth/passwords.py")],
                &tool_set(&["find_definitions", "find_references", "search_text"]),
                NOW,
            )
            .unwrap();
        assert_eq!(s.phase, Phase::Ready, "{out:?}");
        assert_eq!(s.risk_level, RiskLevel::High);
        assert_eq!(out.confirmed, ["H1", "H2"]);
    }

    /// A success teaches what the server judged, verified links first, and never a symbol the
    /// agent only confirmed in the gray zone.
    #[test]
    fn judged_links_are_what_is_taught() {
        let mut s = session(Intent::Modify);
        s.submit_understanding(
            report(
                &[
                    ("login_access_token", 0.6),
                    ("authenticate", 0.5),
                    ("hash", 0.2),
                ],
                BOTH,
            ),
            NOW,
        )
        .unwrap();
        s.confirm_symbols(
            vec![check("Settings", 0.31, &["SECRET_KEY"])],
            "uses SECRET_KEY",
        );
        s.submit_semantic(
            vec![
                hypothesis("authenticate", 0.5),
                hypothesis("login_access_token", 0.6),
            ],
            "no_definition_found",
            true,
            NOW,
        )
        .unwrap();
        s.submit_verification(
            vec![
                confirm("H1", 0.5, "backend/app/crud.py"),
                confirm("H2", 0.6, "backend/app/api/routes/login.py"),
            ],
            &tool_set(BOTH),
            NOW,
        )
        .unwrap();
        let links: Vec<(String, Establishment)> = s
            .judged_links()
            .into_iter()
            .map(|l| (l.symbol, l.how))
            .collect();
        assert_eq!(
            links,
            [
                ("login_access_token".to_string(), Establishment::Verified),
                ("authenticate".to_string(), Establishment::Verified),
            ]
        );
        assert_eq!(s.gray_only_confirmations(), ["Settings"]);
    }

    #[test]
    fn recovery_flow() {
        let mut s = session(Intent::Modify);
        s.submit_understanding(
            report(&[("AuthService", 0.8), ("login", 0.7), ("User", 0.4)], BOTH),
            NOW,
        )
        .unwrap();
        assert_eq!(s.phase, Phase::Ready);
        assert!(!s.check_write("tests/test_auth.py", true, false).allowed);
        s.add_explored_files(vec!["tests/".into()]).unwrap();
        assert!(s.check_write("tests/test_auth.py", true, false).allowed);
        assert!(s.check_write("tests/test_new.py", false, true).allowed);
        let out = s.revert_to_exploration(true, NOW);
        assert_eq!(out.reverted_from, Phase::Ready);
        assert_eq!(s.phase, Phase::Exploration);
        assert!(s.exploration.is_some() && s.explored_files.contains("tests/"));
        assert!(!s.check_write("tests/test_auth.py", true, false).allowed);
        s.revert_to_exploration(false, NOW);
        assert!(
            s.exploration.is_none()
                && s.explored_files.is_empty()
                && s.query_frame.mapped_symbols.is_empty()
        );
        assert!(s.query_frame.target_feature.is_some());
        // Set the frame only while exploring.
        s.phase = Phase::Ready;
        assert!(s.apply_query_frame(&[]).is_err());
    }

    #[test]
    fn shortcircuit_hint_lightens_the_exploration() {
        let mut s = session(Intent::Modify);
        s.shortcircuit = ShortcircuitHint {
            found: true,
            symbols: vec!["AuthService".into()],
            ..Default::default()
        };
        let mut r = report(&[("AuthService", 0.8)], &["find_definitions"]);
        r.entry_points.clear();
        r.patterns.clear();
        r.files_analyzed.truncate(1);
        s.submit_understanding(r, NOW).unwrap();
        assert_eq!(s.phase, Phase::Ready);
    }
}
