//! Relevance: "here is a request's term and a piece of code's description; how likely is it that
//! they mean the same thing?", as a calibrated score in `[0, 1]`.
//!
//! The seeds state their thresholds (0.7 short-circuit, 0.6 / 0.3 tiers, 0.6 quote similarity) on
//! a similarity where unrelated is low and related is high. Raw multilingual-e5 cosine is not that
//! (unrelated pairs score ≈ 0.8), so every threshold here is applied to a [`Relevance`] score,
//! never to a cosine. The session, the query frame and the map fallback only see this trait:
//!
//! - [`EmbedRelevance`](embedded::EmbedRelevance): the real model and its calibration map from
//!   `crate::embed`.
//! - [`FakeRelevance`]: deterministic scores for logic tests (explicit pairs, then word overlap).
//! - [`Unavailable`]: what a server without a model uses; every call says why and how to fix it,
//!   so a missing model is an error the agent can report, never a silent approval.
//!
//! [`SymbolContext`] is the text that stands for a symbol: its split identifier, doc comment,
//! signature and file path (all of them are fair context for an NL ↔ symbol pair).

mod context;
pub mod embedded;

pub use context::{SymbolContext, doc_comment, identifier_words};

use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};

/// Calibrated score above which a link is a fact (seed 003, 3-tier rule; quote similarity).
pub const FACT_THRESHOLD: f32 = 0.6;
/// Calibrated score below which a claimed link is rejected as a hallucination (seed 003).
pub const REJECT_THRESHOLD: f32 = 0.3;
/// Calibrated map score at which a past agreement short-circuits the search (seed 004).
pub const SHORTCIRCUIT_THRESHOLD: f32 = 0.7;

/// Why a relevance score could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RelevanceError {
    /// No model (not installed, lightweight mode): the message says how to fix it.
    #[error("relevance scores are unavailable: {0}")]
    Unavailable(String),
    /// The model is still loading (a fresh server, a busy machine): the same call succeeds
    /// when it is done.
    #[error("relevance cannot be judged yet: {0}; call again in a few seconds")]
    Loading(String),
    /// The model failed on this input.
    #[error("relevance scoring failed: {0}")]
    Failed(String),
}

/// A calibrated relevance scorer. Implementations are shared between threads.
///
/// Two pairings, because e5 embeds requests and indexed text differently and the calibration
/// maps each separately: a request's term against a code description (`score*`), and a request
/// against another request or natural-language term (`score_nl*`).
pub trait Relevance: Send + Sync {
    /// Names the scorer (model and calibration), recorded next to every score it produced.
    fn id(&self) -> String;

    /// Calibrated relevance of `nl` (a request or a term from it) to each of `contexts`
    /// (symbol [`SymbolContext::text`]s, code), in `[0, 1]`.
    fn score_many(&self, nl: &str, contexts: &[&str]) -> Result<Vec<f32>, RelevanceError>;

    /// Calibrated relevance of `nl` to each of `others`, which are natural language too (slot
    /// values, quotes, past requests, agreed terms), in `[0, 1]`.
    fn score_nl_many(&self, nl: &str, others: &[&str]) -> Result<Vec<f32>, RelevanceError>;

    fn score(&self, nl: &str, context: &str) -> Result<f32, RelevanceError> {
        first(self.score_many(nl, &[context]))
    }

    fn score_nl(&self, nl: &str, other: &str) -> Result<f32, RelevanceError> {
        first(self.score_nl_many(nl, &[other]))
    }
}

fn first(scores: Result<Vec<f32>, RelevanceError>) -> Result<f32, RelevanceError> {
    scores?
        .first()
        .copied()
        .ok_or_else(|| RelevanceError::Failed("no score returned".into()))
}

/// The scorer in use, shared by everything that scores and replaceable at run time (the model
/// loads lazily; tests install a fake). Cloning shares the slot.
#[derive(Clone)]
pub struct SharedRelevance(Arc<RwLock<Arc<dyn Relevance>>>);

impl SharedRelevance {
    pub fn new(scorer: Arc<dyn Relevance>) -> SharedRelevance {
        SharedRelevance(Arc::new(RwLock::new(scorer)))
    }

    /// The current scorer.
    pub fn get(&self) -> Arc<dyn Relevance> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replaces the scorer for every holder of this slot.
    pub fn set(&self, scorer: Arc<dyn Relevance>) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = scorer;
    }
}

/// The scorer of a server that has no model. Every call fails with the stored reason.
pub struct Unavailable(pub String);

impl Relevance for Unavailable {
    fn id(&self) -> String {
        "unavailable".into()
    }
    fn score_many(&self, _nl: &str, _contexts: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        Err(RelevanceError::Unavailable(self.0.clone()))
    }
    fn score_nl_many(&self, _nl: &str, _others: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        Err(RelevanceError::Unavailable(self.0.clone()))
    }
}

/// Deterministic scores for logic tests: explicit `(needle in nl, needle in context) → score`
/// rules first (first match wins), then the Dice overlap of the two texts' lower-cased words
/// (identifiers split). Never used outside tests and demos of the logic.
#[derive(Debug, Clone, Default)]
pub struct FakeRelevance {
    rules: Vec<(String, String, f32)>,
}

impl FakeRelevance {
    pub fn new() -> FakeRelevance {
        FakeRelevance::default()
    }

    /// Adds a rule: when `nl` contains `nl_part` and the context contains `context_part`
    /// (case-insensitive), the score is `score`.
    pub fn with(mut self, nl_part: &str, context_part: &str, score: f32) -> FakeRelevance {
        self.rules
            .push((nl_part.to_lowercase(), context_part.to_lowercase(), score));
        self
    }
}

impl Relevance for FakeRelevance {
    fn id(&self) -> String {
        "fake".into()
    }

    fn score_many(&self, nl: &str, contexts: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        Ok(contexts.iter().map(|c| self.fake_score(nl, c)).collect())
    }

    fn score_nl_many(&self, nl: &str, others: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        self.score_many(nl, others)
    }
}

impl FakeRelevance {
    fn fake_score(&self, nl: &str, context: &str) -> f32 {
        let (nl_l, ctx_l) = (nl.to_lowercase(), context.to_lowercase());
        for (a, b, score) in &self.rules {
            if nl_l.contains(a.as_str()) && ctx_l.contains(b.as_str()) {
                return *score;
            }
        }
        let words = |text: &str| -> BTreeSet<String> {
            context::identifier_words(text)
                .into_iter()
                .map(|w| w.to_lowercase())
                .collect()
        };
        let (a, b) = (words(nl), words(context));
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        let common = a.intersection(&b).count() as f32;
        2.0 * common / (a.len() + b.len()) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_rules_then_overlap() {
        let fake = FakeRelevance::new().with("ログイン", "auth", 0.8);
        let cases = [
            ("ログイン機能", "Auth Service. Handles login.", 0.8),
            ("ログイン機能", "Config Loader", 0.0),
            ("user login", "login user", 1.0),
            ("user login", "login", 2.0 / 3.0),
            ("", "anything", 0.0),
        ];
        for (nl, ctx, want) in cases {
            let got = fake.score(nl, ctx).unwrap();
            assert!(
                (got - want).abs() < 1e-6,
                "{nl:?} ~ {ctx:?}: {got} != {want}"
            );
        }
    }

    #[test]
    fn unavailable_says_why() {
        let err = Unavailable("run `code-intel model install`".into())
            .score_nl("a", "b")
            .unwrap_err();
        assert!(err.to_string().contains("model install"), "{err}");
    }
}
