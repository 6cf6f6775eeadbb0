//! Directory stamps: what a whole-workspace walk saw of the tree's shape, so the next refresh can
//! list only the directories that changed instead of walking everything again. The symbol store
//! and the outline store both keep theirs with their snapshot.
//!
//! Adding, removing or renaming an entry changes its directory's mtime, so a directory whose mtime
//! is unchanged still holds the files the index knows (they are only `stat`-ed, to catch in-place
//! edits). A changed directory is listed again (one level, with the workspace's walk rules); a
//! directory seen for the first time is walked whole. What can change the rules themselves falls
//! back to a full walk: a `.gitignore`/`.ignore` that changed or appeared, `.git/info/exclude`, or
//! a different skip/exclude/hidden configuration. Timestamps are coarse, so an mtime within
//! [`RACY_SECS`] of the moment it was read is stored as 0, which never matches: that directory is
//! listed again next time.

use crate::workspace::{WalkError, WalkOptions, WalkedFile, Workspace};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// A timestamp this close to the moment it was read may hide a second change in the same tick.
pub const RACY_SECS: u64 = 2;

/// Ignore files whose change re-decides what is walked. `.git/info/exclude` is kept even when
/// absent, so that creating it is noticed too.
const IGNORE_NAMES: &[&str] = &[".gitignore", ".ignore"];
const GIT_EXCLUDE: &str = ".git/info/exclude";

/// The tree as the last whole-workspace walk (and the rescans since) saw it.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirStamps {
    /// The configured walk rules the stamps were taken under.
    rules: String,
    /// Every walked directory (`""` is the root) and its mtime (0 = list again).
    dirs: HashMap<String, u128>,
    /// Every ignore file with its size and mtime; `None` when it did not exist.
    ignore_files: HashMap<String, Option<(u64, u128)>>,
}

/// A rescan's result: the files that are there now, and the updated stamps.
pub struct Rescan {
    pub files: Vec<WalkedFile>,
    pub stamps: DirStamps,
    /// Whether a stamp differs from before (worth persisting).
    pub stamps_changed: bool,
    /// Directories listed again (for tests and logs).
    pub relisted: usize,
}

/// The parts of the configuration that decide which files a walk yields.
fn rules(ws: &Workspace) -> String {
    format!(
        "{:?}|{:?}|{}",
        ws.config.skip_dirs, ws.config.exclude_patterns, ws.config.include_hidden
    )
}

/// Walks `base` with the workspace's rules, recording every directory and ignore file on the way.
pub fn walk(ws: &Workspace, base: &Path) -> Result<(Vec<WalkedFile>, DirStamps), WalkError> {
    let mut stamps = DirStamps {
        rules: rules(ws),
        ..DirStamps::default()
    };
    let files = walk_into(ws, base, None, &mut stamps)?;
    stamps
        .ignore_files
        .insert(GIT_EXCLUDE.into(), ignore_stamp(ws, GIT_EXCLUDE));
    Ok((files, stamps))
}

/// One walk of `base` (`depth` levels, or all), adding what it sees to `stamps`.
fn walk_into(
    ws: &Workspace,
    base: &Path,
    depth: Option<usize>,
    stamps: &mut DirStamps,
) -> Result<Vec<WalkedFile>, WalkError> {
    let found = Mutex::new((Vec::new(), Vec::new(), Vec::new()));
    let mut walker = ws.walker(base, &WalkOptions::default())?;
    walker.max_depth(depth);
    walker.build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            let Ok(meta) = entry.metadata() else {
                return ignore::WalkState::Continue;
            };
            let rel = ws.relative(entry.path());
            if meta.is_dir() {
                // Ignore files are hidden, so the walk itself does not show them: look.
                let ignores: Vec<_> = IGNORE_NAMES
                    .iter()
                    .filter_map(|name| {
                        let file = join(&rel, name);
                        ignore_stamp(ws, &file).map(|stamp| (file, stamp))
                    })
                    .collect();
                let mut guard = found.lock().unwrap_or_else(|p| p.into_inner());
                guard.1.push((rel, stable_nanos(meta.modified().ok())));
                guard.2.extend(ignores);
            } else if meta.is_file() {
                let mut guard = found.lock().unwrap_or_else(|p| p.into_inner());
                guard.0.push(WalkedFile {
                    abs: entry.into_path(),
                    rel,
                    size: meta.len(),
                    mtime: meta.modified().ok(),
                });
            }
            ignore::WalkState::Continue
        })
    });
    let (files, dirs, ignores) = found.into_inner().unwrap_or_else(|p| p.into_inner());
    stamps.dirs.extend(dirs);
    stamps
        .ignore_files
        .extend(ignores.into_iter().map(|(rel, stamp)| (rel, Some(stamp))));
    Ok(files)
}

