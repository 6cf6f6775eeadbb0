//! Hybrid ranking: fuses the ranked lists of several signals into one ranking of files, each
//! represented by its best chunk.
//!
//! Signals: dense similarity and BM25 rank chunks; definition matches (a request word names a
//! defined symbol), path matches and learned agreements (the map) rank files. Most requests are
//! answered by a file, not a line range, so fusion happens per file: a file's score is the
//! reciprocal-rank fusion (or, alternatively, the seed's weighted sum) of its ranks in each
//! list, and several chunks of one file do not take several places at the top. Tests, docs and
//! translation catalogues yield to code unless the request asks for them (see [`super::roles`]). This module is pure (no store, no model),
//! so every ranking decision is unit-tested and measured by the evaluation.

use super::roles::{self, RequestFocus};
use crate::config::SearchWeights;
use crate::store::ChunkHit;
use serde::Serialize;
use std::collections::HashMap;

/// How ranked lists are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    /// Σ weight / (k + rank): robust to incomparable score scales.
    Rrf,
    /// Seed 004's weighted sum of normalised scores.
    Weighted,
}

/// A defined symbol that a request names, with the match strength in (0, ~1.5].
#[derive(Debug, Clone, PartialEq)]
pub struct DefinitionMatch {
    pub file: String,
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub strength: f32,
}

/// Everything the ranking looks at. Lists are best first.
#[derive(Debug, Default, Clone)]
pub struct Signals {
    /// Chunks by dense similarity; `score` is the cosine similarity.
    pub vector: Vec<ChunkHit>,
    /// Chunks by BM25; `score` is the BM25 score.
    pub keyword: Vec<ChunkHit>,
    pub definitions: Vec<DefinitionMatch>,
    /// Files whose path matches request words, with a strength in (0, 1].
    pub paths: Vec<(String, f32)>,
    /// Files (and symbols) from agreements relevant to the request, with their relevance.
    pub map: Vec<(String, Option<String>, f32)>,
    /// Chunks of files that only the file-level signals found (to show a location).
    pub extra_chunks: Vec<ChunkHit>,
}

#[derive(Debug, Clone)]
pub struct RankOptions {
    pub weights: SearchWeights,
    pub fusion: Fusion,
    /// RRF constant: larger flattens the difference between ranks.
    pub rrf_k: f64,
    /// Which non-code files (tests, docs, translations) the request asks for; the others
    /// yield to code.
    pub focus: RequestFocus,
    pub n_results: usize,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions {
            weights: SearchWeights::default(),
            fusion: Fusion::Rrf,
            rrf_k: 20.0,
            focus: RequestFocus::default(),
            n_results: 10,
        }
    }
}

/// The raw value of each signal for one hit (absent signals are `None`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Components {
    /// Cosine similarity of the chunk's embedding to the request's (rank-only: e5 cosines
    /// are compressed, unrelated text scores ≈ 0.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<f32>,
    /// BM25 of the chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<f32>,
    /// Strength of the best definition match in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<f32>,
    /// Strength of the path match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<f32>,
    /// Relevance of the agreement naming this file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<f32>,
}

/// One ranked result.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub chunk: ChunkHit,
    /// Fused score normalised to [0, 1].
    pub score: f32,
    pub components: Components,
    /// The symbol the hit is about: a matched definition inside the chunk, else the chunk's name.
    pub symbol: Option<String>,
}

#[derive(Default)]
struct FileAcc {
    score: f64,
    components: Components,
    chunks: Vec<(f64, ChunkHit)>,
}

/// Ranks files and picks each one's best chunk; returns at most `n_results` hits, one per file
/// first, further chunks of the best files after.
pub fn rank(signals: &Signals, opts: &RankOptions) -> Vec<Ranked> {
    let mut files = score_files(signals, opts);
    score_chunks(signals, opts, &mut files);
    pick(signals, files, opts.n_results)
}

/// Reciprocal-rank contribution of a list at `rank` (1-based).
fn reciprocal_rank(k: f64, weight: f64, rank: usize) -> f64 {
    weight / (k + rank as f64)
}

