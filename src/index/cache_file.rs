//! One file under `.code-intel/` that holds a cache a process can rebuild from the project (the
//! symbol store, the outline store, the import graph), and the one rule they all keep: a file of
//! another format or tool version, or one that is cut short or damaged, is rebuilt, never misread.
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic "CODEINTC" · kind tag (4 bytes) · format version u32 · eager length u64 · lazy length u64
//! · CRC-32 of the eager part u32 · tool version length u16 · tool version · eager part · lazy part
//! ```
//!
//! The eager part is what a load reads, checks and decodes at once. The lazy part is left on disk
//! behind the open file until a question needs a piece of it; it is how the symbol store keeps a
//! warm start from reading every file's symbols. Its pieces are not covered by the checksum,
//! which would mean reading them all at start.
//!
//! Each store keeps its own encoding of what it holds (a [`Format`]); this type owns the header,
//! the version check, load-once and the atomic write.

use std::error::Error;
use std::fs::File;
use std::io::{self, Read};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"CODEINTC";
/// Magic, tag, version, the two lengths, the checksum and the tool version's length.
const FIXED_LEN: usize = 8 + 4 + 4 + 8 + 8 + 4 + 2;
/// The tool's version and the language registry's fingerprint: a store written by another
/// release, or by a build that knew other languages, is rebuilt (and chunks cut by one are cut
/// again, see `sync::chunking_stamp`).
pub(super) static TOOL_VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{}+{:08x}",
        env!("CARGO_PKG_VERSION"),
        crate::lang::fingerprint()
    )
});

/// An error a [`Format`] reports when its part of the file does not decode.
pub type DecodeError = Box<dyn Error + Send + Sync>;

/// Which store a file belongs to, and in which layout.
pub struct Kind {
    /// For logs: "symbol index", "outline index" …
    pub name: &'static str,
    /// Tells the stores' files apart, so one is never read as another.
    pub tag: [u8; 4],
    /// Bumped whenever the store's encoding or what it derives from the code changes.
    pub version: u32,
    /// Recognises the first bytes of a file this store wrote before it had this header, so that
    /// replacing it is as quiet as replacing any older version. Such a file is never decoded.
    pub legacy: fn(&[u8]) -> bool,
}

/// How one store turns what it holds into bytes and back.
pub trait Format {
    type Value;
    const KIND: Kind;

    /// Appends the value to `out`: first what a load needs at once, then, after
    /// [`Encoder::start_lazy`], anything that can wait on disk until asked for.
    fn encode(value: &Self::Value, out: &mut Encoder) -> io::Result<()>;

    /// The value back from the eager part (checked against its checksum already) and the lazy
    /// part, still on disk.
    fn decode(eager: &[u8], lazy: LazyPart) -> Result<Self::Value, DecodeError>;
}

/// The buffer a [`Format`] encodes into, behind the header.
pub struct Encoder {
    bytes: Vec<u8>,
    eager_from: usize,
    lazy_from: Option<usize>,
}

impl Encoder {
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Ends the eager part: what is appended from now on is read only on demand.
    pub fn start_lazy(&mut self) {
        self.lazy_from.get_or_insert(self.bytes.len());
    }
}

/// The part of a file left on disk: `len` bytes from `offset`, read through `file` (a handle
/// that keeps reading this content after a newer store replaces the file by rename).
pub struct LazyPart {
    pub file: File,
    pub offset: u64,
    pub len: u64,
}

/// Why a file was not used.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    #[error("not a code-intel cache file")]
    NotACache,
    #[error("holds another store ({found:?})")]
    OtherKind { found: [u8; 4] },
    #[error("{found} bytes where its header promises {expected} (cut short or damaged)")]
    Length { expected: u64, found: u64 },
    #[error("checksum mismatch (damaged)")]
    Checksum,
    #[error("does not decode: {0}")]
    Payload(DecodeError),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Why a readable file is not current.
#[derive(Debug, PartialEq, Eq)]
pub enum Stale {
    /// Written before stores had this header.
    Legacy,
    Version(u32),
    Tool(String),
}

/// What reading a store's file found.
#[derive(Debug)]
pub enum Loaded<T> {
    Missing,
    Stale(Stale),
    Unreadable(Unreadable),
    Ready(T),
}

/// A store's file: where it is, whether it was loaded, and how to read and write it.
pub struct CacheFile<F: Format> {
    path: PathBuf,
    loaded: Mutex<bool>,
    format: PhantomData<fn() -> F>,
}

