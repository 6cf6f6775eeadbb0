//! The real embedder: multilingual-e5-small through fastembed and ONNX Runtime.
//!
//! Why it looks like this (facts in `shared/notes/embedding-model-offline.md`):
//! - ONNX Runtime is a shared library shipped in the model directory and loaded at run time
//!   (`ort` `load-dynamic`). We load it ourselves with `ort::init_from` and hand the environment
//!   to fastembed, because fastembed would panic on a missing library; here it is an
//!   [`EmbedError::Runtime`] that says what to run. ONNX Runtime allows one environment per
//!   process, so it is created once and kept.
//! - Passages go through the int8 model (≈ 2× the fp32 throughput). Queries do too by default:
//!   measured here, a second (fp32) session for queries costs about 1 GB more resident memory
//!   (1.6 GB against 0.65 GB; 2.1 GB against 0.8 GB at peak while loading), doubles load time and
//!   request latency (22 ms against 12 ms), and did not separate related from unrelated pairs any
//!   better on the labelled set (held-out AUC 0.967 against 0.966). An earlier prototype saw
//!   int8 queries cost NDCG on Japanese requests, so `embedding_query_precision: "fp32"` in
//!   `.code-intel/config.json` ([`E5Options::query_precision`]) turns fp32 queries on where the
//!   memory is available.
//! - Texts are sorted by length before batching so a batch pads to similar lengths; results are
//!   returned in input order. fastembed mean-pools over the attention mask and L2-normalises.
//! - Requests come first: a session is locked per batch, batches are bounded in tokens, and
//!   bulk embedding on a background thread (indexing, `crate::background`) lets every waiting
//!   call from another thread (a search's query, a verdict's evidence) go before its next batch,
//!   so a tool call waits for at most one batch in flight. Which thread calls decides, not
//!   queries against passages: a verdict embeds passages, and used to queue behind indexing.
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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError, TryLockError};
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
    /// Most texts per model call. Sorted batches pad little, so larger batches mainly cost
    /// memory.
    pub batch_size: usize,
    /// Most (estimated, padded) tokens per model call. Bounds how long one batch holds the
    /// session, which is how long a request waits behind indexing.
    pub max_batch_tokens: usize,
    /// Longer texts are truncated to this many tokens (the model's limit is 512).
    pub max_length: usize,
    /// ONNX Runtime intra-op threads per session; `None` = every core.
    pub threads: Option<usize>,
    pub verify: VerifyLevel,
    /// Compare a known similarity with the provisioner's figure after loading.
    pub self_check: bool,
}

impl E5Options {
    /// The server's options for a project: defaults plus `embedding_query_precision`.
    pub fn from_config(config: &crate::config::Config) -> E5Options {
        // Any other value was refused (and reported) when the configuration was loaded.
        let query_precision = match config.embedding_query_precision {
            crate::config::QueryPrecision::Fp32 => Precision::Fp32,
            crate::config::QueryPrecision::Int8 => Precision::Int8,
        };
        E5Options {
            query_precision,
            ..E5Options::default()
        }
    }
}

impl Default for E5Options {
    fn default() -> Self {
        E5Options {
            passage_precision: Precision::Int8,
            query_precision: Precision::Int8,
            batch_size: 16,
            max_batch_tokens: 2048,
            max_length: 512,
            threads: None,
            verify: VerifyLevel::Quick,
            self_check: true,
        }
    }
}

/// Token ids and attention mask of one text, padded to its batch.
pub(crate) type EncodedText = (Vec<i64>, Vec<i64>);

/// Builds another session on the same model: the spare of [`Session`].
type MakeSession = Box<dyn Fn() -> Result<TextEmbedding, EmbedError> + Send + Sync>;

/// How long a tool call waits for a background batch to free the session before it takes the
/// spare. A batch is bounded in tokens and takes 0.1–0.3 s on an idle machine of two cores;
/// one that holds the session longer is being starved.
const PATIENCE: Duration = Duration::from_millis(500);

/// One ONNX session shared between threads, with precedence for urgent callers (see the
/// module doc), and a spare for them when a background batch holds the session too long.
///
/// A background batch runs on a lowered thread, which a busy machine does not run: while it
/// held the session, a verdict's embedding waited for it, tens of seconds with a build going.
/// No thread can be raised again once lowered, so the urgent caller goes around it: after
/// [`PATIENCE`], it loads a second session (once; about 1.6 s and a few hundred MB) and uses it
/// whenever a background batch holds the first. A machine that is never busy never loads it.
struct Session {
    model: Mutex<TextEmbedding>,
    urgent_waiting: AtomicUsize,
    /// Whether the holder of `model` is a background batch.
    held_in_background: AtomicBool,
    spare: OnceLock<Option<Mutex<TextEmbedding>>>,
    make_spare: Option<MakeSession>,
}

