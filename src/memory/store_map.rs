//! The map (learned agreements) on the LanceDB store: scoring a request against agreements,
//! and the `memory::map::MapStore` contract the session's `record_outcome` writes through.
//!
//! Scores are calibrated relevance (the installed [`crate::relevance::Relevance`] scorer) of the
//! request to the agreed term or to the request that produced it, whichever is higher, so the
//! seed's 0.7 short-circuit means what it says. Small maps (the usual case: tens of agreements)
//! are scored entirely; large ones through their nearest terms by vector first. Without a scorer
//! (no model), only an identical term counts as relevant enough to short-circuit.

use crate::index::IndexResult;
use crate::index::semantic::SemanticIndex;
use crate::lexical;
use crate::memory::MemoryError;
use crate::memory::{MapEntry, MapHit, MapStore};
use crate::store::{Agreement, Store};
use std::collections::HashSet;

/// Maps up to this size are scored entirely; larger ones through vector candidates.
const SCORE_ALL: usize = 200;
const VECTOR_CANDIDATES: usize = 20;
/// Relevance of a partially overlapping term when no scorer exists (below the short-circuit).
const LEXICAL_CAP: f32 = 0.65;

/// Agreements relevant to `query`, best first, with calibrated relevance.
pub fn score_agreements(
    sem: &SemanticIndex,
    store: &Store,
    query: &str,
    query_vector: Option<&[f32]>,
    n: usize,
) -> IndexResult<Vec<(Agreement, f32)>> {
    let all = store.agreements()?;
    if all.is_empty() || query.trim().is_empty() {
        return Ok(Vec::new());
    }
    let candidates: Vec<Agreement> = match query_vector {
        Some(v) if all.len() > SCORE_ALL => store
            .search_map(v, VECTOR_CANDIDATES)?
            .into_iter()
            .map(|h| h.agreement)
            .collect(),
        _ => all,
    };
    let scorer = sem.relevance().map(|r| r.get());
    let mut scored: Vec<(Agreement, f32)> = match scorer {
        Some(scorer) => {
            let mut out = Vec::with_capacity(candidates.len());
            let mut failed = false;
            for a in candidates.iter() {
                let mut texts = vec![a.nl_term.as_str()];
                if !a.query.trim().is_empty() {
                    texts.push(a.query.as_str());
                }
                match scorer.score_many(query, &texts) {
                    Ok(scores) => out.push((a.clone(), scores.into_iter().fold(0.0f32, f32::max))),
                    Err(err) => {
                        tracing::debug!("map relevance unavailable: {err}");
                        failed = true;
                        break;
                    }
                }
            }
            if failed {
                lexical_scores(&candidates, query)
            } else {
                out
            }
        }
        None => lexical_scores(&candidates, query),
    };
    scored.retain(|(_, s)| *s > 0.0);
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    scored.truncate(n);
    Ok(scored)
}

/// Without a calibrated scorer: an identical term (or learning request) scores 1, a partial
/// overlap of terms at most [`LEXICAL_CAP`].
fn lexical_scores(agreements: &[Agreement], query: &str) -> Vec<(Agreement, f32)> {
    let q: HashSet<String> = lexical::index_terms(query).into_iter().collect();
    let normalized = |s: &str| s.split_whitespace().collect::<String>().to_lowercase();
    agreements
        .iter()
        .map(|a| {
            let best = [a.nl_term.as_str(), a.query.as_str()]
                .into_iter()
                .filter(|t| !t.trim().is_empty())
                .map(|t| {
                    if normalized(t) == normalized(query) {
                        return 1.0;
                    }
                    let terms: HashSet<String> = lexical::index_terms(t).into_iter().collect();
                    if terms.is_empty() {
                        return 0.0;
                    }
                    LEXICAL_CAP * terms.intersection(&q).count() as f32 / terms.len() as f32
                })
                .fold(0.0f32, f32::max);
            (a.clone(), best)
        })
        .collect()
}