/// Each file's rank in the dense list, where a chunk still waiting for its vector stands at its
/// keyword rank: while the index is being embedded, the dense list only holds the chunks that
/// have a vector, and a file must not fall below the others for lacking one. A chunk whose
/// vector is of its head only takes the better of its dense and keyword ranks: a head can lift
/// a chunk the words missed, but it reads too little of the chunk to push down one the words
/// found (on healthchecks, every chunk with a head's vector ranked below lexical-only: 0.667
/// against 0.693 NDCG@10). With every chunk embedded whole this is the dense list's own
/// ranking; with no dense list at all (lexical-only, or no vector yet) there is none, so the
/// ranking is the lexical one, the judge's field of words included. A file takes its better
/// rank of the two.
fn dense_file_ranks(signals: &Signals) -> HashMap<String, usize> {
    let mut ranks: HashMap<String, usize> = HashMap::new();
    if signals.vector.is_empty() {
        // No dense list at all (lexical-only, or nothing embedded yet): nothing to stand in
        // for, and the other lists keep their weight against the keyword one.
        return ranks;
    }
    let mut take = |file: &str, rank: usize| {
        ranks
            .entry(file.to_string())
            .and_modify(|r| *r = (*r).min(rank))
            .or_insert(rank);
    };
    for (i, file) in distinct_files(signals.vector.iter())
        .into_iter()
        .enumerate()
    {
        take(file, i + 1);
    }
    let waiting: std::collections::HashSet<&str> = signals
        .keyword
        .iter()
        .filter(|c| !c.embedded || c.head_only)
        .map(|c| c.file.as_str())
        .collect();
    for (i, file) in distinct_files(signals.keyword.iter())
        .into_iter()
        .enumerate()
    {
        if waiting.contains(file) {
            take(file, i + 1);
        }
    }
    ranks
}

/// The files of `hits` in the order they first appear.
fn distinct_files<'h>(hits: impl Iterator<Item = &'h ChunkHit>) -> Vec<&'h str> {
    let mut seen = std::collections::HashSet::new();
    hits.map(|c| c.file.as_str())
        .filter(|f| seen.insert(*f))
        .collect()
}

