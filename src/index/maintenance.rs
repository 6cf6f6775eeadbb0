//! Store maintenance in the background: folding new rows into the indexes, compacting small
//! files, pruning old versions and building the vector index (see `store`). On a large forest
//! these take seconds to minutes, so neither a sync nor a search ever waits for them: syncs and
//! the embedding worker announce their writes here, and one thread per project runs the
//! maintenance once the forest has been quiet for a moment.
//!
//! Schedule:
//! - **Idle:** no write under way and none for [`Timing::idle`] → every step
//!   ([`MaintenanceScope::All`]), stopping between steps as soon as a write starts (the rest runs
//!   at the next idle moment).
//! - **Long writes** (a full embedding run takes minutes to hours): every [`Timing::catch_up`]
//!   the text indexes alone are folded, since each re-embedded row leaves them and keyword search
//!   over unindexed rows slows down with their number.
//! - **Start:** the thread first opens the index files a search reads (the first search after
//!   start is then as fast as the others), then maintains whatever an earlier process left.
//!
//! Correctness does not depend on it: searches read unindexed rows flat, and every step is one
//! Lance commit, so a kill at any moment leaves the last committed version.

use crate::allocator::BulkWork;
use crate::store::{MaintenanceReport, MaintenanceScope, Store};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Versions younger than this survive pruning (a reader on an older snapshot keeps working).
const KEEP_VERSIONS_FOR: Duration = Duration::from_secs(600);
/// After a failed run, wait this long before the next.
const RETRY_AFTER: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Quiet time after the last write before a full run.
    pub idle: Duration,
    /// Interval of text-index folds while writes go on.
    pub catch_up: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            idle: Duration::from_secs(2),
            catch_up: Duration::from_secs(30),
        }
    }
}

/// The scheduler of one project's store maintenance (cheap to clone; clones share it).
#[derive(Clone, Default)]
pub struct Maintenance {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    timing: Mutex<Timing>,
}

#[derive(Default)]
struct State {
    /// Writes under way (syncs, the embedding worker).
    writers: usize,
    /// When the current stretch of writes began.
    busy_since: Option<Instant>,
    last_write: Option<Instant>,
    /// Written (or asked for) since the last complete run.
    dirty: bool,
    /// Run as soon as no write is under way, without waiting for the idle period.
    urgent: bool,
    running: bool,
    started: bool,
    stop: bool,
    last_run: Option<Instant>,
    not_before: Option<Instant>,
    /// Complete full runs so far.
    runs: usize,
    last_report: Option<MaintenanceReport>,
}

/// Held while a writer writes; dropping it records the write. A write is bulk work for the
/// allocator too (`crate::allocator`), as is a maintenance run.
pub struct Writing {
    shared: Arc<Shared>,
    _bulk: BulkWork,
}

