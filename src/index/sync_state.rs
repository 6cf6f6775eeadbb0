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
    /// The store the entries describe; another store invalidates them.
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
        let fresh = SyncState {
            version: STATE_VERSION,
            store_uri: store_uri.into(),
            ..SyncState::default()
        };
        let Ok(text) = std::fs::read_to_string(Self::path(state_dir)) else {
            return fresh;
        };
        match serde_json::from_str::<SyncState>(&text) {
            Ok(state) if state.version == STATE_VERSION && state.store_uri == store_uri => state,
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
}
