//! `validate_symbol_relevance` and `confirm_symbol_relevance`: the judge's scores for the
//! symbols the agent links to the request, and confirmations that need code evidence.

use super::*;

/// Seed 003's validation prompt: the agent judges, the server checks its judgement.
pub(super) fn validation_prompt(target: &str, symbols: &[String]) -> String {
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
    pub tier: Option<crate::session::rules::Tier>,
    /// Why the server holds the similarity lower than the scores alone would give, if it does
    /// (a name that says the reverse of the requested action, a better match in the same file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
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
) -> SessionResult<ValidateOutput> {
    let target = target_feature.trim();
    if target.is_empty() {
        return Err(SessionError::invalid("target_feature is empty"));
    }
    if symbols.is_empty() {
        return Err(SessionError::invalid("symbols_identified is empty"));
    }
    let session = match id {
        Some(_) => Some(env.session_any(id)?),
        None => env.sessions.store.active().map_err(SessionError::from)?,
    };
    let snapshot = env.snapshot()?;
    env.expect_symbols(&snapshot, symbols.iter().map(String::as_str));
    let mut suggestions = Vec::new();
    let mut relevance_note = None;
    for symbol in &symbols {
        let defs = env.definitions(&snapshot, symbol);
        let verdict = if defs.is_empty() || relevance_note.is_some() {
            None
        } else {
            match env.verdict(&snapshot, target, &env.contexts(&snapshot, &defs)) {
                Ok(v) => Some(v),
                Err(err) => {
                    relevance_note = Some(err.to_string());
                    None
                }
            }
        };
        let similarity = verdict.as_ref().map(|v| v.score);
        suggestions.push(Suggestion {
            symbol: symbol.clone(),
            exists: !defs.is_empty(),
            similarity,
            tier: similarity.map(crate::session::rules::three_tier),
            why: verdict.and_then(|v| v.why()),
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
) -> SessionResult<ConfirmOutput> {
    let state = env.session(id)?;
    if code_evidence.trim().is_empty() {
        return Err(SessionError::invalid(
            "code_evidence is required: name the methods, calls, fields or comments that show each symbol serves the target feature",
        ));
    }
    if relevant_symbols.is_empty() {
        return Err(SessionError::invalid("relevant_symbols is empty"));
    }
    let Some(term) = state.query_frame.target_term().map(String::from) else {
        return Err(SessionError::invalid(
            "the session has no target_feature: call set_query_frame with target_feature first",
        ));
    };
    let snapshot = env.snapshot()?;
    env.expect_symbols(&snapshot, relevant_symbols.iter().map(|s| s.trim()));
    let mut checks = Vec::new();
    for symbol in relevant_symbols.iter().map(|s| s.trim()) {
        let defs = env.definitions(&snapshot, symbol);
        if defs.is_empty() {
            checks.push(SymbolCheck {
                symbol: symbol.to_string(),
                exists: false,
                near_names: lookup::near_names(&snapshot, symbol, 5),
                similarity: 0.0,
                held_down: None,
                files: vec![],
                verified_names: vec![],
                unknown_names: vec![],
            });
            continue;
        }
        let contexts = env.contexts(&snapshot, &defs);
        let verdict = env
            .verdict(&snapshot, &term, &contexts)
            .map_err(SessionError::from)?;
        let exists = |name: &str| lookup::name_exists(&snapshot, name);
        let evidence = lookup::check_symbol_evidence(code_evidence, symbol, &contexts, &exists);
        checks.push(SymbolCheck {
            symbol: symbol.to_string(),
            exists: true,
            near_names: vec![],
            similarity: verdict.score,
            held_down: verdict.why(),
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
