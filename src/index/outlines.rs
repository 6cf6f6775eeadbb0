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
//! A whole-project refresh normally walks the tree. To answer in a few milliseconds, the last walk
//! also records the mtime of every directory and ignore file: while none of them changed, no file
//! was added, removed or newly ignored, so stat-ing the known files is enough (the trick of git's
//! untracked cache). Timestamps are coarse, so a directory or file changed within
//! [`RACY_SECS`] of being recorded is not trusted: the next call walks or re-hashes it again.
//! A server also watches the walked directories ([`OutlineIndex::watch_changes`]): while the
//! watch has seen no change since a refresh that it covered from the start, the next refresh
//! returns the snapshot as it is, without a single `stat`.
//!
//! Stored as JSON rather than bincode because outlines skip empty optional fields when
//! serialised, which only a self-describing format reads back.

use super::freshness::{Fate, Seen, Stamped, refresh_file};
use crate::analysis::outline::{FileOutline, outline_source};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::workspace::watch::{TreeWatch, WatchedRefresh};
use crate::workspace::{ResolvedPath, WalkOptions, Workspace, read_source};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bumped whenever the stored layout or the outline rules change; older stores are rebuilt.
const FORMAT_VERSION: u32 = 3;
/// A timestamp this close to the moment it was read may hide a second change in the same tick.
pub const RACY_SECS: u64 = 2;
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
    /// What the last whole-workspace walk saw, when it can vouch for the next call.
    #[serde(default)]
    walk: Option<Arc<WalkRecord>>,
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

/// Directories and ignore files of a whole-workspace walk, with their mtimes.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct WalkRecord {
    dirs: Vec<(String, u128)>,
    ignore_files: Vec<(String, u64, u128)>,
}

/// A file found by a walk, or known from the last one.
struct Found {
    abs: PathBuf,
    rel: String,
    size: u64,
    mtime_ns: u128,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    tool_version: String,
    snapshot: OutlineSnapshot,
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
    store: PathBuf,
    current: RwLock<Arc<OutlineSnapshot>>,
    loaded: Mutex<bool>,
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
            store: state_dir.join(STORE_FILE),
            current: RwLock::new(Arc::new(OutlineSnapshot::default())),
            loaded: Mutex::new(false),
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
            // A file the last walk did not see (ignored, or new): walk again next time.
            next.walk = None;
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
    ) -> Result<(Arc<OutlineSnapshot>, OutlineStats), String> {
        let started = std::time::Instant::now();
        let _guard = self.updating.lock().unwrap_or_else(|p| p.into_inner());
        self.load_once();
        let old = self.snapshot();
        let prefix = ws.relative(base);
        let max_bytes = ws.config.max_file_bytes;
        let whole = prefix.is_empty();
        // Read before looking at anything: a change from here on moves the count.
        let mark = self.watched.begin().filter(|_| whole);
        if self.watched.unchanged(mark) && old.walk.is_some() {
            let stats = OutlineStats {
                files: old.files.len(),
                elapsed: started.elapsed(),
                ..OutlineStats::default()
            };
            return Ok((old, stats));
        }
        // Unchanged directories and ignore files: the known files are all there is.
        let (found, walk) = match old.walk.as_ref().filter(|w| whole && still_valid(ws, w)) {
            Some(walk) => (known_files(ws, &old), Some(walk.clone())),
            None => {
                let (found, walk) = walk_recording(ws, base)?;
                (found, walk.filter(|_| whole).map(Arc::new))
            }
        };

        let mut next = OutlineSnapshot {
            walk,
            ..OutlineSnapshot::default()
        };
        for (path, entry) in &old.files {
            if !in_subtree(path, &prefix) {
                next.files.insert(path.clone(), entry.clone());
            }
        }
        for (path, reason) in &old.skipped {
            if !in_subtree(path, &prefix) {
                next.skipped.insert(path.clone(), reason.clone());
            }
        }
        for (path, manifest) in &old.manifests {
            if !in_subtree(path, &prefix) {
                next.manifests.insert(path.clone(), manifest.clone());
            }
        }

        let mut changed = false;
        let mut candidates = Vec::new();
        for file in found {
            let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
            if is_manifest(name) {
                let kept = old
                    .manifests
                    .get(&file.rel)
                    .filter(|m| {
                        m.size == file.size && m.mtime_ns == file.mtime_ns && m.mtime_ns != 0
                    })
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
                                mtime_ns: file.mtime_ns,
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
                candidates.push((file, lang));
            }
        }
        changed |= old
            .manifests
            .keys()
            .any(|p| in_subtree(p, &prefix) && !next.manifests.contains_key(p));

        let results: Vec<(String, Outcome)> = candidates
            .into_par_iter()
            .map(|(file, lang)| {
                let seen = Seen {
                    abs: &file.abs,
                    rel: &file.rel,
                    size: file.size,
                    mtime_ns: file.mtime_ns,
                };
                let outcome = refresh_file(
                    old.files.get(&file.rel),
                    seen,
                    max_bytes,
                    |source, sha256| OutlineEntry {
                        size: file.size,
                        mtime_ns: file.mtime_ns,
                        sha256,
                        lines: source.line_count(),
                        lossy: source.lossy,
                        outline: Arc::new(outline_source(lang, &source.text)),
                    },
                );
                (file.rel, outcome)
            })
            .collect();

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
            let dirs = next.walk.as_ref().map(|walk| {
                walk.dirs
                    .iter()
                    .map(|(rel, _)| ws.root().join(rel))
                    .collect()
            });
            self.watched.finish(mark, dirs);
        }
        let next = Arc::new(next);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        if changed || self.dirty.load(Ordering::Relaxed) {
            self.persist(&next);
        }
        stats.elapsed = started.elapsed();
        Ok((next, stats))
    }

    fn load_once(&self) {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if *loaded {
            return;
        }
        *loaded = true;
        let Ok(bytes) = std::fs::read(&self.store) else {
            return;
        };
        match serde_json::from_slice::<Stored>(&bytes) {
            Ok(stored)
                if stored.version == FORMAT_VERSION
                    && stored.tool_version == env!("CARGO_PKG_VERSION") =>
            {
                let mut snapshot = stored.snapshot;
                snapshot.generation = next_generation();
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(snapshot);
            }
            Ok(_) => tracing::info!("outline index format changed; rebuilding"),
            Err(err) => tracing::warn!("outline index unreadable ({err}); rebuilding"),
        }
    }

    fn persist(&self, snapshot: &OutlineSnapshot) {
        let stored = Stored {
            version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            snapshot: snapshot.clone(),
        };
        let result = serde_json::to_vec(&stored)
            .map_err(std::io::Error::other)
            .and_then(|bytes| crate::fsutil::write_atomic(&self.store, &bytes));
        match result {
            Ok(()) => self.dirty.store(false, Ordering::Relaxed),
            Err(err) => tracing::warn!("could not save the outline index: {err}"),
        }
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

/// A walk of `base` with the workspace's rules that also records every directory and ignore
/// file; the state is `None` when something was modified too recently to be trusted later.
fn walk_recording(ws: &Workspace, base: &Path) -> Result<(Vec<Found>, Option<WalkRecord>), String> {
    let found = Mutex::new((Vec::new(), WalkRecord::default()));
    ws.walker(base, &WalkOptions::default())?
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                let Ok(meta) = entry.metadata() else {
                    return ignore::WalkState::Continue;
                };
                let rel = ws.relative(entry.path());
                let mtime_ns = meta.modified().ok().map_or(0, nanos);
                let mut guard = found.lock().unwrap_or_else(|p| p.into_inner());
                if meta.is_dir() {
                    guard.1.dirs.push((rel, mtime_ns));
                } else if meta.is_file() {
                    let name = rel.rsplit('/').next().unwrap_or(&rel);
                    if matches!(name, ".gitignore" | ".ignore") {
                        guard
                            .1
                            .ignore_files
                            .push((rel.clone(), meta.len(), mtime_ns));
                    }
                    guard.0.push(Found {
                        abs: entry.into_path(),
                        rel,
                        size: meta.len(),
                        mtime_ns: stable_nanos(meta.modified().ok()),
                    });
                }
                ignore::WalkState::Continue
            })
        });
    let (files, walk) = found.into_inner().unwrap_or_else(|p| p.into_inner());
    let racy = nanos(SystemTime::now()).saturating_sub(u128::from(RACY_SECS) * 1_000_000_000);
    let trusted = walk.dirs.iter().all(|(_, m)| *m < racy)
        && walk.ignore_files.iter().all(|(_, _, m)| *m < racy);
    Ok((files, trusted.then_some(walk)))
}