impl DirStamps {
    /// The directories to watch so that no change to the walked tree goes unnoticed, or `None`
    /// when some stamp is too recent to vouch for (the next refresh checks by `stat` anyway).
    pub fn watchable_dirs(&self, ws: &Workspace) -> Option<Vec<PathBuf>> {
        if self.dirs.values().any(|m| *m == 0) {
            return None;
        }
        Some(self.dirs.keys().map(|rel| ws.root().join(rel)).collect())
    }

    /// Whether `.git/info/exclude`, the one ignore file outside the walked directories (and so
    /// outside their watches), is as it was.
    pub fn git_exclude_unchanged(&self, ws: &Workspace) -> bool {
        self.ignore_files.get(GIT_EXCLUDE).is_some_and(|old| {
            !matches!(old, Some((_, 0))) && ignore_stamp(ws, GIT_EXCLUDE) == *old
        })
    }

    /// The files of the workspace now, from the stamps and the `known` files (every file the
    /// index holds, walked last time), or `None` when only a full walk can tell.
    pub fn rescan(&self, ws: &Workspace, known: &[&str]) -> Option<Rescan> {
        if self.rules != rules(ws)
            || self
                .ignore_files
                .par_iter()
                .any(|(rel, old)| matches!(old, Some((_, 0))) || ignore_stamp(ws, rel) != *old)
        {
            return None;
        }
        // Which recorded directories are unchanged, changed (listed again) or gone.
        let now: Vec<(&String, Option<u128>)> = self
            .dirs
            .par_iter()
            .map(|(rel, _)| {
                let meta = std::fs::symlink_metadata(ws.root().join(rel)).ok();
                let mtime = meta
                    .filter(|m| m.is_dir())
                    .map(|m| stable_nanos(m.modified().ok()));
                (rel, mtime)
            })
            .collect();
        let mut stamps = DirStamps {
            rules: self.rules.clone(),
            dirs: HashMap::with_capacity(self.dirs.len()),
            ignore_files: self.ignore_files.clone(),
        };
        let mut unchanged = HashSet::new();
        let mut changed = Vec::new();
        for (rel, mtime) in now {
            let Some(mtime) = mtime else { continue };
            if mtime != 0 && self.dirs.get(rel) == Some(&mtime) {
                unchanged.insert(rel.as_str());
            } else {
                changed.push(rel.as_str());
            }
            stamps.dirs.insert(rel.clone(), mtime);
        }
        let mut stamps_changed = stamps.dirs != self.dirs;

        // Known files in unchanged directories are still there: a stat catches in-place edits.
        let mut parents_known = true;
        let kept: Vec<&str> = known
            .iter()
            .copied()
            .filter(|rel| {
                let parent = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
                parents_known &= self.dirs.contains_key(parent);
                unchanged.contains(parent)
            })
            .collect();
        if !parents_known {
            // A file from a walk that left no stamps (a subdirectory refresh): trust nothing.
            return None;
        }
        let mut files: Vec<WalkedFile> = kept
            .into_par_iter()
            .filter_map(|rel| {
                let abs = ws.root().join(rel);
                let meta = std::fs::metadata(&abs).ok().filter(|m| m.is_file())?;
                Some(WalkedFile {
                    abs,
                    rel: rel.to_string(),
                    size: meta.len(),
                    mtime: meta.modified().ok(),
                })
            })
            .collect();

        // Changed directories: their direct entries again; a new subdirectory is walked whole.
        for dir in &changed {
            let mut listed = DirStamps::default();
            let entries = walk_into(ws, &ws.root().join(dir), Some(1), &mut listed).ok()?;
            if listed
                .ignore_files
                .keys()
                .any(|f| !self.ignore_files.contains_key(f))
            {
                return None;
            }
            files.extend(entries);
            for sub in listed.dirs.keys().filter(|d| !self.dirs.contains_key(*d)) {
                let mut fresh = DirStamps::default();
                let entries = walk_into(ws, &ws.root().join(sub), None, &mut fresh).ok()?;
                files.extend(entries);
                stamps.dirs.extend(fresh.dirs);
                stamps.ignore_files.extend(fresh.ignore_files);
                stamps_changed = true;
            }
        }
        Some(Rescan {
            files,
            stamps,
            stamps_changed,
            relisted: changed.len(),
        })
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn ignore_stamp(ws: &Workspace, rel: &str) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(ws.root().join(rel)).ok()?;
    Some((meta.len(), stable_nanos(meta.modified().ok())))
}

/// The mtime to store, or 0 when it is too recent to rule out a second change in the same
/// timestamp tick (0 never matches, so the entry is looked at again next time).
pub fn stable_nanos(mtime: Option<SystemTime>) -> u128 {
    let Some(mtime) = mtime else { return 0 };
    let settled = SystemTime::now()
        .duration_since(mtime)
        .is_ok_and(|age| age.as_secs() >= RACY_SECS);
    if settled {
        mtime.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    } else {
        0
    }
}
