//! `submit_semantic` and `submit_verification`: hypotheses from semantic search, each confirmed
//! or rejected with the code tools.

use super::*;

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
        });
    }
    if !hallucinated.is_empty() || !missing_files.is_empty() {
        return Err(SessionError::Hallucinated {
            symbols: hallucinated,
            files: missing_files,
        });
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
    let mut inputs = Vec::new();
    for r in results {
        let hypothesis = hypotheses.iter().find(|h| h.is_named_by(&r.hypothesis));
        let (mut evidence_ok, mut symbol_files, mut similarity) = (true, Vec::new(), None);
        if let (true, Some(h)) = (r.confirmed, hypothesis) {
            if let Some(symbol) = &h.symbol {
                let defs = env.definitions(&snapshot, symbol);
                let contexts = env.contexts(&snapshot, &defs);
                let exists = |n: &str| lookup::name_exists(&snapshot, n);
                evidence_ok =
                    !lookup::check_symbol_evidence(&r.evidence, symbol, &contexts, &exists)
                        .verified
                        .is_empty();
                symbol_files = files_of(&defs);
                if let Some(term) = &term {
                    similarity = env
                        .verdict(&snapshot, term, &contexts)
                        .ok()
                        .map(|v| v.score);
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