impl<F: Format> CacheFile<F> {
    pub fn new(path: PathBuf) -> CacheFile<F> {
        CacheFile {
            path,
            loaded: Mutex::new(false),
            format: PhantomData,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// On the first call only, reads the file and hands its value to `install`. Later callers
    /// wait until that is done, so none of them starts from the empty store meanwhile. A file of
    /// another version is dropped quietly, an unreadable one with a warning; either way nothing
    /// is installed and the store rebuilds from the project.
    pub fn load_once(&self, install: impl FnOnce(F::Value)) {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if *loaded {
            return;
        }
        *loaded = true;
        let name = F::KIND.name;
        match self.read() {
            Loaded::Ready(value) => install(value),
            Loaded::Missing => {}
            Loaded::Stale(why) => {
                tracing::info!("{name} is of another version ({why:?}); rebuilding")
            }
            Loaded::Unreadable(err) => tracing::warn!(
                "{name} at {} unreadable ({err}); rebuilding",
                self.path.display()
            ),
        }
    }

    /// Reads and checks the file, without the load-once bookkeeping.
    pub fn read(&self) -> Loaded<F::Value> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Loaded::Missing,
            Err(err) => return Loaded::Unreadable(err.into()),
        };
        match read_file::<F>(file) {
            Ok(Ok(value)) => Loaded::Ready(value),
            Ok(Err(stale)) => Loaded::Stale(stale),
            Err(err) => Loaded::Unreadable(err),
        }
    }

    /// Writes `value` so that readers see the old file or the new one, never a torn one.
    pub fn persist(&self, value: &F::Value) -> io::Result<()> {
        crate::fsutil::write_atomic(&self.path, &encode::<F>(value)?)
    }
}

/// The whole file for `value`: header, then the format's parts.
fn encode<F: Format>(value: &F::Value) -> io::Result<Vec<u8>> {
    let tool = TOOL_VERSION.as_bytes();
    let header_len = FIXED_LEN + tool.len();
    let mut out = Encoder {
        bytes: vec![0; header_len],
        eager_from: header_len,
        lazy_from: None,
    };
    F::encode(value, &mut out)?;
    let Encoder {
        mut bytes,
        eager_from,
        lazy_from,
    } = out;
    let lazy_from = lazy_from.unwrap_or(bytes.len());
    let eager = &bytes[eager_from..lazy_from];
    let checksum = crc32fast::hash(eager);
    let mut header = Vec::with_capacity(header_len);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&F::KIND.tag);
    header.extend_from_slice(&F::KIND.version.to_le_bytes());
    header.extend_from_slice(&(eager.len() as u64).to_le_bytes());
    header.extend_from_slice(&((bytes.len() - lazy_from) as u64).to_le_bytes());
    header.extend_from_slice(&checksum.to_le_bytes());
    let tool_len = u16::try_from(tool.len()).map_err(io::Error::other)?;
    header.extend_from_slice(&tool_len.to_le_bytes());
    header.extend_from_slice(tool);
    bytes[..header_len].copy_from_slice(&header);
    Ok(bytes)
}

/// The value in `file`; `Ok(Err(_))` when the file is sound but of another version.
fn read_file<F: Format>(mut file: File) -> Result<Result<F::Value, Stale>, Unreadable> {
    let total = file.metadata()?.len();
    let mut fixed = [0u8; FIXED_LEN];
    let got = read_up_to(&mut file, &mut fixed)?;
    let fixed = &fixed[..got];
    if !fixed.starts_with(MAGIC) {
        if (F::KIND.legacy)(fixed) {
            return Ok(Err(Stale::Legacy));
        }
        return Err(Unreadable::NotACache);
    }
    let short = || Unreadable::Length {
        expected: FIXED_LEN as u64,
        found: total,
    };
    if got < FIXED_LEN {
        return Err(short());
    }
    let mut at = MAGIC.len();
    let mut take = move |n: usize| {
        let field = &fixed[at..at + n];
        at += n;
        field
    };
    let tag: [u8; 4] = take(4).try_into().expect("4 bytes");
    let version = u32::from_le_bytes(take(4).try_into().expect("4 bytes"));
    let eager_len = u64::from_le_bytes(take(8).try_into().expect("8 bytes"));
    let lazy_len = u64::from_le_bytes(take(8).try_into().expect("8 bytes"));
    let checksum = u32::from_le_bytes(take(4).try_into().expect("4 bytes"));
    let tool_len = u16::from_le_bytes(take(2).try_into().expect("2 bytes"));
    if tag != F::KIND.tag {
        return Err(Unreadable::OtherKind { found: tag });
    }
    if version != F::KIND.version {
        return Ok(Err(Stale::Version(version)));
    }
    let mut tool = vec![0; usize::from(tool_len)];
    if read_up_to(&mut file, &mut tool)? < tool.len() {
        return Err(short());
    }
    if tool != TOOL_VERSION.as_bytes() {
        return Ok(Err(Stale::Tool(
            String::from_utf8_lossy(&tool).into_owned(),
        )));
    }
    let header_len = (FIXED_LEN + tool.len()) as u64;
    // Checked before anything is allocated from the lengths: random bytes after a sound header
    // must not make a load reserve gigabytes.
    let expected = header_len
        .checked_add(eager_len)
        .and_then(|n| n.checked_add(lazy_len));
    if expected != Some(total) {
        return Err(Unreadable::Length {
            expected: expected.unwrap_or(u64::MAX),
            found: total,
        });
    }
    let mut eager = vec![0; eager_len as usize];
    file.read_exact(&mut eager)?;
    if crc32fast::hash(&eager) != checksum {
        return Err(Unreadable::Checksum);
    }
    let lazy = LazyPart {
        file,
        offset: header_len + eager_len,
        len: lazy_len,
    };
    F::decode(&eager, lazy).map(Ok).map_err(Unreadable::Payload)
}

