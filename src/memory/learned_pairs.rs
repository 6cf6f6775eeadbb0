//! Seed 003's learned-pair cache (`learned_pairs.json`): NL term ↔ symbol pairs confirmed in
//! successful sessions, offered back by `validate_symbol_relevance` as `cached_matches`.
//!
//! A pair expires after `auto_purge_days` ([`LEARNED_PAIR_TTL_DAYS`] unless configured; code and
//! vocabulary drift), and a pair whose
//! symbol is no longer in the code is dropped at once: offering a deleted class as "what worked
//! last time" would lead the agent astray.

use super::MemoryError;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Days a learned pair is kept unless `auto_purge_days` says otherwise (seed 003: "例: 30日").
pub const LEARNED_PAIR_TTL_DAYS: i64 = 30;

const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LearnedPair {
    pub nl_term: String,
    pub symbol: String,
    pub similarity: f32,
    pub code_evidence: String,
    pub session_id: String,
    /// RFC 3339.
    pub learned_at: String,
}

/// The file's content (seed 003's layout: `{"version": 1, "pairs": [...]}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPairs {
    pub version: u32,
    pub pairs: Vec<LearnedPair>,
}

impl Default for LearnedPairs {
    fn default() -> Self {
        LearnedPairs {
            version: VERSION,
            pairs: Vec::new(),
        }
    }
}

impl LearnedPairs {
    /// Reads the file; missing → empty; unreadable JSON → empty (it is a cache; the agreements
    /// remain the record), with a warning.
    pub fn load(path: &Path) -> Result<LearnedPairs, MemoryError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(serde_json::from_str(&text).unwrap_or_else(|err| {
                tracing::warn!("ignoring unreadable {}: {err}", path.display());
                LearnedPairs::default()
            })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LearnedPairs::default()),
            Err(e) => Err(MemoryError::io(path, e)),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), MemoryError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| MemoryError::Format {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        crate::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| MemoryError::io(path, e))
    }

    /// Drops pairs older than `expiry_days`, pairs with an unreadable time, and pairs whose
    /// symbol `exists` no longer; returns how many were dropped.
    pub fn prune(
        &mut self,
        now: DateTime<Utc>,
        expiry_days: u64,
        exists: &dyn Fn(&str) -> bool,
    ) -> usize {
        let before = self.pairs.len();
        // Capped so that a huge setting means "never" instead of overflowing the date.
        let oldest = now - chrono::Duration::days(expiry_days.min(365_000) as i64);
        self.pairs.retain(|p| {
            DateTime::parse_from_rfc3339(&p.learned_at)
                .is_ok_and(|t| t.with_timezone(&Utc) >= oldest)
                && exists(&p.symbol)
        });
        before - self.pairs.len()
    }

    /// Adds a pair, replacing an older one for the same term and symbol.
    pub fn upsert(&mut self, pair: LearnedPair) {
        self.pairs
            .retain(|p| !(p.nl_term == pair.nl_term && p.symbol == pair.symbol));
        self.pairs.push(pair);
    }

    /// Pairs for `nl_term` (compared after normalisation) among `symbols` (all when empty).
    pub fn matches(&self, nl_term: &str, symbols: &[String]) -> Vec<LearnedPair> {
        let term = crate::query_frame::normalize::normalize(nl_term);
        self.pairs
            .iter()
            .filter(|p| crate::query_frame::normalize::normalize(&p.nl_term) == term)
            .filter(|p| symbols.is_empty() || symbols.contains(&p.symbol))
            .cloned()
            .collect()
    }
}