/// Every file any signal found, with its raw values per signal and its fused score (reciprocal
/// rank or weighted, then the request's focus on code, tests or prose).
fn score_files(signals: &Signals, opts: &RankOptions) -> HashMap<String, FileAcc> {
    let w = &opts.weights;
    let k = opts.rrf_k;
    let rrf = |weight: f64, rank: usize| reciprocal_rank(k, weight, rank);

    // File ranks per list (dense: the first chunk of a file gives the file its rank).
    let file_ranks = |files: &mut dyn Iterator<Item = &str>| -> HashMap<String, usize> {
        let mut out = HashMap::new();
        for f in files {
            let next = out.len() + 1;
            out.entry(f.to_string()).or_insert(next);
        }
        out
    };
    let vec_rank = dense_file_ranks(signals);
    let kw_rank = file_ranks(&mut signals.keyword.iter().map(|c| c.file.as_str()));
    let def_rank = file_ranks(&mut signals.definitions.iter().map(|d| d.file.as_str()));
    let path_rank = file_ranks(&mut signals.paths.iter().map(|(f, _)| f.as_str()));
    let map_rank = file_ranks(&mut signals.map.iter().map(|(f, _, _)| f.as_str()));

    let max_kw = signals.keyword.first().map_or(1.0, |c| c.score.max(1e-6));
    let mut files: HashMap<String, FileAcc> = HashMap::new();

    // Raw values per file for the components and the weighted fusion.
    for c in &signals.vector {
        let acc = files.entry(c.file.clone()).or_default();
        acc.components.vector = Some(acc.components.vector.unwrap_or(f32::MIN).max(c.score));
    }
    for c in &signals.keyword {
        let acc = files.entry(c.file.clone()).or_default();
        acc.components.keyword = Some(acc.components.keyword.unwrap_or(f32::MIN).max(c.score));
    }
    for d in &signals.definitions {
        let acc = files.entry(d.file.clone()).or_default();
        acc.components.definition = Some(acc.components.definition.unwrap_or(0.0).max(d.strength));
    }
    for (f, s) in &signals.paths {
        let acc = files.entry(f.clone()).or_default();
        acc.components.path = Some(acc.components.path.unwrap_or(0.0).max(*s));
    }
    for (f, _, r) in &signals.map {
        let acc = files.entry(f.clone()).or_default();
        acc.components.map = Some(acc.components.map.unwrap_or(0.0).max(*r));
    }

    for (file, acc) in files.iter_mut() {
        acc.score = match opts.fusion {
            Fusion::Rrf => {
                let mut s = 0.0;
                if let Some(&r) = vec_rank.get(file) {
                    s += rrf(w.vector, r);
                }
                if let Some(&r) = kw_rank.get(file) {
                    s += rrf(w.keyword, r);
                }
                if let Some(&r) = def_rank.get(file) {
                    s += rrf(w.definition, r);
                }
                if let Some(&r) = path_rank.get(file) {
                    s += rrf(w.path, r);
                }
                if let Some(&r) = map_rank.get(file) {
                    s += rrf(w.map, r);
                }
                s
            }
            Fusion::Weighted => {
                let c = &acc.components;
                w.vector * c.vector.unwrap_or(0.0).max(0.0) as f64
                    + w.keyword * (c.keyword.unwrap_or(0.0) / max_kw) as f64
                    + w.definition * c.definition.unwrap_or(0.0).min(1.0) as f64
                    + w.path * c.path.unwrap_or(0.0) as f64
                    + w.map * c.map.unwrap_or(0.0) as f64
            }
        };
        acc.score *= opts.focus.weight(roles::role_of(file));
    }

    files
}

/// Each file's chunks, scored at chunk level: the chunk's own dense and keyword ranks, and a
/// matched definition inside it, decide which chunk represents its file.
fn score_chunks(signals: &Signals, opts: &RankOptions, files: &mut HashMap<String, FileAcc>) {
    let w = &opts.weights;
    let k = opts.rrf_k;
    let rrf = |weight: f64, rank: usize| reciprocal_rank(k, weight, rank);
    let chunk_ranks = |list: &[ChunkHit]| -> HashMap<String, usize> {
        list.iter()
            .enumerate()
            .map(|(i, c)| (c.id.clone(), i + 1))
            .collect()
    };
    let mut vec_chunk = chunk_ranks(&signals.vector);
    let kw_chunk = chunk_ranks(&signals.keyword);
    // As for files: a chunk waiting for its vector stands at its keyword rank, and one with
    // its head's vector at the better of the two.
    let dense = !signals.vector.is_empty();
    for c in signals
        .keyword
        .iter()
        .filter(|c| dense && (!c.embedded || c.head_only))
    {
        let rank = kw_chunk[&c.id];
        vec_chunk
            .entry(c.id.clone())
            .and_modify(|r| *r = (*r).min(rank))
            .or_insert(rank);
    }
    let mut seen: HashMap<String, ()> = HashMap::new();
    let all_chunks = signals
        .vector
        .iter()
        .chain(&signals.keyword)
        .chain(&signals.extra_chunks);
    for c in all_chunks {
        if seen.insert(c.id.clone(), ()).is_some() {
            continue;
        }
        let Some(acc) = files.get_mut(&c.file) else {
            continue;
        };
        let mut s = 0.0;
        if let Some(&r) = vec_chunk.get(&c.id) {
            s += rrf(w.vector.max(1e-3), r);
        }
        if let Some(&r) = kw_chunk.get(&c.id) {
            s += rrf(w.keyword.max(1e-3), r);
        }
        // A chunk holding a matched definition represents its file best.
        for (i, d) in signals.definitions.iter().enumerate() {
            if d.file == c.file && c.line_start <= d.line && d.line <= c.line_end {
                s += rrf(w.definition.max(1e-3), i + 1) * 2.0;
                break;
            }
        }
        // Otherwise prefer the earliest chunk (declarations, module docs) by a hair.
        s += 1e-6 / (1.0 + c.line_start as f64);
        acc.chunks.push((s, c.clone()));
    }
}

