//! The semantic index of one project: the store, the embedding model slot, the sync entry points
//! and the background embedding worker, behind one handle that the tools share.
//!
//! Nothing here blocks on the model: the store opens lazily on first use (milliseconds), the
//! model loads on its own thread, lexical sync runs in the caller, and embedding runs on a
//! worker thread that outlives the call. Callers that want to wait (the CLI, `sync_index`)
//! poll the worker's counters with a budget.

use super::SymbolIndex;
use super::chunks::embedding_text;
use super::embedding_queue::{self, EmbedReport, QueueStatus};
use super::error::{IndexError, IndexResult};
use super::maintenance::Maintenance;
use super::sync::{self, ForestReport, MapReport, Progress, ProgressFn};
use super::sync_state::SyncState;
use super::write_watch::WriteWatch;
use crate::chunk::{TokenCounter, embedding_head};
use crate::embed::cache::{CachedPassages, VectorCache};
use crate::embed::{EmbedError, Embedder, EmbedderHandle, EmbedderState, Vector};
use crate::relevance::SharedRelevance;
use crate::store::{
    ChunkHit, ModelStamp, PublishReport, RemoteCache, RemoteStatus, Store, StoreCounts,
};
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

/// How long `index_status` row counts may be reused.
const COUNTS_TTL: Duration = Duration::from_secs(2);

/// Which collections a sync covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Forest,
    Map,
    All,
}

/// Where embedding stands after a sync returned.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EmbeddingStatus {
    /// `done`, `running` (continues in the background), `waiting_for_model`, `disabled`
    /// (lightweight mode) or `unavailable` (no model; see `model_error`).
    pub state: String,
    /// Chunks embedded during this call.
    pub embedded: usize,
    /// Chunks still without a vector of their whole text (none yet, or their head's only).
    pub pending: usize,
    /// Texts per second through the pipeline during this call.
    pub rate: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_error: Option<String>,
    /// Why embedding stopped (`stopped`) or waits (`paused`: the disk is full or read-only)
    /// with chunks still pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SyncOutcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forest: Option<ForestReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<MapReport>,
    pub embedding: EmbeddingStatus,
    pub seconds: f64,
    /// Set when the call returned before the sync finished (`sync_timeout_seconds`): what goes
    /// on in the background.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    /// Entries of `.code-intel/config.json` that do not apply as written (the rest does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config_problems: Vec<crate::config::ConfigProblem>,
}

/// The state of the semantic index, attached to every search answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct IndexStatus {
    /// `ready`, `loading`, `disabled` or `unavailable`.
    pub model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_error: Option<String>,
    pub chunks: usize,
    /// Chunks with a vector: of their whole text, or (`head_only`) still of their head.
    pub embedded: usize,
    /// Of `embedded`, chunks whose vector is of their head only: the background pass embeds
    /// every chunk's head first, then whole texts.
    pub head_only: usize,
    pub agreements: usize,
    /// Whether the background embedding worker is running.
    pub embedding_running: bool,
    /// A sync is storing files now (`sync_index`, a forced rebuild, a repair): with no
    /// `last_sync`, results cover only the files stored so far.
    pub syncing: bool,
    /// Unix seconds of the last completed sync, if any.
    pub last_sync: Option<i64>,
    /// The last sync is older than `sync_ttl_hours` (or there was none).
    pub stale: bool,
    /// Entries of `.code-intel/config.json` that do not apply as written (the rest does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config_problems: Vec<crate::config::ConfigProblem>,
    /// The machine's embedding cache as this process saw it: vectors found there instead of
    /// computed (`hits`), texts it did not hold (`misses`), vectors this process added. Absent
    /// when the cache is off (`CODE_INTEL_VECTOR_CACHE_MB=0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_cache: Option<crate::embed::cache::CacheStats>,
    /// Whether the store is whole, or being rebuilt after damage.
    pub store: StoreHealth,
    /// The team's vector cache (`embedding_cache_uri`), when one is configured: what it last
    /// answered (`ok`, `empty`, `unreachable`, `denied`, `no_bucket`, `error`), texts found there
    /// and not. A cache that fails never holds up a tool call: texts are embedded here meanwhile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_cache: Option<RemoteStatus>,
}

/// What `index_status.store.detail` says of damage: what the agent needs, without the storage
/// engine's paths and internals (those go to the log).
const DAMAGE_NOTE: &str = "a file of the semantic index could not be read (cut short, \
     missing or garbled); the index is rebuilt from the project's files, with vectors from the \
     machine's embedding cache";

/// `index_status.store`: whether the store can be trusted and written.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StoreHealth {
    /// `ok`; `repairing` while a damaged store is rebuilt from the project's files;
    /// `disk_full` or `read_only` while the disk refuses writes (indexing and embedding wait,
    /// searches answer from what is stored, and both resume by themselves when writes succeed).
    pub state: &'static str,
    /// What was found damaged (or that the store was rebuilt after it), without file paths of
    /// the storage engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// While `repairing`: how far the rebuild has come (the files stored again, then the
    /// chunks given their vectors back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<RepairProgress>,
}

/// `index_status.store.progress`: `done` of `total` in the rebuild's current `phase` (`scan`,
/// `index`: files stored again; `embed`: chunks given their vectors).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RepairProgress {
    pub phase: &'static str,
    pub done: usize,
    pub total: usize,
}

