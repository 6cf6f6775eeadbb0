//! Lazily decoded symbols: the store keeps each file's symbols as one encoded blob plus the list
//! of its symbol names, so a warm start decodes tens of thousands of small records only for the
//! files a question actually touches (a name lookup reads just the name lists). A store loaded
//! from disk does not even read the blobs: each one stays in the store file until it is needed.

use crate::analysis::FileSymbols;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

/// The store file a warm start read its index from, open for reading the blobs on demand. The
/// handle keeps reading the same content when a newer store replaces the file (by rename).
#[derive(Debug)]
pub struct BlobFile(std::fs::File);

impl BlobFile {
    pub fn new(file: std::fs::File) -> Arc<BlobFile> {
        Arc::new(BlobFile(file))
    }

    fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0; len];
        #[cfg(unix)]
        std::os::unix::fs::FileExt::read_exact_at(&self.0, &mut buf, offset)?;
        #[cfg(windows)]
        {
            let mut done = 0;
            while done < len {
                let n = std::os::windows::fs::FileExt::seek_read(
                    &self.0,
                    &mut buf[done..],
                    offset + done as u64,
                )?;
                if n == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                done += n;
            }
        }
        Ok(buf)
    }
}

/// Where a file's encoded symbols are.
#[derive(Debug, Clone)]
enum Blob {
    InMemory(Vec<u8>),
    InStore {
        file: Arc<BlobFile>,
        offset: u64,
        len: usize,
    },
}

#[derive(Debug)]
pub struct LazySymbols {
    /// Symbol names separated by `\n` (with a leading and trailing `\n`), for cheap lookups.
    names: String,
    blob: Blob,
    decoded: OnceLock<FileSymbols>,
}

impl Default for LazySymbols {
    fn default() -> Self {
        LazySymbols {
            names: String::new(),
            blob: Blob::InMemory(Vec::new()),
            decoded: OnceLock::new(),
        }
    }
}

impl LazySymbols {
    pub fn new(symbols: FileSymbols) -> LazySymbols {
        let mut names = String::from("\n");
        for s in &symbols.symbols {
            names.push_str(&s.name);
            names.push('\n');
        }
        let blob = bincode::serialize(&symbols).unwrap_or_default();
        LazySymbols {
            names,
            blob: Blob::InMemory(blob),
            decoded: OnceLock::from(symbols),
        }
    }

    /// Symbols whose blob is `len` bytes at `offset` of a store file.
    pub(super) fn in_store(
        names: String,
        file: Arc<BlobFile>,
        offset: u64,
        len: usize,
    ) -> LazySymbols {
        LazySymbols {
            names,
            blob: Blob::InStore { file, offset, len },
            decoded: OnceLock::new(),
        }
    }

    /// Whether some symbol of the file has exactly this name, without decoding the file.
    pub fn has_name(&self, name: &str) -> bool {
        if name.contains('\n') {
            return false;
        }
        let needle = format!("\n{name}\n");
        memchr::memmem::find(self.names.as_bytes(), needle.as_bytes()).is_some()
    }

    /// The file's symbol names, in order, without decoding the file.
    pub fn name_list(&self) -> impl Iterator<Item = &str> {
        self.names.split('\n').filter(|name| !name.is_empty())
    }

    /// The name list as stored.
    pub(super) fn names(&self) -> &str {
        &self.names
    }

    /// The encoded symbols' length in bytes, without reading them.
    pub(super) fn blob_len(&self) -> usize {
        match &self.blob {
            Blob::InMemory(bytes) => bytes.len(),
            Blob::InStore { len, .. } => *len,
        }
    }

    /// The encoded symbols, read from the store file if they are still there.
    pub(super) fn blob(&self) -> std::io::Result<Cow<'_, [u8]>> {
        match &self.blob {
            Blob::InMemory(bytes) => Ok(Cow::Borrowed(bytes)),
            Blob::InStore { file, offset, len } => file.read(*offset, *len).map(Cow::Owned),
        }
    }
}

impl Clone for LazySymbols {
    fn clone(&self) -> Self {
        LazySymbols {
            names: self.names.clone(),
            blob: self.blob.clone(),
            decoded: self.decoded.clone(),
        }
    }
}

impl Deref for LazySymbols {
    type Target = FileSymbols;

    fn deref(&self) -> &FileSymbols {
        // A blob that does not read or decode (it was written by this version, so only disk
        // corruption can cause it) reads as "no symbols" rather than failing the whole answer.
        self.decoded.get_or_init(|| {
            self.blob()
                .ok()
                .and_then(|bytes| bincode::deserialize(&bytes).ok())
                .unwrap_or_default()
        })
    }
}

#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    #[serde(borrow)]
    names: Cow<'a, str>,
    #[serde(with = "serde_bytes", borrow)]
    blob: Cow<'a, [u8]>,
}

impl Serialize for LazySymbols {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Stored {
            names: self.names.as_str().into(),
            blob: self.blob().map_err(serde::ser::Error::custom)?,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LazySymbols {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Stored::deserialize(deserializer)?;
        Ok(LazySymbols {
            names: stored.names.into_owned(),
            blob: Blob::InMemory(stored.blob.into_owned()),
            decoded: OnceLock::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::by_id;

    #[test]
    fn round_trips_and_looks_up_names_without_decoding() {
        let symbols = crate::analysis::analyze_source(
            by_id("python").unwrap(),
            "class AuthService:\n    def login(self):\n        pass\n",
        );
        let bytes = bincode::serialize(&LazySymbols::new(symbols.clone())).unwrap();
        let back: LazySymbols = bincode::deserialize(&bytes).unwrap();
        assert!(back.has_name("login") && back.has_name("AuthService"));
        assert!(!back.has_name("log") && !back.has_name("AuthServic"));
        assert_eq!(
            back.name_list().collect::<Vec<_>>(),
            ["AuthService", "login"]
        );
        assert!(back.decoded.get().is_none());
        assert_eq!(back.symbols, symbols.symbols);
    }
}