impl Drop for Writing {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.writers -= 1;
        st.last_write = Some(Instant::now());
        st.dirty = true;
        if st.writers == 0 {
            st.busy_since = None;
        }
        self.shared.changed.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Maintenance {
    /// A scheduler with other timing (tests).
    pub fn with_timing(timing: Timing) -> Maintenance {
        let m = Maintenance::default();
        *m.shared.timing.lock().unwrap_or_else(|p| p.into_inner()) = timing;
        m
    }

    /// Announces a write; maintenance waits (or stops between steps) until it is dropped.
    pub fn writing(&self) -> Writing {
        let mut st = self.shared.lock();
        if st.writers == 0 {
            st.busy_since = Some(Instant::now());
        }
        st.writers += 1;
        st.dirty = true;
        self.shared.changed.notify_all();
        Writing {
            shared: self.shared.clone(),
            _bulk: crate::allocator::bulk_work(),
        }
    }

    /// Starts the maintenance thread for `store` (once; later calls do nothing). It warms the
    /// store first, then maintains whatever is due.
    pub fn start(&self, store: Arc<Store>) {
        let mut st = self.shared.lock();
        if st.started {
            return;
        }
        st.started = true;
        st.dirty = true;
        drop(st);
        let shared = self.shared.clone();
        let spawned = crate::background::spawn("code-intel-maintain", move || {
            store.warm();
            run(&shared, &store);
        });
        if let Err(err) = spawned {
            tracing::warn!("cannot start store maintenance: {err}");
        }
    }

    /// Asks for a full run as soon as no write is under way and waits up to `timeout` for it
    /// (the CLI, before it exits). Returns whether the store is maintained.
    pub fn finish(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.lock();
        st.dirty = true;
        st.urgent = true;
        st.not_before = None;
        self.shared.changed.notify_all();
        while st.started && (st.dirty || st.running) && !st.stop && st.not_before.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        st.started && !st.dirty && !st.running
    }

    /// Complete full runs so far, and the last run's report.
    pub fn runs(&self) -> (usize, Option<MaintenanceReport>) {
        let st = self.shared.lock();
        (st.runs, st.last_report.clone())
    }

    /// Whether a run is under way right now.
    pub fn is_running(&self) -> bool {
        self.shared.lock().running
    }

    /// Stops the thread after its current step (it is not waited for: a step can take minutes,
    /// and stopping mid-way is safe).
    pub fn stop(&self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
    }
}

/// The maintenance thread.
fn run(shared: &Shared, store: &Store) {
    let timing = *shared.timing.lock().unwrap_or_else(|p| p.into_inner());
    let mut st = shared.lock();
    loop {
        if st.stop {
            return;
        }
        let now = Instant::now();
        let quiet = st.last_write.map_or(Duration::MAX, |t| now - t);
        let held_back = st.not_before.is_some_and(|t| now < t);
        let busy_for = st
            .busy_since
            .map(|t| now - st.last_run.map_or(t, |r| r.max(t)));
        let scope = if !st.dirty || held_back {
            None
        } else if st.writers == 0 && (st.urgent || quiet >= timing.idle) {
            Some(MaintenanceScope::All)
        } else if st.writers > 0 && busy_for.is_some_and(|b| b >= timing.catch_up) {
            Some(MaintenanceScope::TextIndexes)
        } else {
            None
        };
        let Some(scope) = scope else {
            let wait = if held_back {
                st.not_before.map_or(timing.idle, |t| t - now)
            } else if st.dirty && st.writers == 0 {
                timing.idle.saturating_sub(quiet)
            } else if let Some(b) = busy_for {
                timing.catch_up.saturating_sub(b)
            } else {
                Duration::from_secs(3600)
            };
            st = shared
                .changed
                .wait_timeout(st, wait.max(Duration::from_millis(5)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        };
        if scope == MaintenanceScope::All {
            st.dirty = false;
            st.urgent = false;
        }
        st.running = true;
        drop(st);

        // A full run gives way to a write between steps; a catch-up runs alongside writes.
        let stop = || {
            let st = shared.lock();
            st.stop || (scope == MaintenanceScope::All && st.writers > 0)
        };
        let bulk = crate::allocator::bulk_work();
        let result = store.maintain(KEEP_VERSIONS_FOR, scope, &stop);
        drop(bulk);

        st = shared.lock();
        st.running = false;
        st.last_run = Some(Instant::now());
        match result {
            Ok(report) => {
                tracing::debug!("store maintenance ({scope:?}): {report:?}");
                if scope == MaintenanceScope::All {
                    if report.finished {
                        st.runs += 1;
                    } else {
                        st.dirty = true;
                    }
                }
                st.last_report = Some(report);
            }
            // A write committed first (Lance lets the later commit lose): redo it when idle.
            Err(err) if err.is_commit_conflict() => {
                tracing::debug!("store maintenance lost a commit race; again when idle");
                st.dirty = true;
            }
            Err(err) => {
                tracing::warn!("store maintenance failed (retrying later): {err:#}");
                st.dirty = true;
                st.urgent = false;
                st.not_before = Some(Instant::now() + RETRY_AFTER);
            }
        }
        shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ChunkRecord, ModelStamp};

    fn store(dir: &tempfile::TempDir) -> Arc<Store> {
        let uri = dir.path().join("db");
        Arc::new(Store::open(uri.to_str().unwrap(), ModelStamp { dim: 8 }).unwrap())
    }

    /// One commit of one chunk (one more data file).
    fn write(store: &Store, i: usize) {
        let content = format!("def step{i}(): send invoice");
        store
            .append_chunks(vec![ChunkRecord {
                id: format!("f{i}#step"),
                file: format!("f{i}.py"),
                language: "python".into(),
                chunk_type: "function".into(),
                name: format!("step{i}"),
                line_start: 1,
                line_end: 1,
                text: crate::lexical::index_text(&[&content]),
                content,
                fingerprint: format!("fp{i}"),
                file_sha: "sha".into(),
                metadata: "{}".into(),
                vector: None,
                head_only: false,
            }])
            .unwrap();
    }

    /// How long a test waits for maintenance work. Generous: maintenance runs at the lowest CPU
    /// priority (SCHED_IDLE), and the tests running beside it on a two-core machine (the model's
    /// bulk embedding) can hold it off for many seconds; a wait that ends early costs nothing.
    const BACKGROUND_WAIT: Duration = Duration::from_secs(120);

    fn wait_for(what: &str, timeout: Duration, done: impl Fn() -> bool) {
        let deadline = Instant::now() + timeout;
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn full_runs_wait_for_writes_to_end_and_the_forest_to_be_idle() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        let m = Maintenance::with_timing(Timing {
            idle: Duration::from_millis(400),
            catch_up: Duration::from_secs(3600),
        });
        m.start(store.clone());
        // At start it maintains whatever is there (nothing yet).
        wait_for("the start run", BACKGROUND_WAIT, || m.runs().0 == 1);

        let writing = m.writing();
        for i in 0..12 {
            write(&store, i);
        }
        std::thread::sleep(Duration::from_millis(1_000));
        assert_eq!(m.runs().0, 1, "ran while a write was under way");
        assert_eq!(store.forest_layout().unwrap().fragments, 12);

        drop(writing);
        let ended = Instant::now();
        wait_for("the idle run", BACKGROUND_WAIT, || m.runs().0 == 2);
        assert!(
            ended.elapsed() >= Duration::from_millis(400),
            "did not wait for the idle period"
        );
        let layout = store.forest_layout().unwrap();
        assert_eq!(layout.fragments, 1, "{layout:?}");
        assert_eq!(layout.unindexed_text_rows, Some(0), "{layout:?}");
        m.stop();
    }

    #[test]
    fn long_writes_get_their_text_indexes_folded_but_no_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        for i in 0..2 {
            write(&store, i);
        }
        store.ensure_text_indexes().unwrap();
        let m = Maintenance::with_timing(Timing {
            idle: Duration::from_secs(3600),
            catch_up: Duration::from_millis(300),
        });
        let writing = m.writing();
        for i in 2..12 {
            write(&store, i);
        }
        assert_eq!(store.forest_layout().unwrap().unindexed_text_rows, Some(10));
        m.start(store.clone());
        wait_for("a catch-up fold", BACKGROUND_WAIT, || {
            store.forest_layout().unwrap().unindexed_text_rows == Some(0)
        });
        assert_eq!(m.runs().0, 0, "a full run while writing");
        assert!(store.forest_layout().unwrap().fragments > 8);
        drop(writing);
        // `finish` skips the idle period: the CLI's way to maintain before it exits.
        assert!(m.finish(BACKGROUND_WAIT));
        assert_eq!(store.forest_layout().unwrap().fragments, 1);
        m.stop();
    }
}
