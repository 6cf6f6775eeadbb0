//! Directory watches: a count of file-system changes under the walked directories, so that a
//! whole-project refresh can tell "nothing changed since I last looked" without stat-ing every
//! file (thousands of `stat` calls, tens of milliseconds on a large repository, on every call of
//! `get_dependencies`, `analyze_project` or `search_symbol`).
//!
//! Only the directories a walk visits are watched, one watch each (not recursively): ignored
//! trees such as `node_modules/`, `vendor/` and `.git/` never cost a watch, and a directory that
//! appears shows up as a change in its parent, after which the next walk watches it too.
//!
//! The count only ever says *something may have changed*; it never says what. Callers use it as
//! a shortcut in front of their own freshness check, and trust it only for a period during which
//! every directory they depend on was watched from its start (see [`TreeWatch::watch_dirs`]).
//! Anything the watcher cannot vouch for (an overflowed event queue, a watch the system refused)
//! counts as a change or disables the shortcut; it never hides one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub struct TreeWatch {
    backend: Mutex<Option<backend::Backend>>,
    watched: Mutex<HashSet<PathBuf>>,
    changes: Arc<AtomicU64>,
    /// Set once a watch could not be added or events stopped: the count no longer covers
    /// every directory.
    broken: Arc<AtomicBool>,
}

impl TreeWatch {
    /// A watcher with no directories yet. A system without file watching (anything but Linux
    /// for now) gives one that never vouches for anything: callers then check by `stat`.
    pub fn new() -> TreeWatch {
        let changes = Arc::new(AtomicU64::new(0));
        let broken = Arc::new(AtomicBool::new(false));
        let backend = match backend::Backend::start(changes.clone(), broken.clone()) {
            Ok(b) => Some(b),
            Err(err) => {
                tracing::info!("file watching unavailable ({err}); refreshes stat every file");
                broken.store(true, Ordering::SeqCst);
                None
            }
        };
        TreeWatch {
            broken,
            backend: Mutex::new(backend),
            watched: Mutex::new(HashSet::new()),
            changes,
        }
    }

    /// The number of changes seen so far, or `None` when the watcher cannot vouch for every
    /// watched directory.
    pub fn changes(&self) -> Option<u64> {
        if self.broken.load(Ordering::SeqCst) {
            return None;
        }
        Some(self.changes.load(Ordering::SeqCst))
    }

    /// Makes sure every directory in `dirs` is watched. Returns false when one could not be
    /// (the watcher then vouches for nothing any more).
    pub fn watch_dirs<'a>(&self, dirs: impl IntoIterator<Item = &'a Path>) -> bool {
        if self.broken.load(Ordering::SeqCst) {
            return false;
        }
        let mut guard = self.backend.lock().unwrap_or_else(|p| p.into_inner());
        let Some(backend) = guard.as_mut() else {
            return false;
        };
        let mut watched = self.watched.lock().unwrap_or_else(|p| p.into_inner());
        for dir in dirs {
            if watched.contains(dir) {
                continue;
            }
            match backend.watch(dir) {
                Ok(()) => {
                    watched.insert(dir.to_path_buf());
                }
                // Gone since the walk: its parent's change is already counted.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    // Typically the system's limit on watches (`fs.inotify.max_user_watches`).
                    tracing::info!(
                        "cannot watch {} ({err}); refreshes stat every file",
                        dir.display()
                    );
                    self.broken.store(true, Ordering::SeqCst);
                    return false;
                }
            }
        }
        true
    }
}

impl Default for TreeWatch {
    fn default() -> TreeWatch {
        TreeWatch::new()
    }
}

#[cfg(target_os = "linux")]
mod backend {
    use inotify::{Inotify, WatchMask, Watches};
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    /// Everything that changes a directory's entries or a file's content or metadata; opening
    /// and reading (the refresh's own reads among them) is not asked for.
    fn mask() -> WatchMask {
        WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::ATTRIB
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR
    }

    pub struct Backend {
        watches: Watches,
    }

    impl Backend {
        /// Starts a thread that counts every event (an overflowed queue included) in `changes`,
        /// and sets `broken` if events stop coming.
        pub fn start(changes: Arc<AtomicU64>, broken: Arc<AtomicBool>) -> std::io::Result<Backend> {
            let mut inotify = Inotify::init()?;
            let watches = inotify.watches();
            std::thread::Builder::new()
                .name("code-intel-watch".into())
                .spawn(move || {
                    let mut buffer = [0u8; 16 * 1024];
                    loop {
                        match inotify.read_events_blocking(&mut buffer) {
                            Ok(events) => {
                                let n = events.count() as u64;
                                changes.fetch_add(n.max(1), Ordering::SeqCst);
                            }
                            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(err) => {
                                tracing::info!("file watching stopped: {err}");
                                broken.store(true, Ordering::SeqCst);
                                return;
                            }
                        }
                    }
                })?;
            Ok(Backend { watches })
        }

