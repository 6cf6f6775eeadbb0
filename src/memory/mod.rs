//! The project's memory: what past sessions decided, how they ended, and what they learned.
//!
//! Seed 001's principle "learn from failure" and seed 003's learned-pair cache, per project
//! (the same words mean different code in different projects, so nothing is shared between
//! projects). Everything lives under `.code-intel/`:
//!
//! | file | written by | what |
//! |---|---|---|
//! | `logs/decisions.jsonl` | every router plan | [`crate::router::DecisionLog`] lines |
//! | `logs/outcomes.jsonl` | `record_outcome` | [`OutcomeLog`] lines |
//! | `agreements/*.md` | `record_outcome(success)` | NL term → symbol agreements, seed 001's Markdown with front matter |
//! | `learned_pairs.json` | `record_outcome(success)` | seed 003's cache, `auto_purge_days` expiry (30) |
//! | `map_fallback.json` | the JSON [`MapStore`] | the map table until the vector store serves it |
//!
//! Appends and read-modify-writes hold one lock file (`locks/memory.lock`) so two server
//! processes on one project never interleave or lose updates; whole files are replaced
//! atomically. Readers skip a torn last line.
//!
//! **Architecture Invariant:** memory knows nothing about sessions or phases: the session
//! service hands it plain records. The vector store plugs in behind [`MapStore`]: [`store_map`]
//! serves it from the store's `map` table, scored with calibrated relevance, which is also what
//! `semantic_search` consults first.

mod agreements;
mod insights;
mod learned_pairs;
mod logs;
mod map;
pub mod store_map;

pub use agreements::{Agreement, parse_agreement};
pub use insights::{Insights, SessionAnalysis, improvement_insights, session_analysis};
pub use learned_pairs::{LEARNED_PAIR_TTL_DAYS, LearnedPair, LearnedPairs};
pub use logs::{Outcome, OutcomeLog};
pub use map::{JsonMapStore, MapEntry, MapHit, MapStore};

use std::path::{Path, PathBuf};

/// Errors of the memory files. I/O and JSON problems are kept with the file they concern.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Format { path: String, message: String },
    #[error("the map store failed: {0}")]
    Map(String),
}

impl MemoryError {
    fn io(path: &Path, source: std::io::Error) -> MemoryError {
        MemoryError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The memory of one project, rooted at its `.code-intel/` directory.
#[derive(Debug, Clone)]
pub struct Memory {
    state_dir: PathBuf,
    /// Days a learned pair is kept (`auto_purge_days`).
    expiry_days: u64,
}

impl Memory {
    pub fn new(state_dir: &Path) -> Memory {
        Memory {
            state_dir: state_dir.to_path_buf(),
            expiry_days: LEARNED_PAIR_TTL_DAYS as u64,
        }
    }

    /// The same memory with learned pairs kept `days` days (`auto_purge_days`).
    pub fn with_expiry_days(mut self, days: u64) -> Memory {
        self.expiry_days = days;
        self
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn decisions_path(&self) -> PathBuf {
        self.state_dir.join("logs").join("decisions.jsonl")
    }

    pub fn outcomes_path(&self) -> PathBuf {
        self.state_dir.join("logs").join("outcomes.jsonl")
    }

    pub fn agreements_dir(&self) -> PathBuf {
        self.state_dir.join("agreements")
    }

    pub fn learned_pairs_path(&self) -> PathBuf {
        self.state_dir.join("learned_pairs.json")
    }

    fn lock_path(&self) -> PathBuf {
        self.state_dir.join("locks").join("memory.lock")
    }

    /// Runs `f` under the memory lock.
    fn locked<T>(&self, f: impl FnOnce() -> Result<T, MemoryError>) -> Result<T, MemoryError> {
        let lock = self.lock_path();
        crate::fsutil::with_file_lock(&lock, f).map_err(|e| MemoryError::io(&lock, e))?
    }

    /// Appends one decision to `logs/decisions.jsonl`.
    pub fn record_decision(&self, log: &crate::router::DecisionLog) -> Result<(), MemoryError> {
        self.append(&self.decisions_path(), log)
    }

    /// Appends one outcome to `logs/outcomes.jsonl`.
    pub fn record_outcome(&self, log: &OutcomeLog) -> Result<(), MemoryError> {
        self.append(&self.outcomes_path(), log)
    }

    pub fn decisions(&self) -> Result<Vec<crate::router::DecisionLog>, MemoryError> {
        logs::read_jsonl(&self.decisions_path())
    }

    pub fn outcomes(&self) -> Result<Vec<OutcomeLog>, MemoryError> {
        logs::read_jsonl(&self.outcomes_path())
    }

    fn append<T: serde::Serialize>(&self, path: &Path, value: &T) -> Result<(), MemoryError> {
        let line = serde_json::to_string(value).map_err(|e| MemoryError::Format {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.locked(|| {
            crate::fsutil::append_line(path, &line).map_err(|e| MemoryError::io(path, e))
        })
    }

    /// Writes an agreement's Markdown file (one file per NL term + symbol pair, replaced when
    /// the pair is learned again) and returns its path.
    pub fn write_agreement(&self, agreement: &Agreement) -> Result<PathBuf, MemoryError> {
        let path = self.agreements_dir().join(agreement.file_name());
        let text = agreement.to_markdown();
        self.locked(|| {
            crate::fsutil::write_atomic(&path, text.as_bytes())
                .map_err(|e| MemoryError::io(&path, e))
        })?;
        Ok(path)
    }

    /// Every readable agreement (unreadable files are skipped: a user may edit them by hand).
    pub fn agreements(&self) -> Vec<(PathBuf, Agreement)> {
        let Ok(entries) = std::fs::read_dir(self.agreements_dir()) else {
            return Vec::new();
        };
        let mut out: Vec<(PathBuf, Agreement)> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter_map(|p| {
                let text = std::fs::read_to_string(&p).ok()?;
                parse_agreement(&text).map(|a| (p, a))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Loads the learned pairs, dropping pairs older than the TTL and pairs whose symbol no
    /// longer exists (`exists`), and saves the cleaned cache when anything was dropped.
    pub fn learned_pairs(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        exists: &dyn Fn(&str) -> bool,
    ) -> Result<LearnedPairs, MemoryError> {
        let path = self.learned_pairs_path();
        self.locked(|| {
            let mut pairs = LearnedPairs::load(&path)?;
            if pairs.prune(now, self.expiry_days, exists) > 0 {
                pairs.save(&path)?;
            }
            Ok(pairs)
        })
    }

    /// Adds or refreshes learned pairs (same NL term and symbol → replaced), pruning as it goes.
    pub fn learn_pairs(
        &self,
        new: &[LearnedPair],
        now: chrono::DateTime<chrono::Utc>,
        exists: &dyn Fn(&str) -> bool,
    ) -> Result<LearnedPairs, MemoryError> {
        let path = self.learned_pairs_path();
        self.locked(|| {
            let mut pairs = LearnedPairs::load(&path)?;
            pairs.prune(now, self.expiry_days, exists);
            for pair in new {
                pairs.upsert(pair.clone());
            }
            pairs.save(&path)?;
            Ok(pairs)
        })
    }
}

#[cfg(test)]
mod tests;
