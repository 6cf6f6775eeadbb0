//! `semantic_search`: a request in plain words (English or Japanese) → the code it is about.
//!
//! Seed 004's flow: with `collection: auto` the map (learned agreements) is searched first and,
//! when its best agreement is relevant enough (calibrated relevance ≥ 0.7), answers alone
//! ("short-circuit"); otherwise the forest (code chunks) is searched and the map's agreements
//! come along as hints and as a ranking prior. The forest search gathers every signal
//! (dense vectors, BM25, definitions, paths, the map) and fuses them in [`super::hybrid`].
//! While the model is loading, or in lightweight mode, the dense signal is simply absent and the
//! answer says so in `index_status`.

use super::glossary;
use super::hubness::RequestCenters;
use super::hybrid::{self, DefinitionMatch, Fusion, RankOptions, Signals};
use super::names::{PathTerms, QueryStems, SymbolTerms};
use super::roles::RequestFocus;
use crate::config::SearchWeights;
use crate::index::IndexResult;
use crate::index::semantic::{IndexStatus, SemanticIndex};
use crate::index::{Snapshot, SymbolIndex};
use crate::lexical;
use crate::search::dictionary::Dictionary;
use crate::store::{Agreement, ChunkHit};
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Calibrated relevance at which the map answers alone (seed 004).
pub const SHORT_CIRCUIT: f32 = 0.7;
/// Agreements below this relevance are not even hints.
const MAP_HINT_MIN: f32 = 0.3;
/// Candidates taken from each chunk-level engine.
const POOL: usize = 100;
/// The symbol index is refreshed by searches at most this often (syncs refresh it too).
const SYMBOL_REFRESH: Duration = Duration::from_secs(30);
/// Weight of glossary-added terms relative to the request's own words.
const EXPANSION_WEIGHT: f32 = 0.6;
/// Keyword candidates considered for query-time embedding (the best this many). With their
/// heads (`SemanticIndex::vectors_now`), twenty take about half a second on two idle cores;
/// measured during indexing, the search's p50 was 0.6–1.1 s against 0.1–0.35 s without.
const QUERY_TIME_CANDIDATES: usize = 20;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Collection {
    Map,
    Forest,
    #[default]
    Auto,
}

/// Which signals a search may use (the evaluation compares them; tools use `Hybrid`, and the
/// judge's field `Lexical` until the index is embedded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25, definitions and paths.
    Lexical,
    /// Dense similarity only.
    Vector,
    #[default]
    Hybrid,
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub collection: Collection,
    pub n_results: usize,
    pub mode: Mode,
    pub weights: SearchWeights,
    pub fusion: Fusion,
}

impl SearchRequest {
    pub fn new(query: &str, n_results: usize, weights: SearchWeights) -> SearchRequest {
        SearchRequest {
            query: query.to_string(),
            collection: Collection::Auto,
            n_results,
            mode: Mode::Hybrid,
            weights,
            fusion: Fusion::Rrf,
        }
    }
}

/// One result.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SearchHit {
    pub file: String,
    pub line_start: u32,
    pub line_end: u32,
    /// The symbol the hit is about (a matched definition, else the chunk's unit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub chunk_type: String,
    /// A few lines of the chunk around the best-matching line.
    pub snippet: String,
    /// Fused score in [0, 1] (1 = the best result of this search).
    pub score: f32,
    pub components: hybrid::Components,
    /// The file changed since it was indexed: lines and snippet may be off; re-sync.
    pub changed_since_indexed: bool,
}