fn to_agreement(entry: &MapEntry) -> Agreement {
    let time = chrono::DateTime::parse_from_rfc3339(&entry.created_at)
        .map(|t| t.timestamp())
        .unwrap_or(0);
    Agreement {
        id: entry.id.clone(),
        nl_term: entry.nl_term.clone(),
        symbols: entry.symbols.clone(),
        evidence: entry.code_evidence.clone(),
        files: entry.files.clone(),
        similarity: entry.similarity as f64,
        session: entry.session_id.clone(),
        query: entry.query.clone(),
        time,
        vector: None,
    }
}

/// The map store's failure as the session sees it, its cause chain kept in the message.
fn map_error(err: impl Into<crate::index::IndexError>) -> MemoryError {
    MemoryError::Map(crate::error::chain(&err.into()))
}

impl MapStore for SemanticIndex {
    fn kind(&self) -> &'static str {
        "lancedb"
    }

    fn upsert(&self, entry: &MapEntry) -> Result<(), MemoryError> {
        let store = self.store().map_err(map_error)?;
        let mut agreement = to_agreement(entry);
        // Embedded now when the model is ready; otherwise on the next map sync.
        if let Some(model) = self.embedder().get_if_ready() {
            store.adopt_model(model.model_id()).map_err(map_error)?;
            agreement.vector = model.embed_query(&agreement.nl_term).ok();
        }
        store.upsert_agreements(vec![agreement]).map_err(map_error)
    }

    fn search(&self, query: &str, n: usize) -> Result<Vec<MapHit>, MemoryError> {
        let store = self.store().map_err(map_error)?;
        let vector = self.query_vector(query);
        let scored =
            score_agreements(self, &store, query, vector.as_deref(), n).map_err(map_error)?;
        Ok(scored
            .into_iter()
            .map(|(a, score)| MapHit {
                id: a.id,
                nl_term: a.nl_term,
                symbols: a.symbols,
                files: a.files,
                score,
                similarity: a.similarity as f32,
            })
            .collect())
    }

    fn len(&self) -> Result<usize, MemoryError> {
        let store = self.store().map_err(map_error)?;
        Ok(store.counts().map_err(map_error)?.agreements)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{EmbedderHandle, FakeEmbedder};
    use crate::relevance::{FakeRelevance, SharedRelevance};
    use std::sync::Arc;

    fn entry(id: &str, term: &str, query: &str) -> MapEntry {
        MapEntry {
            id: id.into(),
            nl_term: term.into(),
            symbols: vec!["AuthService".into()],
            files: vec!["src/auth.py".into()],
            code_evidence: "AuthService.login() handles login".into(),
            similarity: 0.8,
            session_id: "s1".into(),
            query: query.into(),
            created_at: "2026-01-02T03:04:05Z".into(),
        }
    }

    #[test]
    fn the_lancedb_map_keeps_the_map_store_contract() {
        let dir = tempfile::tempdir().unwrap();
        let ws = crate::workspace::Workspace::open(dir.path()).unwrap();
        let sem =
            SemanticIndex::with_model(&ws, EmbedderHandle::ready(Arc::new(FakeEmbedder::new())));
        assert_eq!(sem.kind(), "lancedb");
        assert!(sem.is_empty().unwrap());
        sem.upsert(&entry("login", "ログイン機能", "ログイン画面を直したい"))
            .unwrap();
        sem.upsert(&entry("cart", "cart total", "")).unwrap();
        sem.upsert(&entry("login", "ログイン機能", "ログイン画面を直したい"))
            .unwrap();
        assert_eq!(sem.len().unwrap(), 2);

        // Without a scorer only an identical term short-circuits.
        let hits = sem.search("ログイン機能", 5).unwrap();
        assert_eq!((hits[0].id.as_str(), hits[0].score), ("login", 1.0));
        let hits = sem.search("ログイン機能の修正", 5).unwrap();
        assert!(hits[0].score < 0.7 && hits[0].score > 0.3, "{hits:?}");

        // With a calibrated scorer, its scores are used (and the learning request counts).
        sem.set_relevance(SharedRelevance::new(Arc::new(FakeRelevance::new().with(
            "サインイン",
            "ログイン画面",
            0.9,
        ))));
        let hits = sem.search("サインインの不具合", 5).unwrap();
        assert_eq!(hits[0].id, "login");
        assert!((hits[0].score - 0.9).abs() < 1e-6);
        assert!(sem.search("unrelated words", 5).unwrap().is_empty());
    }
}
