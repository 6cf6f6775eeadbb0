//! What can go wrong while the indexes are brought up to date or read, typed so that callers
//! (the tools, the CLI) decide what each failure means for their answer.

use crate::embed::EmbedError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The vector and full-text store refused a read or a write.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The embedding model could not embed (not installed, failed to load, failed to run).
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// A file of the index's own (its directory, the sync state) could not be written.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The project could not be walked (its walk rules do not build).
    #[error(transparent)]
    Walk(#[from] crate::workspace::WalkError),
    /// The store could not be opened (a failure other than a disk refusing writes is not
    /// retried in this process).
    #[error("the semantic store is unavailable: {0}")]
    Unavailable(String),
    /// A background thread could not be started.
    #[error("cannot start a background thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// Why the index cannot write at the moment, when it is the disk's doing and not the store's:
/// a state that ends by itself once space is freed or the file system is writable again, so
/// the index waits and resumes instead of rebuilding anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBlock {
    /// No space left on the device (or the user's quota is used up).
    DiskFull,
    /// The file system is mounted read-only.
    ReadOnly,
}

impl WriteBlock {
    /// What an error's text shows, if it is one of these. The storage engine keeps only the
    /// message of the operating system's error, so the text is what there is to read.
    pub fn of_text(text: &str) -> Option<WriteBlock> {
        let text = text.to_lowercase();
        const FULL: &[&str] = &[
            "no space left on device",
            "disk quota exceeded",
            "(os error 28)",
            "(os error 122)",
        ];
        const READ_ONLY: &[&str] = &["read-only file system", "(os error 30)"];
        if FULL.iter().any(|t| text.contains(t)) {
            Some(WriteBlock::DiskFull)
        } else if READ_ONLY.iter().any(|t| text.contains(t)) {
            Some(WriteBlock::ReadOnly)
        } else {
            None
        }
    }

    /// `index_status.store.state` while it lasts.
    pub fn state(self) -> &'static str {
        match self {
            WriteBlock::DiskFull => "disk_full",
            WriteBlock::ReadOnly => "read_only",
        }
    }

    /// What the agent or user reads: what happened, that nothing stored is lost, what to do.
    pub fn note(self) -> &'static str {
        match self {
            WriteBlock::DiskFull => {
                "the disk holding the semantic index is full: indexing and embedding are paused, \
                 what is stored is kept and searches answer from it; they resume by themselves \
                 once space is freed"
            }
            WriteBlock::ReadOnly => {
                "the file system holding the semantic index is read-only: indexing and embedding \
                 are paused, what is stored is kept and searches answer from it; they resume by \
                 themselves once it is writable again"
            }
        }
    }

    /// What it is, in a few words (the command line, which does not resume by itself).
    pub fn what(self) -> &'static str {
        match self {
            WriteBlock::DiskFull => "the disk holding the index is full",
            WriteBlock::ReadOnly => "the file system holding the index is read-only",
        }
    }
}

impl IndexError {
    /// Whether the write failed because the disk is full or read-only ([`WriteBlock`]).
    pub fn write_block(&self) -> Option<WriteBlock> {
        WriteBlock::of_text(&crate::error::chain(self))
    }

    /// Whether the store's files are damaged (see [`StoreError::is_damage`]): the store must
    /// be rebuilt, retrying will not help.
    pub fn is_store_damage(&self) -> bool {
        match self {
            IndexError::Store(err) => err.is_damage(),
            IndexError::Unavailable(text) => StoreError::text_shows_damage(text),
            _ => false,
        }
    }

    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> IndexError {
        let what = what.into();
        move |source| IndexError::Io { what, source }
    }
}

pub type IndexResult<T> = Result<T, IndexError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_or_read_only_disk_is_told_from_other_failures() {
        let io = |kind: std::io::Error| IndexError::io("writing the sync state")(kind);
        assert_eq!(
            io(std::io::Error::from_raw_os_error(28)).write_block(),
            Some(WriteBlock::DiskFull)
        );
        assert_eq!(
            io(std::io::Error::from_raw_os_error(30)).write_block(),
            Some(WriteBlock::ReadOnly)
        );
        // As the storage engine reports it: the OS message inside its own.
        let lance = IndexError::Unavailable(
            "LanceError(IO): No space left on device (os error 28), writer.rs:254:9".into(),
        );
        assert_eq!(lance.write_block(), Some(WriteBlock::DiskFull));
        assert!(!lance.is_store_damage());
        for other in [
            std::io::Error::from_raw_os_error(13),
            std::io::Error::other("failed to fill whole buffer"),
        ] {
            assert_eq!(io(other).write_block(), None);
        }
    }
}