/// An agreement relevant to the request.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MapHint {
    pub nl_term: String,
    pub symbols: Vec<String>,
    pub files: Vec<String>,
    pub evidence: String,
    /// Calibrated relevance of the agreement's term to the request.
    pub relevance: f32,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SearchResponse {
    /// `map` when learned agreements answered alone, else `forest`.
    pub source: String,
    /// `high` (short-circuit), `medium` or `low` (no dense signal or weak results).
    pub confidence: String,
    pub short_circuit: bool,
    pub results: Vec<SearchHit>,
    pub map_hints: Vec<MapHint>,
    /// Signals that took part (`vector`, `keyword`, `definition`, `path`, `map`).
    pub signals: Vec<String>,
    pub index_status: IndexStatus,
    pub millis: u128,
    /// Why these results may be incomplete (the index is being built or rebuilt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Term indexes over symbols and paths, rebuilt only when their source changes.
#[derive(Default)]
pub struct SearchCache {
    symbols: Mutex<Option<(Arc<Snapshot>, Arc<SymbolTerms>)>>,
    paths: Mutex<Option<(Arc<crate::index::sync_state::SyncState>, Arc<PathTerms>)>>,
    last_refresh: Mutex<Option<Instant>>,
    /// Request centers for the hubness correction, per model.
    centers: Mutex<Option<Arc<RequestCenters>>>,
}

impl SearchCache {
    /// Builds the term indexes now (server start, in the background), so the first search
    /// after start does not.
    pub fn warm(&self, sem: &SemanticIndex, ws: &Workspace, symbols: &SymbolIndex) {
        let started = Instant::now();
        self.symbol_terms(ws, symbols);
        self.path_terms(sem);
        sem.status();
        tracing::debug!(
            "search caches warmed in {} ms",
            started.elapsed().as_millis()
        );
    }

    /// Computes what needs the model (the request centers) once it is loaded.
    pub fn warm_model(&self, sem: &SemanticIndex) {
        let started = Instant::now();
        if self.request_centers(sem).is_some() {
            tracing::debug!(
                "request centers computed in {} ms",
                started.elapsed().as_millis()
            );
        }
    }

    fn symbol_terms(&self, ws: &Workspace, symbols: &SymbolIndex) -> Arc<SymbolTerms> {
        let mut last = self.last_refresh.lock().unwrap_or_else(|p| p.into_inner());
        let snapshot = if last.is_none_or(|t| t.elapsed() > SYMBOL_REFRESH) {
            *last = Some(Instant::now());
            match symbols.refresh(ws, ws.root()) {
                Ok((snapshot, _)) => snapshot,
                Err(err) => {
                    tracing::warn!("symbol refresh failed: {err}");
                    symbols.snapshot()
                }
            }
        } else {
            symbols.snapshot()
        };
        drop(last);
        let mut cached = self.symbols.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, terms)) = cached.as_ref()
            && Arc::ptr_eq(seen, &snapshot)
        {
            return terms.clone();
        }
        let terms = Arc::new(SymbolTerms::build(
            snapshot
                .files
                .iter()
                .map(|(f, e)| (f.as_str(), e.symbols.symbols.as_slice())),
        ));
        *cached = Some((snapshot, terms.clone()));
        terms
    }

    /// The request centers of the loaded model, computed on first use (`None` when that
    /// failed: the search then goes uncorrected).
    ///
    /// Computed without holding the cache: the warm-up computes them on a background thread at
    /// the lowest CPU priority, and a search waiting for it behind the index's embedding took
    /// 42 s on a fresh project. A search that finds none computes them itself, at its own
    /// priority (the model gives it the spare session while a background batch holds the
    /// shared one); whichever finishes first is kept.
    fn request_centers(&self, sem: &SemanticIndex) -> Option<Arc<RequestCenters>> {
        let model = sem.embedder_if_ready()?;
        let kept = || {
            let cached = self.centers.lock().unwrap_or_else(|p| p.into_inner());
            cached
                .as_ref()
                .filter(|centers| centers.model_id == model.model_id())
                .cloned()
        };
        if let Some(centers) = kept() {
            return Some(centers);
        }
        match RequestCenters::compute(model.as_ref()) {
            Ok(centers) => {
                let mut cached = self.centers.lock().unwrap_or_else(|p| p.into_inner());
                match cached.as_ref() {
                    Some(first) if first.model_id == centers.model_id => Some(first.clone()),
                    _ => {
                        let centers = Arc::new(centers);
                        *cached = Some(centers.clone());
                        Some(centers)
                    }
                }
            }
            Err(err) => {
                tracing::warn!("hubness correction unavailable: {err:#}");
                None
            }
        }
    }

    fn path_terms(&self, sem: &SemanticIndex) -> Arc<PathTerms> {
        let state = sem.sync_state();
        let mut cached = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, terms)) = cached.as_ref()
            && Arc::ptr_eq(seen, &state)
        {
            return terms.clone();
        }
        let terms = Arc::new(PathTerms::build(state.files.keys().map(String::as_str)));
        *cached = Some((state, terms.clone()));
        terms
    }
}

