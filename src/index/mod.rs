//! The symbol index: every supported file's symbols, kept fresh and persisted per project.
//!
//! Freshness rule: before answering, [`SymbolIndex::refresh`] lists the requested part of the
//! workspace; a file whose size or modification time changed is re-read and SHA-256 hashed, and
//! re-parsed only when its content hash changed. So an edit between two calls is always seen, and
//! a second process start re-parses nothing. A whole-workspace refresh does not walk the tree
//! again when the last walk left [`DirStamps`]: only directories whose mtime changed are listed
//! again, and the files of the others are `stat`-ed. The store is `.code-intel/symbols.bin`, a
//! [`CacheFile`]: written atomically, and rebuilt when it is of another version or damaged.

pub mod agreement_file;
pub mod cache_file;
pub mod chunks;
pub mod dir_stamps;
pub mod embedding_queue;
pub mod error;
mod freshness;
pub mod maintenance;
pub mod outlines;
pub mod publish;
pub mod semantic;
pub mod sync;
pub mod sync_state;
pub mod write_watch;

mod lazy;

pub use dir_stamps::DirStamps;
pub use error::{IndexError, IndexResult};
pub use lazy::LazySymbols;

use crate::analysis::analyze_source;
use crate::workspace::watch::{TreeWatch, WatchedRefresh};
use crate::workspace::{WalkError, Workspace};
use cache_file::{CacheFile, DecodeError, Encoder, Format, Kind, LazyPart};
use dir_stamps::stable_nanos;
use freshness::{Fate, Stamped, in_subtree, refresh_walked};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

const STORE_FILE: &str = "symbols.bin";

/// A walked file's fate in a refresh: its entry and what was done, or why it was skipped.
type FileOutcome = Result<(Arc<FileEntry>, Fate), String>;

/// One indexed file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileEntry {
    pub size: u64,
    /// 0 when the mtime was too recent to trust (see [`stable_nanos`]): the file is re-hashed.
    pub mtime_ns: u128,
    pub sha256: [u8; 32],
    pub lossy: bool,
    pub symbols: LazySymbols,
}

impl Stamped for FileEntry {
    fn size(&self) -> u64 {
        self.size
    }
    fn mtime_ns(&self) -> u128 {
        self.mtime_ns
    }
    fn sha256(&self) -> [u8; 32] {
        self.sha256
    }
    fn restamped(self, size: u64, mtime_ns: u128) -> FileEntry {
        FileEntry {
            size,
            mtime_ns,
            ..self
        }
    }
}

/// A file the index did not parse, and why (reported, never silently dropped).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedFile {
    pub file: String,
    pub reason: String,
}

/// An immutable view of the index that tools read without holding locks.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    pub files: HashMap<String, Arc<FileEntry>>,
    pub skipped: HashMap<String, String>,
    /// The tree's shape as of the last whole-workspace walk, when it can vouch for the next call.
    stamps: Option<Arc<DirStamps>>,
}

/// The file entries of a snapshot, as something derived from it saw them: whether a later
/// snapshot still holds the same entry for a file (an edit makes a new one; an unchanged file
/// keeps its entry from one refresh to the next), without keeping the entries alive.
#[derive(Debug, Default)]
pub struct SeenEntries(HashMap<String, Weak<FileEntry>>);

impl SeenEntries {
    pub fn of(snapshot: &Snapshot) -> SeenEntries {
        SeenEntries(
            snapshot
                .files
                .iter()
                .map(|(file, entry)| (file.clone(), Arc::downgrade(entry)))
                .collect(),
        )
    }

    /// Whether `entry` is the one seen for `file`.
    pub fn holds(&self, file: &str, entry: &Arc<FileEntry>) -> bool {
        self.0
            .get(file)
            .is_some_and(|seen| Weak::ptr_eq(seen, &Arc::downgrade(entry)))
    }

    /// Whether `snapshot` has exactly the entries seen: no file edited, added or removed.
    pub fn is_current(&self, snapshot: &Snapshot) -> bool {
        self.0.len() == snapshot.files.len()
            && snapshot
                .files
                .iter()
                .all(|(file, entry)| self.holds(file, entry))
    }
}