/// Whether no directory and no ignore file changed since the walk that recorded them.
fn still_valid(ws: &Workspace, walk: &WalkRecord) -> bool {
    let dirs_same = walk.dirs.par_iter().all(|(rel, mtime)| {
        std::fs::metadata(ws.root().join(rel))
            .ok()
            .and_then(|m| m.modified().ok())
            .is_some_and(|m| nanos(m) == *mtime)
    });
    dirs_same
        && walk.ignore_files.iter().all(|(rel, size, mtime)| {
            std::fs::metadata(ws.root().join(rel)).is_ok_and(|m| {
                m.len() == *size && m.modified().ok().is_some_and(|t| nanos(t) == *mtime)
            })
        })
}

/// The files the last walk found, stat-ed again (a file gone since then changed its directory,
/// so it cannot be missing here).
fn known_files(ws: &Workspace, old: &OutlineSnapshot) -> Vec<Found> {
    let paths: Vec<&String> = old
        .files
        .keys()
        .chain(old.skipped.keys())
        .chain(old.manifests.keys().filter(|m| !old.files.contains_key(*m)))
        .collect();
    paths
        .into_par_iter()
        .filter_map(|rel| {
            let abs = ws.root().join(rel);
            let meta = std::fs::metadata(&abs).ok()?;
            Some(Found {
                abs,
                rel: rel.clone(),
                size: meta.len(),
                mtime_ns: stable_nanos(meta.modified().ok()),
            })
        })
        .collect()
}

/// The mtime to store, or 0 when it is too recent to rule out a second change in the same
/// timestamp tick (0 never matches, so the file is re-hashed next time).
fn stable_nanos(mtime: Option<SystemTime>) -> u128 {
    let Some(mtime) = mtime else { return 0 };
    let settled = SystemTime::now()
        .duration_since(mtime)
        .is_ok_and(|age| age.as_secs() >= RACY_SECS);
    if settled { nanos(mtime) } else { 0 }
}

fn in_subtree(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || (path.starts_with(prefix) && path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

fn nanos(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(
            snap.walk.is_some(),
            "a settled tree can vouch for the next call"
        );
        let (again, stats) = index.refresh(&ws, ws.root()).unwrap();
        assert_eq!((stats.files, stats.parsed), (1, 0));
        assert!(again.walk.is_some());
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
