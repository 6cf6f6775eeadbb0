//! `submit_semantic` and `submit_verification`: hypotheses from semantic search, each confirmed
//! or rejected with the code tools.

use super::*;
use crate::session::rules::{Tier, three_tier};

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
) -> SessionResult<WithSession<SemanticOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_semantic", &[Phase::Semantic])
        .map_err(|r| env.refused(r))?;
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
            ..HypothesisInput::default()
        });
    }
    if !hallucinated.is_empty() || !missing_files.is_empty() {
        return Err(SessionError::Hallucinated {
            symbols: hallucinated,
            files: missing_files,
        });
    }
    // Each hypothesis is judged as `submit_understanding` judges a symbol: the same judge, the
    // same term. A model still loading refuses the call rather than let hypotheses through
    // unjudged.
    if let Some(term) = state.query_frame.target_term() {
        env.expect_symbols(&snapshot, inputs.iter().filter_map(|h| h.symbol.as_deref()));
        for h in &mut inputs {
            let candidates =
                hypothesis_candidates(env, &snapshot, h.symbol.as_deref(), h.file.as_deref());
            match env.verdict(&snapshot, term, &candidates) {
                Ok(v) if !candidates.is_empty() => {
                    h.similarity = Some(v.score);
                    h.why = v.why();
                }
                Ok(_) => {}
                Err(err @ RelevanceError::Loading(_)) => return Err(err.into()),
                Err(_) => break,
            }
        }
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

/// What a hypothesis is judged by: its symbol's definitions (those in its file, when it names
/// one too), or the classes and callables of its file.
fn hypothesis_candidates(
    env: &Env,
    snapshot: &Snapshot,
    symbol: Option<&str>,
    file: Option<&str>,
) -> Vec<Candidate> {
    let defs = match (symbol, file) {
        (Some(symbol), file) => {
            let files: Vec<String> = file.iter().map(|f| f.to_string()).collect();
            lookup::in_files(env.definitions(snapshot, symbol), &files)
        }
        (None, Some(file)) => lookup::defs_in_file(snapshot, file, FILE_DEFINITIONS),
        (None, None) => Vec::new(),
    };
    env.contexts(snapshot, &defs)
}

/// How many of a file's definitions a hypothesis about the whole file is judged by.
const FILE_DEFINITIONS: usize = 60;

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
) -> SessionResult<WithSession<VerificationOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_verification", &[Phase::Verification])
        .map_err(|r| env.refused(r))?;
    if results.is_empty() {
        return Err(SessionError::invalid(
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
    // Every confirmed hypothesis's symbol is read with its callers (term or not): one search.
    let symbols = results.iter().filter(|r| r.confirmed).filter_map(|r| {
        let h = hypotheses.iter().find(|h| h.is_named_by(&r.hypothesis))?;
        h.symbol.as_deref()
    });
    env.expect_symbols(&snapshot, symbols);
    let calls = env.calls(&state.session_id);
    let read = read_files(&calls);
    // What the request is about costs up to a verdict per field leader: only a gray
    // confirmation needs it, so it is found once, when the first one does.
    let anchors = std::cell::OnceCell::new();
    let mut inputs = Vec::new();
    for r in results {
        let mut input = VerificationInput {
            hypothesis: r.hypothesis.clone(),
            confirmed: r.confirmed,
            evidence: r.evidence.clone(),
            evidence_ok: true,
            ..VerificationInput::default()
        };
        if let (true, Some(h)) = (
            r.confirmed,
            hypotheses.iter().find(|h| h.is_named_by(&r.hypothesis)),
        ) {
            check_confirmation(
                env,
                &snapshot,
                h,
                term.as_deref(),
                &read,
                || anchors.get_or_init(|| request_anchors(env, &snapshot, &state)),
                &mut input,
            )?;
        }
        inputs.push(input);
    }
    let tools = tools_used(&calls, env.tools);
    let (_, stamp) = now();
    let result = env.update(&state.session_id, |s| {
        s.submit_verification(inputs, &tools, &stamp)
    })?;
    Ok(WithSession {
        session_id: state.session_id,
        result,
    })
}

/// Gathers the facts on one confirmation: whether its evidence is in the hypothesis's code,
/// the judge's verdict now, whether the session read that code, and what ties it to the
/// request. The state machine decides from them.
fn check_confirmation<'a>(
    env: &Env,
    snapshot: &Snapshot,
    h: &crate::session::state::Hypothesis,
    term: Option<&str>,
    read: &BTreeSet<String>,
    anchors: impl FnOnce() -> &'a [String],
    input: &mut VerificationInput,
) -> SessionResult<()> {
    let candidates = hypothesis_candidates(env, snapshot, h.symbol.as_deref(), h.file.as_deref());
    let exists = |n: &str| lookup::name_exists(snapshot, n);
    let evidence = match &h.symbol {
        Some(symbol) => {
            lookup::check_symbol_evidence(&input.evidence, symbol, &candidates, &exists)
        }
        None => {
            let file = h.file.as_deref().unwrap_or_default();
            let text = read_source(
                &env.ws.root().join(file),
                file,
                env.ws.config.max_file_bytes,
            )
            .map(|s| s.text)
            .unwrap_or_default();
            lookup::check_evidence(&input.evidence, &[], &text, &exists)
        }
    };
    input.evidence_ok = !evidence.verified.is_empty();
    input.verified_names = evidence.verified;
    let mut files: BTreeSet<String> = candidates.iter().map(|c| c.context.file.clone()).collect();
    files.extend(h.file.iter().cloned());
    input.read = files.iter().any(|f| read.contains(f));
    input.symbol_files = if h.symbol.is_some() {
        files.into_iter().collect()
    } else {
        Vec::new()
    };
    if let Some(term) = term
        && !candidates.is_empty()
    {
        match env.verdict(snapshot, term, &candidates) {
            Ok(v) => {
                input.similarity = Some(v.score);
                input.why = v.why();
            }
            Err(err @ RelevanceError::Loading(_)) => return Err(err.into()),
            Err(_) => {}
        }
    }
    // A gray confirmation needs a tie to the request; FACT is its own, and a rejection or
    // an unjudged hypothesis never reaches that check.
    let gray = input.similarity.map(three_tier) == Some(Tier::GrayZone);
    if let (true, Some(term)) = (gray, term) {
        input.anchors = anchors().to_vec();
        let text: String = candidates
            .iter()
            .map(|c| {
                let scope = c.context.scope.as_deref().unwrap_or("");
                format!("{} {scope}\n{}\n", c.context.name, c.code)
            })
            .collect();
        let coverage = env.term_coverage(snapshot, term, &text);
        input.connection = connection(&candidates, coverage, &input.anchors, &input.verified_names);
    } else if input.similarity.map(three_tier) == Some(Tier::Fact) {
        input.connection = input.similarity.map(|s| format!("judged FACT ({s:.3})"));
    }
    Ok(())
}

/// Tools whose answers show code: the definitions they return and the file or line they target
/// count as read. A search's hit list (semantic_search, search_text) does not: a hypothesis taken
/// from one is verified only after its code is looked at.
const SHOWS_CODE: &[&str] = &["find_definitions", "search_symbol", "get_function_at_line"];
/// Tools that show one file's symbols when pointed at it.
const SHOWS_FILE: &[&str] = &[
    "get_symbols",
    "analyze_structure",
    "analyze_file",
    "get_chunks",
];

/// The files whose code the session's own calls showed the agent (the server's record).
fn read_files(calls: &[ToolCall]) -> BTreeSet<String> {
    let mut read = BTreeSet::new();
    for c in calls.iter().filter(|c| c.ok && c.source == "mcp") {
        if SHOWS_CODE.contains(&c.tool.as_str()) {
            read.extend(c.files.iter().cloned());
            read.extend(c.result_files.iter().cloned());
        } else if SHOWS_FILE.contains(&c.tool.as_str()) {
            read.extend(c.files.iter().cloned());
        }
    }
    read
}

/// What the request is about, as the server knows it, independently of what the agent chose to
/// report: the session's symbols the judge put at FACT, the hypotheses verified before, and the
/// definitions the project's own search ranks first for the term (the judge's field leaders)
/// that the judge puts at FACT too. Gray is not enough to vouch for another symbol: the
/// exploration's gray symbols vouch for each other (`Settings` and its own
/// `_check_default_secret` for 「ログイン処理」, 0.32 and 0.31), and on a small project the
/// field's gray leaders for 「ログイン処理」 include `Settings._enforce_non_default_secrets`.
fn request_anchors(env: &Env, snapshot: &Snapshot, state: &SessionState) -> Vec<String> {
    let fact = |s: f32| three_tier(s) == Tier::Fact;
    let mut judged: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let bare = lookup::bare_name(name);
        if !bare.is_empty() && !judged.contains(&bare) {
            judged.push(bare);
        }
    };
    for score in state
        .exploration
        .iter()
        .flat_map(|e| e.symbol_scores.iter())
    {
        if score.similarity.is_some_and(fact) {
            add(&score.symbol);
        }
    }
    for m in &state.query_frame.mapped_symbols {
        let counts = match m.status {
            crate::query_frame::MappingStatus::Verified => true,
            crate::query_frame::MappingStatus::Confirmed => fact(m.confidence),
            _ => false,
        };
        if counts {
            add(&m.name);
        }
    }
    if let Some(term) = state.query_frame.target_term() {
        for leader in env.field_leaders(snapshot, term) {
            add(&leader);
        }
    }
    judged
}

