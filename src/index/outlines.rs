//! The outline index: every supported file's [`FileOutline`] (imports, exports, functions,
//! classes …) plus the project manifests module resolution reads (`tsconfig.json`,
//! `composer.json`, `go.mod`, `Cargo.toml`, `package.json`, `pyproject.toml`), kept fresh and
//! persisted per project in `.code-intel/outlines.json`.
//!
//! Same freshness rule as the symbol index: a file whose size or mtime changed is re-read and
//! SHA-256 hashed, and re-parsed only when the hash changed — so a repeated `analyze_file` on an
//! unchanged file never parses, and an edit between two calls is always seen. The single-file
//! path ([`OutlineIndex::file`]) costs one `stat` on a hit; results it adds are persisted with the
//! next refresh or when the index is dropped.
//!
//! A whole-project refresh skips unchanged trees the way the symbol index does, with the same
//! [`DirStamps`]: only directories whose mtime changed are listed again, the known files of the
//! others are `stat`-ed, and a changed ignore file or walk configuration means a full walk.
//! A server also watches the walked directories ([`OutlineIndex::watch_changes`]): while the
//! watch has seen no change since a refresh that it covered from the start, the next refresh
//! returns the snapshot as it is, without a single `stat`.
//!
//! The store is a [`CacheFile`] whose content is JSON rather than bincode, because outlines skip
//! empty optional fields when serialised, which only a self-describing format reads back.

use super::cache_file::{CacheFile, DecodeError, Encoder, Format, Kind, LazyPart};
use super::dir_stamps::{DirStamps, stable_nanos};
use super::freshness::{Fate, Stamped, in_subtree, list, outside, refresh_walked};
use crate::analysis::outline::{FileOutline, outline_source};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lang::LanguageDef;
use crate::workspace::watch::{TreeWatch, WatchedRefresh};
use crate::workspace::{ResolvedPath, WalkError, WalkedFile, Workspace, read_source};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// The name predates the common header; kept so that an older store is found and replaced.
const STORE_FILE: &str = "outlines.json";

/// File names module resolution reads, wherever they are in the project.
pub const MANIFEST_NAMES: &[&str] = &[
    "Cargo.toml",
    "composer.json",
    "go.mod",
    "jsconfig.json",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
    "tsconfig.json",
];

/// Whether a file name is a manifest (`tsconfig.*.json` variants included).
pub fn is_manifest(file_name: &str) -> bool {
    MANIFEST_NAMES.contains(&file_name)
        || (file_name.starts_with("tsconfig.") && file_name.ends_with(".json"))
}

/// One analysed file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutlineEntry {
    pub size: u64,
    pub mtime_ns: u128,
    pub sha256: [u8; 32],
    pub lines: usize,
    pub lossy: bool,
    pub outline: Arc<FileOutline>,
}

impl Stamped for OutlineEntry {
    fn size(&self) -> u64 {
        self.size
    }
    fn mtime_ns(&self) -> u128 {
        self.mtime_ns
    }
    fn sha256(&self) -> [u8; 32] {
        self.sha256
    }
    fn restamped(self, size: u64, mtime_ns: u128) -> OutlineEntry {
        OutlineEntry {
            size,
            mtime_ns,
            ..self
        }
    }
}

/// A manifest's content, for module resolution.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub size: u64,
    pub mtime_ns: u128,
    pub sha256: [u8; 32],
    pub text: String,
}

/// An immutable view that tools read without holding locks.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct OutlineSnapshot {
    pub files: HashMap<String, Arc<OutlineEntry>>,
    pub skipped: HashMap<String, String>,
    pub manifests: HashMap<String, Arc<Manifest>>,
    /// The tree's shape as of the last whole-workspace walk, when it can vouch for the next call.
    #[serde(default)]
    stamps: Option<Arc<DirStamps>>,
    /// Changes whenever an outline or manifest changes, so derived data (a module resolver)
    /// can be reused while it is equal. Unique within the process.
    #[serde(skip)]
    pub generation: u64,
}

