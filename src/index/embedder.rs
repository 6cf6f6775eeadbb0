//! What the semantic index needs from an embedding model, and the slot that loads one lazily.
//!
//! The index and the search only see [`Embedder`]: the real model (the `embed` module) plugs in
//! behind it, and so does [`HashEmbedder`], a deterministic stand-in used by tests and by
//! builds or machines without the model. The slot loads the model on a background thread; while
//! it loads (or when there is none) callers get [`ModelState::Loading`] / `Unavailable`
//! immediately and answer from lexical and symbol signals — nothing waits on the model.

use sha2::{Digest, Sha256};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A text embedding model as the index uses it.
pub trait Embedder: Send + Sync {
    /// Identity of the vectors (model name, quantisation, anything that changes them).
    fn model_id(&self) -> String;
    fn dim(&self) -> usize;
    /// Vectors (L2-normalised) for indexed passages.
    fn embed_passages(&self, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>>;
    /// Vector (L2-normalised) for a search request.
    fn embed_query(&self, text: &str) -> anyhow::Result<Vec<f32>>;
    /// Calibrated relevance in [0, 1] for a raw cosine between a query and a passage: unrelated
    /// pairs low, related high. Every threshold (0.7 short-circuit …) applies to this.
    fn relevance(&self, cosine: f32) -> f32;
}

/// Where the model is.
#[derive(Clone)]
pub enum ModelState {
    /// `lightweight_mode`: no model by configuration.
    Disabled,
    /// Not requested yet, or loading on the background thread.
    Loading,
    Ready(Arc<dyn Embedder>),
    /// Loading failed; the reason is shown in `index_status`.
    Unavailable(String),
}

impl ModelState {
    pub fn label(&self) -> &'static str {
        match self {
            ModelState::Disabled => "disabled",
            ModelState::Loading => "loading",
            ModelState::Ready(_) => "ready",
            ModelState::Unavailable(_) => "unavailable",
        }
    }

    pub fn ready(&self) -> Option<Arc<dyn Embedder>> {
        match self {
            ModelState::Ready(model) => Some(model.clone()),
            _ => None,
        }
    }
}

type Loader = Box<dyn FnOnce() -> anyhow::Result<Arc<dyn Embedder>> + Send>;

/// A model loaded at most once, in the background, on first need.
pub struct ModelSlot {
    state: Mutex<(ModelState, Option<Loader>)>,
    changed: Condvar,
}

impl ModelSlot {
    pub fn new(loader: impl FnOnce() -> anyhow::Result<Arc<dyn Embedder>> + Send + 'static) -> Self {
        ModelSlot {
            state: Mutex::new((ModelState::Loading, Some(Box::new(loader)))),
            changed: Condvar::new(),
        }
    }

    pub fn disabled() -> Self {
        ModelSlot {
            state: Mutex::new((ModelState::Disabled, None)),
            changed: Condvar::new(),
        }
    }

    pub fn ready(model: Arc<dyn Embedder>) -> Self {
        ModelSlot {
            state: Mutex::new((ModelState::Ready(model), None)),
            changed: Condvar::new(),
        }
    }

    /// Starts loading on a background thread if nobody has yet; never blocks.
    pub fn warm_up(self: &Arc<Self>) {
        let loader = self.lock().1.take();
        let Some(loader) = loader else {
            return;
        };
        let slot = self.clone();
        let spawned = std::thread::Builder::new()
            .name("code-intel-model".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(loader))
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("the model loader panicked")));
                let state = match result {
                    Ok(model) => ModelState::Ready(model),
                    Err(err) => {
                        tracing::warn!("embedding model unavailable: {err:#}");
                        ModelState::Unavailable(format!("{err:#}"))
                    }
                };
                slot.lock().0 = state;
                slot.changed.notify_all();
            });
        if let Err(err) = spawned {
            self.lock().0 = ModelState::Unavailable(format!("cannot start the loader: {err}"));
        }
    }

    /// The current state, starting the load if needed.
    pub fn state(self: &Arc<Self>) -> ModelState {
        self.warm_up();
        self.lock().0.clone()
    }

    /// Waits up to `timeout` for loading to finish (CLI indexing, tests).
    pub fn wait(self: &Arc<Self>, timeout: Duration) -> ModelState {
        self.warm_up();
        let guard = self.lock();
        let (guard, _) = self
            .changed
            .wait_timeout_while(guard, timeout, |(state, _)| {
                matches!(state, ModelState::Loading)
            })
            .unwrap_or_else(|p| p.into_inner());
        guard.0.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (ModelState, Option<Loader>)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A deterministic bag-of-features embedder: identifier parts, words and character trigrams
/// hashed into `dim` buckets. It captures lexical overlap only, so it stands in for the model
/// in tests and keeps the vector path exercised where the model is not installed.
pub struct HashEmbedder {
    pub dim: usize,
}

impl HashEmbedder {
    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        let mut add = |feature: &str, weight: f32| {
            let h = Sha256::digest(feature.as_bytes());
            let bucket = u64::from_le_bytes(h[..8].try_into().unwrap_or([0; 8])) as usize % self.dim;
            let sign = if h[8] & 1 == 0 { 1.0 } else { -1.0 };
            v[bucket] += sign * weight;
        };
        for term in crate::search::lexical::index_terms(text) {
            add(&crate::search::lexical::stem(&term), 1.0);
            let chars: Vec<char> = term.chars().collect();
            for w in chars.windows(3) {
                add(&w.iter().collect::<String>(), 0.3);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        } else {
            v[0] = 1.0;
        }
        v
    }
}

impl Embedder for HashEmbedder {
    fn model_id(&self) -> String {
        format!("hash-{}", self.dim)
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn embed_passages(&self, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }
    fn embed_query(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        Ok(self.embed(text))
    }
    fn relevance(&self, cosine: f32) -> f32 {
        cosine.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_vectors_are_deterministic_normalised_and_lexical() {
        let e = HashEmbedder { dim: 64 };
        let a = e.embed_query("calculate order total").unwrap();
        assert_eq!(a, e.embed_query("calculate order total").unwrap());
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
        let cos = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
        let near = e.embed_query("calculateOrderTotal").unwrap();
        let far = e.embed_query("send invitation mail").unwrap();
        assert!(cos(&a, &near) > cos(&a, &far) + 0.3);
    }

    #[test]
    fn the_slot_loads_once_in_the_background() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = calls.clone();
        let slot = Arc::new(ModelSlot::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            Ok(Arc::new(HashEmbedder { dim: 8 }) as Arc<dyn Embedder>)
        }));
        let started = std::time::Instant::now();
        assert_eq!(slot.state().label(), "loading");
        assert!(started.elapsed() < Duration::from_millis(40), "state() must not block");
        assert_eq!(slot.wait(Duration::from_secs(5)).label(), "ready");
        assert_eq!(slot.state().label(), "ready");
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);

        let failing = Arc::new(ModelSlot::new(|| Err(anyhow::anyhow!("no model files"))));
        match failing.wait(Duration::from_secs(5)) {
            ModelState::Unavailable(reason) => assert!(reason.contains("no model files")),
            other => panic!("unexpected state {}", other.label()),
        }
    }
}