/// The format version at the start of `bytes` when they begin the way the stores' files did
/// before this header: a bincode `u32` version, then the tool version as a bincode string (a
/// `u64` length, then text starting with a digit). Only for [`Kind::legacy`].
pub fn headerless_bincode_version(bytes: &[u8]) -> Option<u32> {
    let version = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    let tool_len = u64::from_le_bytes(bytes.get(4..12)?.try_into().ok()?);
    let plausible =
        (1..64).contains(&tool_len) && bytes.get(12).is_none_or(|first| first.is_ascii_digit());
    plausible.then_some(version)
}

/// Fills `buf` as far as the file goes; the number of bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(done)
}

/// Test helpers the stores' own compatibility tests share.
#[cfg(test)]
pub(crate) mod testing {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// Gives `path` new content under its old modification time, so that only a store that is
    /// trusted without checking the content answers from the old one.
    pub fn rewrite_keeping_mtime(path: &std::path::Path, text: &str) {
        let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    /// Runs `f` and returns what it logged at warning level or above on this thread.
    pub fn warnings<T>(f: impl FnOnce() -> T) -> (T, String) {
        #[derive(Clone, Default)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_writer(move || writer.clone())
            .finish();
        let out = tracing::subscriber::with_default(subscriber, f);
        let logged = String::from_utf8_lossy(&sink.0.lock().unwrap()).into_owned();
        (out, logged)
    }

    /// Bytes that are no store at all, the same every run.
    pub fn noise(len: usize) -> Vec<u8> {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..len)
            .map(|_| {
                // xorshift64*: enough to look like anything but a header.
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
            })
            .collect()
    }

    /// Where a current file's eager part starts, and how long it is.
    fn eager_range(file: &[u8]) -> std::ops::Range<usize> {
        let tool_len = u16::from_le_bytes(file[36..38].try_into().unwrap());
        let start = super::FIXED_LEN + usize::from(tool_len);
        let len = u64::from_le_bytes(file[16..24].try_into().unwrap());
        start..start + len as usize
    }

    /// The eager and the lazy part of a current file.
    pub fn parts(file: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let eager = eager_range(file);
        (file[eager.clone()].to_vec(), file[eager.end..].to_vec())
    }