/// A fresh snapshot generation.
fn next_generation() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// What a refresh did.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct OutlineStats {
    pub files: usize,
    pub parsed: usize,
    pub removed: usize,
    pub elapsed: Duration,
}

pub struct OutlineIndex {
    store: CacheFile<OutlineStore>,
    current: RwLock<Arc<OutlineSnapshot>>,
    /// Serialises updates so two calls never parse the same file twice or lose each other's work.
    updating: Mutex<()>,
    /// Entries added by single-file lookups and not yet written.
    dirty: AtomicBool,
    /// Directory watches (long-running servers only, see [`OutlineIndex::watch_changes`]).
    watched: WatchedRefresh,
}

type Outcome = Result<(Arc<OutlineEntry>, Fate), String>;

impl OutlineIndex {
    pub fn new(state_dir: &Path) -> OutlineIndex {
        OutlineIndex {
            store: CacheFile::new(state_dir.join(STORE_FILE)),
            current: RwLock::new(Arc::new(OutlineSnapshot::default())),
            updating: Mutex::new(()),
            dirty: AtomicBool::new(false),
            watched: WatchedRefresh::default(),
        }
    }

    /// Watches the walked directories from now on, so that a whole-project refresh with no
    /// change since the last one returns at once instead of stat-ing every file. Worth it in a
    /// server that answers many calls; a one-shot command would only pay for the watches.
    pub fn watch_changes(&self, watch: Arc<TreeWatch>) {
        self.watched.enable(watch);
    }

    pub fn snapshot(&self) -> Arc<OutlineSnapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The fresh outline of one file (already resolved inside the workspace). A hit costs one
    /// `stat`; a changed file is re-read, and re-parsed only if its content hash changed.
    pub fn file(&self, ws: &Workspace, path: &ResolvedPath) -> ToolResult<Arc<OutlineEntry>> {
        let Some(lang) = crate::lang::detect(&path.rel) else {
            return Err(ToolError::new(
                ErrorCode::InvalidParameter,
                format!("'{}' is not in a supported language", path.rel),
            )
            .with("file", path.rel.clone())
            .with("supported_languages", crate::lang::ids()));
        };
        self.load_once();
        let meta = std::fs::metadata(&path.abs).map_err(|err| {
            ToolError::new(
                ErrorCode::FileNotFound,
                format!("cannot read '{}': {err}", path.rel),
            )
            .with("file", path.rel.clone())
        })?;
        let mtime_ns = stable_nanos(meta.modified().ok());
        let old = self.snapshot().files.get(&path.rel).cloned();
        if let Some(entry) = &old
            && entry.size == meta.len()
            && entry.mtime_ns == mtime_ns
            && mtime_ns != 0
        {
            return Ok(entry.clone());
        }
        let _guard = self.updating.lock().unwrap_or_else(|p| p.into_inner());
        let source = read_source(&path.abs, &path.rel, ws.config.max_file_bytes)?;
        let sha256: [u8; 32] = Sha256::digest(source.text.as_bytes()).into();
        let entry = match old.filter(|e| e.sha256 == sha256) {
            Some(same) => Arc::new(OutlineEntry {
                size: meta.len(),
                mtime_ns,
                ..(*same).clone()
            }),
            None => Arc::new(OutlineEntry {
                size: meta.len(),
                mtime_ns,
                sha256,
                lines: source.line_count(),
                lossy: source.lossy,
                outline: Arc::new(outline_source(lang, &source.text)),
            }),
        };
        let mut next = (*self.snapshot()).clone();
        if next
            .files
            .get(&path.rel)
            .is_none_or(|e| !Arc::ptr_eq(&e.outline, &entry.outline))
        {
            next.generation = next_generation();
        }
        if !next.files.contains_key(&path.rel) {
            // A file the last walk did not see (ignored, or new): the stamps would keep an ignored
            // one as known, so walk again next time.
            next.stamps = None;
        }
        next.files.insert(path.rel.clone(), entry.clone());
        next.skipped.remove(&path.rel);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        self.dirty.store(true, Ordering::Relaxed);
        Ok(entry)
    }

