//! One file's step in a store refresh, shared by the symbol store (`index`) and the outline
//! store (`outlines`): keep the entry while size and mtime are unchanged, give it the new stamp
//! when the content hash is unchanged, otherwise read the file and analyse it again.

use crate::workspace::{SourceText, read_source};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;

/// What a refresh did with one file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Size and mtime unchanged: the entry is reused as is.
    Kept,
    /// Read and hashed again, same content: the analysis is reused.
    Rehashed,
    /// New content: analysed.
    Parsed,
}

/// A stored entry: what it remembers of the file to tell whether it changed.
pub(crate) trait Stamped: Clone {
    fn size(&self) -> u64;
    /// 0 when the mtime was too recent to trust: such a file is always hashed again.
    fn mtime_ns(&self) -> u128;
    fn sha256(&self) -> [u8; 32];
    /// The same entry with a new size and mtime.
    fn restamped(self, size: u64, mtime_ns: u128) -> Self;
}

/// The file as the walk saw it.
pub(crate) struct Seen<'a> {
    pub abs: &'a Path,
    pub rel: &'a str,
    pub size: u64,
    pub mtime_ns: u128,
}

/// The entry for `file` given the one it had (`old`), reading and `analyze`-ing the file only
/// when its content changed; `Err` says why the file is skipped.
pub(crate) fn refresh_file<E: Stamped>(
    old: Option<&Arc<E>>,
    file: Seen,
    max_bytes: u64,
    analyze: impl FnOnce(SourceText, [u8; 32]) -> E,
) -> Result<(Arc<E>, Fate), String> {
    if let Some(entry) = old
        && entry.size() == file.size
        && entry.mtime_ns() == file.mtime_ns
        && file.mtime_ns != 0
    {
        return Ok((entry.clone(), Fate::Kept));
    }
    if file.size > max_bytes {
        return Err(format!(
            "larger than max_file_bytes ({} > {max_bytes})",
            file.size
        ));
    }
    let source = read_source(file.abs, file.rel, max_bytes).map_err(|err| err.message)?;
    let sha256: [u8; 32] = Sha256::digest(source.text.as_bytes()).into();
    if let Some(entry) = old.filter(|e| e.sha256() == sha256) {
        let touched = (**entry).clone().restamped(file.size, file.mtime_ns);
        return Ok((Arc::new(touched), Fate::Rehashed));
    }
    Ok((Arc::new(analyze(source, sha256)), Fate::Parsed))
}