/// Runs one search (see the module doc).
pub fn search(
    sem: &SemanticIndex,
    ws: &Workspace,
    symbols: &SymbolIndex,
    cache: &SearchCache,
    req: &SearchRequest,
) -> IndexResult<SearchResponse> {
    let started = Instant::now();
    let mut phase = crate::timing::Phases::start("search");
    let store = sem.store()?;
    phase.done("store");
    let use_vector = req.mode != Mode::Lexical;
    let use_lexical = req.mode != Mode::Vector;
    let qv = if use_vector {
        sem.query_vector(&req.query)
    } else {
        None
    };
    phase.done("query vector");
    let symbol_terms = cache.symbol_terms(ws, symbols);
    phase.done("symbol terms");
    // The glossary's renderings, and the project's words for the words it does not list
    // (loanwords by their sound, other words through the dictionary).
    let dictionary = Dictionary::for_request(ws, &req.query);
    let bridged = symbol_terms.bridged_words(&req.query, dictionary.as_deref());
    let mut expansions: Vec<&str> = glossary::expand(&req.query);
    expansions.extend(bridged.iter().map(String::as_str));
    let q = QueryStems::new(&req.query, &expansions, EXPANSION_WEIGHT);
    let mut signals_used: Vec<String> = Vec::new();

    let map_hints = if req.collection != Collection::Forest {
        map_hints(sem, &store, &req.query, qv.as_deref())?
    } else {
        Vec::new()
    };
    phase.done("map");
    let best_map = map_hints.first().map_or(0.0, |h| h.relevance);
    let short_circuit = req.collection == Collection::Map
        || (req.collection == Collection::Auto && best_map >= SHORT_CIRCUIT);

    let map_files = map_files(&map_hints, &symbol_terms);

    let mut signals = Signals::default();
    if !map_files.is_empty() {
        signals.map = map_files.clone();
        signals_used.push("map".into());
    }
    if !short_circuit {
        let forest = ForestQuery {
            sem,
            store: &store,
            cache,
            query: &req.query,
            vector: qv.as_deref(),
            expansions: &expansions,
            stems: &q,
            symbol_terms: &symbol_terms,
        };
        forest.gather(use_lexical, &mut signals, &mut signals_used, &mut phase)?;
    } else {
        // The map answers: its agreed symbols are the results, shown through their chunks.
        signals.definitions = map_definitions(&map_files, &symbol_terms);
    }

    // Files only file-level signals found need chunks to be shown.
    let wanted = files_without_chunks(&signals);
    signals.extra_chunks = store.chunks_of_files(&wanted)?;
    phase.done("chunks of files");

    let focus = RequestFocus::of(&req.query, &lexical::query_terms(&req.query));
    let opts = RankOptions {
        weights: req.weights,
        fusion: req.fusion,
        focus,
        n_results: req.n_results,
        ..RankOptions::default()
    };
    let snippet_terms: Vec<String> = q.stems.keys().cloned().collect();
    let results = hits(hybrid::rank(&signals, &opts), sem, ws, &snippet_terms);
    phase.done("rank + snippets");
    let confidence = if short_circuit {
        "high"
    } else if qv.is_some() && !results.is_empty() {
        "medium"
    } else {
        "low"
    };
    Ok(SearchResponse {
        source: if short_circuit { "map" } else { "forest" }.into(),
        confidence: confidence.into(),
        short_circuit,
        results,
        map_hints,
        signals: signals_used,
        index_status: {
            let status = sem.status();
            phase.done("status");
            status
        },
        millis: started.elapsed().as_millis(),
        note: None,
    })
}

/// The ranked chunks as the answer shows them: with a snippet around the request's words and
/// whether the file changed since it was indexed.
fn hits(
    ranked: Vec<hybrid::Ranked>,
    sem: &SemanticIndex,
    ws: &Workspace,
    snippet_terms: &[String],
) -> Vec<SearchHit> {
    ranked
        .into_iter()
        .map(|r| SearchHit {
            changed_since_indexed: changed_since_indexed(sem, ws, &r.chunk),
            snippet: snippet(&r.chunk, snippet_terms),
            file: r.chunk.file,
            line_start: r.chunk.line_start,
            line_end: r.chunk.line_end,
            symbol: r.symbol,
            chunk_type: r.chunk.chunk_type,
            score: r.score,
            components: r.components,
        })
        .collect()
}

/// The map's agreements relevant enough to show, best first, scored by calibrated relevance
/// (see `memory::store_map`).
fn map_hints(
    sem: &SemanticIndex,
    store: &crate::store::Store,
    query: &str,
    vector: Option<&[f32]>,
) -> IndexResult<Vec<MapHint>> {
    let hits: Vec<(Agreement, f32)> =
        crate::memory::store_map::score_agreements(sem, store, query, vector, 5)?;
    Ok(hits
        .into_iter()
        .filter(|(_, r)| *r >= MAP_HINT_MIN)
        .map(|(a, r)| MapHint {
            nl_term: a.nl_term,
            symbols: a.symbols,
            files: a.files,
            evidence: a.evidence,
            relevance: r,
        })
        .collect())
}

