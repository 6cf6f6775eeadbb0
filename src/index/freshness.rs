//! The steps of a store refresh that the symbol store (`index`) and the outline store
//! (`outlines`) share: which files to look at ([`list`]), what is carried over from outside the
//! refreshed subtree ([`outside`]), and one file's step ([`refresh_file`]: keep the entry while
//! size and mtime are unchanged, give it the new stamp when the content hash is unchanged,
//! otherwise read the file and analyse it again).

use super::dir_stamps::{self, DirStamps};
use crate::workspace::{
    SourceText, WalkError, WalkOptions, WalkedFile, Workspace, read_source, walk_files,
};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The files a refresh looks at, and the directory stamps to keep with its snapshot.
pub(crate) struct Listing {
    pub files: Vec<WalkedFile>,
    pub stamps: Option<Arc<DirStamps>>,
    /// The stamps differ from the old ones (worth persisting even when no file changed).
    pub stamps_changed: bool,
    /// Directories listed again by a stamp-based rescan (for tests and logs).
    pub relisted: Option<usize>,
}

/// A subtree's walk (the stamps left as they are: a directory it changed no longer matches its
/// stamp, so the next stamp-based refresh lists it again); for the whole workspace, the files of
/// the directories whose stamps moved (`known` lists the files the store already has), or a full
/// walk that records new stamps.
pub(crate) fn list<'k>(
    ws: &Workspace,
    base: &Path,
    whole: bool,
    old: Option<&Arc<DirStamps>>,
    known: impl FnOnce() -> Vec<&'k str>,
) -> Result<Listing, WalkError> {
    if !whole {
        return Ok(Listing {
            files: walk_files(ws, base, &WalkOptions::default())?,
            stamps: old.cloned(),
            stamps_changed: false,
            relisted: None,
        });
    }
    if let Some(rescan) = old.and_then(|s| s.rescan(ws, &known())) {
        return Ok(Listing {
            files: rescan.files,
            stamps: Some(Arc::new(rescan.stamps)),
            stamps_changed: rescan.stamps_changed,
            relisted: Some(rescan.relisted),
        });
    }
    let (files, stamps) = dir_stamps::walk(ws, base)?;
    Ok(Listing {
        files,
        stamps_changed: old.map(|s| &**s) != Some(&stamps),
        stamps: Some(Arc::new(stamps)),
        relisted: None,
    })
}

/// The entries of `map` outside the refreshed subtree `prefix`, carried over untouched.
pub(crate) fn outside<V: Clone>(map: &HashMap<String, V>, prefix: &str) -> HashMap<String, V> {
    map.iter()
        .filter(|(path, _)| !in_subtree(path, prefix))
        .map(|(path, v)| (path.clone(), v.clone()))
        .collect()
}

/// Whether `path` is `prefix` or below it (every path is below the root's `""`).
pub(crate) fn in_subtree(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || (path.starts_with(prefix) && path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

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

/// [`refresh_file`] for a walked file with its settled mtime, the old entry looked up by path;
/// the file's path comes back with the outcome.
pub(crate) fn refresh_walked<E: Stamped>(
    file: &WalkedFile,
    mtime_ns: u128,
    old: &HashMap<String, Arc<E>>,
    max_bytes: u64,
    analyze: impl FnOnce(SourceText, [u8; 32]) -> E,
) -> (String, Result<(Arc<E>, Fate), String>) {
    let seen = Seen {
        abs: &file.abs,
        rel: &file.rel,
        size: file.size,
        mtime_ns,
    };
    let outcome = refresh_file(old.get(&file.rel), seen, max_bytes, analyze);
    (file.rel.clone(), outcome)
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