impl Session {
    fn new(model: TextEmbedding, make_spare: Option<MakeSession>) -> Session {
        Session {
            model: Mutex::new(model),
            urgent_waiting: AtomicUsize::new(0),
            held_in_background: AtomicBool::new(false),
            spare: OnceLock::new(),
            make_spare,
        }
    }

    /// The session for the calling thread: a background thread (indexing) waits for urgent
    /// callers to go first; any other is urgent.
    fn lock(&self) -> MutexGuard<'_, TextEmbedding> {
        if crate::background::is_lowered() {
            while self.urgent_waiting.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            let guard = self.model.lock().unwrap_or_else(PoisonError::into_inner);
            self.held_in_background.store(true, Ordering::SeqCst);
            return guard;
        }
        self.urgent_waiting.fetch_add(1, Ordering::SeqCst);
        let guard = self.urgent_lock();
        self.urgent_waiting.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// The session for an urgent caller: the shared one, or the spare once a background batch
    /// has held the shared one past [`PATIENCE`].
    fn urgent_lock(&self) -> MutexGuard<'_, TextEmbedding> {
        let since = Instant::now();
        loop {
            match self.model.try_lock() {
                Ok(guard) => return self.taken(guard),
                Err(TryLockError::Poisoned(poisoned)) => return self.taken(poisoned.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
            // Patience decides whether to load the spare; once it is there, a tool call takes
            // it at once whenever a background batch holds the shared session (a verdict embeds
            // its texts one call each, and paid the patience on every one).
            let spare_ready = self.spare.get().is_some_and(Option::is_some);
            let starved = self.held_in_background.load(Ordering::SeqCst)
                && (spare_ready || since.elapsed() >= PATIENCE);
            if starved && let Some(spare) = self.spare() {
                return spare.lock().unwrap_or_else(PoisonError::into_inner);
            }
            if !self.held_in_background.load(Ordering::SeqCst) {
                // Another tool call holds it: its turn is short, wait for it.
                let guard = self.model.lock().unwrap_or_else(PoisonError::into_inner);
                return self.taken(guard);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Keeps background batches off the session from now until the returned guard drops, so
    /// an urgent caller's batches follow one another instead of each waiting for a background
    /// batch taken in between (a request embedding its 20 candidates in four batches waited
    /// for four background batches).
    fn hold_for_urgent(&self) -> UrgentHold<'_> {
        self.urgent_waiting.fetch_add(1, Ordering::SeqCst);
        UrgentHold(self)
    }

    fn taken<'a>(&self, guard: MutexGuard<'a, TextEmbedding>) -> MutexGuard<'a, TextEmbedding> {
        self.held_in_background.store(false, Ordering::SeqCst);
        guard
    }

    /// The spare session, loaded on first need; `None` when it cannot be built.
    fn spare(&self) -> Option<&Mutex<TextEmbedding>> {
        let make = self.make_spare.as_ref()?;
        self.spare
            .get_or_init(|| {
                tracing::info!("a background batch holds the model; loading a spare session");
                make()
                    .map_err(|err| tracing::warn!("no spare session: {err}"))
                    .ok()
                    .map(Mutex::new)
            })
            .as_ref()
    }
}

/// An urgent caller's claim on a [`Session`] across its batches ([`Session::hold_for_urgent`]).
struct UrgentHold<'a>(&'a Session);

