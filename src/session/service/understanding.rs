//! `submit_understanding`: the agent's report at the end of EXPLORATION, checked against the
//! server's own record of its calls and against the code.

use super::*;

/// What the agent reports at the end of EXPLORATION.
#[derive(Debug, Clone, Default)]
pub struct Understanding {
    pub symbols_identified: Vec<String>,
    pub entry_points: Vec<String>,
    pub files_analyzed: Vec<String>,
    pub patterns: Vec<String>,
}

/// Tools counted as exploration from the call record: successful calls of non-session tools.
pub(super) fn tools_used(calls: &[ToolCall], tools: &[gate::GatedTool]) -> BTreeSet<String> {
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
) -> SessionResult<WithSession<UnderstandingOutcome>> {
    let state = env.session(id)?;
    state
        .require("submit_understanding", &[Phase::Exploration])
        .map_err(|r| env.refused(r))?;
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
        consistency_errors: crate::session::rules::validate_exploration_consistency(
            &symbols,
            &entry_points,
            &files,
            &patterns,
        ),
        ..UnderstandingReport::default()
    };
    let defs_by_symbol = symbol_definitions(env, &snapshot, &symbols, &mut report);
    check_entry_points(env, &snapshot, &entry_points, &mut report);
    let rel_files = workspace_files(env, &files, &mut report);
    // A name defined twice is judged by the definition in the files the agent read.
    let defs_by_symbol: Vec<(String, Vec<SymbolDef>)> = defs_by_symbol
        .into_iter()
        .map(|(symbol, defs)| (symbol, lookup::in_files(defs, &rel_files)))
        .collect();
    let term = state.query_frame.target_term().map(String::from);
    score_symbols(
        env,
        &snapshot,
        term.as_deref(),
        &defs_by_symbol,
        &mut report,
    )?;
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

/// Each symbol's definitions; a symbol with none is a hallucination, reported with the nearest
/// real names.
fn symbol_definitions(
    env: &Env,
    snapshot: &Snapshot,
    symbols: &[String],
    report: &mut UnderstandingReport,
) -> Vec<(String, Vec<SymbolDef>)> {
    symbols
        .iter()
        .map(|symbol| {
            let defs = env.definitions(snapshot, symbol);
            if defs.is_empty() {
                report
                    .hallucinated
                    .push((symbol.clone(), lookup::near_names(snapshot, symbol, 5)));
            }
            (symbol.clone(), defs)
        })
        .collect()
}

/// An entry point must be a defined symbol, a project path, or name real symbols in its words.
fn check_entry_points(
    env: &Env,
    snapshot: &Snapshot,
    entry_points: &[String],
    report: &mut UnderstandingReport,
) {
    for entry in entry_points {
        let resolves = !env.definitions(snapshot, entry).is_empty()
            || env.ws.resolve(entry).is_ok()
            || entry
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .filter(|w| w.len() >= 2)
                .any(|w| lookup::name_exists(snapshot, w));
        if !resolves {
            report
                .hallucinated
                .push((entry.clone(), lookup::near_names(snapshot, entry, 5)));
        }
    }
}

/// The files the agent says it analysed, as workspace paths (directories end in `/`); those
/// that do not exist are reported missing.
fn workspace_files(env: &Env, files: &[String], report: &mut UnderstandingReport) -> Vec<String> {
    let mut rel_files = Vec::new();
    for file in files {
        match env.ws.resolve(file) {
            Ok(p) if p.is_dir => rel_files.push(format!("{}/", p.rel.trim_end_matches('/'))),
            Ok(p) => rel_files.push(p.rel),
            Err(_) => report.missing_files.push(file.clone()),
        }
    }
    rel_files
}

/// The server's calibrated similarity of each defined symbol to the request's target term;
/// when the judge is unavailable, why (once), and no scores.
///
/// Errors: the model is still loading. The submission is refused rather than passed unchecked:
/// otherwise an agent that submits before the judge is ready (a fresh server, or one on a busy
/// machine) reaches READY on symbols nobody judged. Without a model at all (lightweight mode,
/// not installed) the session goes on, with the reason in its warnings.
fn score_symbols(
    env: &Env,
    snapshot: &Snapshot,
    term: Option<&str>,
    defs_by_symbol: &[(String, Vec<SymbolDef>)],
    report: &mut UnderstandingReport,
) -> SessionResult<()> {
    if term.is_some() {
        env.expect_symbols(snapshot, defs_by_symbol.iter().map(|(s, _)| s.as_str()));
    }
    for (symbol, defs) in defs_by_symbol {
        let similarity = match (term, &report.relevance_unavailable) {
            (Some(term), None) if !defs.is_empty() => {
                match env.verdict(snapshot, term, &env.contexts(snapshot, defs)) {
                    Ok(v) => Some(v.score),
                    Err(err @ RelevanceError::Loading(_)) => return Err(err.into()),
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
    Ok(())
}
