//! The model, loaded lazily and warmed up in the background.
//!
//! Loading takes one to two seconds on an idle machine (the int8 model's graph is optimised, and
//! an fp32 query model loads beside it when configured), and no MCP call may block on it for
//! more than a second: while it loads, searches answer from lexical and symbol signals and
//! say so (`index_status`). [`EmbedderHandle`] is that contract: [`EmbedderHandle::start`]
//! begins loading on a background thread (the server's warm-up at start-up),
//! [`EmbedderHandle::get_if_ready`] returns the model or `None` at once (taking only a mutex
//! held for field reads), and [`EmbedderHandle::wait`] blocks for at most the time given
//! (verdicts, indexing and the CLI use it). A failed load is remembered with its reason and
//! retried when asked again after [`RETRY_AFTER`], so installing the model while the server
//! runs is enough.
//!
//! The warm-up is background work, so it gives way to tool calls; but a lowered thread gets no
//! CPU at all while other processes keep the cores busy (a build, a test run), and cannot be
//! raised again. A caller that is not background work and waits loads the model itself, at its
//! own priority: at once if nothing loads it yet, and beside the warm-up once that has taken
//! [`HURRY_AFTER`]. The first load to finish is kept. Before this, on a machine busy compiling,
//! the warm-up never ended and every verdict waiting for it answered "unavailable".

use super::{E5Embedder, E5Options, EmbedError, Embedder, ModelDir};
use serde::Serialize;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long a failed load is reported before the next request tries again.
pub const RETRY_AFTER: Duration = Duration::from_secs(60);

/// How long the warm-up may load before a waiting caller loads beside it. An idle machine of
/// two cores loads in about 1.6 s, so a warm-up still loading after this is being starved,
/// and a second load then costs less than the wait (and a second model's memory until the
/// slower load ends and is dropped).
pub const HURRY_AFTER: Duration = Duration::from_secs(2);

/// Loads the model; it may give up between its steps once its argument says so (a warm-up
/// that a waiting caller's own load has taken the place of).
type Loader =
    Arc<dyn Fn(&(dyn Fn() -> bool + Sync)) -> Result<Arc<dyn Embedder>, EmbedError> + Send + Sync>;

