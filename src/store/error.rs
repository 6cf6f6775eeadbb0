//! What can go wrong in the store, typed, so callers can tell a store they must rebuild from a
//! busy or broken disk, and the message keeps its chain up to the edge that prints it.

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// LanceDB failed or refused (I/O underneath, a conflicting commit, a bad filter).
    #[error(transparent)]
    Database(#[from] lancedb::Error),
    /// The Lance dataset layer under LanceDB (the in-place column writes go through it).
    #[error(transparent)]
    Dataset(#[from] lance::Error),
    /// Building or reading Arrow batches.
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The store's own runtime could not start (threads, the I/O reactor).
    #[error("starting the store runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The store at a URI could not be opened.
    #[error("opening the store at {uri}: {source}")]
    Open {
        uri: String,
        #[source]
        source: lancedb::Error,
    },
    /// Rows or arguments without the layout the store writes and reads (a wrong vector
    /// dimension, a missing column, a table that is not a local Lance table).
    #[error("{0}")]
    Layout(String),
}

impl StoreError {
    /// Whether the store's files are damaged (a data, index or manifest file missing, cut
    /// short or unreadable as what it should be), as opposed to a disk that is full, read-only
    /// or busy, which heals by itself. A damaged store stays broken until it is rebuilt:
    /// retrying reads the same bytes.
    pub fn is_damage(&self) -> bool {
        if matches!(self, StoreError::Layout(_) | StoreError::Runtime(_)) {
            return false;
        }
        Self::text_shows_damage(&crate::error::chain(self))
    }

    /// Whether another writer's commit got in first (Lance lets the later commit lose: a
    /// "commit conflict", or an append "incompatible with" a concurrent creation of the same
    /// table): the write can be made again on the new version.
    pub fn is_commit_conflict(&self) -> bool {
        let text = crate::error::chain(self).to_lowercase();
        text.contains("commit conflict") || text.contains("incompatible with concurrent")
    }

    /// [`StoreError::is_damage`] for an error already turned into text (a store that failed
    /// to open is remembered as its message).
    pub fn text_shows_damage(text: &str) -> bool {
        let text = text.to_lowercase();
        const PASSING: &[&str] = &[
            "no space left",
            "read-only file system",
            "permission denied",
            "too many open files",
            "resource temporarily unavailable",
            "interrupted",
            "timed out",
            "commit conflict",
            "retryable",
        ];
        const DAMAGE: &[&str] = &[
            "failed to fill whole buffer",
            "unexpected end of file",
            "unexpected eof",
            "no such file or directory",
            "not found",
            "corrupt",
            "invalid protobuf",
            "failed to decode",
            "invalid data",
            "checksum",
            "out of range",
            "invalid range",
            "invalid magic",
            "not a lance file",
            // A manifest or footer shorter than its own header says.
            "file size is too small",
            // Written by a newer format than this build reads.
            "unsupported",
        ];
        !PASSING.iter().any(|p| text.contains(p)) && DAMAGE.iter().any(|d| text.contains(d))
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn io(message: &str) -> StoreError {
        StoreError::Open {
            uri: "/p/.code-intel/lancedb".into(),
            source: lancedb::Error::Runtime {
                message: message.into(),
            },
        }
    }

    #[test]
    fn damage_is_told_from_a_disk_that_heals_by_itself() {
        for damaged in [
            "lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer",
            "Object at location /p/_indices/x/part_0_tokens.lance not found: No such file or directory",
            "Invalid protobuf message in manifest",
            "LanceError(IO): Generic memory error: Invalid range 0..923 for object of size 461 bytes",
            "lance error: LanceError(IO): file size is too small",
        ] {
            assert!(io(damaged).is_damage(), "{damaged}");
        }
        for passing in [
            "Generic LocalFileSystem error: No space left on device (os error 28)",
            "Read-only file system (os error 30)",
            "Permission denied (os error 13)",
            "Commit conflict for version 7",
            "the filter `x >` does not parse",
        ] {
            assert!(!io(passing).is_damage(), "{passing}");
        }
        assert!(!StoreError::Layout("chunk x has a 3-d vector, not found".into()).is_damage());
    }
}
