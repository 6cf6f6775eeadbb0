//! The real relevance scorer: multilingual-e5-small through `crate::embed`, cosines turned into
//! relevance by the embed module's [`Calibration`] (fitted on labelled Japanese and English
//! pairs; see `embed/calibration.rs`).
//!
//! A request's term is embedded on the query side; a symbol's context on the passage side and
//! mapped with the passage calibration; another request or term on the query side and mapped
//! with the query ↔ query calibration. The model loads lazily: a call waits for it at most
//! [`EmbedRelevance::wait`], then reports `Unavailable` with the loader's reason.

use super::{Relevance, RelevanceError};
use crate::embed::{Calibration, EmbedError, Embedder, EmbedderHandle, Vector, cosine};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Scores with the process's one model.
pub struct EmbedRelevance {
    handle: EmbedderHandle,
    wait: Duration,
    /// The calibration for the loaded model (computed once: it embeds the background passages).
    calibration: Mutex<Option<(String, Arc<Calibration>)>>,
    /// Passage vectors by text, for the model named first. The judge scores every request
    /// against the same project background and the same candidates again and again; embedding
    /// a passage is what costs (tens of milliseconds), a lookup costs nothing.
    passages: Mutex<(String, HashMap<String, Vector>)>,
    /// Request-side vectors by text, for the model named first: one verdict scores its term
    /// (and its English rendering) against descriptions, names and the background in several
    /// calls, and a tool call judges several symbols for the same term.
    queries: Mutex<(String, HashMap<String, Vector>)>,
}

/// Passage vectors kept before the cache starts over (384 floats each: about 6 MB).
const MAX_CACHED_PASSAGES: usize = 4096;
/// Request-side vectors kept before that cache starts over.
const MAX_CACHED_QUERIES: usize = 1024;

impl EmbedRelevance {
    /// Session checks are interactive but need the model; they wait this long for a load in
    /// progress (the server starts loading at start-up, so this is rarely reached).
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(20);

    pub fn new(handle: EmbedderHandle) -> EmbedRelevance {
        EmbedRelevance {
            handle,
            wait: Self::DEFAULT_WAIT,
            calibration: Mutex::new(None),
            passages: Mutex::new((String::new(), HashMap::new())),
            queries: Mutex::new((String::new(), HashMap::new())),
        }
    }

    /// Vectors of `texts` on the passage side, from the cache where it has them; the rest are
    /// embedded, each on its own, and kept.
    fn passage_vectors(
        &self,
        embedder: &dyn Embedder,
        texts: &[&str],
    ) -> Result<Vec<Vector>, EmbedError> {
        let missing: Vec<&str> = {
            let mut cache = self.passages.lock().unwrap_or_else(|p| p.into_inner());
            if cache.0 != embedder.model_id() {
                *cache = (embedder.model_id().to_string(), HashMap::new());
            }
            let mut missing: Vec<&str> = Vec::new();
            for t in texts {
                if !cache.1.contains_key(*t) && !missing.contains(t) {
                    missing.push(t);
                }
            }
            missing
        };
        // Each text alone: the int8 model quantises a batch's activations together, so a
        // text's vector (and a verdict near a tier line) would depend on what shared its
        // batch. Alone, a text always gets the same vector, whatever else is judged with it.
        let fresh = missing
            .iter()
            .map(|t| embed_alone(embedder, t))
            .collect::<Result<Vec<_>, _>>()?;
        let mut cache = self.passages.lock().unwrap_or_else(|p| p.into_inner());
        if cache.1.len() + fresh.len() > MAX_CACHED_PASSAGES {
            cache.1.clear();
        }
        let mut fresh_by_text: HashMap<&str, Vector> = missing.into_iter().zip(fresh).collect();
        let mut out = Vec::with_capacity(texts.len());
        for t in texts {
            let v = match cache.1.get(*t) {
                Some(v) => v.clone(),
                None => {
                    // A repeated text was inserted at its first occurrence; one that another
                    // thread's clearing dropped since the first look is embedded again.
                    let v = match fresh_by_text.remove(*t) {
                        Some(v) => v,
                        None => embed_alone(embedder, t)?,
                    };
                    cache.1.insert(t.to_string(), v.clone());
                    v
                }
            };
            out.push(v);
        }
        Ok(out)
    }