        pub fn watch(&mut self, dir: &Path) -> std::io::Result<()> {
            self.watches.add(dir, mask()).map(|_| ())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod backend {
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64};

    pub struct Backend;

    impl Backend {
        pub fn start(
            _changes: Arc<AtomicU64>,
            _broken: Arc<AtomicBool>,
        ) -> std::io::Result<Backend> {
            Err(std::io::Error::other("not implemented on this system"))
        }

        pub fn watch(&mut self, _dir: &Path) -> std::io::Result<()> {
            Err(std::io::Error::other("not implemented on this system"))
        }
    }
}

/// One index's use of a shared [`TreeWatch`]: whether its next whole-project refresh may answer
/// with what it has.
///
/// The count is trusted from the start of a refresh only when every directory that refresh
/// depended on was already watched when it started, that is, at the end of this index's
/// previous refresh (watches another index added in the meantime do not count: they may have
/// come after this refresh looked at their directory).
#[derive(Default)]
pub struct WatchedRefresh {
    watch: OnceLock<Arc<TreeWatch>>,
    state: Mutex<Trust>,
}

#[derive(Default)]
struct Trust {
    /// The count at the start of the last covered refresh.
    since: Option<u64>,
    /// The directories watched for this index as of its last refresh.
    dirs: HashSet<PathBuf>,
}

impl WatchedRefresh {
    pub fn enable(&self, watch: Arc<TreeWatch>) {
        let _ = self.watch.set(watch);
    }

    /// The count to hand to [`WatchedRefresh::unchanged`] and [`WatchedRefresh::finish`], read
    /// before the refresh looks at anything.
    pub fn begin(&self) -> Option<u64> {
        self.watch.get().and_then(|w| w.changes())
    }

    /// Whether nothing changed since the last covered refresh began.
    pub fn unchanged(&self, mark: Option<u64>) -> bool {
        mark.is_some() && self.state.lock().unwrap_or_else(|p| p.into_inner()).since == mark
    }

    /// After a whole refresh that depended on `dirs` (absolute), or on something no watch
    /// covers (`None`: a walk too recent to vouch for): watch them, and trust the count from
    /// `mark` on only if all of them were watched before the refresh began.
    pub fn finish(&self, mark: Option<u64>, dirs: Option<Vec<PathBuf>>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (Some(watch), Some(dirs)) = (self.watch.get(), dirs) else {
            *state = Trust::default();
            return;
        };
        let covered = dirs.iter().all(|d| state.dirs.contains(d));
        let ok = watch.watch_dirs(dirs.iter().map(PathBuf::as_path));
        state.since = mark.filter(|_| covered && ok);
        state.dirs = if ok {
            dirs.into_iter().collect()
        } else {
            HashSet::new()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    const SOON: Duration = Duration::from_secs(5);

    fn changed_since(watch: &TreeWatch, before: u64, wait: Duration) -> bool {
        // Events arrive on the watcher's thread: give them a moment.
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if watch.changes() != Some(before) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn counts_writes_creations_and_removals_but_not_reads() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("src");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("a.py"), "x = 1\n").unwrap();
        let watch = TreeWatch::new();
        if watch.changes().is_none() {
            eprintln!("no file watching on this system; nothing to test");
            return;
        }
        assert!(watch.watch_dirs([dir.path(), sub.as_path()]));

        let before = watch.changes().unwrap();
        let _ = std::fs::read_to_string(sub.join("a.py")).unwrap();
        assert!(
            !changed_since(&watch, before, Duration::from_millis(300)),
            "a read is not a change"
        );

        std::fs::write(sub.join("a.py"), "x = 2\n").unwrap();
        assert!(changed_since(&watch, before, SOON), "a write is");
        let before = watch.changes().unwrap();
        std::fs::write(sub.join("b.py"), "y = 1\n").unwrap();
        assert!(changed_since(&watch, before, SOON), "a new file is");
        let before = watch.changes().unwrap();
        std::fs::create_dir(sub.join("pkg")).unwrap();
        assert!(changed_since(&watch, before, SOON), "a new directory is");
        let before = watch.changes().unwrap();
        std::fs::remove_file(sub.join("a.py")).unwrap();
        assert!(changed_since(&watch, before, SOON), "a removal is");
    }
}