/// How a gray hypothesis ties to the request, if it does: its code naming every word of the
/// target feature as the judge reads it (`coverage`, the share of those words), or calling or
/// called by (or named by the evidence next to) a symbol the request is about (`anchors`).
fn connection(
    candidates: &[Candidate],
    coverage: f32,
    anchors: &[String],
    verified_names: &[String],
) -> Option<String> {
    if coverage >= 1.0 {
        return Some("its code names every word of the target feature".into());
    }
    let own: BTreeSet<String> = candidates.iter().map(|c| c.context.name.clone()).collect();
    for anchor in anchors.iter().filter(|a| !own.contains(*a)) {
        let caller = candidates.iter().find_map(|c| {
            c.callers.iter().find(|caller| {
                &caller.name == anchor
                    || caller
                        .scope
                        .as_deref()
                        .is_some_and(|scope| lookup::bare_name(scope) == *anchor)
            })
        });
        if let Some(caller) = caller {
            let by = match &caller.scope {
                Some(scope) => format!("{scope}.{}", caller.name),
                None => caller.name.clone(),
            };
            return Some(format!("called by {by}"));
        }
        if candidates
            .iter()
            .any(|c| lookup::contains_identifier(&c.code, anchor))
        {
            return Some(format!("calls {anchor}"));
        }
        if verified_names
            .iter()
            .any(|n| lookup::bare_name(n) == *anchor)
        {
            return Some(format!("the evidence names {anchor}"));
        }
    }
    None
}