    /// The request-side vector of `text`, from the cache when it has it. Each text is embedded
    /// on its own (see [`Self::passage_vectors`]), so a cached vector is the one a fresh call
    /// would give.
    fn query_vector(&self, embedder: &dyn Embedder, text: &str) -> Result<Vector, EmbedError> {
        {
            let mut cache = self.queries.lock().unwrap_or_else(|p| p.into_inner());
            if cache.0 != embedder.model_id() {
                *cache = (embedder.model_id().to_string(), HashMap::new());
            }
            if let Some(v) = cache.1.get(text) {
                return Ok(v.clone());
            }
        }
        let v = embedder.embed_query(text)?;
        let mut cache = self.queries.lock().unwrap_or_else(|p| p.into_inner());
        if cache.1.len() >= MAX_CACHED_QUERIES {
            cache.1.clear();
        }
        cache.1.insert(text.to_string(), v.clone());
        Ok(v)
    }

    pub fn with_wait(mut self, wait: Duration) -> EmbedRelevance {
        self.wait = wait;
        self
    }

    fn model(&self) -> Result<(Arc<dyn Embedder>, Arc<Calibration>), RelevanceError> {
        let embedder = self.handle.wait(self.wait).map_err(unavailable)?;
        let mut slot = self.calibration.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((id, calibration)) = slot.as_ref()
            && id == embedder.model_id()
        {
            return Ok((embedder, calibration.clone()));
        }
        let calibration = Arc::new(Calibration::new(embedder.as_ref()).map_err(unavailable)?);
        *slot = Some((embedder.model_id().to_string(), calibration.clone()));
        Ok((embedder, calibration))
    }
}

/// The passage vector of `text`, embedded in a batch of its own.
fn embed_alone(embedder: &dyn Embedder, text: &str) -> Result<Vector, EmbedError> {
    embedder
        .embed_passages(&[text])?
        .pop()
        .ok_or_else(|| EmbedError::Inference("the model returned no vector".into()))
}

/// The project's model handle: the provisioned model directory (`$CODE_INTEL_MODEL_DIR`, then
/// `model_dir` in `.code-intel/config.json`, then the default location), loaded lazily on
/// first need. A directory that cannot even be located gives a disabled handle whose reason
/// says how to fix it.
pub fn project_embedder(ws: &crate::workspace::Workspace) -> EmbedderHandle {
    if ws.config.lightweight_mode {
        return EmbedderHandle::disabled("lightweight_mode is on in .code-intel/config.json");
    }
    // `fake` or `fake:MICROS` (time per text): the deterministic stand-in for logic tests.
    if let Some(pace) = std::env::var(crate::embed::EMBEDDER_ENV)
        .ok()
        .and_then(|v| v.strip_prefix("fake").map(str::to_string))
    {
        let micros = pace.trim_start_matches(':').parse().unwrap_or(0);
        let fake = crate::embed::FakeEmbedder::paced(std::time::Duration::from_micros(micros));
        return EmbedderHandle::ready(std::sync::Arc::new(fake));
    }
    match crate::embed::ModelDir::resolve(ws.config.model_dir.as_deref(), ws.root()) {
        Ok(dir) => {
            EmbedderHandle::for_model_dir(dir, crate::embed::E5Options::from_config(&ws.config))
        }
        Err(err) => EmbedderHandle::disabled(err.to_string()),
    }
}

fn unavailable(err: EmbedError) -> RelevanceError {
    match err {
        EmbedError::Inference(message) => RelevanceError::Failed(message),
        EmbedError::NotReady => RelevanceError::Loading(EmbedError::NotReady.to_string()),
        other => RelevanceError::Unavailable(other.to_string()),
    }
}

impl Relevance for EmbedRelevance {
    fn id(&self) -> String {
        match self.handle.get_if_ready() {
            Some(embedder) => format!("{}+calibrated", embedder.model_id()),
            None => format!("{}+calibrated (not loaded)", crate::embed::MODEL_ID),
        }
    }

