//! A full or read-only disk is a state of the index, not an accident.
//!
//! A write the disk refuses ([`WriteBlock`]) pauses indexing and embedding: nothing stored is
//! lost or half-written (the store's commits are atomic and the sync state is replaced by a
//! rename, so a refused write leaves the last commit as it was), searches answer from what is
//! stored, and `index_status.store` says why. A watcher then probes the store's directory every
//! few seconds; the first write that succeeds ends the state and resumes the sync through the
//! hook its owner installed ([`WriteWatch::on_resume`]).

use super::error::{IndexError, WriteBlock};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// How often a paused index tries to write again.
const PROBE_EVERY: Duration = Duration::from_secs(5);
/// The probe's size: a write this large succeeding says there is room for a commit's metadata
/// at least; a batch that still does not fit pauses the index again.
const PROBE_BYTES: usize = 64 * 1024;

type Resume = Arc<dyn Fn() + Send + Sync>;

pub struct WriteWatch {
    /// Where the probe writes: the store's own directory (or the directory it will be made in).
    dir: PathBuf,
    every: Duration,
    state: Mutex<Watch>,
    resume: RwLock<Option<Resume>>,
}

#[derive(Default)]
struct Watch {
    blocked: Option<WriteBlock>,
    /// A watcher thread is running.
    watching: bool,
    stopped: bool,
}

impl WriteWatch {
    pub fn new(dir: PathBuf) -> Arc<WriteWatch> {
        Self::probing_every(dir, PROBE_EVERY)
    }

    pub fn probing_every(dir: PathBuf, every: Duration) -> Arc<WriteWatch> {
        Arc::new(WriteWatch {
            dir,
            every,
            state: Mutex::new(Watch::default()),
            resume: RwLock::new(None),
        })
    }

    /// What is refusing writes now, if anything.
    pub fn blocked(&self) -> Option<WriteBlock> {
        self.lock().blocked
    }

    /// What to run once writes succeed again (the owner's sync, which stores what is missing
    /// and restarts embedding).
    pub fn on_resume(&self, resume: impl Fn() + Send + Sync + 'static) {
        *self.resume.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(resume));
    }

    /// Records `err` when the disk refused the write, and starts watching for the end of it;
    /// returns whether it did.
    pub fn note(self: &Arc<Self>, err: &IndexError) -> bool {
        let Some(block) = err.write_block() else {
            return false;
        };
        let mut state = self.lock();
        if state.blocked != Some(block) {
            tracing::warn!("{}: {err:#}", block.note());
        }
        state.blocked = Some(block);
        if !state.watching && !state.stopped {
            let this = self.clone();
            let spawned = crate::background::spawn("code-intel-write-watch", move || this.watch());
            match spawned {
                Ok(_) => state.watching = true,
                Err(err) => tracing::warn!("cannot watch for the disk to accept writes: {err}"),
            }
        }
        true
    }

    /// A write went through: whatever refused writes before has ended.
    pub fn cleared(&self) {
        self.lock().blocked = None;
    }

    /// Ends the watcher (the owner is going away).
    pub fn stop(&self) {
        self.lock().stopped = true;
    }

    fn watch(self: Arc<Self>) {
        loop {
            std::thread::sleep(self.every);
            let mut state = self.lock();
            if state.stopped || state.blocked.is_none() {
                state.watching = false;
                return;
            }
            drop(state);
            match probe(&self.dir) {
                Ok(()) => {
                    let mut state = self.lock();
                    tracing::info!("the disk accepts writes again: resuming the index");
                    state.blocked = None;
                    state.watching = false;
                    drop(state);
                    let resume = self
                        .resume
                        .read()
                        .unwrap_or_else(|p| p.into_inner())
                        .clone();
                    if let Some(resume) = resume {
                        resume();
                    }
                    return;
                }
                Err(err) => tracing::debug!("the disk still refuses writes: {err}"),
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Watch> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Writes, syncs and removes a scratch file in `dir` (created if missing).
fn probe(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!(".write-probe.{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&path)?;
        file.write_all(&[0u8; PROBE_BYTES])?;
        file.sync_all()
    })();
    let _ = std::fs::remove_file(&path);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn full() -> IndexError {
        IndexError::io("writing")(std::io::Error::from_raw_os_error(28))
    }

    #[test]
    fn a_refused_write_is_a_state_that_ends_with_the_first_write_that_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let watch = WriteWatch::probing_every(dir.path().join("store"), Duration::from_millis(10));
        let resumed = Arc::new(AtomicUsize::new(0));
        let count = resumed.clone();
        watch.on_resume(move || {
            count.fetch_add(1, Ordering::SeqCst);
        });
        assert!(!watch.note(&IndexError::Unavailable("not found".into())));
        assert_eq!(watch.blocked(), None);
        assert!(watch.note(&full()));
        assert!(watch.note(&full()), "noted twice, watched once");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while resumed.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(resumed.load(Ordering::SeqCst), 1);
        assert_eq!(watch.blocked(), None);
        assert!(
            std::fs::read_dir(dir.path().join("store"))
                .unwrap()
                .next()
                .is_none(),
            "the probe leaves nothing behind"
        );
    }

    #[test]
    fn a_disk_that_still_refuses_keeps_the_state() {
        // A directory that cannot be made (its parent is a file) refuses every probe.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let watch =
            WriteWatch::probing_every(dir.path().join("file/store"), Duration::from_millis(5));
        let resumed = Arc::new(AtomicUsize::new(0));
        let count = resumed.clone();
        watch.on_resume(move || {
            count.fetch_add(1, Ordering::SeqCst);
        });
        assert!(watch.note(&full()));
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(watch.blocked(), Some(WriteBlock::DiskFull));
        assert_eq!(resumed.load(Ordering::SeqCst), 0);
        watch.stop();
    }
}
