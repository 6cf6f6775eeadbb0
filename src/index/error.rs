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
    /// The store failed to open earlier in this process; it is not retried.
    #[error("the semantic store is unavailable: {0}")]
    Unavailable(String),
    /// A background thread could not be started.
    #[error("cannot start a background thread: {0}")]
    Thread(#[source] std::io::Error),
}

impl IndexError {
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
