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
//! Stored as JSON rather than bincode because outlines skip empty optional fields when
//! serialised, which only a self-describing format reads back.

use crate::analysis::outline::{FileOutline, outline_source};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::workspace::{ResolvedPath, WalkOptions, Workspace, read_source, walk_files};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bumped whenever the stored layout or the outline rules change; older stores are rebuilt.
const FORMAT_VERSION: u32 = 1;
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
}

type Outcome = Result<(Arc<OutlineEntry>, bool), String>;

impl OutlineIndex {
    pub fn new(state_dir: &Path) -> OutlineIndex {
        OutlineIndex {
            store: state_dir.join(STORE_FILE),
            current: RwLock::new(Arc::new(OutlineSnapshot::default())),
            loaded: Mutex::new(false),
            updating: Mutex::new(()),
            dirty: AtomicBool::new(false),
        }
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
        let mtime_ns = meta.modified().ok().map_or(0, nanos);
        let old = self.snapshot().files.get(&path.rel).cloned();
        if let Some(entry) = &old
            && entry.size == meta.len()
            && entry.mtime_ns == mtime_ns
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
        let walked = walk_files(ws, base, &WalkOptions::default())?;
        let prefix = ws.relative(base);
        let max_bytes = ws.config.max_file_bytes;

        let mut next = OutlineSnapshot::default();
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
        for file in walked {
            let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
            if is_manifest(name) {
                let mtime_ns = file.mtime.map_or(0, nanos);
                let kept = old
                    .manifests
                    .get(&file.rel)
                    .filter(|m| m.size == file.size && m.mtime_ns == mtime_ns)
                    .cloned();
                let manifest = match kept {
                    Some(m) => m,
                    None => match std::fs::read_to_string(&file.abs) {
                        Ok(text) => {
                            changed = true;
                            Arc::new(Manifest {
                                size: file.size,
                                mtime_ns,
                                sha256: Sha256::digest(text.as_bytes()).into(),
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
                    let touched = OutlineEntry {
                        size: file.size,
                        mtime_ns,
                        ..(**entry).clone()
                    };
                    return (file.rel, Ok((Arc::new(touched), true)));
                }
                let entry = OutlineEntry {
                    size: file.size,
                    mtime_ns,
                    sha256,
                    lines: source.line_count(),
                    lossy: source.lossy,
                    outline: Arc::new(outline_source(lang, &source.text)),
                };
                (file.rel, Ok((Arc::new(entry), true)))
            })
            .collect();

        let mut stats = OutlineStats::default();
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
                *self.current.write().unwrap_or_else(|p| p.into_inner()) =
                    Arc::new(stored.snapshot);
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
        assert!(Arc::ptr_eq(&first, &index.file(&ws, &a).unwrap()));

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
}
