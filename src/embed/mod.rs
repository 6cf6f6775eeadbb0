//! Text → 384-d vectors: "here is text; give me its multilingual-e5-small embedding".
//!
//! The seeds' promise is that a request in plain words (often Japanese) lands on the right code,
//! which grep cannot do; this module is the part that understands meaning. It holds:
//!
//! - [`Embedder`]: the one trait every consumer (index sync, search, relevance checks) uses.
//!   [`E5Embedder`] is the real model (intfloat/multilingual-e5-small through fastembed and ONNX
//!   Runtime loaded at run time); [`FakeEmbedder`] is a deterministic stand-in for logic tests.
//! - [`prepare`]: what is done to text before the model sees it: E5's `query: ` / `passage: `
//!   prefixes and identifier splitting (`AuthService` → `Auth Service`).
//! - [`model_dir`]: where the provisioned model lives (env, config, default) and its manifest
//!   check, so a missing or damaged model is an error that says how to fix it.
//! - [`handle`]: lazy loading with a background warm-up; no caller ever blocks on the model for
//!   more than it asks to.
//! - [`calibration`]: e5 cosines are compressed (unrelated pairs ≈ 0.8); every threshold the
//!   seeds state is applied to a calibrated relevance score instead.
//! - [`cache`]: the machine's embedding cache, by model identity and the SHA-256 of the text,
//!   shared by every checkout on the machine.
//! - [`bench`]: pipeline throughput against the raw model on the same texts.
//! - [`setup`]: `code-intel model install | verify | status`.
//!
//! **Architecture Invariant:** only this module knows about fastembed or `ort`. Everything
//! else sees `Vec<f32>` of length [`DIM`], unit length, and [`EmbedError`].

pub mod bench;
pub mod cache;
pub mod calibration;
pub mod fake;
pub mod handle;
pub mod model_dir;
mod onnx;
pub mod prepare;
pub mod setup;

/// Environment variable selecting the embedder: `fake` uses the deterministic stand-in
/// (logic tests, machines without the model).
pub const EMBEDDER_ENV: &str = "CODE_INTEL_EMBEDDER";

pub use calibration::Calibration;
pub use fake::FakeEmbedder;
pub use handle::{EmbedderHandle, EmbedderState};
pub use model_dir::{ModelDir, ModelDirSource};
pub use onnx::{E5Embedder, E5Options, Precision};

use std::sync::Arc;

/// Dimensions of every vector this module produces.
pub const DIM: usize = 384;

/// The model the real embedder runs; stamped on stored vectors so an index built with another
/// model is rebuilt rather than mixed.
pub const MODEL_ID: &str = "intfloat/multilingual-e5-small";

/// One embedding: [`DIM`] floats, L2-normalised (so a dot product is the cosine).
pub type Vector = Vec<f32>;

/// Turns text into vectors. Implementations are shared between threads (`&self`), batch and
/// order internally, and return one vector per input, in input order.
pub trait Embedder: Send + Sync {
    /// Identifies the model and its preprocessing; equal ids mean comparable vectors.
    fn model_id(&self) -> &str;

    /// Length of every returned vector.
    fn dims(&self) -> usize;

    /// Embeds search requests or natural-language terms (E5 `query: ` side).
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError>;

    /// Embeds indexed text: code chunks, symbol descriptions, documentation (E5 `passage: `
    /// side).
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError>;

    /// Convenience for one request.
    fn embed_query(&self, text: &str) -> Result<Vector, EmbedError> {
        self.embed_queries(&[text])?
            .pop()
            .ok_or_else(|| EmbedError::Inference("the model returned no vector".into()))
    }
}

impl std::fmt::Debug for dyn Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedder({})", self.model_id())
    }
}

impl<E: Embedder + ?Sized> Embedder for Arc<E> {
    fn model_id(&self) -> &str {
        (**self).model_id()
    }
    fn dims(&self) -> usize {
        (**self).dims()
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        (**self).embed_queries(texts)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        (**self).embed_passages(texts)
    }
}

/// Cosine similarity of two vectors (a plain dot product divided by the norms, so it is right
/// for unnormalised input too; 0 for a zero vector).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The command that builds the model directory; every "model missing" message names it.
pub const SETUP_COMMAND: &str = "code-intel model install";

/// Why embedding is unavailable or failed. Messages are written for the person who has to fix
/// it: they name the directory and the command to run. `Clone` so a failed background load can
/// be reported to every later caller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The model directory or one of its files is missing.
    #[error(
        "the embedding model is not installed at {dir} ({origin}): {problem}. Run `{SETUP_COMMAND}` \
         (or scripts/model/provision.sh) to build it, or point CODE_INTEL_MODEL_DIR or `model_dir` in \
         .code-intel/config.json at a provisioned directory"
    )]
    ModelMissing {
        dir: String,
        origin: String,
        problem: String,
    },
    /// The directory exists but does not match its manifest (changed, truncated, older recipe).
    #[error(
        "the embedding model at {dir} failed verification: {}. Run `{SETUP_COMMAND}` to rebuild it",
        problems.join("; ")
    )]
    ModelInvalid { dir: String, problems: Vec<String> },
    /// ONNX Runtime could not be loaded (missing, unreadable or too old shared library).
    #[error(
        "could not load ONNX Runtime from {path}: {reason}. Run `{SETUP_COMMAND}` to reinstall it"
    )]
    Runtime { path: String, reason: String },
    /// A model or tokenizer file could not be turned into a session.
    #[error("could not load {file}: {reason}")]
    Load { file: String, reason: String },
    /// Tokenising or running the model failed on some input.
    #[error("embedding failed: {0}")]
    Inference(String),
    /// The model is still being loaded in the background.
    #[error("the embedding model is still loading")]
    NotReady,
    /// The project runs without a model (lightweight mode) or loading was never requested.
    #[error("embeddings are disabled: {0}")]
    Disabled(String),
}

#[cfg(test)]
pub(crate) mod test_model;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_of_known_vectors() {
        let cases: &[(&[f32], &[f32], f32)] = &[
            (&[1.0, 0.0], &[1.0, 0.0], 1.0),
            (&[1.0, 0.0], &[0.0, 1.0], 0.0),
            (&[1.0, 0.0], &[-2.0, 0.0], -1.0),
            (&[3.0, 4.0], &[4.0, 3.0], 24.0 / 25.0),
            (&[0.0, 0.0], &[1.0, 0.0], 0.0),
        ];
        for (a, b, want) in cases {
            assert!(
                (cosine(a, b) - want).abs() < 1e-6,
                "cosine({a:?}, {b:?}) = {} != {want}",
                cosine(a, b)
            );
        }
    }

    #[test]
    fn missing_model_message_names_the_fix() {
        let err = EmbedError::ModelMissing {
            dir: "/nowhere".into(),
            origin: "CODE_INTEL_MODEL_DIR".into(),
            problem: "directory does not exist".into(),
        };
        let text = err.to_string();
        for needle in ["/nowhere", "CODE_INTEL_MODEL_DIR", SETUP_COMMAND] {
            assert!(text.contains(needle), "{text:?} lacks {needle:?}");
        }
    }
}