    /// Brings every file under `base` (absolute, inside the workspace) up to date, manifests
    /// included, and returns a snapshot of the whole index.
    pub fn refresh(
        &self,
        ws: &Workspace,
        base: &Path,
    ) -> Result<(Arc<OutlineSnapshot>, OutlineStats), WalkError> {
        let started = std::time::Instant::now();
        let _guard = self.updating.lock().unwrap_or_else(|p| p.into_inner());
        self.load_once();
        let old = self.snapshot();
        let prefix = ws.relative(base);
        let max_bytes = ws.config.max_file_bytes;
        let whole = prefix.is_empty();
        // Read before looking at anything: a change from here on moves the count.
        let mark = self.watched.begin().filter(|_| whole);
        if self.watched.unchanged(mark)
            && old
                .stamps
                .as_ref()
                .is_some_and(|s| s.git_exclude_unchanged(ws))
        {
            let stats = OutlineStats {
                files: old.files.len(),
                elapsed: started.elapsed(),
                ..OutlineStats::default()
            };
            return Ok((old, stats));
        }
        let listing = list(ws, base, whole, old.stamps.as_ref(), || {
            // Manifests are known files too: they need not be in a supported language.
            old.files
                .keys()
                .chain(old.skipped.keys())
                .chain(old.manifests.keys().filter(|m| !old.files.contains_key(*m)))
                .map(String::as_str)
                .collect()
        })?;
        let mut next = OutlineSnapshot {
            files: outside(&old.files, &prefix),
            skipped: outside(&old.skipped, &prefix),
            manifests: outside(&old.manifests, &prefix),
            stamps: listing.stamps,
            generation: 0,
        };
        let (candidates, mut changed) = read_manifests(listing.files, &old, &mut next);
        changed |= old
            .manifests
            .keys()
            .any(|p| in_subtree(p, &prefix) && !next.manifests.contains_key(p));
        let results = outline_files(candidates, &old, max_bytes);

        let mut stats = OutlineStats::default();
        for (path, result) in results {
            match result {
                Ok((entry, fate)) => {
                    // A re-hashed file only has a new mtime: not worth rewriting the store for.
                    stats.parsed += usize::from(fate == Fate::Parsed);
                    changed |= fate == Fate::Parsed || !old.files.contains_key(&path);
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
        next.generation = if changed {
            next_generation()
        } else {
            old.generation
        };
        if whole {
            let dirs = next.stamps.as_ref().and_then(|s| s.watchable_dirs(ws));
            self.watched.finish(mark, dirs);
        }
        let next = Arc::new(next);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        // New stamps alone are not written: this store is far larger than the symbol store's
        // header, and stamps older than the snapshot only make the next process list a few
        // directories again (the two are always written together, so they never disagree).
        if changed || self.dirty.load(Ordering::Relaxed) {
            self.persist(&next);
        }
        stats.elapsed = started.elapsed();
        Ok((next, stats))
    }

    fn load_once(&self) {
        self.store.load_once(|mut snapshot: OutlineSnapshot| {
            snapshot.generation = next_generation();
            *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(snapshot);
        });
    }

    fn persist(&self, snapshot: &OutlineSnapshot) {
        match self.store.persist(snapshot) {
            Ok(()) => self.dirty.store(false, Ordering::Relaxed),
            Err(err) => tracing::warn!("could not save the outline index: {err}"),
        }
    }
}

/// How the outline store is kept in its [`CacheFile`].
struct OutlineStore;

impl Format for OutlineStore {
    type Value = OutlineSnapshot;
    const KIND: Kind = Kind {
        name: "outline index",
        tag: *b"OUTL",
        // Bumped whenever the stored layout or the outline rules change.
        version: 4,
        // Versions 1 to 3 were a bare JSON object that began with its version.
        legacy: |bytes| bytes.starts_with(br#"{"version":"#),
    };

    fn encode(snapshot: &OutlineSnapshot, out: &mut Encoder) -> std::io::Result<()> {
        serde_json::to_writer(out.bytes(), snapshot).map_err(std::io::Error::other)
    }

    fn decode(eager: &[u8], _: LazyPart) -> Result<OutlineSnapshot, DecodeError> {
        Ok(serde_json::from_slice(eager)?)
    }
}

impl Drop for OutlineIndex {
    /// Outlines added by single-file calls since the last refresh are kept for the next process.
    fn drop(&mut self) {
        if self.dirty.load(Ordering::Relaxed) {
            let snapshot = self.snapshot();
            self.persist(&snapshot);
        }
    }
}

/// A file to outline, with its settled mtime and its language.
type Candidate = (WalkedFile, u128, &'static LanguageDef);

/// Puts the manifests among `found` into `next` (re-read only when their size or mtime moved)
/// and returns the files of a known language, with whether a manifest's content changed.
fn read_manifests(
    found: Vec<WalkedFile>,
    old: &OutlineSnapshot,
    next: &mut OutlineSnapshot,
) -> (Vec<Candidate>, bool) {
    let mut changed = false;
    let mut candidates = Vec::new();
    for file in found {
        let mtime_ns = stable_nanos(file.mtime);
        let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
        if is_manifest(name) {
            let kept = old
                .manifests
                .get(&file.rel)
                .filter(|m| m.size == file.size && m.mtime_ns == mtime_ns && m.mtime_ns != 0)
                .cloned();
            let manifest = match kept {
                Some(m) => m,
                None => match std::fs::read_to_string(&file.abs) {
                    Ok(text) => {
                        let sha256: [u8; 32] = Sha256::digest(text.as_bytes()).into();
                        changed |= old
                            .manifests
                            .get(&file.rel)
                            .is_none_or(|m| m.sha256 != sha256);
                        Arc::new(Manifest {
                            size: file.size,
                            mtime_ns,
                            sha256,
                            text,
                        })
                    }
                    Err(_) => continue,
                },
            };
            next.manifests.insert(file.rel.clone(), manifest);
        }
        if let Some(lang) = crate::lang::detect(&file.rel) {
            candidates.push((file, mtime_ns, lang));
        }
    }
    (candidates, changed)
}

/// Each candidate's entry: the old one when the file is unchanged, else a new outline (in
/// parallel).
fn outline_files(
    candidates: Vec<Candidate>,
    old: &OutlineSnapshot,
    max_bytes: u64,
) -> Vec<(String, Outcome)> {
    candidates
        .into_par_iter()
        .map(|(file, mtime_ns, lang)| {
            refresh_walked(&file, mtime_ns, &old.files, max_bytes, |source, sha256| {
                OutlineEntry {
                    size: file.size,
                    mtime_ns,
                    sha256,
                    lines: source.line_count(),
                    lossy: source.lossy,
                    outline: Arc::new(outline_source(lang, &source.text)),
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::dir_stamps::RACY_SECS;
    use std::time::SystemTime;

    #[test]
    fn unchanged_files_are_not_reparsed_and_edits_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.ts"), "export function one() {}\n").unwrap();
        std::fs::write(dir.path().join("tsconfig.json"), "{}").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let index = OutlineIndex::new(&ws.state_dir());
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 1));
        assert!(snap.manifests.contains_key("tsconfig.json"));
        let a = ws.resolve_file("a.ts").unwrap();
        let first = index.file(&ws, &a).unwrap();
        assert!(Arc::ptr_eq(
            &first.outline,
            &index.file(&ws, &a).unwrap().outline
        ));

        // Same content, new mtime: re-hashed, not re-parsed (the outline is shared).
        std::fs::write(dir.path().join("a.ts"), "export function one() {}\n").unwrap();
        let filetime = std::time::SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(dir.path().join("a.ts"))
            .unwrap()
            .set_modified(filetime)
            .unwrap();
        let touched = index.file(&ws, &a).unwrap();
        assert!(Arc::ptr_eq(&first.outline, &touched.outline));

        std::fs::write(dir.path().join("a.ts"), "export function two() {}\n").unwrap();
        let edited = index.file(&ws, &a).unwrap();
        assert_eq!(edited.outline.functions[0].name, "two");
        drop(index);

        // A new process reads the store and parses nothing.
        let again = OutlineIndex::new(&ws.state_dir());
        let (snap, stats) = again.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 0));
        assert_eq!(snap.files["a.ts"].outline.functions[0].name, "two");
    }

    /// A project whose store says `a.ts` exports `wrong` while the file, at the same size and
    /// mtime, now exports `right`: a process that trusts the store answers `wrong`, one that
    /// rebuilt it `right`. Returns the store's bytes as written.
    fn store_that_lies() -> (tempfile::TempDir, Workspace, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".code-intel")).unwrap();
        let file = root.join("a.ts");
        std::fs::write(&file, "export function wrong() {}\n").unwrap();
        for p in ["a.ts", ""] {
            settle(&root.join(p));
        }
        let ws = Workspace::open(root).unwrap();
        OutlineIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        crate::index::cache_file::testing::rewrite_keeping_mtime(
            &file,
            "export function right() {}\n",
        );
        let stored = std::fs::read(ws.state_dir().join(STORE_FILE)).unwrap();
        (dir, ws, stored)
    }

    /// What a new process answers for `a.ts`, how many files it parsed, and what it warned.
    fn new_process_answer(ws: &Workspace) -> (String, usize, String) {
        let ((snap, stats), logged) = crate::index::cache_file::testing::warnings(|| {
            OutlineIndex::new(&ws.state_dir())
                .refresh(ws, ws.root())
                .unwrap()
        });
        let name = snap.files["a.ts"].outline.functions[0].name.clone();
        (name, stats.parsed, logged)
    }

    #[test]
    fn old_cut_short_or_damaged_stores_are_rebuilt_never_misread() {
        use crate::index::cache_file::testing::{Variant, check_each, parts, variants};
        let (_dir, ws, stored) = store_that_lies();
        let path = ws.state_dir().join(STORE_FILE);
        // As written, the store is trusted: the trap is set.
        assert_eq!(new_process_answer(&ws), ("wrong".into(), 0, String::new()));

        // The previous format (3): a bare JSON object, the version first.
        let (json, _) = parts(&stored);
        let v3 = format!(
            r#"{{"version":3,"tool_version":"{}","snapshot":{}}}"#,
            env!("CARGO_PKG_VERSION"),
            String::from_utf8(json).unwrap()
        );
        let mut variants = variants(&stored);
        variants.push(Variant {
            what: "format 3, before the common header".into(),
            bytes: v3.into_bytes(),
            warns: false,
        });

        check_each(&path, variants, |variant| {
            let (name, parsed, logged) = new_process_answer(&ws);
            if (name.as_str(), parsed) != ("right", 1) {
                return Err(format!("answered {name:?}, parsed {parsed}"));
            }
            if logged.contains("outline index") != variant.warns {
                return Err(format!("logged {logged:?}"));
            }
            Ok(())
        });
    }

    #[test]
    fn an_ignore_file_edited_in_place_is_seen_by_a_settled_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".code-intel")).unwrap();
        std::fs::write(root.join("src/a.py"), "def a():\n    pass\n").unwrap();
        std::fs::write(root.join("src/b.py"), "def b():\n    pass\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        for p in ["src/a.py", "src/b.py", ".gitignore", "src", ""] {
            settle(&root.join(p));
        }
        let ws = Workspace::open(root).unwrap();
        let index = OutlineIndex::new(&ws.state_dir());
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(snap.files.contains_key("src/b.py"));
        // No directory changes: only the ignore file's own stamp tells.
        std::fs::write(root.join(".gitignore"), "src/b.py\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!snap.files.contains_key("src/b.py"));
        assert!(snap.files.contains_key("src/a.py"));
    }

    /// Backdates a file or directory so its mtime is past the racy window.
    fn settle(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(RACY_SECS + 60);
        std::fs::File::open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    #[test]
    fn a_watched_tree_is_refreshed_without_looking_until_something_changes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "def a():\n    pass\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
        for p in ["src/a.py", "src", ""] {
            settle(&dir.path().join(p));
        }
        let ws = Workspace::open(dir.path()).unwrap();
        let index = OutlineIndex::new(&ws.state_dir());
        let watch = Arc::new(TreeWatch::new());
        if watch.changes().is_none() {
            eprintln!("no file watching on this system; nothing to test");
            return;
        }
        index.watch_changes(watch);
        // The first refresh walks and adds the watches; the second checks by stat with every
        // directory watched from its start; from then on an unchanged tree costs nothing.
        let (first, _) = index.refresh(&ws, ws.root()).unwrap();
        let (second, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!Arc::ptr_eq(&first, &second));
        let (third, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert!(Arc::ptr_eq(&second, &third), "answered from the watch");
        assert_eq!((stats.files, stats.parsed), (1, 0));

        // An edit moves the watch's count: the next refresh looks again and sees it.
        std::fs::write(dir.path().join("src/a.py"), "def renamed():\n    pass\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut seen = None;
        while std::time::Instant::now() < deadline {
            let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
            if snap.files["src/a.py"].outline.functions[0].name == "renamed" {
                seen = Some(snap);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(seen.is_some(), "the edit was never seen");
        // A new directory with a file: seen through its parent's watch, then watched itself.
        std::fs::create_dir_all(dir.path().join("src/pkg")).unwrap();
        std::fs::write(dir.path().join("src/pkg/b.py"), "def b():\n    pass\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut found = false;
        while std::time::Instant::now() < deadline && !found {
            found = index
                .refresh(&ws, ws.root())
                .unwrap()
                .0
                .files
                .contains_key("src/pkg/b.py");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(found, "the new file was never seen");
    }

    #[test]
    fn a_settled_tree_is_refreshed_by_stat_and_new_files_are_still_seen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "def a():\n    pass\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "gen/\n").unwrap();
        // The state directory exists from an earlier run (creating it touches the root).
        std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
        for p in ["src/a.py", ".gitignore", "src", ""] {
            settle(&dir.path().join(p));
        }
        let ws = Workspace::open(dir.path()).unwrap();
        let index = OutlineIndex::new(&ws.state_dir());
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        let vouches = |snap: &OutlineSnapshot| {
            snap.stamps
                .as_ref()
                .is_some_and(|s| s.watchable_dirs(&ws).is_some())
        };
        assert!(vouches(&snap), "a settled tree can vouch for the next call");
        let (again, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 0));
        assert!(vouches(&again));
        // A new file changes its directory's mtime: the next refresh walks and finds it.
        std::fs::write(dir.path().join("src/b.py"), "def b():\n    pass\n").unwrap();
        let (snap, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (2, 1));
        assert!(snap.files.contains_key("src/b.py"));
        // Newly ignoring a directory is seen through the ignore file's mtime.
        std::fs::create_dir_all(dir.path().join("gen")).unwrap();
        std::fs::write(dir.path().join("gen/x.py"), "X = 1\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "gen/\nsrc/b.py\n").unwrap();
        let (snap, _) = index.refresh(&ws, ws.root()).unwrap();
        assert!(!snap.files.contains_key("src/b.py") && !snap.files.contains_key("gen/x.py"));
    }
}