    fn score_many(&self, nl: &str, contexts: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        if contexts.is_empty() {
            return Ok(Vec::new());
        }
        let (embedder, calibration) = self.model()?;
        let query = self
            .query_vector(embedder.as_ref(), nl)
            .map_err(unavailable)?;
        let passages = self
            .passage_vectors(embedder.as_ref(), contexts)
            .map_err(unavailable)?;
        let scorer = calibration.scorer(&query);
        Ok(passages
            .iter()
            .map(|p| scorer.passage(cosine(&query, p)).clamp(0.0, 1.0))
            .collect())
    }

    fn score_nl_many(&self, nl: &str, others: &[&str]) -> Result<Vec<f32>, RelevanceError> {
        if others.is_empty() {
            return Ok(Vec::new());
        }
        let (embedder, calibration) = self.model()?;
        let query = self
            .query_vector(embedder.as_ref(), nl)
            .map_err(unavailable)?;
        // One by one, for the reason `passage_vectors` gives.
        let vectors = others
            .iter()
            .map(|o| self.query_vector(embedder.as_ref(), o))
            .collect::<Result<Vec<_>, _>>()
            .map_err(unavailable)?;
        let scorer = calibration.scorer(&query);
        Ok(vectors
            .iter()
            .map(|v| scorer.query(cosine(&query, v)).clamp(0.0, 1.0))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relevance::SymbolContext;

    /// A model still loading is said apart from no model: the sessions refuse a submission
    /// they cannot judge yet, and go on without a model that is not there.
    #[test]
    fn a_model_still_loading_is_not_a_missing_one() {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Mutex::new(held);
        let loading = EmbedderHandle::lazy(move || {
            let _ = held.lock().unwrap().recv();
            Err(EmbedError::Disabled("released".into()))
        });
        let judge = EmbedRelevance {
            wait: Duration::from_millis(20),
            ..EmbedRelevance::new(loading)
        };
        let err = judge
            .score_many("ログイン", &["def login(): ..."])
            .unwrap_err();
        assert!(matches!(err, RelevanceError::Loading(_)), "{err:?}");
        assert!(err.to_string().contains("call again"), "{err}");
        release.send(()).unwrap();
        let off = EmbedRelevance::new(EmbedderHandle::disabled("lightweight_mode is on"));
        let err = off
            .score_many("ログイン", &["def login(): ..."])
            .unwrap_err();
        assert!(matches!(err, RelevanceError::Unavailable(_)), "{err:?}");
    }

    /// The fixture symbol's context, as the session builds it.
    fn context(file: &str, name: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python-service");
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        let lang = crate::lang::detect(file).unwrap();
        let symbols = crate::analysis::analyze_source(lang, &source).symbols;
        let symbol = symbols
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} in {file}"));
        SymbolContext::new(file, symbol, &source)
            .with_members(symbol, &symbols)
            .text()
    }

    /// Labelled NL-term ↔ symbol pairs on the Python fixture, Japanese and English.
    const PAIRS: &[(&str, &str, &str, bool)] = &[
        (
            "ログイン機能",
            "src/orderly/auth/service.py",
            "AuthService",
            true,
        ),
        (
            "ログイン機能",
            "src/orderly/config/loader.py",
            "ConfigLoader",
            false,
        ),
        (
            "ログイン機能",
            "src/orderly/services/order_service.py",
            "OrderService",
            false,
        ),
        (
            "ログイン機能",
            "src/orderly/services/email_service.py",
            "EmailService",
            false,
        ),
        (
            "設定ファイルの読み込み",
            "src/orderly/config/loader.py",
            "ConfigLoader",
            true,
        ),
        (
            "設定ファイルの読み込み",
            "src/orderly/auth/service.py",
            "AuthService",
            false,
        ),
        (
            "設定ファイルの読み込み",
            "src/orderly/auth/tokens.py",
            "TokenCodec",
            false,
        ),
        (
            "注文のキャンセル",
            "src/orderly/services/order_service.py",
            "OrderService",
            true,
        ),
        (
            "注文のキャンセル",
            "src/orderly/auth/service.py",
            "AuthService",
            false,
        ),
        (
            "メール送信",
            "src/orderly/services/email_service.py",
            "EmailService",
            true,
        ),
        (
            "メール送信",
            "src/orderly/db/repository.py",
            "UserRepository",
            false,
        ),
        (
            "ログイン試行の回数制限",
            "src/orderly/services/rate_limiter.py",
            "RateLimiter",
            true,
        ),
        (
            "ログイン試行の回数制限",
            "src/orderly/services/email_service.py",
            "EmailService",
            false,
        ),
        (
            "アクセストークンの署名",
            "src/orderly/auth/tokens.py",
            "TokenCodec",
            true,
        ),
        (
            "アクセストークンの署名",
            "src/orderly/db/repository.py",
            "OrderRepository",
            false,
        ),
        ("login", "src/orderly/auth/service.py", "AuthService", true),
        (
            "login",
            "src/orderly/config/loader.py",
            "ConfigLoader",
            false,
        ),
        (
            "loading settings from YAML files",
            "src/orderly/config/loader.py",
            "ConfigLoader",
            true,
        ),
        (
            "loading settings from YAML files",
            "src/orderly/auth/service.py",
            "AuthService",
            false,
        ),
        (
            "cancel an order",
            "src/orderly/services/order_service.py",
            "OrderService",
            true,
        ),
        (
            "cancel an order",
            "src/orderly/auth/tokens.py",
            "TokenCodec",
            false,
        ),
        (
            "send an e-mail",
            "src/orderly/services/email_service.py",
            "EmailService",
            true,
        ),
        (
            "send an e-mail",
            "src/orderly/services/rate_limiter.py",
            "RateLimiter",
            false,
        ),
        (
            "throttle repeated attempts",
            "src/orderly/services/rate_limiter.py",
            "RateLimiter",
            true,
        ),
        (
            "throttle repeated attempts",
            "src/orderly/services/order_service.py",
            "OrderService",
            false,
        ),
    ];

    /// The seeds' scenario with the real model and its calibration: 「ログイン機能」 is a FACT for
    /// AuthService and a hallucination for ConfigLoader, and the labelled pairs separate.
    #[test]
    fn calibrated_scores_separate_labelled_pairs() {
        let relevance =
            EmbedRelevance::new(EmbedderHandle::ready(crate::embed::test_model::real()));
        let mut related = Vec::new();
        let mut unrelated = Vec::new();
        for (term, file, symbol, is_related) in PAIRS {
            let score = relevance.score(term, &context(file, symbol)).unwrap();
            eprintln!(
                "{:<5} {score:.3}  {term} ↔ {symbol}",
                if *is_related { "REL" } else { "unrel" }
            );
            if *is_related {
                related.push(score)
            } else {
                unrelated.push(score)
            }
        }
        let login_auth = relevance
            .score(
                "ログイン機能",
                &context("src/orderly/auth/service.py", "AuthService"),
            )
            .unwrap();
        let login_config = relevance
            .score(
                "ログイン機能",
                &context("src/orderly/config/loader.py", "ConfigLoader"),
            )
            .unwrap();
        assert!(login_auth > 0.6, "ログイン機能 ↔ AuthService: {login_auth}");
        assert!(
            login_config < 0.3,
            "ログイン機能 ↔ ConfigLoader: {login_config}"
        );
        let fact = related.iter().filter(|s| **s > 0.6).count();
        let rejected = unrelated.iter().filter(|s| **s < 0.3).count();
        eprintln!(
            "related > 0.6: {fact}/{}; unrelated < 0.3: {rejected}/{}; min related {:.3}; max unrelated {:.3}",
            related.len(),
            unrelated.len(),
            related.iter().copied().fold(1.0, f32::min),
            unrelated.iter().copied().fold(0.0, f32::max),
        );
        // The 3-tier rule may leave a pair in the gray zone (approved with HIGH risk), but it
        // must neither approve an unrelated pair as a FACT nor reject a related one.
        assert!(
            unrelated.iter().all(|s| *s <= 0.6),
            "an unrelated pair scored as FACT: {unrelated:?}"
        );
        assert!(
            related.iter().all(|s| *s >= 0.3),
            "a related pair was rejected: {related:?}"
        );
        assert!(
            fact * 3 >= related.len() * 2,
            "most related pairs should be FACTs: {related:?}"
        );
        assert!(
            rejected * 2 >= unrelated.len(),
            "most unrelated pairs should be rejected: {unrelated:?}"
        );
    }
}