/// Files best first, one hit each (its best chunk), then the next chunks of the best files
/// while fewer than `n_results` hits were found.
fn pick(signals: &Signals, files: HashMap<String, FileAcc>, n_results: usize) -> Vec<Ranked> {
    let mut ordered: Vec<(String, FileAcc)> = files
        .into_iter()
        .filter(|(_, acc)| !acc.chunks.is_empty())
        .collect();
    ordered.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.0.cmp(&b.0)));
    let best = ordered.first().map_or(1.0, |(_, a)| a.score.max(1e-12));

    let mut out: Vec<Ranked> = Vec::new();
    let mut extra: Vec<(f64, Ranked)> = Vec::new();
    for (_, mut acc) in ordered {
        acc.chunks.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.line_start.cmp(&b.1.line_start))
        });
        for (i, (_, chunk)) in acc.chunks.into_iter().enumerate() {
            let symbol = signals
                .definitions
                .iter()
                .find(|d| {
                    d.file == chunk.file && chunk.line_start <= d.line && d.line <= chunk.line_end
                })
                .map(|d| d.name.clone())
                .or_else(|| (!chunk.name.is_empty()).then(|| chunk.name.clone()));
            let mut components = acc.components.clone();
            // Chunk-level values for the chunk shown; file-level ones stay as they are.
            components.vector = signals
                .vector
                .iter()
                .find(|c| c.id == chunk.id)
                .map(|c| c.score)
                .or(components.vector);
            components.keyword = signals
                .keyword
                .iter()
                .find(|c| c.id == chunk.id)
                .map(|c| c.score)
                .or(components.keyword);
            let score = (acc.score / best) as f32;
            let ranked = Ranked {
                chunk,
                score: if i == 0 {
                    score
                } else {
                    score * 0.5f32.powi(i as i32)
                },
                components,
                symbol,
            };
            if i == 0 {
                out.push(ranked);
            } else if i < 3 {
                extra.push((acc.score * 0.5f64.powi(i as i32), ranked));
            }
        }
    }
    if out.len() < n_results {
        extra.sort_by(|a, b| b.0.total_cmp(&a.0));
        out.extend(extra.into_iter().map(|(_, r)| r));
    }
    out.truncate(n_results);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(file: &str, id: &str, lines: (u32, u32), score: f32) -> ChunkHit {
        ChunkHit {
            id: id.into(),
            file: file.into(),
            language: "python".into(),
            chunk_type: "function".into(),
            name: id.into(),
            line_start: lines.0,
            line_end: lines.1,
            content: String::new(),
            file_sha: String::new(),
            metadata: "{}".into(),
            score,
            embedded: true,
            head_only: false,
        }
    }

    fn files(ranked: &[Ranked]) -> Vec<&str> {
        ranked.iter().map(|r| r.chunk.file.as_str()).collect()
    }

    #[test]
    fn agreement_between_signals_beats_a_single_strong_signal() {
        let signals = Signals {
            vector: vec![
                chunk("a.py", "a1", (1, 5), 0.9),
                chunk("b.py", "b1", (1, 5), 0.8),
            ],
            keyword: vec![
                chunk("c.py", "c1", (1, 5), 9.0),
                chunk("b.py", "b1", (1, 5), 7.0),
            ],
            ..Default::default()
        };
        for fusion in [Fusion::Rrf, Fusion::Weighted] {
            let opts = RankOptions {
                fusion,
                ..Default::default()
            };
            let ranked = rank(&signals, &opts);
            assert_eq!(files(&ranked)[0], "b.py", "{fusion:?}");
            assert!((ranked[0].score - 1.0).abs() < 1e-6);
            assert_eq!(ranked[0].components.vector, Some(0.8));
            assert_eq!(ranked[0].components.keyword, Some(7.0));
        }
    }

    /// The same hits, every chunk with its vector.
    fn with_vectors(hits: &[ChunkHit]) -> Vec<ChunkHit> {
        hits.iter()
            .cloned()
            .map(|c| ChunkHit {
                embedded: true,
                head_only: false,
                ..c
            })
            .collect()
    }

    /// A head's vector lifts a chunk the words missed, but does not push down one they found:
    /// it stands at the better of its dense and keyword ranks.
    #[test]
    fn a_head_vector_lifts_but_never_pushes_down() {
        let head = |c: ChunkHit| ChunkHit {
            head_only: true,
            ..c
        };
        // Lexical order: login.py, auth.py. The heads' dense list puts login.py fifth and finds
        // session.py, which the words missed.
        let keyword = vec![
            head(chunk("login.py", "l1", (1, 5), 9.0)),
            head(chunk("auth.py", "a1", (1, 5), 8.0)),
        ];
        let vector = vec![
            head(chunk("session.py", "s1", (1, 5), 0.90)),
            head(chunk("auth.py", "a1", (1, 5), 0.85)),
            head(chunk("cookie.py", "c1", (1, 5), 0.80)),
            head(chunk("token.py", "t1", (1, 5), 0.75)),
            head(chunk("login.py", "l1", (1, 5), 0.70)),
        ];
        let signals = Signals {
            vector: vector.clone(),
            keyword: keyword.clone(),
            ..Default::default()
        };
        let heads = rank(&signals, &RankOptions::default());
        let ranked = files(&heads);
        assert_eq!(ranked[0], "login.py", "{ranked:?}");
        assert!(ranked.contains(&"session.py"), "{ranked:?}");
        // The same vectors of whole chunks are believed: login.py falls behind auth.py.
        let whole = Signals {
            vector: with_vectors(&vector),
            keyword: with_vectors(&keyword),
            ..Default::default()
        };
        let whole = rank(&whole, &RankOptions::default());
        let ranked = files(&whole);
        assert_eq!(ranked[0], "auth.py", "{ranked:?}");
    }

    /// Partial vectors never hurt: a file whose chunks wait for their vectors keeps the place
    /// its keyword rank gives it, at any coverage; with no vector at all the ranking is the
    /// lexical one.
    #[test]
    fn chunks_waiting_for_vectors_are_not_pushed_down() {
        let waiting = |c: ChunkHit| ChunkHit {
            embedded: false,
            head_only: false,
            ..c
        };
        // Lexical order: login.py, auth.py, util.py, item.py. Only auth.py and item.py have
        // vectors so far; the dense list ranks item.py first.
        let keyword = vec![
            waiting(chunk("login.py", "l1", (1, 5), 9.0)),
            chunk("auth.py", "a1", (1, 5), 8.0),
            waiting(chunk("util.py", "u1", (1, 5), 7.0)),
            chunk("item.py", "i1", (1, 5), 6.0),
        ];
        let vector = vec![
            chunk("item.py", "i1", (1, 5), 0.85),
            chunk("auth.py", "a1", (1, 5), 0.84),
        ];
        let partial = Signals {
            vector,
            keyword: keyword.clone(),
            ..Default::default()
        };
        let ranked = rank(&partial, &RankOptions::default());
        // login.py leads on its keyword rank, not last for lacking a vector; the embedded
        // files are ordered by both lists.
        assert_eq!(files(&ranked)[0], "login.py", "{:?}", files(&ranked));
        // Read as absent from the dense list instead, it fell behind the files with vectors.
        let absent = Signals {
            keyword: with_vectors(&keyword),
            ..partial.clone()
        };
        assert_ne!(
            files(&rank(&absent, &RankOptions::default()))[0],
            "login.py"
        );
        // No vector anywhere yet (the dense list empty): the lexical order.
        let none = Signals {
            keyword: keyword.iter().cloned().map(waiting).collect(),
            ..Default::default()
        };
        let lexical = Signals {
            keyword: with_vectors(&keyword),
            ..Default::default()
        };
        assert_eq!(
            files(&rank(&none, &RankOptions::default())),
            files(&rank(&lexical, &RankOptions::default()))
        );
    }

    #[test]
    fn one_file_takes_one_place_until_results_run_out() {
        let signals = Signals {
            vector: vec![
                chunk("a.py", "a1", (1, 5), 0.9),
                chunk("a.py", "a2", (6, 9), 0.89),
                chunk("a.py", "a3", (10, 12), 0.88),
                chunk("b.py", "b1", (1, 5), 0.7),
            ],
            ..Default::default()
        };
        let ranked = rank(
            &signals,
            &RankOptions {
                n_results: 2,
                ..Default::default()
            },
        );
        assert_eq!(files(&ranked), ["a.py", "b.py"]);
        let ranked = rank(&signals, &RankOptions::default());
        assert_eq!(files(&ranked), ["a.py", "b.py", "a.py", "a.py"]);
        assert_eq!(ranked[0].chunk.id, "a1");
    }

    #[test]
    fn definitions_pick_the_chunk_and_name_the_symbol() {
        let signals = Signals {
            keyword: vec![
                chunk("svc.py", "header", (1, 9), 5.0),
                chunk("svc.py", "login", (10, 20), 4.0),
            ],
            definitions: vec![DefinitionMatch {
                file: "svc.py".into(),
                name: "AuthService.login".into(),
                line: 10,
                end_line: 20,
                strength: 1.0,
            }],
            ..Default::default()
        };
        let ranked = rank(&signals, &RankOptions::default());
        assert_eq!(ranked[0].chunk.id, "login");
        assert_eq!(ranked[0].symbol.as_deref(), Some("AuthService.login"));
        assert_eq!(ranked[0].components.definition, Some(1.0));
    }

    #[test]
    fn test_files_yield_unless_the_request_is_about_tests() {
        let signals = Signals {
            keyword: vec![
                chunk("tests/test_cart.py", "t", (1, 5), 9.0),
                chunk("app/cart.py", "c", (1, 5), 8.5),
            ],
            ..Default::default()
        };
        let ranked = rank(&signals, &RankOptions::default());
        assert_eq!(files(&ranked)[0], "app/cart.py");
        let ranked = rank(
            &signals,
            &RankOptions {
                focus: RequestFocus {
                    tests: true,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        assert_eq!(files(&ranked)[0], "tests/test_cart.py");
    }

    #[test]
    fn file_level_signals_surface_files_through_their_chunks() {
        let signals = Signals {
            keyword: vec![chunk("x.py", "x", (1, 5), 3.0)],
            paths: vec![("orders/repository.py".into(), 1.0)],
            map: vec![("orders/repository.py".into(), Some("OrderRepo".into()), 0.9)],
            extra_chunks: vec![chunk("orders/repository.py", "r", (1, 30), 0.0)],
            ..Default::default()
        };
        let ranked = rank(&signals, &RankOptions::default());
        let mut shown = files(&ranked);
        shown.sort();
        assert_eq!(shown, ["orders/repository.py", "x.py"]);
        let repo = ranked
            .iter()
            .find(|r| r.chunk.file == "orders/repository.py")
            .unwrap();
        assert_eq!(repo.chunk.id, "r");
        assert_eq!(repo.components.map, Some(0.9));
        assert_eq!(repo.components.path, Some(1.0));
        // Two file-level signals outweigh one keyword hit when their weights say so.
        let mut opts = RankOptions::default();
        opts.weights.path = 1.0;
        opts.weights.map = 1.0;
        assert_eq!(
            files(&rank(&signals, &opts)),
            ["orders/repository.py", "x.py"]
        );
        // A file no chunk represents cannot be shown and is left out.
        let signals = Signals {
            paths: vec![("gone.py".into(), 1.0)],
            ..Default::default()
        };
        assert!(rank(&signals, &RankOptions::default()).is_empty());
    }
}