/// The store's eager part (bincode); its lazy part is every file's symbol blob back to back. A
/// warm start reads only this; blobs are read from the open file when a question needs them.
#[derive(Serialize, Deserialize)]
struct StoredHead {
    files: Vec<StoredFile>,
    skipped: HashMap<String, String>,
    stamps: Option<DirStamps>,
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    path: String,
    size: u64,
    mtime_ns: u128,
    sha256: [u8; 32],
    lossy: bool,
    names: String,
    /// The blob's place in the lazy part.
    offset: u64,
    len: u64,
}

/// What a refresh did, for logs and `index_status`.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct RefreshStats {
    pub files: usize,
    pub parsed: usize,
    pub removed: usize,
    /// Directories listed again by a stamp-based refresh (`None`: the tree was walked).
    pub relisted: Option<usize>,
    pub elapsed: Duration,
}

pub struct SymbolIndex {
    store: CacheFile<SymbolStore>,
    current: RwLock<Arc<Snapshot>>,
    /// Serialises refreshes so concurrent calls do not parse the same file twice.
    refreshing: Mutex<()>,
    /// Raised by a tool call waiting for `refreshing`: a background refresh gives way.
    give_way: AtomicBool,
    /// Directory watches (long-running servers only, see [`SymbolIndex::watch_changes`]).
    watched: WatchedRefresh,
}

impl SymbolIndex {
    pub fn new(state_dir: &Path) -> SymbolIndex {
        SymbolIndex {
            store: CacheFile::new(state_dir.join(STORE_FILE)),
            current: RwLock::new(Arc::new(Snapshot::default())),
            refreshing: Mutex::new(()),
            give_way: AtomicBool::new(false),
            watched: WatchedRefresh::default(),
        }
    }

    /// Watches the walked directories from now on, so that a whole-workspace refresh with no
    /// change since the last one returns at once instead of stat-ing every directory and file.
    pub fn watch_changes(&self, watch: Arc<TreeWatch>) {
        self.watched.enable(watch);
    }

    /// Brings the files under `base` (absolute, inside the workspace) up to date and returns a
    /// snapshot of the whole index.
    ///
    /// Refreshes take turns. A background refresh (the start-up sync's) runs at the lowest
    /// priority, so a tool call queued behind it would wait for it on a busy machine: a tool
    /// call finding one running asks it to give way, and it drops its work and queues behind
    /// the tool call instead, whose refresh runs at full priority. The background one then
    /// finds the index fresh.
    pub fn refresh(
        &self,
        ws: &Workspace,
        base: &Path,
    ) -> Result<(Arc<Snapshot>, RefreshStats), WalkError> {
        let background = crate::background::is_lowered();
        loop {
            let guard = self.take_turn(background);
            if let Some(done) = self.refresh_in_turn(ws, base, background) {
                return done;
            }
            drop(guard);
        }
    }