    /// Writes each variant to `path` and asks `check` whether the store coped with it; fails
    /// naming every variant it did not cope with (not only the first).
    pub fn check_each(
        path: &std::path::Path,
        variants: Vec<Variant>,
        mut check: impl FnMut(&Variant) -> Result<(), String>,
    ) {
        let mut failed = Vec::new();
        for variant in &variants {
            std::fs::write(path, &variant.bytes).unwrap();
            if let Err(err) = check(variant) {
                failed.push(format!("{}: {err}", variant.what));
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
    }

    /// A file a store must not use, what was done to it, and whether replacing it warns.
    pub struct Variant {
        pub what: String,
        pub bytes: Vec<u8>,
        pub warns: bool,
    }

    /// Every way a store's current file (`file`) can come back unusable that the header has to
    /// catch by itself: the format version before it, another tool version, cut at several
    /// points, one bit flipped in the eager part, and bytes that are no store.
    pub fn variants(file: &[u8]) -> Vec<Variant> {
        let mut out = Vec::new();
        let version = u32::from_le_bytes(file[12..16].try_into().unwrap());
        let mut previous = file.to_vec();
        previous[12..16].copy_from_slice(&(version - 1).to_le_bytes());
        out.push(Variant {
            what: format!("written by format version {}", version - 1),
            bytes: previous,
            warns: false,
        });
        let mut other_tool = file.to_vec();
        other_tool[super::FIXED_LEN] ^= 0x01;
        out.push(Variant {
            what: "written by another tool version".into(),
            bytes: other_tool,
            warns: false,
        });
        let eager = eager_range(file);
        for cut in [
            10,
            eager.start + (eager.end - eager.start) / 2,
            file.len() - 1,
        ] {
            out.push(Variant {
                what: format!("cut to {cut} of {} bytes", file.len()),
                bytes: file[..cut].to_vec(),
                warns: true,
            });
        }
        let mut flipped = file.to_vec();
        flipped[eager.start + (eager.end - eager.start) / 3] ^= 0x04;
        out.push(Variant {
            what: "one bit flipped".into(),
            bytes: flipped,
            warns: true,
        });
        out.push(Variant {
            what: "random bytes".into(),
            bytes: noise(file.len().max(64)),
            warns: true,
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{self, variants, warnings};
    use super::*;

    /// A value kept whole in the eager part, and a tail left on disk.
    #[derive(Debug, PartialEq)]
    struct Pair {
        head: Vec<String>,
        tail: Vec<u8>,
    }

    struct PairFormat;

    impl Format for PairFormat {
        type Value = Pair;
        const KIND: Kind = Kind {
            name: "test store",
            tag: *b"TEST",
            version: 7,
            legacy: |bytes| bytes.starts_with(b"OLD"),
        };

        fn encode(value: &Pair, out: &mut Encoder) -> io::Result<()> {
            bincode::serialize_into(out.bytes(), &value.head).map_err(io::Error::other)?;
            out.start_lazy();
            out.bytes().extend_from_slice(&value.tail);
            Ok(())
        }

        fn decode(eager: &[u8], lazy: LazyPart) -> Result<Pair, DecodeError> {
            let head = bincode::deserialize(eager)?;
            use std::io::{Seek, SeekFrom};
            let mut file = lazy.file;
            file.seek(SeekFrom::Start(lazy.offset))?;
            let mut tail = vec![0; lazy.len as usize];
            file.read_exact(&mut tail)?;
            Ok(Pair { head, tail })
        }
    }

    fn stored() -> (tempfile::TempDir, CacheFile<PairFormat>, Pair) {
        let dir = tempfile::tempdir().unwrap();
        let file = CacheFile::new(dir.path().join("sub/test.bin"));
        let value = Pair {
            head: vec!["alpha".into(), "beta".into()],
            tail: b"the lazy part".to_vec(),
        };
        file.persist(&value).unwrap();
        (dir, file, value)
    }

    #[test]
    fn a_written_value_reads_back_with_its_lazy_part() {
        let (_dir, file, value) = stored();
        match file.read() {
            Loaded::Ready(back) => assert_eq!(back, value),
            other => panic!("expected the value, got {other:?}"),
        }
    }

    #[test]
    fn load_once_installs_the_value_only_the_first_time() {
        let (_dir, file, value) = stored();
        let mut installed = Vec::new();
        file.load_once(|v| installed.push(v));
        file.load_once(|v| installed.push(v));
        assert_eq!(installed, [value]);
    }

    #[test]
    fn every_unusable_file_is_refused_and_only_damage_warns() {
        let (_dir, file, value) = stored();
        let good = std::fs::read(file.path()).unwrap();
        let mut variants = variants(&good);
        variants.push(testing::Variant {
            what: "the store's layout before headers".into(),
            bytes: b"OLD layout of this store".to_vec(),
            warns: false,
        });
        let mut other = good.clone();
        other[8..12].copy_from_slice(b"ELSE");
        variants.push(testing::Variant {
            what: "another store's file".into(),
            bytes: other,
            warns: true,
        });
        let mut longer = good.clone();
        longer.extend_from_slice(b"more");
        variants.push(testing::Variant {
            what: "bytes appended".into(),
            bytes: longer,
            warns: true,
        });
        for variant in variants {
            std::fs::write(file.path(), &variant.bytes).unwrap();
            let read = file.read();
            match (&read, variant.warns) {
                (Loaded::Stale(_), false) | (Loaded::Unreadable(_), true) => {}
                _ => panic!("{}: {read:?}", variant.what),
            }
            let fresh = CacheFile::<PairFormat>::new(file.path().to_path_buf());
            let (installed, logged) = warnings(|| {
                let mut installed = false;
                fresh.load_once(|_| installed = true);
                installed
            });
            assert!(!installed, "{}", variant.what);
            if variant.warns {
                assert!(
                    logged.contains("test store") && logged.contains("rebuilding"),
                    "{}: {logged}",
                    variant.what
                );
            } else {
                assert!(logged.is_empty(), "{}: {logged}", variant.what);
            }
        }
        // And the file as written still reads.
        std::fs::write(file.path(), &good).unwrap();
        assert!(matches!(file.read(), Loaded::Ready(v) if v == value));
    }

    #[test]
    fn a_missing_file_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = CacheFile::<PairFormat>::new(dir.path().join("none.bin"));
        assert!(matches!(file.read(), Loaded::Missing));
    }
}
