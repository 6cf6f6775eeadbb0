//! The model, loaded lazily and warmed up on a thread of its own.
//!
//! Loading takes one to two seconds on an idle machine (the int8 model's graph is optimised, and
//! an fp32 query model loads beside it when configured), and no MCP call may block on it for
//! more than a second: while it loads, searches answer from lexical and symbol signals and
//! say so (`index_status`). [`EmbedderHandle`] is that contract: [`EmbedderHandle::start`]
//! begins loading on a thread of its own (the server calls it at start-up),
//! [`EmbedderHandle::get_if_ready`] returns the model or `None` at once (taking only a mutex
//! held for field reads), and [`EmbedderHandle::wait`] blocks for at most the time given
//! (indexing and the CLI use it). A failed load is remembered with its reason and retried when
//! asked again after [`RETRY_AFTER`], so installing the model while the server runs is enough.

use super::{E5Embedder, E5Options, EmbedError, Embedder, ModelDir};
use serde::Serialize;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long a failed load is reported before the next request tries again.
pub const RETRY_AFTER: Duration = Duration::from_secs(60);

type Loader = Arc<dyn Fn() -> Result<Arc<dyn Embedder>, EmbedError> + Send + Sync>;

/// What a caller can learn about the model without waiting.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum EmbedderState {
    /// Nobody asked for the model yet.
    NotStarted,
    /// Loading on the loader thread.
    Loading,
    Ready,
    /// The last load failed; the reason says how to fix it.
    Failed(String),
    /// Embeddings are switched off (lightweight mode).
    Disabled(String),
}

enum Slot {
    NotStarted,
    Loading {
        since: Instant,
    },
    Ready {
        embedder: Arc<dyn Embedder>,
        load_time: Duration,
    },
    Failed {
        error: EmbedError,
        at: Instant,
    },
    Disabled(String),
}

struct Shared {
    slot: Mutex<Slot>,
    changed: Condvar,
    loader: Option<Loader>,
}

/// A cheap, cloneable handle on the one model of a process. See the module doc.
#[derive(Clone)]
pub struct EmbedderHandle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for EmbedderHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedderHandle")
            .field("state", &self.state())
            .finish()
    }
}

impl EmbedderHandle {
    /// A handle that loads with `loader` on first need (or on [`EmbedderHandle::start`]).
    pub fn lazy(
        loader: impl Fn() -> Result<Arc<dyn Embedder>, EmbedError> + Send + Sync + 'static,
    ) -> Self {
        Self::with(Slot::NotStarted, Some(Arc::new(loader)))
    }

    /// The real model from `dir`.
    pub fn for_model_dir(dir: ModelDir, options: E5Options) -> Self {
        Self::lazy(move || {
            let embedder = E5Embedder::load(&dir, options.clone())?;
            tracing::info!(
                "embedding model loaded from {} in {:.2}s",
                embedder.dir().display(),
                embedder.load_time().as_secs_f64()
            );
            Ok(Arc::new(embedder) as Arc<dyn Embedder>)
        })
    }

    /// The real model for the project at `root`: directory and options from its config (a
    /// directory that cannot be resolved becomes a failed load with the reason).
    pub fn for_project(root: &std::path::Path, config: &crate::config::Config) -> Self {
        let options = E5Options::from_config(config);
        match ModelDir::resolve(config.model_dir.as_deref(), root) {
            Ok(dir) => Self::for_model_dir(dir, options),
            Err(err) => Self::lazy(move || Err(err.clone())),
        }
    }

    /// A handle on a model that is already loaded (tests, the fake embedder).
    pub fn ready(embedder: Arc<dyn Embedder>) -> Self {
        Self::with(
            Slot::Ready {
                embedder,
                load_time: Duration::ZERO,
            },
            None,
        )
    }

    /// A handle that never loads anything (lightweight mode).
    pub fn disabled(reason: impl Into<String>) -> Self {
        Self::with(Slot::Disabled(reason.into()), None)
    }