impl Default for StoreHealth {
    fn default() -> Self {
        StoreHealth {
            state: "ok",
            detail: None,
            progress: None,
        }
    }
}

pub struct SemanticIndex {
    root: PathBuf,
    state_dir: PathBuf,
    store_uri: String,
    lightweight: bool,
    memory_limit_mb: u64,
    config_problems: Vec<crate::config::ConfigProblem>,
    ttl: Duration,
    model: EmbedderHandle,
    /// Calibrated relevance for thresholds (map short-circuit); `None` until one is installed.
    relevance: RwLock<Option<SharedRelevance>>,
    /// The open store (or why it could not be opened); `None` until first use and after
    /// [`Self::rebuild_store`] set the damaged one aside.
    store: RwLock<Option<std::result::Result<Arc<Store>, String>>>,
    /// Whether the store is known to be damaged or being rebuilt (`index_status.store`).
    health: Mutex<StoreHealth>,
    sync_lock: Mutex<()>,
    queue: Arc<QueueStatus>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    state_cache: RwLock<Option<(SystemTime, Arc<SyncState>)>>,
    /// Row counts for `index_status`, refreshed at most every [`COUNTS_TTL`].
    counts_cache: Mutex<Option<(Instant, StoreCounts)>>,
    /// Store maintenance, in the background (see `index::maintenance`); a new one with each
    /// store.
    maintenance: RwLock<Maintenance>,
    /// The machine's embedding cache (`embed::cache`); `None` when off.
    vector_cache: Option<Arc<VectorCache>>,
    /// The team's vector cache, or why the configured location cannot be one; `None` when
    /// none is configured.
    remote_cache: Option<std::result::Result<Arc<RemoteCache>, (String, String)>>,
    /// Whether the disk refuses writes, and the watch for the end of it.
    write_watch: Arc<WriteWatch>,
    /// How many times the store was set aside and started anew ([`Self::rebuild_store`]): a
    /// read that failed on a store replaced since it began found no damage.
    generation: std::sync::atomic::AtomicU64,
    /// The model's tokenizer, which measures chunk heads (`chunk::embedding_head`); loaded on
    /// first use.
    tokens: std::sync::OnceLock<TokenCounter>,
    model_dir: Option<PathBuf>,
}

impl SemanticIndex {
    /// A handle for the project at `ws` with the project's own model handle; opens nothing yet.
    pub fn new(ws: &Workspace) -> SemanticIndex {
        Self::with_model(ws, crate::relevance::embedded::project_embedder(ws))
            .with_vector_cache(VectorCache::machine())
            .with_remote_cache(ws.config.embedding_cache_uri().as_deref())
    }

    /// The same handle reading the team's vector cache at `uri` (`None`: no team cache).
    pub fn with_remote_cache(mut self, uri: Option<&str>) -> SemanticIndex {
        self.remote_cache = uri.map(|uri| {
            RemoteCache::new(uri, crate::embed::DIM)
                .map(Arc::new)
                .map_err(|err| (uri.to_string(), err.to_string()))
        });
        self
    }

    /// The same handle with another embedding cache (`None`: every vector is computed).
    pub fn with_vector_cache(mut self, cache: Option<Arc<VectorCache>>) -> SemanticIndex {
        self.vector_cache = cache;
        self
    }

    /// A handle with an explicit model and no embedding cache (tests, embedding benchmarks).
    pub fn with_model(ws: &Workspace, model: EmbedderHandle) -> SemanticIndex {
        let cfg = &ws.config;
        let state_dir = ws.state_dir();
        let store_uri = match &cfg.store_uri {
            Some(uri) if uri.contains("://") => uri.clone(),
            Some(path) => ws.root().join(path).to_string_lossy().into_owned(),
            None => state_dir.join("lancedb").to_string_lossy().into_owned(),
        };
        // Probe where the store writes; a store on object storage is never refused by a disk
        // of this machine, and its state directory is what is left to watch.
        let probe_dir = if store_uri.contains("://") {
            state_dir.clone()
        } else {
            PathBuf::from(&store_uri)
        };
        SemanticIndex {
            root: ws.root().to_path_buf(),
            state_dir,
            store_uri,
            lightweight: cfg.lightweight_mode,
            memory_limit_mb: cfg.memory_limit_mb,
            config_problems: ws.config_report.problems.clone(),
            ttl: Duration::from_secs_f64((cfg.sync_ttl_hours.max(0.0)) * 3600.0),
            model,
            relevance: RwLock::new(None),
            store: RwLock::new(None),
            health: Mutex::new(StoreHealth::default()),
            sync_lock: Mutex::new(()),
            queue: Arc::new(QueueStatus::default()),
            worker: Mutex::new(None),
            state_cache: RwLock::new(None),
            counts_cache: Mutex::new(None),
            maintenance: RwLock::new(Maintenance::default()),
            vector_cache: None,
            remote_cache: None,
            write_watch: WriteWatch::new(probe_dir),
            generation: std::sync::atomic::AtomicU64::new(0),
            tokens: std::sync::OnceLock::new(),
            model_dir: crate::embed::ModelDir::resolve(cfg.model_dir.as_deref(), ws.root())
                .ok()
                .map(|dir| dir.path),
        }
    }