    /// The refresh lock. A tool call waiting for it raises [`SymbolIndex::give_way`]; a
    /// background caller does not queue while that is raised, so the tool call is next.
    fn take_turn(&self, background: bool) -> std::sync::MutexGuard<'_, ()> {
        use std::sync::TryLockError;
        if background {
            while self.give_way.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(2));
            }
            return self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        }
        match self.refreshing.try_lock() {
            Ok(guard) => return guard,
            Err(TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(TryLockError::WouldBlock) => {}
        }
        self.give_way.store(true, Ordering::Release);
        let guard = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        self.give_way.store(false, Ordering::Release);
        guard
    }

    /// One refresh, the lock held; `None` when a background refresh gave way to a tool call.
    fn refresh_in_turn(
        &self,
        ws: &Workspace,
        base: &Path,
        background: bool,
    ) -> Option<Result<(Arc<Snapshot>, RefreshStats), WalkError>> {
        let asked_to_give_way = || background && self.give_way.load(Ordering::Acquire);
        let started = std::time::Instant::now();
        self.load_once();
        let old = self.snapshot();
        let prefix = ws.relative(base);
        let max_bytes = ws.config.max_file_bytes;
        let mut stats = RefreshStats::default();
        let whole = prefix.is_empty();
        // Read before looking at anything: a change from here on moves the count.
        let mark = self.watched.begin().filter(|_| whole);
        if self.watched.unchanged(mark)
            && old
                .stamps
                .as_ref()
                .is_some_and(|s| s.git_exclude_unchanged(ws))
        {
            stats.files = old.files.len();
            stats.relisted = Some(0);
            stats.elapsed = started.elapsed();
            return Some(Ok((old, stats)));
        }
        let listing = match freshness::list(ws, base, whole, old.stamps.as_ref(), || {
            old.files
                .keys()
                .chain(old.skipped.keys())
                .map(String::as_str)
                .collect()
        }) {
            Ok(listing) => listing,
            Err(err) => return Some(Err(err)),
        };
        let mut changed = listing.stamps_changed;
        stats.relisted = listing.relisted;
        // Entries outside the refreshed subtree are carried over untouched.
        let mut next = Snapshot {
            files: freshness::outside(&old.files, &prefix),
            skipped: freshness::outside(&old.skipped, &prefix),
            stamps: listing.stamps,
        };
        let walked = listing.files;

        // `None`: asked to give way meanwhile.
        let results = analyze_files(walked, &old, max_bytes, &asked_to_give_way)?;

        for (path, result) in results {
            match result {
                Ok((entry, fate)) => {
                    stats.parsed += usize::from(fate == Fate::Parsed);
                    // A file re-hashed while its mtime is still too recent to keep is not worth
                    // rewriting the store for; one whose mtime settled is, or it is hashed again
                    // on every start.
                    changed |= match fate {
                        Fate::Kept => false,
                        Fate::Parsed => true,
                        Fate::Rehashed => old
                            .files
                            .get(&path)
                            .is_none_or(|e| e.mtime_ns != entry.mtime_ns || e.size != entry.size),
                    };
                    next.files.insert(path, entry);
                }
                Err(reason) => {
                    changed |= old.skipped.get(&path) != Some(&reason);
                    next.skipped.insert(path, reason);
                }
            }
        }
        stats.removed = old
            .files
            .keys()
            .filter(|p| in_subtree(p, &prefix) && !next.files.contains_key(*p))
            .count();
        changed |= stats.removed > 0;
        stats.files = next.files.len();
        if whole {
            let dirs = next.stamps.as_ref().and_then(|s| s.watchable_dirs(ws));
            self.watched.finish(mark, dirs);
        }
        let next = Arc::new(next);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        if changed && let Err(err) = self.store.persist(&next) {
            tracing::warn!("could not save the symbol index: {err}");
        }
        stats.elapsed = started.elapsed();
        Some(Ok((next, stats)))
    }

    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn load_once(&self) {
        self.store.load_once(|snapshot| {
            *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(snapshot);
        });
    }
}

/// How the symbol store is kept in its [`CacheFile`].
struct SymbolStore;

impl Format for SymbolStore {
    type Value = Snapshot;
    const KIND: Kind = Kind {
        name: "symbol index",
        tag: *b"SYMB",
        // Bumped whenever the stored layout or the extraction rules change (5: a variable whose
        // value holds definitions scopes them).
        version: 5,
        // Versions 1 and 2 began with their version; 3 with the header's length before it.
        legacy: |bytes| {
            let v3 = bytes
                .get(8..)
                .and_then(cache_file::headerless_bincode_version);
            v3 == Some(3) || cache_file::headerless_bincode_version(bytes).is_some_and(|v| v < 3)
        },
    };