    fn with(slot: Slot, loader: Option<Loader>) -> Self {
        EmbedderHandle {
            shared: Arc::new(Shared {
                slot: Mutex::new(slot),
                changed: Condvar::new(),
                loader,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts loading on the loader thread unless the model is loaded, loading, disabled,
    /// or failed less than [`RETRY_AFTER`] ago. Returns immediately.
    pub fn start(&self) {
        let mut slot = self.lock();
        let should_start = match &*slot {
            Slot::NotStarted => true,
            Slot::Failed { at, .. } => at.elapsed() >= RETRY_AFTER,
            Slot::Loading { .. } | Slot::Ready { .. } | Slot::Disabled(_) => false,
        };
        let Some(loader) = self.shared.loader.clone().filter(|_| should_start) else {
            return;
        };
        *slot = Slot::Loading {
            since: Instant::now(),
        };
        drop(slot);
        let handle = self.clone();
        // The loader is not a background thread, even when the embedding worker asks first: a
        // lowered thread gets no CPU while other processes keep the cores busy, so on a machine
        // busy compiling the load never ended and every verdict and semantic search waiting for
        // it timed out. It takes a core for about two seconds once per process. ONNX Runtime's
        // pool, started while the model loads, inherits this thread's priority, so a tool
        // call's inference is not starved either.
        let spawned =
            crate::background::spawn_unlowered("embed-load", move || handle.finish_load(&loader));
        if let Err(err) = spawned {
            self.set(Slot::Failed {
                error: EmbedError::Load {
                    file: "embedding model".into(),
                    reason: format!("could not start the loader thread: {err}"),
                },
                at: Instant::now(),
            });
        }
    }

    fn finish_load(&self, loader: &Loader) {
        let started = Instant::now();
        // A panic inside ONNX Runtime bindings or the tokenizer must not leave callers waiting
        // for ever: it becomes a failed load like any other.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
            .unwrap_or_else(|panic| {
                let reason = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                Err(EmbedError::Load {
                    file: "embedding model".into(),
                    reason: format!("the loader panicked: {reason}"),
                })
            });
        match result {
            Ok(embedder) => self.set(Slot::Ready {
                embedder,
                load_time: started.elapsed(),
            }),
            Err(error) => {
                tracing::warn!("embedding model unavailable: {error}");
                self.set(Slot::Failed {
                    error,
                    at: Instant::now(),
                })
            }
        }
    }

    fn set(&self, new: Slot) {
        *self.lock() = new;
        self.shared.changed.notify_all();
    }

    pub fn state(&self) -> EmbedderState {
        match &*self.lock() {
            Slot::NotStarted => EmbedderState::NotStarted,
            Slot::Loading { .. } => EmbedderState::Loading,
            Slot::Ready { .. } => EmbedderState::Ready,
            Slot::Failed { error, .. } => EmbedderState::Failed(error.to_string()),
            Slot::Disabled(reason) => EmbedderState::Disabled(reason.clone()),
        }
    }

    /// The model if it is loaded; otherwise starts loading (if needed) and returns `None`
    /// without waiting.
    pub fn get_if_ready(&self) -> Option<Arc<dyn Embedder>> {
        if let Slot::Ready { embedder, .. } = &*self.lock() {
            return Some(embedder.clone());
        }
        self.start();
        None
    }

    /// Waits at most `timeout` for the model, starting the load if needed. Errors:
    /// [`EmbedError::NotReady`] on timeout, the load's own error if it failed,
    /// [`EmbedError::Disabled`] in lightweight mode.
    pub fn wait(&self, timeout: Duration) -> Result<Arc<dyn Embedder>, EmbedError> {
        self.start();
        let deadline = Instant::now() + timeout;
        let mut slot = self.lock();
        loop {
            match &*slot {
                Slot::Ready { embedder, .. } => return Ok(embedder.clone()),
                Slot::Failed { error, .. } => return Err(error.clone()),
                Slot::Disabled(reason) => return Err(EmbedError::Disabled(reason.clone())),
                Slot::NotStarted => {
                    return Err(EmbedError::Disabled("no model loader configured".into()));
                }
                Slot::Loading { .. } => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EmbedError::NotReady);
            }
            slot = self
                .shared
                .changed
                .wait_timeout(slot, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The model's state for tool outputs (`index_status`): state, reason and timings.
    pub fn status(&self) -> EmbedderStatus {
        let slot = self.lock();
        let (seconds, model) = match &*slot {
            Slot::Loading { since } => (Some(since.elapsed().as_secs_f64()), None),
            Slot::Ready {
                embedder,
                load_time,
            } => (
                Some(load_time.as_secs_f64()),
                Some(embedder.model_id().to_string()),
            ),
            _ => (None, None),
        };
        drop(slot);
        EmbedderStatus {
            state: self.state(),
            seconds,
            model,
        }
    }
}

/// Serialisable snapshot of the handle, for `index_status` fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbedderStatus {
    #[serde(flatten)]
    pub state: EmbedderState,
    /// Seconds spent loading so far (loading) or in total (ready).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::FakeEmbedder;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    /// A loader that waits for the test to release it, so "loading" can be observed.
    fn gated() -> (
        EmbedderHandle,
        mpsc::Sender<Result<(), EmbedError>>,
        Arc<AtomicUsize>,
    ) {
        let (tx, rx) = mpsc::channel::<Result<(), EmbedError>>();
        let rx = Mutex::new(rx);
        let loads = Arc::new(AtomicUsize::new(0));
        let counter = loads.clone();
        let handle = EmbedderHandle::lazy(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            rx.lock().unwrap().recv().unwrap()?;
            Ok(Arc::new(FakeEmbedder::new()) as Arc<dyn Embedder>)
        });
        (handle, tx, loads)
    }

    #[test]
    fn loads_lazily_in_the_background_without_blocking() {
        let (handle, release, loads) = gated();
        assert_eq!(handle.state(), EmbedderState::NotStarted);
        let t = Instant::now();
        assert!(handle.get_if_ready().is_none());
        assert!(handle.get_if_ready().is_none());
        assert!(t.elapsed() < Duration::from_millis(50), "{:?}", t.elapsed());
        assert_eq!(handle.state(), EmbedderState::Loading);
        assert_eq!(
            handle.wait(Duration::from_millis(20)).err(),
            Some(EmbedError::NotReady)
        );
        release.send(Ok(())).unwrap();
        let model = handle.wait(Duration::from_secs(10)).unwrap();
        assert_eq!(model.dims(), crate::embed::DIM);
        assert_eq!(handle.state(), EmbedderState::Ready);
        assert!(handle.get_if_ready().is_some());
        assert_eq!(loads.load(Ordering::SeqCst), 1, "loaded exactly once");
        let status = serde_json::to_value(handle.status()).unwrap();
        assert_eq!(status["state"], "ready");
        assert_eq!(status["model"], "fake/hashed-words-384");
    }

    #[test]
    fn failure_is_reported_to_every_caller_and_not_retried_at_once() {
        let (handle, release, loads) = gated();
        handle.start();
        release
            .send(Err(EmbedError::Runtime {
                path: "/x/libonnxruntime.so".into(),
                reason: "the file does not exist".into(),
            }))
            .unwrap();
        let err = handle.wait(Duration::from_secs(10)).unwrap_err();
        assert!(matches!(err, EmbedError::Runtime { .. }), "{err:?}");
        let EmbedderState::Failed(reason) = handle.state() else {
            panic!("{:?}", handle.state())
        };
        assert!(reason.contains("libonnxruntime"), "{reason}");
        assert!(handle.get_if_ready().is_none());
        assert_eq!(handle.wait(Duration::from_secs(1)).unwrap_err(), err);
        assert_eq!(loads.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn panicking_loader_becomes_a_failure() {
        let handle = EmbedderHandle::lazy(|| panic!("tokenizer exploded"));
        // A generous wait for a machine busy compiling; it returns as soon as the failure is
        // recorded.
        let err = handle.wait(Duration::from_secs(120)).unwrap_err();
        assert!(err.to_string().contains("tokenizer exploded"), "{err}");
    }

    /// The load is waited for by tool calls, so it must not be background work: a lowered
    /// thread got no CPU on a busy machine and the load never ended.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_loader_is_not_lowered() {
        // SAFETY: both calls only read the calling thread's settings.
        let priority = || unsafe {
            (
                libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t),
                libc::sched_getscheduler(0),
            )
        };
        let seen = Arc::new(Mutex::new(None));
        let record = seen.clone();
        let handle = EmbedderHandle::lazy(move || {
            *record.lock().unwrap() = Some((priority(), crate::background::is_lowered()));
            Ok(Arc::new(FakeEmbedder::new()) as Arc<dyn Embedder>)
        });
        // Started from a background thread, as the embedding worker may be the first to ask.
        crate::background::init();
        crate::background::spawn("test-asker", move || handle.start())
            .unwrap()
            .join()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while seen.lock().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let (loader, lowered) = seen.lock().unwrap().take().expect("the loader ran");
        assert_eq!(loader, priority(), "the loader runs at a tool call's priority");
        assert!(!lowered);
    }

    #[test]
    fn ready_and_disabled_handles() {
        let ready = EmbedderHandle::ready(Arc::new(FakeEmbedder::new()));
        assert!(ready.get_if_ready().is_some());
        let off = EmbedderHandle::disabled("lightweight_mode is on");
        assert!(off.get_if_ready().is_none());
        assert_eq!(
            off.state(),
            EmbedderState::Disabled("lightweight_mode is on".into())
        );
        assert!(matches!(
            off.wait(Duration::from_secs(1)),
            Err(EmbedError::Disabled(_))
        ));
        let status = serde_json::to_value(off.status()).unwrap();
        assert_eq!(status["state"], "disabled");
        assert_eq!(status["reason"], "lightweight_mode is on");
    }

    #[test]
    fn missing_model_dir_fails_with_the_setup_command() {
        let tmp = tempfile::tempdir().unwrap();
        let handle = EmbedderHandle::for_model_dir(
            ModelDir::explicit(tmp.path().join("absent")),
            E5Options::default(),
        );
        let err = handle.wait(Duration::from_secs(10)).unwrap_err();
        assert!(matches!(err, EmbedError::ModelMissing { .. }), "{err:?}");
        assert!(err.to_string().contains(crate::embed::SETUP_COMMAND));
    }
}
