//! The real embedder: multilingual-e5-small through fastembed and ONNX Runtime.
//!
//! Why it looks like this (facts in `shared/notes/embedding-model-offline.md`):
//! - ONNX Runtime is a shared library shipped in the model directory and loaded at run time
//!   (`ort` `load-dynamic`). We load it ourselves with `ort::init_from` and hand the environment
//!   to fastembed, because fastembed would panic on a missing library; here it is an
//!   [`EmbedError::Runtime`] that says what to run. ONNX Runtime allows one environment per
//!   process, so it is created once and kept.
//! - Passages go through the int8 model (≈ 2× the fp32 throughput). Queries go through the fp32
//!   model by default: a query is one short text, and int8 cost about 7 NDCG points on Japanese
//!   requests in an earlier prototype. [`E5Options::query_precision`] can switch queries to
//!   int8 to save the memory of a second session.
//! - Texts are sorted by length before batching so a batch pads to similar lengths; results are
//!   returned in input order. fastembed mean-pools over the attention mask and L2-normalises.
//! - After loading, a known similarity (「ログイン機能」 vs "Auth Service") is compared with the
//!   figure the provisioner measured, which catches damaged weights without hashing 600 MB.

use super::model_dir::{
    CONFIG, MODEL_FP32, MODEL_INT8, Manifest, ModelDir, SPECIAL_TOKENS_MAP, TOKENIZER,
    TOKENIZER_CONFIG, VerifyLevel,
};
use super::prepare::{passage_text, query_text};
use super::{DIM, EmbedError, Embedder, MODEL_ID, Vector, cosine};
use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Which of the two provisioned models runs a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `model.onnx`: dynamic int8 quantisation, the faster one.
    Int8,
    /// `model_fp32.onnx`: exact and batch-invariant, about half the speed, 470 MB more memory.
    Fp32,
}

impl Precision {
    fn file(self) -> &'static str {
        match self {
            Precision::Int8 => MODEL_INT8,
            Precision::Fp32 => MODEL_FP32,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Int8 => "int8",
            Precision::Fp32 => "fp32",
        }
    }
}

/// Loading and batching options; the defaults are what the server uses.
#[derive(Debug, Clone)]
pub struct E5Options {
    pub passage_precision: Precision,
    pub query_precision: Precision,
    /// Texts per model call. Sorted batches pad little, so larger batches mainly cost memory.
    pub batch_size: usize,
    /// Longer texts are truncated to this many tokens (the model's limit is 512).
    pub max_length: usize,
    /// ONNX Runtime intra-op threads per session; `None` = every core.
    pub threads: Option<usize>,
    pub verify: VerifyLevel,
    /// Compare a known similarity with the provisioner's figure after loading.
    pub self_check: bool,
}

impl Default for E5Options {
    fn default() -> Self {
        E5Options {
            passage_precision: Precision::Int8,
            query_precision: Precision::Fp32,
            batch_size: 16,
            max_length: 512,
            threads: None,
            verify: VerifyLevel::Quick,
            self_check: true,
        }
    }
}

/// The real [`Embedder`].
pub struct E5Embedder {
    dir: PathBuf,
    model_id: String,
    passages: Mutex<TextEmbedding>,
    /// `None` when queries use the same model as passages.
    queries: Option<Mutex<TextEmbedding>>,
    options: E5Options,
    load_time: Duration,
}

/// ONNX Runtime allows one environment per process, ever; it is created on first use and
/// shared by every session.
static ORT_ENV: Mutex<Option<(PathBuf, ort::environment::Environment)>> = Mutex::new(None);

