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

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
