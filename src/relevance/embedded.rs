//! The real relevance scorer: multilingual-e5-small through `crate::embed`, cosines turned into
//! relevance by the embed module's [`Calibration`] (fitted on labelled Japanese and English
//! pairs; see `embed/calibration.rs`).
//!
//! A request's term is embedded on the query side; a symbol's context on the passage side and
//! mapped with the passage calibration; another request or term on the query side and mapped
//! with the query ↔ query calibration. The model loads lazily: a call waits for it at most
//! [`EmbedRelevance::wait`], then reports `Unavailable` with the loader's reason.

use super::{Relevance, RelevanceError};
use crate::embed::{Calibration, EmbedError, Embedder, EmbedderHandle, cosine};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Scores with the process's one model.
pub struct EmbedRelevance {
    handle: EmbedderHandle,
    wait: Duration,
    /// The calibration for the loaded model (computed once: it embeds the background passages).
    calibration: Mutex<Option<(String, Arc<Calibration>)>>,
}

impl EmbedRelevance {
    /// Session checks are interactive but need the model; they wait this long for a load in
    /// progress (the server starts loading at start-up, so this is rarely reached).
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(20);

    pub fn new(handle: EmbedderHandle) -> EmbedRelevance {
        EmbedRelevance {
            handle,
            wait: Self::DEFAULT_WAIT,
            calibration: Mutex::new(None),
        }
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

fn unavailable(err: EmbedError) -> RelevanceError {
    match err {
        EmbedError::Inference(message) => RelevanceError::Failed(message),
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
        let query = embedder.embed_query(nl).map_err(unavailable)?;
        let passages = embedder.embed_passages(contexts).map_err(unavailable)?;
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
        let query = embedder.embed_query(nl).map_err(unavailable)?;
        let vectors = embedder.embed_queries(others).map_err(unavailable)?;
        let scorer = calibration.scorer(&query);
        Ok(vectors
            .iter()
            .map(|v| scorer.query(cosine(&query, v)).clamp(0.0, 1.0))
            .collect())
    }
}
