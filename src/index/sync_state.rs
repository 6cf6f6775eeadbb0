//! `sync_state.json` (seed 004): what content each indexed file had when its chunks were last
//! committed to the store.
//!
//! Written atomically, and only *after* the store commit it describes. So after a crash the
//! state is never ahead of the store: a file the state calls indexed has those chunks in the
//! table; a file committed but not yet recorded is re-synced (the per-file replace is
//! idempotent). The sync also checks the state against the table itself (see `sync`), which
//! catches the remaining case of a state written by another store.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const STATE_FILE: &str = "sync_state.json";
const STATE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    /// SHA-256 of the content, hex.
    pub hash: String,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (a cheap "unchanged" check).
    pub mtime_ns: u64,
    pub chunks: usize,
    /// Unix seconds.
    pub indexed_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncState {
    pub version: u32,
    /// The store the entries describe ([`store_name`]); another store invalidates them.
    pub store_uri: String,
    /// Unix seconds of the last completed sync.
    pub last_sync: Option<i64>,
    /// The chunking settings and rules the entries were cut with (see `sync::chunking_stamp`);
    /// others re-chunk every file. Absent in states written before it was recorded,
    /// which are taken to match rather than rebuild an index nobody changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunking: Option<String>,
    pub files: BTreeMap<String, FileState>,
}

impl SyncState {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(STATE_FILE)
    }

    /// The state for `store_uri`; empty when missing, unreadable or describing another store.
    pub fn load(state_dir: &Path, store_uri: &str) -> SyncState {
        let name = store_name(state_dir, store_uri);
        let fresh = SyncState {
            version: STATE_VERSION,
            store_uri: name.clone(),
            ..SyncState::default()
        };
        let Ok(text) = std::fs::read_to_string(Self::path(state_dir)) else {
            return fresh;
        };
        match serde_json::from_str::<SyncState>(&text) {
            Ok(state)
                if state.version == STATE_VERSION
                    && same_store(state_dir, &state.store_uri, &name) =>
            {
                SyncState {
                    store_uri: name,
                    ..state
                }
            }
            Ok(_) => fresh,
            Err(err) => {
                tracing::warn!("ignoring unreadable {STATE_FILE}: {err}");
                fresh
            }
        }
    }

    pub fn save(&self, state_dir: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(&Self::path(state_dir), &bytes)
    }
}

/// How a state names its store: one inside the state directory (the default,
/// `.code-intel/lancedb`) by its path relative to it, any other by its URI. The state and such a
/// store move together, so a project moved or renamed with its `.code-intel` keeps its state.
/// Named by its absolute path, a moved store's state was another store's: every file was read,
/// chunked and written again (its vectors found again by content), minutes for a large project.
fn store_name(state_dir: &Path, store_uri: &str) -> String {
    if store_uri.contains("://") {
        return store_uri.to_string();
    }
    match Path::new(store_uri).strip_prefix(state_dir) {
        Ok(inside) if !inside.as_os_str().is_empty() => inside.to_string_lossy().into_owned(),
        _ => store_uri.to_string(),
    }
}

/// Whether a state that names its store `recorded` describes the store named `name`. States
/// written before stores inside the state directory were named relative to it hold its
/// absolute path, which still ends in the state directory's name and the store's
/// (`…/.code-intel/lancedb`) after the project moved.
fn same_store(state_dir: &Path, recorded: &str, name: &str) -> bool {
    if recorded == name {
        return true;
    }
    let inside = Path::new(name);
    let recorded = Path::new(recorded);
    inside.is_relative()
        && recorded.is_absolute()
        && state_dir
            .file_name()
            .is_some_and(|dir| recorded.ends_with(Path::new(dir).join(inside)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_is_scoped_to_its_store() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = SyncState::load(dir.path(), "db");
        assert!(state.files.is_empty());
        state.files.insert(
            "a.py".into(),
            FileState {
                hash: "ab".into(),
                size: 3,
                mtime_ns: 5,
                chunks: 2,
                indexed_at: 7,
            },
        );
        state.save(dir.path()).unwrap();
        assert_eq!(SyncState::load(dir.path(), "db"), state);
        assert!(SyncState::load(dir.path(), "other").files.is_empty());
        std::fs::write(SyncState::path(dir.path()), b"{torn").unwrap();
        assert!(SyncState::load(dir.path(), "db").files.is_empty());
    }

    fn one_file() -> BTreeMap<String, FileState> {
        let file = FileState {
            hash: "ab".into(),
            size: 3,
            mtime_ns: 5,
            chunks: 2,
            indexed_at: 7,
        };
        BTreeMap::from([("a.py".to_string(), file)])
    }

    /// The default store lives in the state directory: moving the project with it keeps the
    /// state, also one written when the store was named by its absolute path.
    #[test]
    fn a_project_moved_with_its_state_directory_keeps_its_state() {
        let old = tempfile::tempdir().unwrap();
        let old_state = old.path().join(".code-intel");
        std::fs::create_dir_all(&old_state).unwrap();
        let old_uri = old_state.join("lancedb").to_string_lossy().into_owned();
        let mut state = SyncState::load(&old_state, &old_uri);
        assert_eq!(state.store_uri, "lancedb");
        state.files = one_file();
        state.save(&old_state).unwrap();

        let new = tempfile::tempdir().unwrap();
        let new_state = new.path().join(".code-intel");
        std::fs::rename(&old_state, &new_state).unwrap();
        let new_uri = new_state.join("lancedb").to_string_lossy().into_owned();
        assert_eq!(SyncState::load(&new_state, &new_uri).files, one_file());

        // Written by an earlier release, with the old absolute path.
        let legacy = SyncState {
            store_uri: old_uri,
            ..state
        };
        legacy.save(&new_state).unwrap();
        let read = SyncState::load(&new_state, &new_uri);
        assert_eq!(read.files, one_file());
        assert_eq!(read.store_uri, "lancedb");
        // Another store is still another store.
        let elsewhere = new.path().join("vectors").to_string_lossy().into_owned();
        assert!(SyncState::load(&new_state, &elsewhere).files.is_empty());
        assert!(
            SyncState::load(&new_state, "s3://bucket/db")
                .files
                .is_empty()
        );
    }
}