impl Drop for UrgentHold<'_> {
    fn drop(&mut self) {
        self.0.urgent_waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Splits `order` (text indices sorted by length) into batches of at most `max_count` texts
/// and about `max_tokens` padded tokens (estimated from byte lengths, generously for English:
/// 3 bytes per token); a text longer than the budget gets a batch of its own.
pub(crate) fn plan_batches(
    order: &[usize],
    byte_len: impl Fn(usize) -> usize,
    max_count: usize,
    max_tokens: usize,
) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for &i in order {
        // Sorted ascending, so the newest text is the longest: it sets the padded width.
        let width = byte_len(i) / 3 + 2;
        if !current.is_empty()
            && (current.len() >= max_count.max(1) || (current.len() + 1) * width > max_tokens)
        {
            batches.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// The real [`Embedder`].
pub struct E5Embedder {
    dir: PathBuf,
    model_id: String,
    passages: Session,
    /// `None` when queries use the same model as passages.
    queries: Option<Session>,
    options: E5Options,
    load_time: Duration,
}

/// ONNX Runtime allows one environment per process, ever; it is created on first use and
/// shared by every session.
static ORT_ENV: Mutex<Option<(PathBuf, ort::environment::Environment)>> = Mutex::new(None);

/// The process's ONNX Runtime environment, loading the library at `lib` the first time.
///
/// A background thread (the warm-up) does not load it itself: it would hold [`ORT_ENV`]'s lock
/// while starved, and a caller loading the model at its own priority waited 12.5 s for that
/// lock on a busy machine. The library is loaded on a thread of normal priority instead, which
/// takes and leaves the lock itself; the background thread only waits for the result.
pub(crate) fn ort_environment(lib: &Path) -> Result<ort::environment::Environment, EmbedError> {
    let loaded = ORT_ENV
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .is_some();
    if !loaded && crate::background::is_lowered() {
        let owned = lib.to_path_buf();
        return crate::background::unlowered(move || load_ort_environment(&owned)).unwrap_or_else(
            |err| {
                Err(EmbedError::Runtime {
                    path: lib.display().to_string(),
                    reason: format!("could not load it at normal priority: {err}"),
                })
            },
        );
    }
    load_ort_environment(lib)
}

/// [`ort_environment`] on the calling thread, under [`ORT_ENV`]'s lock.
fn load_ort_environment(lib: &Path) -> Result<ort::environment::Environment, EmbedError> {
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
        Self::load_unless(dir, options, &|| false)
    }

    /// [`E5Embedder::load`], given up between its steps once `given_up` says so (a starved
    /// warm-up, once a waiting caller loads the model itself: what it would still do, it would
    /// do beside that load, on the same cores and memory). Error: [`EmbedError::Load`] saying it
    /// was given up.
    pub fn load_unless(
        dir: &ModelDir,
        options: E5Options,
        given_up: &(dyn Fn() -> bool + Sync),
    ) -> Result<E5Embedder, EmbedError> {
        let start = Instant::now();
        let manifest = dir.verify(options.verify)?;
        check_given_up(given_up)?;
        let lib = manifest
            .runtime_library()
            .ok_or_else(|| EmbedError::ModelInvalid {
                dir: dir.path.display().to_string(),
                problems: vec!["the manifest lists no ONNX Runtime library".into()],
            })?;
        let verified = start.elapsed();
        let env = ort_environment(&dir.file(lib))?;
        let runtime = start.elapsed();
        let tokenizer = read_tokenizer_files(dir)?;
        tracing::debug!(
            "model directory checked in {:.2}s, ONNX Runtime ready after {:.2}s, tokenizer read after {:.2}s",
            verified.as_secs_f64(),
            runtime.as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
        check_given_up(given_up)?;
        let session = |precision: Precision| {
            load_session(dir, precision, &tokenizer, &env, &options, given_up)
        };
        // The spare's recipe: the same files, read again only if it is ever needed (the
        // tokenizer file alone is 17 MB, not worth keeping for a session that may never be).
        let spare = |precision: Precision| {
            let (dir, env, options) = (dir.clone(), env.clone(), options.clone());
            let make: MakeSession = Box::new(move || {
                let tokenizer = read_tokenizer_files(&dir)?;
                load_session(&dir, precision, &tokenizer, &env, &options, &|| false)
            });
            Some(make)
        };
        // Two sessions load in parallel: most of the time is parsing the tokenizer and
        // optimising the graph, each single-threaded.
        let (passages, queries) = if options.query_precision == options.passage_precision {
            (session(options.passage_precision)?, None)
        } else {
            let (passages, queries) = std::thread::scope(|scope| {
                let queries = scope.spawn(|| session(options.query_precision));
                let passages = session(options.passage_precision);
                let queries = queries.join().unwrap_or_else(|_| {
                    Err(EmbedError::Load {
                        file: dir
                            .file(options.query_precision.file())
                            .display()
                            .to_string(),
                        reason: "the loading thread panicked".into(),
                    })
                });
                (passages, queries)
            });
            let queries = Session::new(queries?, spare(options.query_precision));
            (passages?, Some(queries))
        };
        let embedder = E5Embedder {
            dir: dir.path.clone(),
            model_id: format!(
                "{MODEL_ID} ({}; passages {}; prepare v1)",
                manifest.recipe,
                options.passage_precision.as_str()
            ),
            passages: Session::new(passages, spare(options.passage_precision)),
            queries,
            options,
            load_time: Duration::ZERO,
        };
        check_given_up(given_up)?;
        if embedder.options.self_check {
            embedder.self_check(&manifest)?;
        }
        Ok(E5Embedder {
            load_time: start.elapsed(),
            ..embedder
        })
    }

    /// For machines with network access (cargo feature `model-download`): fastembed fetches
    /// the same model from its model hub into `cache_dir` (nothing of this crate's manifest or
    /// self-check applies; one session serves both sides). ONNX Runtime still comes from
    /// `runtime_lib`, e.g. a provisioned directory's library or `$ORT_DYLIB_PATH`.
    #[cfg(feature = "model-download")]
    pub fn download(
        cache_dir: &Path,
        runtime_lib: &Path,
        options: E5Options,
    ) -> Result<E5Embedder, EmbedError> {
        let start = Instant::now();
        let env = ort_environment(runtime_lib)?;
        let init = fastembed::TextInitOptions::new(fastembed::EmbeddingModel::MultilingualE5Small)
            .with_cache_dir(cache_dir.to_path_buf())
            .with_environment(env)
            .with_max_length(options.max_length.clamp(8, 512));
        let session = TextEmbedding::try_new(init).map_err(|err| EmbedError::Load {
            file: format!("{MODEL_ID} (download into {})", cache_dir.display()),
            reason: err.to_string(),
        })?;
        Ok(E5Embedder {
            dir: cache_dir.to_path_buf(),
            model_id: format!("{MODEL_ID} (hub download; prepare v1)"),
            passages: Session::new(session, None),
            queries: None,
            options,
            load_time: start.elapsed(),
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
        let session = self.passages.lock();
        let encoding = session
            .tokenizer
            .encode(passage_text(text), true)
            .map_err(|err| EmbedError::Inference(err.to_string()))?;
        Ok(encoding.get_ids().len())
    }

    /// Embeds texts exactly as given (no prefix, no identifier splitting), with the query or
    /// passage model: for tests that compare preprocessing choices.
    #[cfg(test)]
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
    ) -> Result<Vec<EncodedText>, EmbedError> {
        let session = self.passages.lock();
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
    fn run(&self, session: &Session, texts: Vec<String>) -> Result<Vec<Vector>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Option<Vector>> = vec![None; texts.len()];
        let batches = plan_batches(
            &order,
            |i| texts[i].len(),
            self.options.batch_size,
            self.options.max_batch_tokens,
        );
        let _urgent = (!crate::background::is_lowered() && batches.len() > 1)
            .then(|| session.hold_for_urgent());
        for batch in &batches {
            let mut model = session.lock();
            let inputs: Vec<&str> = batch.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = embed_or_isolate(&inputs, |some| {
                model
                    .embed(some, Some(some.len()))
                    .map_err(|err| EmbedError::Inference(err.to_string()))
            })?;
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

/// Batches ONNX Runtime failed on in this process, a first failure included even when the
/// second try passed (read by the stress run; a server logs each failure instead).
#[cfg(test)]
static FAILED_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Embeds one batch with `embed`, and when ONNX Runtime fails on it, tries it once more before
/// giving up. Such a failure was seen twice in the field (a `DynamicQuantizeMatMul` node
/// reporting `GetElementType is not implemented`) and its input never found again, so a
/// second failure also bisects the batch down to a text that fails on its own and names it in
/// the error and the log (length, digest, beginning): the input a test needs.
fn embed_or_isolate(
    inputs: &[&str],
    mut embed: impl FnMut(&[&str]) -> Result<Vec<Vector>, EmbedError>,
) -> Result<Vec<Vector>, EmbedError> {
    let first = match embed(inputs) {
        Ok(vectors) => return Ok(vectors),
        Err(err) => err,
    };
    #[cfg(test)]
    FAILED_RUNS.fetch_add(1, Ordering::Relaxed);
    tracing::warn!(
        "inference failed on a batch of {} texts; trying it again: {first}",
        inputs.len()
    );
    match embed(inputs) {
        Ok(vectors) => {
            tracing::warn!("the batch of {} texts passed the second time", inputs.len());
            Ok(vectors)
        }
        Err(again) => Err(failing_alone(inputs, &mut embed).unwrap_or(again)),
    }
}

/// The error of a text of `inputs` that fails on its own, found by halving; `None` when no
/// half fails (the batch fails only as a whole).
fn failing_alone(
    inputs: &[&str],
    embed: &mut impl FnMut(&[&str]) -> Result<Vec<Vector>, EmbedError>,
) -> Option<EmbedError> {
    if let [text] = inputs {
        let err = embed(inputs).err()?;
        let named = format!(
            "{err} (on a text of {} characters, sha256 {}, beginning {:?})",
            text.chars().count(),
            &crate::digest::sha256_hex(text.as_bytes())[..16],
            text.chars().take(80).collect::<String>()
        );
        tracing::error!("{named}");
        return Some(EmbedError::Inference(named));
    }
    let (left, right) = inputs.split_at(inputs.len() / 2);
    [left, right]
        .into_iter()
        .find_map(|half| embed(half).err().and_then(|_| failing_alone(half, embed)))
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

/// The error of a load given up ([`E5Embedder::load_unless`]) when `given_up` says so.
fn check_given_up(given_up: &(dyn Fn() -> bool + Sync)) -> Result<(), EmbedError> {
    if given_up() {
        return Err(EmbedError::Load {
            file: "embedding model".into(),
            reason: "given up: another load took its place".into(),
        });
    }
    Ok(())
}

fn load_session(
    dir: &ModelDir,
    precision: Precision,
    tokenizer: &TokenizerFiles,
    env: &ort::environment::Environment,
    options: &E5Options,
    given_up: &(dyn Fn() -> bool + Sync),
) -> Result<TextEmbedding, EmbedError> {
    let path = dir.file(precision.file());
    let load_error = |reason: String| EmbedError::Load {
        file: path.display().to_string(),
        reason,
    };
    let start = Instant::now();
    let onnx = std::fs::read(&path).map_err(|err| load_error(err.to_string()))?;
    let read = start.elapsed();
    // Before the graph is built and optimised, the longest step and the one that allocates most.
    check_given_up(given_up)?;
    // No QuantizationMode::Dynamic: it would force every call into one batch. The int8 model
    // quantises activations per batch by itself.
    let model = UserDefinedEmbeddingModel::new(onnx, tokenizer.clone()).with_pooling(Pooling::Mean);
    // No spinning: ONNX Runtime's pool threads busy-wait for work by default. Two processes
    // embedding at once then kept both cores spinning at normal priority while each one's
    // caller thread (lowered, see `crate::background`) waited for a core: 16 s alone became
    // 500 s each. Blocking pool threads cost nothing measurable alone.
    let mut init = InitOptionsUserDefined::new()
        .with_environment(env.clone())
        .with_max_length(options.max_length.clamp(8, 512))
        .with_session_config("session.intra_op.allow_spinning", "0")
        .with_session_config("session.inter_op.allow_spinning", "0");
    if let Some(threads) = options.threads {
        init = init.with_intra_threads(threads.max(1));
    }
    let session = TextEmbedding::try_new_from_user_defined(model, init)
        .map_err(|err| load_error(err.to_string()))?;
    tracing::debug!(
        "loaded {}: read {:.2}s, session and tokenizer {:.2}s",
        path.display(),
        read.as_secs_f64(),
        (start.elapsed() - read).as_secs_f64()
    );
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::test_model;

    /// A stand-in for a session: one vector per text, failing as `fails` says.
    fn counting(
        calls: &mut usize,
        fails: impl Fn(usize, &[&str]) -> bool,
    ) -> impl FnMut(&[&str]) -> Result<Vec<Vector>, EmbedError> {
        move |texts| {
            *calls += 1;
            if fails(*calls, texts) {
                Err(EmbedError::Inference(
                    "GetElementType is not implemented".into(),
                ))
            } else {
                Ok(texts.iter().map(|t| vec![t.len() as f32; 2]).collect())
            }
        }
    }

    #[test]
    fn a_batch_that_fails_once_is_tried_again() {
        let mut calls = 0;
        let vectors = embed_or_isolate(&["a", "bb"], counting(&mut calls, |n, _| n == 1)).unwrap();
        assert_eq!(vectors, vec![vec![1.0; 2], vec![2.0; 2]]);
        assert_eq!(calls, 2);
    }

    #[test]
    fn a_text_that_fails_every_time_is_named() {
        let texts = ["ok one", "ok two", "ok three", "the bad text", "ok five"];
        let mut calls = 0;
        let err = embed_or_isolate(
            &texts,
            counting(&mut calls, |_, some| some.contains(&"the bad text")),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("GetElementType"), "{err}");
        assert!(err.contains("a text of 12 characters"), "{err}");
        assert!(err.contains("beginning \"the bad text\""), "{err}");
        // Twice whole, then halves down to the text: a handful of calls, not one per text.
        assert!(calls <= 2 + 2 * 3, "{calls}");
    }

    #[test]
    fn a_batch_that_fails_only_whole_keeps_its_own_error() {
        let mut calls = 0;
        let err = embed_or_isolate(
            &["a", "b", "c"],
            counting(&mut calls, |_, some| some.len() == 3),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(err, "embedding failed: GetElementType is not implemented");
    }

    fn cos(a: &[f32], b: &[f32]) -> f64 {
        cosine(a, b) as f64
    }

    /// The figures the provisioner measured with its own (Python) pipeline, reproduced by ours.
    #[test]
    fn known_similarities_match_the_provisioner() {
        let model = test_model::real();
        let manifest = test_model::model_dir().manifest().unwrap();
        let v = model
            .embed_queries(&["ログイン機能", "AuthService", "ConfigLoader"])
            .unwrap();
        for (key, got) in [
            ("cos_login_auth", cos(&v[0], &v[1])),
            ("cos_login_config", cos(&v[0], &v[2])),
        ] {
            let precision = model.options().query_precision.as_str();
            let want = manifest
                .check_figure(precision, key)
                .expect("figure in manifest");
            assert!((got - want).abs() < 0.002, "{key}: {got:.4} vs {want:.4}");
        }
        // Unit length, right size.
        for x in &v {
            assert_eq!(x.len(), DIM);
            let norm = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        }
    }

    /// Queries get `query: `, passages `passage: `, identifiers are split: the pipeline's
    /// vectors equal the model's on the text written out by hand (each embedded alone, since
    /// int8 quantisation depends on the batch).
    #[test]
    fn prefixes_and_splitting_are_applied() {
        let model = test_model::real();
        let verbatim = |text: &str, query_side: bool| {
            model
                .embed_verbatim(&[text.to_string()], query_side)
                .unwrap()
                .remove(0)
        };
        let cases: &[(&str, &str, &str)] = &[
            ("ログイン機能", "query: ログイン機能", "ログイン機能"),
            ("AuthService", "query: Auth Service", "query: AuthService"),
            (
                "get_user_name",
                "query: get user name",
                "passage: get user name",
            ),
        ];
        for &(input, same, different) in cases {
            let got = model.embed_queries(&[input]).unwrap().remove(0);
            assert!(
                cos(&got, &verbatim(same, true)) > 0.99999,
                "{input:?} vs {same:?}"
            );
            assert!(
                cos(&got, &verbatim(different, true)) < 0.999,
                "{input:?} vs {different:?}"
            );
        }
        let passage = model
            .embed_passages(&["class ConfigLoader:"])
            .unwrap()
            .remove(0);
        assert!(cos(&passage, &verbatim("passage: class Config Loader:", false)) > 0.99999);
        assert!(cos(&passage, &verbatim("query: class Config Loader:", false)) < 0.999);
    }

    /// Length sorting must not scramble the output: each text's vector from a mixed batch is
    /// closest to the same text embedded alone.
    #[test]
    fn batched_results_keep_input_order() {
        let model = test_model::real();
        let texts = [
            "def load_config(path): return yaml.safe_load(open(path))",
            "ログイン",
            "A much longer passage about sending e-mail notifications to customers after they \
             place an order, with retries when the mail server is down and a template per language.",
            "",
            "SELECT * FROM orders WHERE status = 'pending'",
        ];
        let together = model.embed_passages(&texts).unwrap();
        assert_eq!(together.len(), texts.len());
        for (i, text) in texts.iter().enumerate() {
            let alone = model.embed_passages(&[text]).unwrap().remove(0);
            let best = (0..texts.len())
                .max_by(|&a, &b| cos(&alone, &together[a]).total_cmp(&cos(&alone, &together[b])))
                .unwrap();
            assert_eq!(best, i, "{text:?}");
            // int8 quantises per batch: close, not identical.
            assert!(cos(&alone, &together[i]) > 0.98, "{text:?}");
        }
        assert!(model.embed_passages(&[]).unwrap().is_empty());
    }

    /// Related texts are closer than unrelated ones across languages (the property search
    /// relies on), on pairs written for this test.
    /// Texts a repository or an agent can hand the model that are odd for it: nothing left
    /// after normalisation, control characters only, one token, far past the maximum length,
    /// mixed scripts, a lone combining mark. Each gets a finite unit vector, alone and inside
    /// a batch of ordinary texts (where its padding differs), as a passage and as a query.
    #[test]
    fn odd_texts_get_finite_unit_vectors() {
        let model = test_model::real();
        let long = "fn a() { b(); } ".repeat(2_000);
        let mixed = "ユーザー認証 user authentication 用户认证 인증 αυθεντικοποίηση аутентификация";
        let odd: Vec<&str> = vec![
            "",
            " ",
            "\u{0}\u{1}\u{7f}",
            "\t\r\n\u{b}\u{c}",
            "\u{200b}\u{200d}\u{feff}",
            "\u{301}",
            "a",
            "{",
            "ー",
            "\u{fffd}\u{fffd}",
            "😀👩‍💻",
            mixed,
            &long,
        ];
        let check = |what: &str, text: &str, v: &[f32]| {
            assert_eq!(v.len(), crate::embed::DIM, "{what} {text:?}");
            assert!(v.iter().all(|x| x.is_finite()), "{what} {text:?}");
            let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{what} {text:?}: norm {norm}");
        };
        for text in &odd {
            let alone = model
                .embed_passages(&[text])
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
            check("passage", text, &alone[0]);
            let query = model
                .embed_query(text)
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
            check("query", text, &query);
        }
        let mut batch: Vec<&str> = vec!["def login(user): check the password"];
        batch.extend(odd.iter().copied());
        batch.push("class Cart: holds the items of an order");
        let vectors = model.embed_passages(&batch).unwrap();
        assert_eq!(vectors.len(), batch.len());
        for (text, v) in batch.iter().zip(&vectors) {
            check("batched passage", text, v);
        }
    }

    #[test]
    fn related_texts_rank_above_unrelated() {
        let model = test_model::real();
        let cases: &[(&str, &str, &str)] = &[
            (
                "ログイン機能",
                "def login(email, password): check the password and open a session",
                "def load_yaml(path): read the configuration file",
            ),
            // Bare code with no words (a Laravel `Schema::create('orders', …)` migration, even
            // with its path) loses to unrelated code for this request: e5-small does not bridge
            // Japanese to code tokens, which is why ranking also needs lexical and path signals.
            (
                "注文データの保存",
                "class OrderRepository: stores orders and their line items in the database",
                "function formatDate(d: Date): string — formats a date for display",
            ),
            (
                "send an email",
                "メールを送信する関数。SMTP サーバーに接続して送信します。",
                "画像のサイズを変更する関数",
            ),
        ];
        for &(query, related, unrelated) in cases {
            let q = model.embed_query(query).unwrap();
            let p = model.embed_passages(&[related, unrelated]).unwrap();
            let (r, u) = (cos(&q, &p[0]), cos(&q, &p[1]));
            assert!(r > u + 0.02, "{query:?}: related {r:.4} unrelated {u:.4}");
        }
    }

    #[test]
    fn query_precision_comes_from_the_config() {
        use crate::config::QueryPrecision;
        let cases = [
            (QueryPrecision::Fp32, Precision::Fp32),
            (QueryPrecision::Int8, Precision::Int8),
        ];
        for (value, want) in cases {
            let config = crate::config::Config {
                embedding_query_precision: value,
                ..crate::config::Config::default()
            };
            let options = E5Options::from_config(&config);
            assert_eq!(
                (options.query_precision, options.passage_precision),
                (want, Precision::Int8),
                "{value:?}"
            );
        }
    }

    #[test]
    fn batches_are_bounded_in_count_and_tokens() {
        // Byte lengths (sorted ascending, as the pipeline sorts them).
        let lens = [30, 30, 30, 300, 300, 3000, 6000];
        let order: Vec<usize> = (0..lens.len()).collect();
        let plan = |count, tokens| plan_batches(&order, |i| lens[i], count, tokens);
        assert_eq!(plan(16, 100_000), vec![order.clone()]);
        assert_eq!(
            plan(2, 100_000),
            vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6]]
        );
        // 300 bytes ≈ 102 tokens: five of them fit in 512, and 3000 bytes needs a batch alone.
        assert_eq!(plan(16, 512), vec![vec![0, 1, 2, 3, 4], vec![5], vec![6]]);
    }

    /// A tool call's embedding (a search's query, a verdict's passage) does not wait for a
    /// whole indexing call on a background thread: it goes between batches.
    #[test]
    fn requests_overtake_bulk_embedding() {
        let model = test_model::real();
        let passage = "def handle(request):\n    user = authenticate(request.headers)\n    \
                       orders = repository.list_orders(user.id, limit=50)\n    \
                       return render('orders.html', orders=orders, user=user)\n";
        // Enough batches that the bulk call outlasts the pause below even on an idle machine.
        let texts: Vec<String> = (0..256)
            .map(|i| format!("{passage}# chunk {i}\n{passage}"))
            .collect();
        let bulk_model = model.clone();
        let bulk = crate::background::spawn("test-bulk", move || {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            bulk_model.embed_passages(&refs).unwrap();
            Instant::now()
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        model.embed_query("ログイン機能").unwrap();
        model.embed_passages(&["def login(user): ..."]).unwrap();
        let query_done = Instant::now();
        let bulk_done = bulk.join().unwrap();
        assert!(
            query_done < bulk_done,
            "the request waited for the whole bulk call"
        );
    }

    /// A background batch that the machine starves (here: one that holds the session until
    /// released) does not hold up a tool call: after the patience, it embeds on the spare, and
    /// the spare gives the same vectors.
    #[test]
    fn requests_go_around_a_starved_background_batch() {
        let model = test_model::real();
        let (held, holding) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = model.clone();
        let batch = crate::background::spawn("test-starved", move || {
            let _session = holder.passages.lock();
            held.send(()).unwrap();
            let _ = released.recv_timeout(Duration::from_secs(300));
        })
        .unwrap();
        holding.recv().unwrap();
        // The model is shared by the tests of this process: another one may have loaded the
        // spare already, and then the first call takes it at once too.
        let spare_before = model.passages.spare.get().is_some_and(Option::is_some);
        let started = Instant::now();
        let around = model.embed_query("ログイン機能").unwrap();
        let waited = started.elapsed();
        // With the spare there, the next call takes it at once.
        let started = Instant::now();
        model.embed_query("パスワード").unwrap();
        let next = started.elapsed();
        release.send(()).unwrap();
        batch.join().unwrap();
        if spare_before {
            assert!(waited < PATIENCE, "{waited:?}");
        } else {
            assert!(waited >= PATIENCE, "{waited:?}");
        }
        assert!(next < PATIENCE, "{next:?}");
        assert!(model.passages.spare.get().is_some_and(Option::is_some));
        let shared = model.embed_query("ログイン機能").unwrap();
        assert!(cos(&around, &shared) > 0.9999, "{}", cos(&around, &shared));
    }

    #[test]
    fn token_counts_include_prefix_and_special_tokens() {
        let model = test_model::real();
        // "passage: " is 3 pieces plus <s> and </s>; a longer text has more tokens.
        let empty = model.passage_tokens("").unwrap();
        assert!((3..=6).contains(&empty), "{empty}");
        assert!(
            model
                .passage_tokens("fn main() { println!(\"hello\"); }")
                .unwrap()
                > empty + 5
        );
    }
}

/// A long run of the server's way of embedding, to look for a failure of ONNX Runtime that no
/// input reproduces (`GetElementType is not implemented` in a `DynamicQuantizeMatMul` node, seen
/// twice in the field). Ignored: it runs for `CODE_INTEL_STRESS_SECS` (default 60)
/// and takes every core; `bench/README.md` says how to run it and what it found.
#[cfg(test)]
mod stress {
    use super::*;
    use crate::embed::test_model;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    /// Varied real texts: windows of 1 to 150 lines of this crate's own sources, so batches
    /// vary in count and padded length as an index's do.
    fn corpus() -> Vec<String> {
        let mut random = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut texts = Vec::new();
        for source in crate::embed::bench::source_texts(Path::new("src"), usize::MAX) {
            let lines: Vec<&str> = source.lines().collect();
            let mut at = 0;
            while at < lines.len() {
                let n = 1 + (random() % 150) as usize;
                texts.push(lines[at..(at + n).min(lines.len())].join("\n"));
                at += n;
            }
        }
        texts
    }

    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// What a busy server does at once: a background pass embedding in bulk, two tool calls
    /// embedding queries and candidates, and a session loaded and dropped beside them (the
    /// spare). Every failure of ONNX Runtime counts, even one that a second try mended.
    #[test]
    #[ignore = "a stress run for bench/README.md, minutes long"]
    fn inference_under_a_servers_load() {
        let secs: u64 = std::env::var("CODE_INTEL_STRESS_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60);
        let model = test_model::real();
        let texts = Arc::new(corpus());
        let stop = Arc::new(AtomicBool::new(false));
        let texts_done = Arc::new(AtomicU64::new(0));
        let loads = Arc::new(AtomicU64::new(0));
        let failed_before = FAILED_RUNS.load(Ordering::Relaxed);
        let mut threads = Vec::new();
        let bulk = {
            let (model, texts, stop, done) = (
                model.clone(),
                texts.clone(),
                stop.clone(),
                texts_done.clone(),
            );
            crate::background::spawn("stress-bulk", move || {
                let mut at = 0;
                while !stop.load(Ordering::SeqCst) {
                    let end = (at + 64).min(texts.len());
                    let batch: Vec<&str> = texts[at..end].iter().map(String::as_str).collect();
                    model.embed_passages(&batch).unwrap();
                    done.fetch_add(batch.len() as u64, Ordering::SeqCst);
                    at = if end == texts.len() { 0 } else { end };
                }
            })
            .unwrap()
        };
        for caller in 0..2u64 {
            let (model, texts, stop, done) = (
                model.clone(),
                texts.clone(),
                stop.clone(),
                texts_done.clone(),
            );
            threads.push(std::thread::spawn(move || {
                let queries = [
                    "ログイン機能",
                    "where are orders saved",
                    "設定を読み込む",
                    "x",
                ];
                let mut random = xorshift(caller + 1);
                while !stop.load(Ordering::SeqCst) {
                    let r = random() as usize;
                    if r.is_multiple_of(2) {
                        model.embed_query(queries[r % queries.len()]).unwrap();
                        done.fetch_add(1, Ordering::SeqCst);
                    } else {
                        let n = 1 + r % 20;
                        let at = (r / 20) % (texts.len() - n);
                        let batch: Vec<&str> =
                            texts[at..at + n].iter().map(String::as_str).collect();
                        model.embed_passages(&batch).unwrap();
                        done.fetch_add(n as u64, Ordering::SeqCst);
                    }
                }
            }));
        }
        {
            let (stop, loads) = (stop.clone(), loads.clone());
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let other = E5Embedder::load(
                        &test_model::model_dir(),
                        E5Options {
                            self_check: false,
                            ..E5Options::default()
                        },
                    )
                    .unwrap();
                    other.embed_passages(&["fn main() {}"]).unwrap();
                    loads.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_secs(5));
                }
            }));
        }
        std::thread::sleep(Duration::from_secs(secs));
        stop.store(true, Ordering::SeqCst);
        bulk.join().unwrap();
        for thread in threads {
            thread.join().unwrap();
        }
        let failed = FAILED_RUNS.load(Ordering::Relaxed) - failed_before;
        eprintln!(
            "stress: {secs} s, {} texts embedded, {} sessions loaded beside, {failed} failed runs",
            texts_done.load(Ordering::SeqCst),
            loads.load(Ordering::SeqCst)
        );
        assert_eq!(failed, 0, "ONNX Runtime failed on {failed} batches");
    }
}