/// What a caller can learn about the model without waiting.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum EmbedderState {
    /// Nobody asked for the model yet.
    NotStarted,
    /// Loading (in the background, or for a waiting caller).
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
        /// Whether a caller's own load runs beside the warm-up.
        hurried: bool,
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
    /// [`HURRY_AFTER`], or another figure in tests.
    hurry_after: Duration,
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
        Self::with(
            Slot::NotStarted,
            Some(Arc::new(move |_: &(dyn Fn() -> bool + Sync)| loader())),
        )
    }

    /// The real model from `dir`.
    pub fn for_model_dir(dir: ModelDir, options: E5Options) -> Self {
        let loader: Loader = Arc::new(move |given_up: &(dyn Fn() -> bool + Sync)| {
            let embedder = E5Embedder::load_unless(&dir, options.clone(), given_up)?;
            tracing::info!(
                "embedding model loaded from {} in {:.2}s",
                embedder.dir().display(),
                embedder.load_time().as_secs_f64()
            );
            Ok(Arc::new(embedder) as Arc<dyn Embedder>)
        });
        Self::with(Slot::NotStarted, Some(loader))
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
                hurry_after: HURRY_AFTER,
            }),
        }
    }

    /// The same handle, hurried after `after` instead of [`HURRY_AFTER`] (tests; before the
    /// handle is cloned).
    #[cfg(test)]
    fn hurrying_after(mut self, after: Duration) -> Self {
        Arc::get_mut(&mut self.shared)
            .expect("not cloned yet")
            .hurry_after = after;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts loading on a background thread unless the model is loaded, loading, disabled,
    /// or failed less than [`RETRY_AFTER`] ago. Returns immediately.
    pub fn start(&self) {
        self.begin(false);
    }

    /// Starts a load if [`EmbedderHandle::start`] would; `now` loads at the calling thread's
    /// priority instead of the background's, for a caller that waits.
    fn begin(&self, now: bool) {
        let mut slot = self.lock();
        let should_start = match &*slot {
            Slot::NotStarted => true,
            Slot::Failed { at, .. } => at.elapsed() >= RETRY_AFTER,
            Slot::Loading { .. } | Slot::Ready { .. } | Slot::Disabled(_) => false,
        };
        if !should_start || self.shared.loader.is_none() {
            return;
        }
        *slot = Slot::Loading {
            since: Instant::now(),
            hurried: now,
        };
        drop(slot);
        self.spawn_loader(now);
    }

    /// A waiting caller's load beside a warm-up that has taken [`HURRY_AFTER`]; nothing when
    /// the caller is background work itself (it would be as starved), or when a caller's load
    /// already runs.
    fn hurry(&self) {
        if crate::background::is_lowered() {
            return;
        }
        let mut slot = self.lock();
        let Slot::Loading { since, hurried } = &mut *slot else {
            return;
        };
        if *hurried || since.elapsed() < self.shared.hurry_after {
            return;
        }
        *hurried = true;
        drop(slot);
        tracing::info!("the model's warm-up is starved; a waiting call loads it");
        self.spawn_loader(true);
    }

    /// Runs the loader on a new thread: a background one, or (`now`) one at the calling
    /// thread's priority, which it inherits.
    fn spawn_loader(&self, now: bool) {
        let Some(loader) = self.shared.loader.clone() else {
            return;
        };
        let handle = self.clone();
        let load = move || handle.finish_load(&loader, !now);
        let spawned = if now {
            std::thread::Builder::new()
                .name("embed-load".into())
                .spawn(load)
                .map(drop)
        } else {
            crate::background::spawn("embed-warmup", load).map(drop)
        };
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

    /// Runs `loader` and records what it gave. A warm-up gives up once a caller's own load
    /// runs (or the model is there), and what it gave up is not recorded.
    fn finish_load(&self, loader: &Loader, warm_up: bool) {
        let started = Instant::now();
        let replaced = || {
            warm_up
                && matches!(
                    *self.lock(),
                    Slot::Loading { hurried: true, .. } | Slot::Ready { .. }
                )
        };
        // A panic inside ONNX Runtime bindings or the tokenizer must not leave callers waiting
        // for ever: it becomes a failed load like any other.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader(&replaced)))
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
        if result.is_err() && replaced() {
            tracing::debug!("the warm-up gave way to a waiting call's load");
            return;
        }
        // Of two loads (a warm-up and a caller's), the first model is kept; a failure counts
        // only while nothing else has ended the load.
        let mut slot = self.lock();
        match result {
            Ok(_) if matches!(*slot, Slot::Ready { .. }) => return,
            Ok(embedder) => {
                *slot = Slot::Ready {
                    embedder,
                    load_time: started.elapsed(),
                }
            }
            Err(_) if !matches!(*slot, Slot::Loading { .. }) => return,
            Err(error) => {
                tracing::warn!("embedding model unavailable: {error}");
                *slot = Slot::Failed {
                    error,
                    at: Instant::now(),
                }
            }
        }
        drop(slot);
        self.shared.changed.notify_all();
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
        let may_hurry = !crate::background::is_lowered();
        self.begin(may_hurry);
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
            // Woken at the latest when the warm-up has taken long enough to be hurried.
            let hurry_at = match &*slot {
                Slot::Loading {
                    since,
                    hurried: false,
                } if may_hurry => since
                    .checked_add(self.shared.hurry_after)
                    .map_or(deadline, |at| at.max(now)),
                _ => deadline,
            };
            slot = self
                .shared
                .changed
                .wait_timeout(slot, hurry_at.min(deadline) - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if Instant::now() >= hurry_at {
                drop(slot);
                self.hurry();
                slot = self.lock();
            }
        }
    }

    /// The model's state for tool outputs (`index_status`): state, reason and timings.
    pub fn status(&self) -> EmbedderStatus {
        let slot = self.lock();
        let (seconds, model) = match &*slot {
            Slot::Loading { since, .. } => (Some(since.elapsed().as_secs_f64()), None),
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
        })
        // One load only, however slowly the background thread gets going here.
        .hurrying_after(Duration::MAX);
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

    /// The nice value and scheduling policy of the calling thread, and whether it is lowered.
    #[cfg(target_os = "linux")]
    fn priority() -> (i32, i32, bool) {
        // SAFETY: both calls only read the calling thread's settings.
        unsafe {
            (
                libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t),
                libc::sched_getscheduler(0),
                crate::background::is_lowered(),
            )
        }
    }

    /// A warm-up that a busy machine starves does not hold a waiting caller: the caller loads
    /// the model at its own priority, and the first model loaded is kept.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_waiting_caller_loads_beside_a_starved_warm_up() {
        let (release, starved) = mpsc::channel::<()>();
        let starved = Mutex::new(starved);
        // Each load's thread priority and the model it made.
        let loads = Arc::new(Mutex::new(Vec::new()));
        let seen = loads.clone();
        let handle = EmbedderHandle::lazy(move || {
            let me = priority();
            if me.2 {
                // The warm-up: held until the test releases it, as the scheduler would.
                let _ = starved.lock().unwrap().recv();
            }
            let model = Arc::new(FakeEmbedder::new()) as Arc<dyn Embedder>;
            seen.lock().unwrap().push((me, model.clone()));
            Ok(model)
        })
        .hurrying_after(Duration::from_millis(50));
        handle.start();
        let model = handle.wait(Duration::from_secs(60)).unwrap();
        {
            let loads = loads.lock().unwrap();
            assert_eq!(loads.len(), 1, "only the caller's load has ended");
            assert_eq!(
                loads[0].0,
                priority(),
                "the caller's load runs at its priority"
            );
            assert!(Arc::ptr_eq(&loads[0].1, &model));
        }
        // The warm-up ends later; its model is dropped, the first one stays.
        release.send(()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while loads.lock().unwrap().len() < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let loads = loads.lock().unwrap();
        assert!(loads[1].0.2, "the warm-up is background work");
        assert!(Arc::ptr_eq(&handle.get_if_ready().unwrap(), &model));
    }

    /// Once a waiting caller loads the model itself, the starved warm-up gives up at its next
    /// step instead of loading beside it, and its giving up is not recorded as a failure.
    #[test]
    fn the_warm_up_gives_way_to_a_callers_load() {
        let (gave_up, giving_up) = mpsc::channel();
        let loader: Loader = Arc::new(move |given_up: &(dyn Fn() -> bool + Sync)| {
            if crate::background::is_lowered() {
                // The warm-up, starved until a caller's load takes its place.
                let deadline = Instant::now() + Duration::from_secs(60);
                while !given_up() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(5));
                }
                let _ = gave_up.send(given_up());
                return Err(EmbedError::Load {
                    file: "embedding model".into(),
                    reason: "given up".into(),
                });
            }
            Ok(Arc::new(FakeEmbedder::new()) as Arc<dyn Embedder>)
        });
        let handle = EmbedderHandle::with(Slot::NotStarted, Some(loader))
            .hurrying_after(Duration::from_millis(50));
        handle.start();
        handle.wait(Duration::from_secs(60)).unwrap();
        assert!(giving_up.recv_timeout(Duration::from_secs(60)).unwrap());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(handle.state(), EmbedderState::Ready);
    }

    /// Background work that waits (the embedding worker) does not load beside the warm-up: a
    /// second lowered load would be as starved.
    #[test]
    fn background_waiters_do_not_hurry() {
        let (handle, release, loads) = gated();
        let handle = handle.hurrying_after(Duration::ZERO);
        let in_background = |timeout| {
            let waiter = handle.clone();
            crate::background::spawn("test-waiter", move || waiter.wait(timeout))
                .unwrap()
                .join()
                .unwrap()
        };
        let waited = in_background(Duration::from_millis(300));
        assert_eq!(waited.err(), Some(EmbedError::NotReady));
        release.send(Ok(())).unwrap();
        in_background(Duration::from_secs(60)).unwrap();
        assert_eq!(loads.load(Ordering::SeqCst), 1);
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