/// Map evidence as file-level entries, placed on the definitions of the agreed symbols.
fn map_files(hints: &[MapHint], symbol_terms: &SymbolTerms) -> Vec<(String, Option<String>, f32)> {
    let mut out = Vec::new();
    for hint in hints {
        for symbol in &hint.symbols {
            for def in symbol_terms.definitions_of(symbol) {
                out.push((def.file, Some(def.name), hint.relevance));
            }
        }
        for f in &hint.files {
            out.push((f.clone(), None, hint.relevance));
        }
    }
    out
}

/// When the map answers: the agreed symbols' definitions, at the agreement's relevance.
fn map_definitions(
    map_files: &[(String, Option<String>, f32)],
    symbol_terms: &SymbolTerms,
) -> Vec<DefinitionMatch> {
    map_files
        .iter()
        .filter_map(|(f, s, r)| {
            let s = s.as_ref()?;
            symbol_terms
                .definitions_of(s)
                .into_iter()
                .find(|d| &d.file == f)
                .map(|d| DefinitionMatch {
                    file: d.file,
                    name: d.name,
                    line: d.line,
                    end_line: d.end_line,
                    strength: *r,
                })
        })
        .collect()
}

/// Files that only file-level signals (definitions, paths, the map) found, first 30 of each, so
/// their chunks can be fetched and shown.
fn files_without_chunks(signals: &Signals) -> Vec<String> {
    let shown: HashSet<&str> = signals
        .vector
        .iter()
        .chain(&signals.keyword)
        .map(|c| c.file.as_str())
        .collect();
    let mut wanted: Vec<String> = Vec::new();
    let file_lists = [
        signals
            .definitions
            .iter()
            .map(|d| d.file.as_str())
            .collect::<Vec<_>>(),
        signals.paths.iter().map(|(f, _)| f.as_str()).collect(),
        signals.map.iter().map(|(f, _, _)| f.as_str()).collect(),
    ];
    for list in &file_lists {
        for f in list.iter().take(30) {
            if !shown.contains(f) && !wanted.iter().any(|w| w == f) {
                wanted.push(f.to_string());
            }
        }
    }
    wanted
}

/// The forest's signals for one request: dense (hubness-corrected), keyword (BM25 over the
/// analysed text with the glossary's expansions), definitions and path words.
struct ForestQuery<'a> {
    sem: &'a SemanticIndex,
    store: &'a crate::store::Store,
    cache: &'a SearchCache,
    query: &'a str,
    vector: Option<&'a [f32]>,
    expansions: &'a [&'a str],
    stems: &'a QueryStems,
    symbol_terms: &'a SymbolTerms,
}

impl ForestQuery<'_> {
    /// The forest's signals. The vector search and the text search are independent store
    /// queries of tens of milliseconds each (40 and 18 ms on a project of 6,200 chunks): the
    /// text search runs on a second thread beside the vector search.
    fn gather(
        &self,
        use_lexical: bool,
        signals: &mut Signals,
        used: &mut Vec<String>,
        phase: &mut crate::timing::Phases,
    ) -> IndexResult<()> {
        let corrected: Option<Vec<f32>> =
            self.vector
                .map(|v| match self.cache.request_centers(self.sem) {
                    Some(centers) => centers.correct(self.query, v),
                    None => v.to_vec(),
                });
        let (vector, keyword) = std::thread::scope(|scope| {
            let keyword = use_lexical.then(|| {
                scope.spawn(|| {
                    let started = Instant::now();
                    let mut terms = lexical::query_terms(self.query);
                    terms.extend(self.expansions.iter().map(|t| t.to_string()));
                    let hits = self.store.text_search(&terms.join(" "), POOL);
                    tracing::debug!(
                        "search text search: {} ms (beside the vector search)",
                        started.elapsed().as_millis()
                    );
                    hits
                })
            });
            let vector = corrected
                .as_deref()
                .map(|v| self.store.vector_search(v, POOL, false));
            phase.done("vector search");
            let keyword = keyword.map(|handle| match handle.join() {
                Ok(hits) => hits,
                Err(panic) => std::panic::resume_unwind(panic),
            });
            phase.done("text search (the rest of it)");
            (vector, keyword)
        });
        if let Some(vector) = vector {
            signals.vector = vector?;
            used.push("vector".into());
        }
        let Some(keyword) = keyword else {
            return Ok(());
        };
        signals.keyword = keyword?;
        used.push("keyword".into());
        if let Some(query) = corrected.as_deref() {
            self.embed_candidates(query, signals);
            phase.done("query-time embedding");
        }
        signals.definitions = self
            .symbol_terms
            .matches(self.stems, 200)
            .into_iter()
            .map(|m| DefinitionMatch {
                file: m.file,
                name: m.name,
                line: m.line,
                end_line: m.end_line,
                strength: m.strength,
            })
            .collect();
        if !signals.definitions.is_empty() {
            used.push("definition".into());
        }
        phase.done("definitions");
        signals.paths = self.cache.path_terms(self.sem).matches(self.stems, 200);
        phase.done("paths");
        if !signals.paths.is_empty() {
            used.push("path".into());
        }
        Ok(())
    }

    /// Query-time embedding: the best keyword candidates still waiting for their vectors are
    /// embedded now and join the dense list with their cosine,
    /// so the model judges a request's likeliest answers from the first minute instead of only
    /// the chunks the background pass happened to reach. Measured outside the product on 8
    /// repositories, re-ranking BM25's top 20 this way matched a fully embedded index.
    fn embed_candidates(&self, query: &[f32], signals: &mut Signals) {
        let waiting: Vec<usize> = (0..signals.keyword.len().min(QUERY_TIME_CANDIDATES))
            .filter(|&i| !signals.keyword[i].embedded)
            .collect();
        if waiting.is_empty() {
            return;
        }
        let chunks: Vec<&ChunkHit> = waiting.iter().map(|&i| &signals.keyword[i]).collect();
        let vectors = self.sem.vectors_now(&chunks);
        let mut joined = 0;
        for (&i, vector) in waiting.iter().zip(vectors) {
            let Some(vector) = vector else { continue };
            let hit = &mut signals.keyword[i];
            // A head's vector, as the background pass's first one (`SemanticIndex::vectors_now`).
            hit.embedded = true;
            hit.head_only = true;
            signals.vector.push(ChunkHit {
                score: crate::embed::cosine(query, &vector),
                ..hit.clone()
            });
            joined += 1;
        }
        if joined > 0 {
            signals.vector.sort_by(|a, b| b.score.total_cmp(&a.score));
            tracing::debug!(
                "query-time embedding: {joined} of {} candidates",
                waiting.len()
            );
        }
    }
}

