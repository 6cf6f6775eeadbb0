//! The symbol index: every supported file's symbols, kept fresh and persisted per project.
//!
//! Freshness rule: before answering, [`SymbolIndex::refresh`] walks the requested part of the
//! workspace; a file whose size or modification time changed is re-read and SHA-256 hashed, and
//! re-parsed only when its content hash changed. So an edit between two calls is always seen, and
//! a second process start re-parses nothing. The store is `.code-intel/symbols.bin`, written
//! atomically (temp file + rename) so a killed process or a second server never leaves a torn file.

pub mod chunks;
pub mod embedding_queue;
pub mod map_store;
pub mod outlines;
pub mod semantic;
pub mod sync;
pub mod sync_state;

mod lazy;

pub use lazy::LazySymbols;

use crate::analysis::analyze_source;
use crate::workspace::{WalkOptions, Workspace, read_source, walk_files};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bumped whenever the stored layout or the extraction rules change; older stores are rebuilt.
const FORMAT_VERSION: u32 = 2;
const STORE_FILE: &str = "symbols.bin";

/// A walked file's fate in a refresh: its entry and whether it was (re)read, or why it was skipped.
type FileOutcome = Result<(Arc<FileEntry>, bool), String>;

/// One indexed file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileEntry {
    pub size: u64,
    pub mtime_ns: u128,
    pub sha256: [u8; 32],
    pub lossy: bool,
    pub symbols: LazySymbols,
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
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    tool_version: String,
    snapshot: Snapshot,
}

/// What a refresh did, for logs and `index_status`.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct RefreshStats {
    pub files: usize,
    pub parsed: usize,
    pub removed: usize,
    pub elapsed: Duration,
}

pub struct SymbolIndex {
    store: PathBuf,
    current: RwLock<Arc<Snapshot>>,
    loaded: Mutex<bool>,
    /// Serialises refreshes so concurrent calls do not parse the same file twice.
    refreshing: Mutex<()>,
}

impl SymbolIndex {
    pub fn new(state_dir: &Path) -> SymbolIndex {
        SymbolIndex {
            store: state_dir.join(STORE_FILE),
            current: RwLock::new(Arc::new(Snapshot::default())),
            loaded: Mutex::new(false),
            refreshing: Mutex::new(()),
        }
    }

    /// Brings the files under `base` (absolute, inside the workspace) up to date and returns a
    /// snapshot of the whole index.
    pub fn refresh(
        &self,
        ws: &Workspace,
        base: &Path,
    ) -> Result<(Arc<Snapshot>, RefreshStats), String> {
        let started = std::time::Instant::now();
        let _guard = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        self.load_once();
        let old = self.snapshot();
        let walked = walk_files(ws, base, &WalkOptions::default())?;
        let prefix = ws.relative(base);
        let max_bytes = ws.config.max_file_bytes;

        let mut next = Snapshot {
            files: HashMap::with_capacity(old.files.len()),
            skipped: HashMap::new(),
        };
        // Entries outside the refreshed subtree are carried over untouched.
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

        let candidates: Vec<_> = walked
            .into_iter()
            .filter_map(|f| crate::lang::detect(&f.rel).map(|lang| (f, lang)))
            .collect();
        let results: Vec<(String, FileOutcome)> = candidates
            .into_par_iter()
            .map(|(file, lang)| {
                let mtime_ns = file.mtime.map_or(0, nanos);
                if let Some(entry) = old.files.get(&file.rel)
                    && entry.size == file.size
                    && entry.mtime_ns == mtime_ns
                {
                    return (file.rel, Ok((entry.clone(), false)));
                }
                if file.size > max_bytes {
                    return (
                        file.rel,
                        Err(format!(
                            "larger than max_file_bytes ({} > {max_bytes})",
                            file.size
                        )),
                    );
                }
                let source = match read_source(&file.abs, &file.rel, max_bytes) {
                    Ok(source) => source,
                    Err(err) => return (file.rel, Err(err.message)),
                };
                let sha256: [u8; 32] = Sha256::digest(source.text.as_bytes()).into();
                if let Some(entry) = old.files.get(&file.rel).filter(|e| e.sha256 == sha256) {
                    let touched = FileEntry {
                        size: file.size,
                        mtime_ns,
                        ..(**entry).clone()
                    };
                    return (file.rel, Ok((Arc::new(touched), true)));
                }
                let symbols = analyze_source(lang, &source.text);
                let entry = FileEntry {
                    size: file.size,
                    mtime_ns,
                    sha256,
                    lossy: source.lossy,
                    symbols: LazySymbols::new(symbols),
                };
                (file.rel, Ok((Arc::new(entry), true)))
            })
            .collect();

        let mut stats = RefreshStats::default();
        let mut changed = false;
        for (path, result) in results {
            match result {
                Ok((entry, is_new)) => {
                    stats.parsed += usize::from(is_new);
                    changed |= is_new;
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
        let next = Arc::new(next);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        if changed && let Err(err) = self.persist(&next) {
            tracing::warn!("could not save the symbol index: {err}");
        }
        stats.elapsed = started.elapsed();
        Ok((next, stats))
    }

    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
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
        match bincode::deserialize::<Stored>(&bytes) {
            Ok(stored)
                if stored.version == FORMAT_VERSION
                    && stored.tool_version == env!("CARGO_PKG_VERSION") =>
            {
                *self.current.write().unwrap_or_else(|p| p.into_inner()) =
                    Arc::new(stored.snapshot);
            }
            Ok(_) => tracing::info!("symbol index format changed; rebuilding"),
            Err(err) => tracing::warn!("symbol index unreadable ({err}); rebuilding"),
        }
    }

    fn persist(&self, snapshot: &Snapshot) -> std::io::Result<()> {
        let stored = Stored {
            version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            snapshot: snapshot.clone(),
        };
        let bytes = bincode::serialize(&stored).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(&self.store, &bytes)
    }
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
}
