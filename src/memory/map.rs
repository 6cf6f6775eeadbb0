//! The map (地図): learned agreements as a searchable collection, and the short-circuit check.
//!
//! Seed 004 keeps agreements in the vector store's `map` table next to the `forest`, and
//! `record_outcome(success)` upserts them at once so the next `start_session` on a similar
//! request finds them. [`MapStore`] is that contract. The LanceDB store implements it when it
//! lands; until then (and in lightweight mode) [`JsonMapStore`] keeps the entries in
//! `.code-intel/map_fallback.json` and scores them with the calibrated [`Relevance`], so the
//! short-circuit hint works end to end either way. Scores are calibrated relevance, never raw
//! cosine, so the seeds' 0.7 means what it says.

use super::MemoryError;
use crate::relevance::{Relevance, SharedRelevance};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One agreement as the map stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MapEntry {
    /// Stable id: the agreement's file stem, so re-learning a pair replaces its entry.
    pub id: String,
    pub nl_term: String,
    pub symbols: Vec<String>,
    pub files: Vec<String>,
    pub code_evidence: String,
    /// Calibrated relevance of term and symbol when it was confirmed.
    pub similarity: f32,
    pub session_id: String,
    /// The request of the session that learned it; a similar request is the strongest match.
    pub query: String,
    pub created_at: String,
}

/// A map search result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MapHit {
    pub id: String,
    pub nl_term: String,
    pub symbols: Vec<String>,
    pub files: Vec<String>,
    /// Calibrated relevance of the request to this agreement.
    pub score: f32,
    /// The agreement's own strength: the relevance of its term and symbol when the session
    /// established it.
    pub similarity: f32,
}

/// The map collection: upsert on success, search at session start.
pub trait MapStore: Send + Sync {
    /// Which implementation serves the map (`json-fallback`, `lancedb`, …), for status output.
    fn kind(&self) -> &'static str;
    /// Adds or replaces the entry with `entry.id`.
    fn upsert(&self, entry: &MapEntry) -> Result<(), MemoryError>;
    /// The best `n` entries for `query`, best first, with calibrated scores.
    fn search(&self, query: &str, n: usize) -> Result<Vec<MapHit>, MemoryError>;
    /// Number of entries.
    fn len(&self) -> Result<usize, MemoryError>;
    fn is_empty(&self) -> Result<bool, MemoryError> {
        Ok(self.len()? == 0)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    version: u32,
    entries: Vec<MapEntry>,
}

/// The JSON-backed map: a small file, scored entry by entry (agreements number in the tens or
/// hundreds per project, so a linear scan is fine).
pub struct JsonMapStore {
    path: PathBuf,
    lock: PathBuf,
    relevance: SharedRelevance,
}

impl JsonMapStore {
    pub fn new(state_dir: &Path, relevance: SharedRelevance) -> JsonMapStore {
        JsonMapStore {
            path: state_dir.join("map_fallback.json"),
            lock: state_dir.join("locks").join("memory.lock"),
            relevance,
        }
    }

    fn load(&self) -> Result<Stored, MemoryError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| MemoryError::Format {
                path: self.path.display().to_string(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Stored {
                version: 1,
                entries: Vec::new(),
            }),
            Err(e) => Err(MemoryError::io(&self.path, e)),
        }
    }
}

impl MapStore for JsonMapStore {
    fn kind(&self) -> &'static str {
        "json-fallback"
    }

    fn upsert(&self, entry: &MapEntry) -> Result<(), MemoryError> {
        crate::fsutil::with_file_lock(&self.lock, || {
            let mut stored = self.load()?;
            stored.version = 1;
            stored.entries.retain(|e| e.id != entry.id);
            stored.entries.push(entry.clone());
            let text = serde_json::to_string_pretty(&stored)
                .map_err(|e| MemoryError::Map(e.to_string()))?;
            crate::fsutil::write_atomic(&self.path, text.as_bytes())
                .map_err(|e| MemoryError::io(&self.path, e))
        })
        .map_err(|e| MemoryError::io(&self.lock, e))?
    }

    fn search(&self, query: &str, n: usize) -> Result<Vec<MapHit>, MemoryError> {
        let stored = self.load()?;
        if stored.entries.is_empty() || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let relevance = self.relevance.get();
        let mut hits = Vec::with_capacity(stored.entries.len());
        for entry in stored.entries {
            let score = score_entry(relevance.as_ref(), query, &entry)?;
            hits.push(MapHit {
                id: entry.id,
                nl_term: entry.nl_term,
                symbols: entry.symbols,
                files: entry.files,
                score,
                similarity: entry.similarity,
            });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        hits.truncate(n);
        Ok(hits)
    }

    fn len(&self) -> Result<usize, MemoryError> {
        Ok(self.load()?.entries.len())
    }
}

/// A request matches an agreement when it is like the request that produced it, or like the
/// agreed term itself: the better of the two calibrated scores.
fn score_entry(
    relevance: &dyn Relevance,
    query: &str,
    entry: &MapEntry,
) -> Result<f32, MemoryError> {
    let mut texts = vec![entry.nl_term.as_str()];
    if !entry.query.trim().is_empty() {
        texts.push(entry.query.as_str());
    }
    let scores = relevance
        .score_nl_many(query, &texts)
        .map_err(|e| MemoryError::Map(e.to_string()))?;
    Ok(scores.into_iter().fold(0.0f32, f32::max))
}