    fn encode(snapshot: &Snapshot, out: &mut Encoder) -> std::io::Result<()> {
        let mut paths: Vec<&String> = snapshot.files.keys().collect();
        paths.sort();
        // Offsets come from the blobs' lengths, so the blobs are copied only once: straight
        // after the header, into the buffer that is written.
        let mut offset = 0;
        let mut files = Vec::with_capacity(paths.len());
        for path in &paths {
            let entry = &snapshot.files[*path];
            let len = entry.symbols.blob_len() as u64;
            files.push(StoredFile {
                path: (*path).clone(),
                size: entry.size,
                mtime_ns: entry.mtime_ns,
                sha256: entry.sha256,
                lossy: entry.lossy,
                names: entry.symbols.names().to_string(),
                offset,
                len,
            });
            offset += len;
        }
        let head = StoredHead {
            files,
            skipped: snapshot.skipped.clone(),
            stamps: snapshot.stamps.as_deref().cloned(),
        };
        bincode::serialize_into(&mut *out.bytes(), &head).map_err(std::io::Error::other)?;
        drop(head);
        out.start_lazy();
        out.bytes().reserve(offset as usize);
        for path in paths {
            let blob = snapshot.files[path].symbols.blob()?;
            out.bytes().extend_from_slice(&blob);
        }
        Ok(())
    }

    fn decode(eager: &[u8], lazy: LazyPart) -> Result<Snapshot, DecodeError> {
        let head: StoredHead = bincode::deserialize(eager)?;
        let base = lazy.offset;
        let blobs = lazy.len;
        let store = lazy::BlobFile::new(lazy.file);
        let mut files = HashMap::with_capacity(head.files.len());
        for f in head.files {
            // The blobs are not read here, so a place past the end would only show as a failed
            // read later: refuse the store now instead.
            if f.offset.checked_add(f.len).is_none_or(|end| end > blobs) {
                return Err("a blob lies past the end of the file".into());
            }
            let symbols =
                LazySymbols::in_store(f.names, store.clone(), base + f.offset, f.len as usize);
            let entry = FileEntry {
                size: f.size,
                mtime_ns: f.mtime_ns,
                sha256: f.sha256,
                lossy: f.lossy,
                symbols,
            };
            files.insert(f.path, Arc::new(entry));
        }
        Ok(Snapshot {
            files,
            skipped: head.skipped,
            stamps: head.stamps.map(Arc::new),
        })
    }
}