    /// The tokenizer chunk heads are measured with: the model's, else the estimate.
    fn tokens(&self) -> &TokenCounter {
        self.tokens.get_or_init(|| match &self.model_dir {
            Some(dir) => TokenCounter::load(Some(dir)),
            None => TokenCounter::estimate("no model directory"),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts loading the model in the background (server start).
    pub fn warm_up(&self) {
        self.model.start();
    }

    /// The embedding model handle (shared with whoever else embeds in this process).
    pub fn embedder(&self) -> &EmbedderHandle {
        &self.model
    }

    /// Waits up to `timeout` for the model (CLI, evaluation); returns its state then.
    pub fn wait_for_model(&self, timeout: Duration) -> EmbedderState {
        let _ = self.model.wait(timeout);
        self.model.state()
    }

    /// Installs the calibrated relevance scorer used for thresholds (map short-circuit).
    pub fn set_relevance(&self, relevance: SharedRelevance) {
        *self.relevance.write().unwrap_or_else(|p| p.into_inner()) = Some(relevance);
    }

    pub fn relevance(&self) -> Option<SharedRelevance> {
        self.relevance
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The store, opened on first use (which also starts its background maintenance).
    pub fn store(&self) -> IndexResult<Arc<Store>> {
        if let Some(opened) = self
            .store
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            return opened.clone().map_err(IndexError::Unavailable);
        }
        let mut slot = self.store.write().unwrap_or_else(|p| p.into_inner());
        if let Some(opened) = slot.as_ref() {
            return opened.clone().map_err(IndexError::Unavailable);
        }
        let opened = (|| {
            std::fs::create_dir_all(&self.state_dir)
                .map_err(|e| format!("cannot create {}: {e}", self.state_dir.display()))?;
            let store = Store::open(
                &self.store_uri,
                ModelStamp {
                    dim: crate::embed::DIM,
                },
            )
            .map(Arc::new)
            .map_err(|e| format!("{e:#}"))?;
            self.maintenance().start(store.clone());
            Ok(store)
        })();
        // A disk that refused to make the store is tried again on the next use; any other
        // failure would only repeat.
        let refused = opened
            .as_ref()
            .err()
            .is_some_and(|e: &String| super::error::WriteBlock::of_text(e).is_some());
        if !refused {
            *slot = Some(opened.clone());
        }
        opened.map_err(IndexError::Unavailable)
    }

    /// What to run when a disk that refused writes accepts them again: the owner's sync,
    /// which has the workspace this handle does not keep.
    pub fn on_writes_resumed(&self, resume: impl Fn() + Send + Sync + 'static) {
        self.write_watch.on_resume(resume);
    }

    /// What refuses the index's writes now, if anything (`index_status.store` says it too).
    pub fn write_block(&self) -> Option<super::error::WriteBlock> {
        self.write_watch.blocked()
    }

    /// The store's maintenance scheduler.
    pub fn maintenance(&self) -> Maintenance {
        self.maintenance
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Sets the store aside and starts an empty one: its directory is moved to
    /// `lancedb.damaged` (the previous one there is deleted), the sync state is forgotten, and
    /// the next sync indexes every file again. Vectors come back from the machine's embedding
    /// cache, so only text it never held is embedded again. For a damaged store and for
    /// `sync_index {force: true}`. A store on object storage is not moved: an error says so.
    pub fn rebuild_store(&self, reason: &str) -> IndexResult<()> {
        self.rebuild_store_of(reason, None).map(drop)
    }

    /// [`Self::rebuild_store`] of the store of `generation` only (`None`: whichever is open):
    /// one set aside meanwhile, by a forced sync or another reader's repair, which may still be
    /// storing the files again, is not rebuilt twice. Returns whether it rebuilt.
    fn rebuild_store_of(&self, reason: &str, generation: Option<u64>) -> IndexResult<bool> {
        if self.store_uri.contains("://") {
            return Err(IndexError::Unavailable(format!(
                "the store at {} cannot be rebuilt in place; delete it and sync again",
                self.store_uri
            )));
        }
        let _guard = self.sync_lock.lock().unwrap_or_else(|p| p.into_inner());
        if generation.is_some_and(|g| g != self.store_generation()) {
            return Ok(false);
        }
        tracing::warn!("rebuilding the semantic store: {reason}");
        *self.health.lock().unwrap_or_else(|p| p.into_inner()) = StoreHealth {
            state: "repairing",
            detail: Some(reason.to_string()),
            ..StoreHealth::default()
        };
        // The worker stays stopped, and the store's slot closed, until the directory is set
        // aside: a worker or a search starting meanwhile would open (and write into) the old
        // directory under the new name, or create a store there that the move takes away.
        let _worker = self.stop_worker_holding();
        let old_maintenance =
            std::mem::take(&mut *self.maintenance.write().unwrap_or_else(|p| p.into_inner()));
        old_maintenance.stop();
        // Holders of the old store (a search in flight) keep it until they are done; their
        // reads may fail now, and the generation tells them why.
        let mut slot = self.store.write().unwrap_or_else(|p| p.into_inner());
        slot.take();
        self.generation.fetch_add(1, Ordering::SeqCst);
        let dir = PathBuf::from(&self.store_uri);
        if dir.exists() {
            let aside = dir.with_file_name(format!(
                "{}.damaged",
                dir.file_name()
                    .map_or("lancedb".into(), |n| n.to_string_lossy())
            ));
            let _ = std::fs::remove_dir_all(&aside);
            std::fs::rename(&dir, &aside).map_err(IndexError::io(format!(
                "moving the damaged store {} aside",
                dir.display()
            )))?;
        }
        match std::fs::remove_file(self.state_dir.join(super::sync_state::STATE_FILE)) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(IndexError::io("forgetting the sync state")(err)),
        }
        *self.state_cache.write().unwrap_or_else(|p| p.into_inner()) = None;
        *self.counts_cache.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(true)
    }

    /// Which store this is: changes each time [`Self::rebuild_store`] sets one aside.
    pub fn store_generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// After a rebuild's sync stored every file again: the store is whole.
    fn mark_healthy(&self) {
        let mut health = self.health.lock().unwrap_or_else(|p| p.into_inner());
        if health.state != "ok" {
            *health = StoreHealth {
                state: "ok",
                detail: health.detail.take().map(|d| format!("rebuilt after: {d}")),
                ..StoreHealth::default()
            };
        }
    }

    /// Records how far a rebuild has come, for `index_status.store.progress`.
    fn repair_progress(&self, p: &Progress) {
        let mut health = self.health.lock().unwrap_or_else(|p| p.into_inner());
        if health.state == "repairing" {
            health.progress = Some(RepairProgress {
                phase: p.phase,
                done: p.done,
                total: p.total,
            });
        }
    }

    /// Brings the store's indexes up to date now, waiting up to `timeout` (the CLI does this
    /// before it exits, since the background maintenance dies with the process).
    pub fn finish_maintenance(&self, timeout: Duration) -> IndexResult<bool> {
        self.store()?;
        Ok(self.maintenance().finish(timeout))
    }

    /// Never indexed (a search before any sync got anywhere): builds the lexical and symbol
    /// index now, which takes seconds; embedding is left to the background or `code-intel index`.
    pub fn ensure_indexed(&self, ws: &Workspace, symbols: &SymbolIndex) -> IndexResult<()> {
        if self.sync_state().last_sync.is_none() {
            self.sync_lexical(ws, symbols)?;
        }
        Ok(())
    }

    /// [`Self::ensure_indexed`] for a tool call, which does not queue behind another sync for
    /// longer than `patience`: a forced rebuild or a repair stores every file again (about 25 s
    /// on a 5k-file repository), and the call then answers from the files stored so far, with
    /// [`IndexStatus::syncing`] saying so. Returns whether a sync has completed.
    pub fn ensure_indexed_within(
        &self,
        ws: &Workspace,
        symbols: &SymbolIndex,
        patience: Duration,
    ) -> IndexResult<bool> {
        let deadline = Instant::now() + patience;
        loop {
            if self.sync_state().last_sync.is_some() {
                return Ok(true);
            }
            if !self.syncing() {
                // Another call may take the lock first; this one then waits for it, as before.
                self.sync_lexical(ws, symbols)?;
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stores every file and builds the full-text index, leaving embedding to the background.
    fn sync_lexical(&self, ws: &Workspace, symbols: &SymbolIndex) -> IndexResult<()> {
        self.sync(
            ws,
            symbols,
            Target::All,
            false,
            Some(Duration::ZERO),
            &|_| {},
        )
        .map(drop)
    }

    /// Holds the lock a sync holds, as a long sync does (tests of what waits for one).
    #[cfg(test)]
    pub(crate) fn hold_sync_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.sync_lock.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a sync (or a store rebuild) holds the store's write lock now.
    fn syncing(&self) -> bool {
        matches!(
            self.sync_lock.try_lock(),
            Err(std::sync::TryLockError::WouldBlock)
        )
    }

    /// The recorded sync state (cached; re-read when the file changes).
    pub fn sync_state(&self) -> Arc<SyncState> {
        let path = SyncState::path(&self.state_dir);
        let mtime = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        if let Some((seen, state)) = self
            .state_cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            && *seen == mtime
        {
            return state.clone();
        }
        let state = Arc::new(SyncState::load(&self.state_dir, &self.store_uri));
        *self.state_cache.write().unwrap_or_else(|p| p.into_inner()) = Some((mtime, state.clone()));
        state
    }

    /// Whether the last sync is older than the TTL (or there was none).
    pub fn needs_sync(&self) -> bool {
        match self.sync_state().last_sync {
            None => true,
            Some(t) => (sync::now_secs() - t) as f64 > self.ttl.as_secs_f64(),
        }
    }

    pub fn status(&self) -> IndexStatus {
        let (model, model_error) = state_label(&self.model.state());
        let counts = {
            let mut cached = self.counts_cache.lock().unwrap_or_else(|p| p.into_inner());
            match *cached {
                Some((at, counts)) if at.elapsed() < COUNTS_TTL => counts,
                _ => {
                    let counts = self
                        .store()
                        .ok()
                        .and_then(|s| s.counts().ok())
                        .unwrap_or_default();
                    *cached = Some((Instant::now(), counts));
                    counts
                }
            }
        };
        IndexStatus {
            model: model.into(),
            model_error,
            chunks: counts.chunks,
            embedded: counts.embedded,
            head_only: counts.head_only,
            agreements: counts.agreements,
            embedding_running: self.queue.running.load(Ordering::Relaxed),
            syncing: self.syncing(),
            last_sync: self.sync_state().last_sync,
            stale: self.needs_sync(),
            config_problems: self.config_problems.clone(),
            vector_cache: self.vector_cache.as_ref().map(|c| c.stats()),
            store: match self.write_watch.blocked() {
                Some(block) => StoreHealth {
                    state: block.state(),
                    detail: Some(block.note().to_string()),
                    ..StoreHealth::default()
                },
                None => self
                    .health
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone(),
            },
            remote_cache: self.remote_cache.as_ref().map(|remote| match remote {
                Ok(cache) => cache.status(),
                Err((uri, why)) => RemoteStatus::unusable(uri, why),
            }),
        }
    }

    /// The team's vector cache: `Ok(None)` when none is configured, an error naming the
    /// problem when the configured location cannot be one.
    pub fn remote(&self) -> IndexResult<Option<Arc<RemoteCache>>> {
        match &self.remote_cache {
            None => Ok(None),
            Some(Ok(cache)) => Ok(Some(cache.clone())),
            Some(Err((_, why))) => Err(IndexError::Unavailable(why.clone())),
        }
    }

    /// Offers this project's vectors to the team's cache (see `index::publish`); waits for
    /// the model. Fails when no cache is configured or the store refuses the writes.
    pub fn publish(&self, progress: ProgressFn) -> IndexResult<PublishReport> {
        let remote = self.remote()?.ok_or_else(|| {
            IndexError::Unavailable(
                "no team cache is configured: set embedding_cache_uri in .code-intel/config.json \
                 or CODE_INTEL_EMBEDDING_CACHE_URI"
                    .into(),
            )
        })?;
        let model = self.model.wait(Duration::from_secs(120))?;
        let store = self.store()?;
        let with = embedding_queue::Embedding {
            model: model.as_ref(),
            cache: self.vector_cache.as_deref(),
            remote: None,
            tokens: self.tokens(),
            batch: embedding_queue::batch_size(self.memory_limit_mb),
        };
        super::publish::publish(&store, &with, &remote, progress)
    }

    /// Where embedding stands now, without starting or waiting for anything (a call that
    /// returned before its sync finished).
    pub fn embedding_status(&self) -> EmbeddingStatus {
        let status = self.status();
        let pending = status.chunks.saturating_sub(status.embedded) + status.head_only;
        let halted = self.halted(pending);
        let state = if self.lightweight {
            "disabled"
        } else if status.model_error.is_some() {
            "unavailable"
        } else if let Some((state, _)) = &halted {
            state
        } else if status.embedding_running || pending > 0 {
            if status.model == "ready" {
                "running"
            } else {
                "waiting_for_model"
            }
        } else {
            "running"
        };
        EmbeddingStatus {
            state: state.into(),
            embedded: 0,
            pending,
            rate: 0.0,
            model_error: status.model_error,
            error: halted.map(|(_, why)| why),
        }
    }

    /// Why embedding is not going on with `pending` chunks left, if it is not: `paused` while
    /// the disk refuses writes, `stopped` when the worker ended on an error.
    fn halted(&self, pending: usize) -> Option<(&'static str, String)> {
        if let Some(block) = self.write_watch.blocked() {
            return Some(("paused", block.note().to_string()));
        }
        if pending == 0 || self.queue.running.load(Ordering::Relaxed) {
            return None;
        }
        self.queue.error().map(|why| ("stopped", why))
    }

    /// [`Self::sync`] for a caller that must answer within `limit` (`sync_timeout_seconds`, a
    /// tool call's time): the indexing runs on a thread of its own and goes on after `limit`
    /// has passed, with the outcome's `background` saying so; embedding gets what is left of
    /// `limit` and continues in the background either way. Indexing commits file batch by file
    /// batch, so a process that exits meanwhile leaves a store the next sync completes.
    pub fn sync_within(
        self: &Arc<Self>,
        ws: &Arc<Workspace>,
        symbols: &Arc<SymbolIndex>,
        target: Target,
        force: bool,
        limit: Duration,
        progress: Arc<dyn Fn(Progress) + Send + Sync>,
    ) -> IndexResult<SyncOutcome> {
        let started = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        let (ws_, symbols_, this, sink) =
            (ws.clone(), symbols.clone(), self.clone(), progress.clone());
        std::thread::Builder::new()
            .name("code-intel-sync-call".into())
            .spawn(move || {
                let result =
                    this.sync(&ws_, &symbols_, target, force, Some(Duration::ZERO), &*sink);
                if let Err(err) = &result {
                    tracing::warn!("sync failed: {err:#}");
                }
                let _ = tx.send(result);
            })
            .map_err(IndexError::Thread)?;
        let received = (!limit.is_zero())
            .then(|| rx.recv_timeout(limit).ok())
            .flatten();
        let Some(result) = received else {
            return Ok(SyncOutcome {
                forest: None,
                map: None,
                embedding: self.embedding_status(),
                seconds: started.elapsed().as_secs_f64(),
                background: Some(format!(
                    "the sync ran past sync_timeout_seconds ({} s) and continues in the background \
                     of this process (if the process ends first, the next sync resumes it); \
                     semantic_search answers from what is indexed so far, and its index_status \
                     shows the progress",
                    limit.as_secs()
                )),
                config_problems: Vec::new(),
            });
        };
        let mut outcome = result?;
        outcome.embedding =
            self.embed(Some(limit.saturating_sub(started.elapsed())), &*progress)?;
        outcome.seconds = started.elapsed().as_secs_f64();
        Ok(outcome)
    }

    /// Syncs `target`; then embeds for up to `embed_budget` (None: until done), reporting
    /// progress. Embedding that does not finish in the budget continues in the background.
    pub fn sync(
        &self,
        ws: &Workspace,
        symbols: &SymbolIndex,
        target: Target,
        force: bool,
        embed_budget: Option<Duration>,
        progress: ProgressFn,
    ) -> IndexResult<SyncOutcome> {
        let started = Instant::now();
        let (forest, map) = self.sync_stored(ws, symbols, target, force, progress)?;
        let embedding = self.embed(embed_budget, progress)?;
        Ok(SyncOutcome {
            forest,
            map,
            embedding,
            seconds: started.elapsed().as_secs_f64(),
            background: None,
            config_problems: Vec::new(),
        })
    }

    /// The first half of [`Self::sync`]: the chunks stored and the full-text index built, with
    /// no chunk embedded and no embedding worker started. What a project's index holds in the
    /// first seconds, kept that way: a measure of the judge in that state must not have its
    /// field change under it, nor wait for vectors it does not read.
    pub fn sync_stored(
        &self,
        ws: &Workspace,
        symbols: &SymbolIndex,
        target: Target,
        force: bool,
        progress: ProgressFn,
    ) -> IndexResult<(Option<ForestReport>, Option<MapReport>)> {
        let result = self.store_or_rebuild(ws, symbols, target, force, progress);
        // Every way this can fail on a disk that refuses writes (setting the store aside
        // included) is the same state.
        match &result {
            Ok(_) => self.write_watch.cleared(),
            Err(err) => {
                self.write_watch.note(err);
            }
        }
        result
    }

    /// [`Self::sync_stored`]'s work: a forced sync starts from an empty store, and a store
    /// found damaged is set aside and the files stored again into a new one.
    fn store_or_rebuild(
        &self,
        ws: &Workspace,
        symbols: &SymbolIndex,
        target: Target,
        force: bool,
        progress: ProgressFn,
    ) -> IndexResult<(Option<ForestReport>, Option<MapReport>)> {
        if force {
            // One whose files are damaged is not rewritten in place (its damage would stay).
            self.rebuild_store("a forced sync (sync_index {force: true} or `index --force`)")?;
        }
        let generation = self.store_generation();
        match self.store_files(ws, symbols, target, force, progress) {
            // A store with damaged files stays broken whatever is synced into it: start over.
            Err(err) if err.is_store_damage() => {
                self.set_damaged_aside(&err, generation)?;
                let tracked = |p: Progress| {
                    self.repair_progress(&p);
                    progress(p);
                };
                self.store_files(ws, symbols, target, false, &tracked)
            }
            result => result,
        }
    }

    /// [`Self::sync_stored`] into the store as it is.
    fn store_files(
        &self,
        ws: &Workspace,
        symbols: &SymbolIndex,
        target: Target,
        force: bool,
        progress: ProgressFn,
    ) -> IndexResult<(Option<ForestReport>, Option<MapReport>)> {
        let (forest, map) = {
            let _guard = self.sync_lock.lock().unwrap_or_else(|p| p.into_inner());
            // Taken under the lock: a forced sync that held it may have set the store aside.
            let store = self.store()?;
            let _writing = self.maintenance().writing();
            if force {
                // A forced rebuild must not race the worker writing vectors for old rows.
                self.stop_worker();
            }
            let forest = match target {
                Target::Forest | Target::All => {
                    Some(sync::sync_forest(ws, symbols, &store, force, progress)?)
                }
                Target::Map => None,
            };
            let map = match target {
                Target::Map | Target::All => {
                    let model = self.model.get_if_ready();
                    if let Some(m) = &model {
                        store.adopt_model(m.model_id())?;
                    }
                    let embed = model.as_ref().map(|m| {
                        move |texts: &[String]| -> IndexResult<Vec<Vec<f32>>> {
                            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                            Ok(m.embed_queries(&refs)?)
                        }
                    });
                    Some(sync::sync_map(
                        ws,
                        symbols,
                        &store,
                        embed
                            .as_ref()
                            .map(|f| f as &dyn Fn(&[String]) -> IndexResult<Vec<Vec<f32>>>),
                    )?)
                }
                Target::Forest => None,
            };
            (forest, map)
        };
        *self.state_cache.write().unwrap_or_else(|p| p.into_inner()) = None;
        *self.counts_cache.lock().unwrap_or_else(|p| p.into_inner()) = None;
        if target == Target::All {
            self.mark_healthy();
        }
        Ok((forest, map))
    }

    /// Heals the store of `generation` whose files a read found damaged (`found`,
    /// [`IndexError::is_store_damage`]): sets it aside and syncs the project into a new one
    /// within `limit`, the rest going on in the background, vectors coming back from the
    /// machine's cache. Nothing to do when that store was set aside already (a forced sync, or
    /// another reader's repair, which may still be storing the files again): the failed read
    /// met the move, not damage, and a second rebuild would throw that work away.
    pub fn repair(
        self: &Arc<Self>,
        ws: &Arc<Workspace>,
        symbols: &Arc<SymbolIndex>,
        found: &IndexError,
        generation: u64,
        limit: Duration,
    ) -> IndexResult<()> {
        if !self.set_damaged_aside(found, generation)? {
            return Ok(());
        }
        let this = Arc::downgrade(self);
        let tracked = move |p: Progress| {
            if let Some(this) = this.upgrade() {
                this.repair_progress(&p);
            }
        };
        self.sync_within(ws, symbols, Target::All, false, limit, Arc::new(tracked))
            .map(drop)
    }

    /// Sets the store of `generation` aside as damaged ([`Self::rebuild_store_of`]), unless
    /// it was set aside already; returns whether it did.
    fn set_damaged_aside(&self, found: &IndexError, generation: u64) -> IndexResult<bool> {
        let rebuilt = self.rebuild_store_of(DAMAGE_NOTE, Some(generation))?;
        if rebuilt {
            tracing::warn!("the store was found damaged: {found:#}");
        }
        Ok(rebuilt)
    }

    /// Makes sure the worker embeds pending chunks, then waits up to `budget` (None: until it
    /// is done or the model turns out unavailable), forwarding its progress.
    pub fn embed(
        &self,
        budget: Option<Duration>,
        progress: ProgressFn,
    ) -> IndexResult<EmbeddingStatus> {
        let store = self.store()?;
        let pending = |s: &Store| {
            s.counts()
                .map(|c| c.chunks - c.embedded + c.head_only)
                .unwrap_or(0)
        };
        let at_rest = |state: &str, pending: usize| EmbeddingStatus {
            state: state.into(),
            embedded: 0,
            pending,
            rate: 0.0,
            model_error: None,
            error: None,
        };
        if self.lightweight {
            return Ok(at_rest("disabled", pending(&store)));
        }
        let before = pending(&store);
        // A disk that refuses writes would fail the worker's first commit: it starts again
        // when the disk accepts writes (`write_watch`).
        if let Some(block) = self.write_watch.blocked() {
            return Ok(EmbeddingStatus {
                error: Some(block.note().to_string()),
                ..at_rest("paused", before)
            });
        }
        // Vectors of another model count as pending too: the worker clears and redoes them.
        let stale_model = match self.model.get_if_ready() {
            Some(m) => store.vector_model()?.is_some_and(|id| id != m.model_id()),
            None => false,
        };
        if before == 0 && !stale_model && !self.queue.running.load(Ordering::Relaxed) {
            return Ok(at_rest("done", 0));
        }
        self.start_worker();
        let started = Instant::now();
        let deadline = budget.map(|b| started + b);
        let so_far = |state: &str| {
            let after = pending(&store);
            let embedded = before.saturating_sub(after);
            EmbeddingStatus {
                embedded,
                rate: embedded as f64 / started.elapsed().as_secs_f64().max(1e-9),
                ..at_rest(state, after)
            }
        };
        let mut last_reported = (usize::MAX, usize::MAX);
        loop {
            let running = self.queue.running.load(Ordering::Relaxed);
            let done = self.queue.embedded.load(Ordering::Relaxed);
            let total = self.queue.total.load(Ordering::Relaxed);
            let pass = self.queue.pass.load(Ordering::Relaxed);
            if (pass, done) != last_reported && total > 0 {
                let (phase, what) = match pass {
                    0 => ("embed heads", "chunk heads"),
                    _ => ("embed", "chunks"),
                };
                progress(Progress {
                    phase,
                    done,
                    total,
                    message: format!("embedded {done}/{total} {what}"),
                });
                last_reported = (pass, done);
            }
            let model = self.model.state();
            if let EmbedderState::Failed(reason) | EmbedderState::Disabled(reason) = &model
                && !running
            {
                return Ok(EmbeddingStatus {
                    model_error: Some(reason.clone()),
                    ..at_rest("unavailable", pending(&store))
                });
            }
            if !running {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(
                    if matches!(model, EmbedderState::Loading | EmbedderState::NotStarted) {
                        so_far("waiting_for_model")
                    } else {
                        so_far("running")
                    },
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let status = so_far("done");
        Ok(match self.halted(status.pending) {
            // The worker ended with chunks left: say why, never "running".
            Some((state, why)) => EmbeddingStatus {
                state: state.into(),
                error: Some(why),
                ..status
            },
            None if status.pending > 0 => EmbeddingStatus {
                state: "running".into(),
                ..status
            },
            None => status,
        })
    }

    /// Starts the background worker unless one is running.
    fn start_worker(&self) {
        let mut worker = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        if self.queue.running.swap(true, Ordering::SeqCst) {
            // Running already: whatever the caller stored is picked up, heads first.
            self.queue.more.store(true, Ordering::Relaxed);
            return;
        }
        // The store as it is now, under the worker's lock: a rebuild sets the old one aside
        // while holding it.
        let store = match self.store() {
            Ok(store) => store,
            Err(err) => {
                tracing::warn!("cannot start the embedding worker: {err:#}");
                self.queue.running.store(false, Ordering::SeqCst);
                return;
            }
        };
        if let Some(old) = worker.take() {
            let _ = old.join();
        }
        self.queue.cancel.store(false, Ordering::SeqCst);
        self.queue.set_error(None);
        let queue = self.queue.clone();
        let watch = self.write_watch.clone();
        let model = self.model.clone();
        let maintenance = self.maintenance();
        let batch = embedding_queue::batch_size(self.memory_limit_mb);
        let cache = self.vector_cache.clone();
        let remote = self.remote().ok().flatten();
        let tokens = self.tokens().clone();
        let spawned = crate::background::spawn("code-intel-embed", move || {
            let run = || -> IndexResult<EmbedReport> {
                // Wait for the model as long as it takes; searches meanwhile go lexical.
                let model = loop {
                    match model.wait(Duration::from_secs(1)) {
                        Ok(m) => break m,
                        Err(EmbedError::NotReady) if !queue.cancel.load(Ordering::Relaxed) => {
                            continue;
                        }
                        Err(_) => return Ok(EmbedReport::default()),
                    }
                };
                let _writing = maintenance.writing();
                // Vectors of another model are cleared before any new one is written.
                store.adopt_model(model.model_id())?;
                let with = embedding_queue::Embedding {
                    model: model.as_ref(),
                    cache: cache.as_deref(),
                    remote: remote.as_deref(),
                    tokens: &tokens,
                    batch,
                };
                embedding_queue::run(&store, &with, None, &queue, &|_| {})
            };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                Ok(Ok(report)) => tracing::info!(
                    "embedded {} chunks in {:.1}s ({:.1}/s), {} remaining",
                    report.embedded,
                    report.seconds,
                    report.rate,
                    report.remaining
                ),
                Ok(Err(err)) => {
                    let why = match err.write_block() {
                        Some(block) => block.note().to_string(),
                        None => crate::error::without_source_locations(&format!(
                            "embedding stopped on an error: {err:#}"
                        )),
                    };
                    if !watch.note(&err) {
                        tracing::warn!("{why}");
                    }
                    queue.set_error(Some(why));
                }
                Err(_) => {
                    tracing::warn!("embedding worker panicked");
                    queue.set_error(Some("the embedding worker panicked".into()));
                }
            }
            queue.running.store(false, Ordering::SeqCst);
        });
        match spawned {
            Ok(handle) => *worker = Some(handle),
            Err(err) => {
                tracing::warn!("cannot start the embedding worker: {err}");
                self.queue.running.store(false, Ordering::SeqCst);
            }
        }
    }

    fn stop_worker(&self) {
        drop(self.stop_worker_holding());
    }

    /// Stops the worker and returns its slot still locked: no worker starts until the guard
    /// is dropped ([`Self::start_worker`] takes the same lock).
    fn stop_worker_holding(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<std::thread::JoinHandle<()>>> {
        let mut worker = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        self.queue.cancel.store(true, Ordering::SeqCst);
        if let Some(handle) = worker.take() {
            let _ = handle.join();
        }
        self.queue.cancel.store(false, Ordering::SeqCst);
        worker
    }

    /// Files (project-relative) the agent asked about: the embedding queue embeds their chunks
    /// before others' (see `embedding_queue`).
    pub fn prefer_files(&self, files: &[String]) {
        self.queue.prefer(files);
    }

    /// Query embedding if the model is ready right now and the store holds its vectors
    /// (never waits).
    /// The model, once loaded.
    pub fn embedder_if_ready(&self) -> Option<Arc<dyn crate::embed::Embedder>> {
        self.model.get_if_ready()
    }

    pub fn query_vector(&self, query: &str) -> Option<Vec<f32>> {
        let model = self.model.get_if_ready()?;
        let store = self.store().ok()?;
        if store.vector_model().ok()?.as_deref() != Some(model.model_id()) {
            return None;
        }
        match model.embed_query(query) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::warn!("query embedding failed: {err}");
                None
            }
        }
    }
}

impl SemanticIndex {
    /// Vectors for chunks still waiting for theirs, computed now for a request (query-time
    /// embedding) from each chunk's head ([`embedding_head`]): from the machine's embedding
    /// cache, else by the model in one call, kept in the cache so a later request does not
    /// compute them again. The head is the one the background pass embeds first, so that pass
    /// finds these in the cache. `None` without a model, or when the model fails.
    ///
    /// What bounds the wait is the caller's count of chunks and the head's size. The call runs
    /// on the caller's thread, which goes before the background pass's batches and keeps them
    /// off the session until it is done (`embed::onnx`).
    pub fn vectors_now(&self, chunks: &[&ChunkHit]) -> Vec<Option<Vector>> {
        let Some(model) = self.model.get_if_ready() else {
            return vec![None; chunks.len()];
        };
        let passages = CachedPassages::new(self.vector_cache.as_deref(), model.as_ref());
        let texts: Vec<String> = chunks
            .iter()
            .map(|c| {
                let text = embedding_text(&c.file, &c.chunk_type, &c.name, &c.metadata, &c.content);
                embedding_head(&text, self.tokens()).to_string()
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut found = passages.lookup(&refs);
        // One model call for every candidate the cache lacks.
        if let Err(err) = passages.compute_missing(&refs, &mut found, usize::MAX) {
            tracing::warn!("query-time embedding failed: {err}");
        }
        found.into_iter().map(|(_, vector)| vector).collect()
    }
}

impl Drop for SemanticIndex {
    fn drop(&mut self) {
        self.write_watch.stop();
        self.stop_worker();
        self.maintenance().stop();
    }
}

/// `index_status.model` and its reason.
fn state_label(state: &EmbedderState) -> (&'static str, Option<String>) {
    match state {
        EmbedderState::NotStarted | EmbedderState::Loading => ("loading", None),
        EmbedderState::Ready => ("ready", None),
        EmbedderState::Failed(reason) => ("unavailable", Some(reason.clone())),
        EmbedderState::Disabled(reason) => ("disabled", Some(reason.clone())),
    }
}
