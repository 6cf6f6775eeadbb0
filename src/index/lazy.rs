//! Lazily decoded symbols: the store keeps each file's symbols as one encoded blob plus the list
//! of its symbol names, so a warm start decodes tens of thousands of small records only for the
//! files a question actually touches (a name lookup reads just the name lists).

use crate::analysis::FileSymbols;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::Deref;
use std::sync::OnceLock;

#[derive(Debug, Default)]
pub struct LazySymbols {
    /// Symbol names separated by `\n` (with a leading and trailing `\n`), for cheap lookups.
    names: String,
    blob: Vec<u8>,
    decoded: OnceLock<FileSymbols>,
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
            blob,
            decoded: OnceLock::from(symbols),
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
        // A blob that does not decode (it was written by this version, so only disk corruption
        // can cause it) reads as "no symbols" rather than failing the whole answer.
        self.decoded
            .get_or_init(|| bincode::deserialize(&self.blob).unwrap_or_default())
    }
}

#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    #[serde(borrow)]
    names: std::borrow::Cow<'a, str>,
    #[serde(with = "serde_bytes", borrow)]
    blob: std::borrow::Cow<'a, [u8]>,
}

impl Serialize for LazySymbols {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Stored {
            names: self.names.as_str().into(),
            blob: self.blob.as_slice().into(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LazySymbols {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Stored::deserialize(deserializer)?;
        Ok(LazySymbols {
            names: stored.names.into_owned(),
            blob: stored.blob.into_owned(),
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
        assert!(back.decoded.get().is_none());
        assert_eq!(back.symbols, symbols.symbols);
    }
}