/// Each walked file of a known language: its old entry while unchanged, else its symbols
/// (in parallel, largest files first, at background priority). `None` when the refresh was
/// asked to give way to a tool call meanwhile: it starts over after that call.
fn analyze_files(
    walked: Vec<crate::workspace::WalkedFile>,
    old: &Snapshot,
    max_bytes: u64,
    give_way: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<(String, FileOutcome)>> {
    let mut candidates: Vec<_> = walked
        .into_iter()
        .filter_map(|f| crate::lang::detect(&f.rel).map(|lang| (f, lang)))
        .collect();
    // Largest first: a big file parsed last would leave the other threads idle meanwhile.
    candidates.sort_unstable_by_key(|(f, _)| std::cmp::Reverse(f.size));
    let results: Vec<(String, FileOutcome)> = crate::background::parallel(|| {
        candidates
            .into_par_iter()
            .map(|(file, lang)| {
                if give_way() {
                    // Dropped below: the refresh starts over after the tool call's.
                    return (file.rel, Err(String::new()));
                }
                let mtime_ns = stable_nanos(file.mtime);
                refresh_walked(&file, mtime_ns, &old.files, max_bytes, |source, sha256| {
                    FileEntry {
                        size: file.size,
                        mtime_ns,
                        sha256,
                        lossy: source.lossy,
                        symbols: LazySymbols::new(analyze_source(lang, &source.text)),
                    }
                })
            })
            .collect()
    });
    (!give_way()).then_some(results)
}

/// A temporary project of `(path, text)` files with its symbol index, for the tests of the
/// layers above that read a snapshot.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    pub struct Indexed {
        pub dir: tempfile::TempDir,
        pub ws: Workspace,
        pub index: SymbolIndex,
    }

    impl Indexed {
        pub fn new(files: &[(&str, &str)]) -> Indexed {
            let dir = crate::fsutil::temp_tree(files);
            let ws = Workspace::open(dir.path()).unwrap();
            let index = SymbolIndex::new(&ws.state_dir());
            Indexed { dir, ws, index }
        }

        /// The snapshot of the files as they are now.
        pub fn snapshot(&self) -> Arc<Snapshot> {
            self.index.refresh(&self.ws, self.ws.root()).unwrap().0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_seen_and_unchanged_files_are_not_reparsed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def one():\n    pass\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "def two():\n    pass\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let index = SymbolIndex::new(&ws.state_dir());
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (2, 2));
        assert_eq!(snap.files["a.py"].symbols.symbols[0].name, "one");

        std::fs::write(dir.path().join("a.py"), "def uno():\n    pass\n").unwrap();
        std::fs::remove_file(dir.path().join("b.py")).unwrap();
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed, stats.removed), (1, 1, 1));
        assert_eq!(snap.files["a.py"].symbols.symbols[0].name, "uno");

        // A new process reads the store and parses nothing.
        let again = SymbolIndex::new(&ws.state_dir());
        let (_, stats) = again.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 0));
    }

    #[test]
    fn a_background_refresh_gives_way_to_a_tool_call() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def one():\n    pass\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let index = SymbolIndex::new(&ws.state_dir());
        // A tool call is waiting: the background refresh drops its work and installs nothing.
        index.give_way.store(true, Ordering::Release);
        assert!(index.refresh_in_turn(&ws, ws.root(), true).is_none());
        assert!(index.snapshot().files.is_empty());
        // The tool call's own refresh is not asked to give way.
        let (snap, stats) = index
            .refresh_in_turn(&ws, ws.root(), false)
            .unwrap()
            .unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 1));
        assert_eq!(snap.files["a.py"].symbols.symbols[0].name, "one");
        // Once the flag is down, the background refresh finds the index fresh.
        index.give_way.store(false, Ordering::Release);
        let (_, stats) = index
            .refresh_in_turn(&ws, ws.root(), true)
            .unwrap()
            .unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 0));
    }

    #[test]
    fn blobs_left_in_the_store_survive_a_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            "class A:\n    def run(self):\n        pass\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.py"), "def two():\n    pass\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let (first, _) = SymbolIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        // The second process edits b.py, so it writes a store while a.py's blob is still unread
        // in the one it loaded.
        std::fs::write(dir.path().join("b.py"), "def three():\n    pass\n").unwrap();
        let (_, stats) = SymbolIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        assert_eq!(stats.parsed, 1);
        let (third, stats) = SymbolIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        assert_eq!(stats.parsed, 0);
        assert_eq!(
            third.files["a.py"].symbols.symbols,
            first.files["a.py"].symbols.symbols
        );
        assert_eq!(names(&third, "a.py"), ["A", "run"]);
        assert_eq!(names(&third, "b.py"), ["three"]);
    }

    #[test]
    fn a_corrupt_store_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        std::fs::write(ws.state_dir().join(STORE_FILE), b"garbage").unwrap();
        let (snap, _) = SymbolIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        assert_eq!(snap.files.len(), 1);
    }

    /// A project whose store says `a.py` defines `wrong` while the file, at the same size and
    /// mtime, now defines `right`: a process that trusts the store answers `wrong`, one that
    /// rebuilt it `right`. Returns the store's bytes as written.
    fn store_that_lies() -> (tempfile::TempDir, Workspace, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".code-intel")).unwrap();
        let file = root.join("a.py");
        std::fs::write(&file, "def wrong():\n    pass\n").unwrap();
        settle_all(root);
        let ws = Workspace::open(root).unwrap();
        SymbolIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        crate::index::cache_file::testing::rewrite_keeping_mtime(&file, "def right():\n    pass\n");
        let stored = std::fs::read(ws.state_dir().join(STORE_FILE)).unwrap();
        (dir, ws, stored)
    }

    /// What a new process answers for `a.py`, how many files it parsed, and what it warned.
    fn new_process_answer(ws: &Workspace) -> (Vec<String>, usize, String) {
        let ((snap, stats), logged) = cache_file::testing::warnings(|| {
            SymbolIndex::new(&ws.state_dir())
                .refresh(ws, ws.root())
                .unwrap()
        });
        (names(&snap, "a.py"), stats.parsed, logged)
    }

    #[test]
    fn old_cut_short_or_damaged_stores_are_rebuilt_never_misread() {
        let (_dir, ws, stored) = store_that_lies();
        let path = ws.state_dir().join(STORE_FILE);
        // As written, the store is trusted: the trap is set.
        assert_eq!(
            new_process_answer(&ws),
            (vec!["wrong".into()], 0, String::new())
        );

        // The previous format (3): no common header, the header's length, then a bincode head
        // that began with the version and the tool version, then the blobs.
        #[derive(Serialize)]
        struct HeadV3 {
            version: u32,
            tool_version: String,
            files: Vec<StoredFile>,
            skipped: HashMap<String, String>,
            stamps: Option<DirStamps>,
        }
        let (eager, blobs) = cache_file::testing::parts(&stored);
        let head: StoredHead = bincode::deserialize(&eager).unwrap();
        let head = bincode::serialize(&HeadV3 {
            version: 3,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            files: head.files,
            skipped: head.skipped,
            stamps: head.stamps,
        })
        .unwrap();
        let mut v3 = (head.len() as u64).to_le_bytes().to_vec();
        v3.extend_from_slice(&head);
        v3.extend_from_slice(&blobs);
        let mut variants = cache_file::testing::variants(&stored);
        variants.push(cache_file::testing::Variant {
            what: "format 3, before the common header".into(),
            bytes: v3,
            warns: false,
        });

        cache_file::testing::check_each(&path, variants, |variant| {
            let (names, parsed, logged) = new_process_answer(&ws);
            if (names.as_slice(), parsed) != (&["right".to_string()][..], 1) {
                return Err(format!("answered {names:?}, parsed {parsed}"));
            }
            if logged.contains("symbol index") != variant.warns {
                return Err(format!("logged {logged:?}"));
            }
            Ok(())
        });
    }

    /// Backdates every file and directory under `dir` past the racy window, as a tree that was
    /// checked out a while ago.
    fn settle_all(dir: &Path) {
        let old = std::time::SystemTime::now() - Duration::from_secs(dir_stamps::RACY_SECS + 60);
        let mut stack = vec![dir.to_path_buf()];
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap() {
                    stack.push(entry.unwrap().path());
                }
            }
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }

    fn names(snap: &Snapshot, file: &str) -> Vec<String> {
        snap.files[file]
            .symbols
            .symbols
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    /// A tree whose directories and files all settled, already indexed once (so the store holds
    /// its stamps).
    fn settled_tree() -> (tempfile::TempDir, Workspace, SymbolIndex) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep/nested")).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::create_dir_all(root.join(".code-intel")).unwrap();
        std::fs::write(root.join("src/a.py"), "def alpha():\n    pass\n").unwrap();
        std::fs::write(root.join("src/deep/nested/b.py"), "def beta():\n    pass\n").unwrap();
        std::fs::write(root.join("lib/c.py"), "def gamma():\n    pass\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        settle_all(root);
        let ws = Workspace::open(root).unwrap();
        let index = SymbolIndex::new(&ws.state_dir());
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed, stats.relisted), (3, 3, None));
        assert!(snap.stamps.is_some());
        (dir, ws, index)
    }

    #[test]
    fn a_settled_tree_is_refreshed_without_listing_any_directory() {
        let (_dir, ws, index) = settled_tree();
        let (_, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed, stats.relisted), (3, 0, Some(0)));
        // A new process starts from the stored stamps.
        let again = SymbolIndex::new(&ws.state_dir());
        let (_, stats) = again.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed, stats.relisted), (3, 0, Some(0)));
    }

    /// Refreshes until `seen` holds (events reach the watch on its own thread), at most 5 s.
    fn refresh_until(
        ws: &Workspace,
        index: &SymbolIndex,
        seen: impl Fn(&Snapshot) -> bool,
    ) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if seen(&index.refresh(ws, ws.root()).unwrap().0) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn a_watched_tree_costs_nothing_until_a_change_which_is_seen() {
        let (dir, ws, index) = settled_tree();
        let root = dir.path();
        let watch = Arc::new(TreeWatch::new());
        if watch.changes().is_none() {
            eprintln!("no file watching on this system; nothing to test");
            return;
        }
        index.watch_changes(watch);
        let (first, _) = index.refresh(&ws, ws.root()).unwrap();
        let (second, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(
            !Arc::ptr_eq(&first, &second),
            "checked by stat, watches now in place"
        );
        let (third, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert!(Arc::ptr_eq(&second, &third), "answered from the watch");
        assert_eq!((stats.files, stats.parsed), (3, 0));

        // Edited in place, same size, directory untouched.
        std::fs::write(root.join("src/deep/nested/b.py"), "def betb():\n    pass\n").unwrap();
        assert!(refresh_until(&ws, &index, |s| names(
            s,
            "src/deep/nested/b.py"
        ) == ["betb"]));
        // A new directory with a file, then the file removed again.
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/e.py"), "def epsilon():\n    pass\n").unwrap();
        assert!(refresh_until(&ws, &index, |s| s
            .files
            .contains_key("pkg/e.py")));
        std::fs::remove_file(root.join("pkg/e.py")).unwrap();
        assert!(refresh_until(&ws, &index, |s| !s
            .files
            .contains_key("pkg/e.py")));
    }

    #[test]
    fn stamps_see_added_deleted_renamed_and_edited_files_in_the_next_call() {
        let (dir, ws, index) = settled_tree();
        let root = dir.path();

        // Added deep in the tree: only that directory is listed again.
        std::fs::write(
            root.join("src/deep/nested/d.py"),
            "def delta():\n    pass\n",
        )
        .unwrap();
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.parsed, stats.relisted), (1, Some(1)));
        assert_eq!(names(&snap, "src/deep/nested/d.py"), ["delta"]);

        std::fs::remove_file(root.join("lib/c.py")).unwrap();
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.removed, stats.files), (1, 3));
        assert!(!snap.files.contains_key("lib/c.py"));

        std::fs::rename(root.join("src/a.py"), root.join("src/deep/a2.py")).unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!snap.files.contains_key("src/a.py"));
        assert_eq!(names(&snap, "src/deep/a2.py"), ["alpha"]);

        // Edited in place, same size, directory untouched: the file's own stat shows it.
        settle_all(root);
        index.refresh(&ws, ws.root()).unwrap();
        std::fs::write(root.join("src/deep/nested/b.py"), "def betb():\n    pass\n").unwrap();
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.parsed, stats.relisted), (1, Some(0)));
        assert_eq!(names(&snap, "src/deep/nested/b.py"), ["betb"]);

        // A new directory is walked whole; a removed one takes its files along.
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("pkg/sub/e.py"), "def epsilon():\n    pass\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!(names(&snap, "pkg/sub/e.py"), ["epsilon"]);
        std::fs::remove_dir_all(root.join("src/deep")).unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        let mut files: Vec<&String> = snap.files.keys().collect();
        files.sort();
        assert_eq!(files, ["pkg/sub/e.py"]);
    }

    #[test]
    fn ignore_rule_changes_are_seen_in_the_next_call() {
        let (dir, ws, index) = settled_tree();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "*.tmp\nlib/\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!snap.files.contains_key("lib/c.py"));
        assert!(snap.files.contains_key("src/a.py"));

        // A new ignore file deeper down, in a directory that otherwise looks unchanged.
        settle_all(root);
        index.refresh(&ws, ws.root()).unwrap();
        std::fs::write(root.join("src/deep/.gitignore"), "nested/\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!snap.files.contains_key("src/deep/nested/b.py"));

        // And back: removing the rule brings the files back.
        std::fs::remove_file(root.join("src/deep/.gitignore")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(
            snap.files.contains_key("src/deep/nested/b.py") && snap.files.contains_key("lib/c.py")
        );
    }
}