/// Whether the file differs from what was indexed (size/mtime from the sync state first; the
/// hash only when those differ).
fn changed_since_indexed(sem: &SemanticIndex, ws: &Workspace, chunk: &ChunkHit) -> bool {
    let path = ws.root().join(&chunk.file);
    let Ok(meta) = std::fs::metadata(&path) else {
        return true;
    };
    let state = sem.sync_state();
    if let Some(entry) = state.files.get(&chunk.file) {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        if entry.size == meta.len() && entry.mtime_ns == mtime && entry.hash == chunk.file_sha {
            return false;
        }
    }
    match std::fs::read(&path) {
        Ok(bytes) => crate::digest::sha256_hex(&bytes) != chunk.file_sha,
        Err(_) => true,
    }
}

/// Up to 6 lines around the chunk line that contains most request terms.
fn snippet(chunk: &ChunkHit, stems: &[String]) -> String {
    const LINES: usize = 6;
    const MAX_CHARS: usize = 600;
    let lines: Vec<&str> = chunk.content.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let score = |line: &str| -> usize {
        let terms: HashSet<String> = lexical::index_terms(line)
            .iter()
            .map(|t| lexical::stem(t))
            .collect();
        stems.iter().filter(|s| terms.contains(*s)).count()
    };
    let best = (0..lines.len())
        .max_by_key(|&i| (score(lines[i]), std::cmp::Reverse(i)))
        .unwrap_or(0);
    let start = best
        .saturating_sub(1)
        .min(lines.len().saturating_sub(LINES));
    let mut out = lines[start..(start + LINES).min(lines.len())].join("\n");
    if out.len() > MAX_CHARS {
        let mut end = MAX_CHARS;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

/// Per-language figures for the evaluation runner (exposed for `code-intel eval`).
pub fn language_of(query: &str) -> &'static str {
    if query.chars().any(lexical::is_cjk) {
        "ja"
    } else {
        "en"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_centre_on_the_matching_line() {
        let content = (1..=20)
            .map(|i| {
                if i == 12 {
                    "    total = order.total()".to_string()
                } else {
                    format!("    x{i} = {i}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let chunk = ChunkHit {
            id: "c".into(),
            file: "a.py".into(),
            language: "python".into(),
            chunk_type: "function".into(),
            name: "f".into(),
            line_start: 1,
            line_end: 20,
            content,
            file_sha: String::new(),
            metadata: "{}".into(),
            score: 0.0,
            embedded: true,
            head_only: false,
        };
        let s = snippet(&chunk, &["total".to_string()]);
        assert!(s.contains("order.total()"), "{s}");
        assert_eq!(s.lines().count(), 6);
    }
}