/// The process's ONNX Runtime environment, loading the library at `lib` the first time.
pub(crate) fn ort_environment(lib: &Path) -> Result<ort::environment::Environment, EmbedError> {
    let mut slot = ORT_ENV.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((loaded, env)) = slot.as_ref() {
        if loaded != lib {
            tracing::info!(
                "ONNX Runtime is already loaded from {}; {} is not loaded again",
                loaded.display(),
                lib.display()
            );
        }
        return Ok(env.clone());
    }
    let runtime_error = |reason: String| EmbedError::Runtime {
        path: lib.display().to_string(),
        reason,
    };
    if !lib.is_file() {
        return Err(runtime_error("the file does not exist".into()));
    }
    let builder = ort::init_from(lib).map_err(|err| runtime_error(err.to_string()))?;
    let env = builder
        .with_name("code-intel")
        .build()
        .map_err(|err| runtime_error(err.to_string()))?;
    *slot = Some((lib.to_path_buf(), env.clone()));
    Ok(env)
}

impl E5Embedder {
    /// Verifies the directory, loads ONNX Runtime and the model(s), and runs the self-check.
    pub fn load(dir: &ModelDir, options: E5Options) -> Result<E5Embedder, EmbedError> {
        let start = Instant::now();
        let manifest = dir.verify(options.verify)?;
        let lib = manifest.runtime_library().ok_or_else(|| EmbedError::ModelInvalid {
            dir: dir.path.display().to_string(),
            problems: vec!["the manifest lists no ONNX Runtime library".into()],
        })?;
        let env = ort_environment(&dir.file(lib))?;
        let tokenizer = read_tokenizer_files(dir)?;
        let session = |precision: Precision| {
            load_session(dir, precision, &tokenizer, &env, &options)
        };
        let passages = session(options.passage_precision)?;
        let queries = if options.query_precision == options.passage_precision {
            None
        } else {
            Some(Mutex::new(session(options.query_precision)?))
        };
        let embedder = E5Embedder {
            dir: dir.path.clone(),
            model_id: format!(
                "{MODEL_ID} ({}; passages {}; prepare v1)",
                manifest.recipe,
                options.passage_precision.as_str()
            ),
            passages: Mutex::new(passages),
            queries,
            options,
            load_time: Duration::ZERO,
        };
        if embedder.options.self_check {
            embedder.self_check(&manifest)?;
        }
        Ok(E5Embedder {
            load_time: start.elapsed(),
            ..embedder
        })
    }

    /// Wall time of [`E5Embedder::load`].
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn options(&self) -> &E5Options {
        &self.options
    }

    /// The token count of `text` as the passage model sees it (prefix and special tokens
    /// included); used by benchmarks and chunk sizing.
    pub fn passage_tokens(&self, text: &str) -> Result<usize, EmbedError> {
        let session = self.passages.lock().unwrap_or_else(PoisonError::into_inner);
        let encoding = session
            .tokenizer
            .encode(passage_text(text), true)
            .map_err(|err| EmbedError::Inference(err.to_string()))?;
        Ok(encoding.get_ids().len())
    }

    /// Embeds texts exactly as given (no prefix, no identifier splitting), with the query or
    /// passage model: for experiments that compare preprocessing choices.
    pub(crate) fn embed_verbatim(
        &self,
        texts: &[String],
        query_side: bool,
    ) -> Result<Vec<Vector>, EmbedError> {
        let model = if query_side {
            self.queries.as_ref().unwrap_or(&self.passages)
        } else {
            &self.passages
        };
        self.run(model, texts.to_vec())
    }

    /// Token ids and attention masks of already-prepared passage texts, padded to the longest
    /// as the pipeline pads them (for the raw-model benchmark).
    pub(crate) fn encode_passage_batch(
        &self,
        prepared: &[&str],
    ) -> Result<Vec<(Vec<i64>, Vec<i64>)>, EmbedError> {
        let session = self.passages.lock().unwrap_or_else(PoisonError::into_inner);
        let encodings = session
            .tokenizer
            .encode_batch(prepared.to_vec(), true)
            .map_err(|err| EmbedError::Inference(err.to_string()))?;
        Ok(encodings
            .iter()
            .map(|e| {
                let ids = e.get_ids().iter().map(|&x| x as i64).collect();
                let mask = e.get_attention_mask().iter().map(|&x| x as i64).collect();
                (ids, mask)
            })
            .collect())
    }

    /// 「ログイン機能」 against "Auth Service", as the provisioner measured it (same three
    /// texts in one batch, so even int8 reproduces the figure closely).
    fn self_check(&self, manifest: &Manifest) -> Result<(), EmbedError> {
        let precision = self.options.query_precision.as_str();
        let Some(want) = manifest.check_figure(precision, "cos_login_auth") else {
            return Ok(());
        };
        let vectors = self.embed_queries(&["ログイン機能", "AuthService", "ConfigLoader"])?;
        let got = cosine(&vectors[0], &vectors[1]) as f64;
        if (got - want).abs() > 0.01 {
            return Err(EmbedError::ModelInvalid {
                dir: self.dir.display().to_string(),
                problems: vec![format!(
                    "self-check: cos(ログイン機能, Auth Service) = {got:.4} with the {precision} \
                     model, the provisioner measured {want:.4}"
                )],
            });
        }
        Ok(())
    }

    /// Embeds already-prefixed texts with one model, in length-sorted batches, returning them
    /// in input order.
    fn run(&self, model: &Mutex<TextEmbedding>, texts: Vec<String>) -> Result<Vec<Vector>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Option<Vector>> = vec![None; texts.len()];
        let batch_size = self.options.batch_size.max(1);
        let mut session = model.lock().unwrap_or_else(PoisonError::into_inner);
        for batch in order.chunks(batch_size) {
            let inputs: Vec<&str> = batch.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = session
                .embed(&inputs, Some(inputs.len()))
                .map_err(|err| EmbedError::Inference(err.to_string()))?;
            if vectors.len() != batch.len() {
                return Err(EmbedError::Inference(format!(
                    "the model returned {} vectors for {} texts",
                    vectors.len(),
                    batch.len()
                )));
            }
            for (&i, vector) in batch.iter().zip(vectors) {
                if vector.len() != DIM {
                    return Err(EmbedError::Inference(format!(
                        "the model returned a {}-d vector, expected {DIM}",
                        vector.len()
                    )));
                }
                out[i] = Some(vector);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }
}

impl Embedder for E5Embedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dims(&self) -> usize {
        DIM
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        let prepared = texts.iter().map(|t| query_text(t)).collect();
        self.run(self.queries.as_ref().unwrap_or(&self.passages), prepared)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        let prepared = texts.iter().map(|t| passage_text(t)).collect();
        self.run(&self.passages, prepared)
    }
}

fn read_tokenizer_files(dir: &ModelDir) -> Result<TokenizerFiles, EmbedError> {
    let read = |name: &str| {
        std::fs::read(dir.file(name)).map_err(|err| EmbedError::Load {
            file: dir.file(name).display().to_string(),
            reason: err.to_string(),
        })
    };
    Ok(TokenizerFiles {
        tokenizer_file: read(TOKENIZER)?,
        config_file: read(CONFIG)?,
        special_tokens_map_file: read(SPECIAL_TOKENS_MAP)?,
        tokenizer_config_file: read(TOKENIZER_CONFIG)?,
    })
}

fn load_session(
    dir: &ModelDir,
    precision: Precision,
    tokenizer: &TokenizerFiles,
    env: &ort::environment::Environment,
    options: &E5Options,
) -> Result<TextEmbedding, EmbedError> {
    let path = dir.file(precision.file());
    let load_error = |reason: String| EmbedError::Load {
        file: path.display().to_string(),
        reason,
    };
    let onnx = std::fs::read(&path).map_err(|err| load_error(err.to_string()))?;
    // No QuantizationMode::Dynamic: it would force every call into one batch. The int8 model
    // quantises activations per batch by itself.
    let model = UserDefinedEmbeddingModel::new(onnx, tokenizer.clone()).with_pooling(Pooling::Mean);
    let mut init = InitOptionsUserDefined::new()
        .with_environment(env.clone())
        .with_max_length(options.max_length.clamp(8, 512));
    if let Some(threads) = options.threads {
        init = init.with_intra_threads(threads.max(1));
    }
    TextEmbedding::try_new_from_user_defined(model, init).map_err(|err| load_error(err.to_string()))
}
