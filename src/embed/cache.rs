//! The machine's embedding cache: vectors by model identity and the SHA-256 of the exact text
//! embedded, shared by every project, checkout, worktree and branch on this machine, so text
//! the machine has embedded once is never embedded again.
//!
//! Embedding is the slow part of indexing (a few dozen chunks a second on two cores), and the
//! same text comes back all the time: a second worktree or clone, a branch switch and back, a
//! re-chunk that leaves most chunks' text as it was, a `.code-intel/` deleted to start over.
//!
//! **Layout.** One directory (`$XDG_CACHE_HOME/code-intel/vectors`, else
//! `~/.cache/code-intel/vectors`) of append-only segment files. Each process writes only its
//! own segment, so writers never wait for each other and no lock is held across processes;
//! readers find what other processes wrote by scanning their segments from where they last
//! stopped. A record is `key (32) | dims (u16) | crc32 (u32) | dims × f32`, all little-endian;
//! the CRC covers key, dims and floats.
//!
//! **Crash safety.** A record is written with one `write`; a process killed half-way leaves at
//! most one torn record at the end of its segment, which fails the length or CRC check and ends
//! every scan there. A segment whose write failed (a full disk) is abandoned, never appended to
//! after a gap.
//!
//! **Bounded.** When the segments together exceed the budget, the oldest are deleted until a
//! quarter of the budget is free. An entry found in the older half of the cache is written again
//! into the current segment, so what is still in use survives eviction (least recently used, at
//! the grain of a segment). A reader whose segment was deleted under it takes that as a miss.

use super::Vector;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Environment variable with the cache's budget in MiB; `0` turns the cache off.
pub const BUDGET_ENV: &str = "CODE_INTEL_VECTOR_CACHE_MB";
/// Environment variable naming the cache directory (tests, benchmarks, shared machines).
pub const DIR_ENV: &str = "CODE_INTEL_VECTOR_CACHE_DIR";
/// The default budget: about 680,000 vectors of 384 floats, several large repositories.
pub const DEFAULT_BUDGET_MB: u64 = 1024;

/// A segment is closed and a new one started past this size, so eviction frees space in
/// pieces much smaller than the budget.
const SEGMENT_BYTES: u64 = 64 * 1024 * 1024;
/// Each segment starts with this, so a stray file in the directory is never read as vectors.
const MAGIC: &[u8; 8] = b"CIVEC\x001\n";
const EXTENSION: &str = "seg";
/// Key, dims and CRC.
const RECORD_HEAD: usize = 32 + 2 + 4;

/// SHA-256 of model identity, side and text.
pub type Key = [u8; 32];

/// The key of `text` embedded by `model_id` on the passage side. The model id names the model,
/// its precision and the text preparation (see `E5Embedder::model_id`), so a change to any of
/// them makes new keys instead of serving vectors from another space.
pub fn passage_key(model_id: &str, text: &str) -> Key {
    let mut hash = Sha256::new();
    hash.update(model_id.as_bytes());
    hash.update([0]);
    hash.update(b"passage");
    hash.update([0]);
    hash.update(text.as_bytes());
    hash.finalize().into()
}

/// The cache as one model sees it, for the passages it embeds: each text's key and cached
/// vector, and what the model computed kept. The one way the index's background pass and a
/// request's query-time embedding use the cache. Without a cache every text is a miss and
/// nothing is kept.
pub struct CachedPassages<'a> {
    cache: Option<&'a VectorCache>,
    model: &'a dyn super::Embedder,
}

impl<'a> CachedPassages<'a> {
    pub fn new(cache: Option<&'a VectorCache>, model: &'a dyn super::Embedder) -> Self {
        CachedPassages { cache, model }
    }

    /// Each text's key, with its vector when the cache holds one of the model's size.
    pub fn lookup(&self, texts: &[&str]) -> Vec<(Key, Option<Vector>)> {
        let keys: Vec<Key> = texts
            .iter()
            .map(|t| passage_key(self.model.model_id(), t))
            .collect();
        let hits = match self.cache {
            Some(cache) => cache.get_many(&keys),
            None => vec![None; keys.len()],
        };
        let dims = self.model.dims();
        keys.into_iter()
            .zip(hits)
            .map(|(key, hit)| (key, hit.filter(|v| v.len() == dims)))
            .collect()
    }

    /// Computes the vectors `found` (what [`Self::lookup`] returned for `texts`) lacks, `batch`
    /// texts per model call, and keeps them. What was computed before an error stays in
    /// `found`.
    pub fn compute_missing(
        &self,
        texts: &[&str],
        found: &mut [(Key, Option<Vector>)],
        batch: usize,
    ) -> Result<(), super::EmbedError> {
        let todo: Vec<usize> = (0..found.len()).filter(|&i| found[i].1.is_none()).collect();
        for group in todo.chunks(batch.max(1)) {
            let inputs: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
            let computed = self.model.embed_passages(&inputs)?;
            let keys: Vec<Key> = group.iter().map(|&i| found[i].0).collect();
            self.keep(&keys, &computed);
            for (&i, vector) in group.iter().zip(computed) {
                found[i].1 = Some(vector);
            }
        }
        Ok(())
    }

    /// Keeps what the model computed for `keys`; a failure (a full disk) loses only these.
    pub fn keep(&self, keys: &[Key], vectors: &[Vector]) {
        let Some(cache) = self.cache else { return };
        let items: Vec<(Key, &[f32])> = keys
            .iter()
            .zip(vectors)
            .map(|(k, v)| (*k, v.as_slice()))
            .collect();
        if let Err(err) = cache.put_many(&items) {
            tracing::debug!("embedding cache: {} vectors not kept: {err}", items.len());
        }
    }
}

/// Counters since the cache was opened in this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    /// Vectors written by this process.
    pub written: u64,
    /// Entries known to this process (every segment scanned so far).
    pub entries: u64,
    pub bytes: u64,
}

/// The cache; shared by every project a process serves (see [`VectorCache::machine`]).
pub struct VectorCache {
    dir: PathBuf,
    budget: u64,
    inner: Mutex<Inner>,
    hits: AtomicU64,
    misses: AtomicU64,
    written: AtomicU64,
}

#[derive(Default)]
struct Inner {
    /// Segments by id; `None` once deleted or abandoned.
    segments: Vec<Option<Segment>>,
    by_name: HashMap<String, u32>,
    /// Where each known key's record starts.
    index: HashMap<Key, (u32, u64)>,
    /// The segment this process appends to.
    writer: Option<u32>,
}

struct Segment {
    name: String,
    file: File,
    /// Bytes read and indexed (or written, for this process's segment).
    scanned: u64,
    /// This process writes it.
    own: bool,
}

impl VectorCache {
    /// The machine's cache, opened once per process: at [`DIR_ENV`] or the user cache
    /// directory, with [`BUDGET_ENV`] or the default budget. `None` when it is turned off or
    /// its directory cannot be made (said once in the log; embedding then simply computes).
    pub fn machine() -> Option<Arc<VectorCache>> {
        static MACHINE: OnceLock<Option<Arc<VectorCache>>> = OnceLock::new();
        MACHINE
            .get_or_init(|| {
                let budget_mb = match std::env::var(BUDGET_ENV) {
                    Ok(raw) => match raw.trim().parse::<u64>() {
                        Ok(mb) => mb,
                        Err(_) => {
                            tracing::warn!(
                                "{BUDGET_ENV}={raw:?} is not a number of MiB; using {DEFAULT_BUDGET_MB}"
                            );
                            DEFAULT_BUDGET_MB
                        }
                    },
                    Err(_) => DEFAULT_BUDGET_MB,
                };
                if budget_mb == 0 {
                    tracing::info!("the machine's embedding cache is off ({BUDGET_ENV}=0)");
                    return None;
                }
                let dir = std::env::var_os(DIR_ENV)
                    .filter(|d| !d.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| crate::fsutil::user_cache_dir().map(|d| d.join("vectors")))?;
                VectorCache::open(&dir, budget_mb * 1024 * 1024)
                    .map_err(|err| {
                        tracing::warn!(
                            "no embedding cache at {}: {err}; chunks are embedded without it",
                            dir.display()
                        )
                    })
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }

    /// Opens (creating) the cache at `dir`. Nothing is read yet: segments are scanned on the
    /// first lookup.
    pub fn open(dir: &Path, budget_bytes: u64) -> std::io::Result<VectorCache> {
        std::fs::create_dir_all(dir)?;
        Ok(VectorCache {
            dir: dir.to_path_buf(),
            budget: budget_bytes.max(1),
            inner: Mutex::new(Inner::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            written: AtomicU64::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            entries: inner.index.len() as u64,
            bytes: inner.bytes(),
        }
    }

    /// The cached vector of each key, in order. A miss is looked for again after reading what
    /// other processes wrote since the last look.
    pub fn get_many(&self, keys: &[Key]) -> Vec<Option<Vector>> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<Option<Vector>> = keys.iter().map(|k| inner.read(k)).collect();
        if out.iter().any(Option::is_none) {
            inner.refresh(&self.dir);
            for (slot, key) in out.iter_mut().zip(keys) {
                if slot.is_none() {
                    *slot = inner.read(key);
                }
            }
        }
        // Entries in use move out of the part of the cache eviction takes next.
        let old = inner.older_half(self.budget);
        let refresh: Vec<(Key, Vector)> = keys
            .iter()
            .zip(&out)
            .filter_map(|(key, vector)| {
                let (segment, _) = inner.index.get(key)?;
                old.contains(segment)
                    .then(|| vector.clone().map(|v| (*key, v)))
                    .flatten()
            })
            .collect();
        if !refresh.is_empty() {
            let items: Vec<(Key, &[f32])> =
                refresh.iter().map(|(k, v)| (*k, v.as_slice())).collect();
            if let Err(err) = inner.append(&self.dir, &items, true) {
                tracing::debug!("embedding cache: entries in use not rewritten: {err}");
            }
        }
        drop(inner);
        let hits = out.iter().filter(|v| v.is_some()).count() as u64;
        self.hits.fetch_add(hits, Ordering::Relaxed);
        self.misses
            .fetch_add(keys.len() as u64 - hits, Ordering::Relaxed);
        out
    }

    /// Stores vectors (keys already present are skipped), then evicts the oldest segments if
    /// the budget is exceeded. An error (a full disk) loses only these entries.
    pub fn put_many(&self, items: &[(Key, &[f32])]) -> std::io::Result<()> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let written = inner.append(&self.dir, items, false)?;
        self.written.fetch_add(written as u64, Ordering::Relaxed);
        if inner.bytes() > self.budget {
            inner.evict(&self.dir, self.budget - self.budget / 4);
        }
        Ok(())
    }
}

impl Inner {
    fn bytes(&self) -> u64 {
        self.segments.iter().flatten().map(|s| s.scanned).sum()
    }

    /// The record of `key`, checked; a record that cannot be read (its segment deleted by
    /// another process's eviction, or damaged) is forgotten.
    fn read(&mut self, key: &Key) -> Option<Vector> {
        let &(segment, offset) = self.index.get(key)?;
        let vector = self
            .segments
            .get(segment as usize)?
            .as_ref()
            .and_then(|s| read_record(&s.file, offset, key));
        if vector.is_none() {
            self.index.remove(key);
        }
        vector
    }

    /// Scans segments that are new or have grown since the last scan, and forgets segments
    /// that are gone.
    fn refresh(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut present: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| name.ends_with(EXTENSION))
            .collect();
        present.sort();
        for name in &present {
            let id = match self.by_name.get(name) {
                Some(&id) => id,
                None => {
                    let Ok(file) = File::open(dir.join(name)) else {
                        continue;
                    };
                    let id = self.segments.len() as u32;
                    self.segments.push(Some(Segment {
                        name: name.clone(),
                        file,
                        scanned: 0,
                        own: false,
                    }));
                    self.by_name.insert(name.clone(), id);
                    id
                }
            };
            self.scan(id);
        }
        let gone: Vec<u32> = self
            .by_name
            .iter()
            .filter(|(name, _)| present.binary_search(name).is_err())
            .map(|(_, &id)| id)
            .collect();
        for id in gone {
            self.forget(id);
        }
    }

    /// Indexes the complete records of a foreign segment past what was scanned before.
    fn scan(&mut self, id: u32) {
        let Some(Some(segment)) = self.segments.get_mut(id as usize) else {
            return;
        };
        if segment.own {
            return;
        }
        let Ok(len) = segment.file.metadata().map(|m| m.len()) else {
            return;
        };
        if len <= segment.scanned {
            return;
        }
        let mut bytes = vec![0u8; (len - segment.scanned) as usize];
        if segment
            .file
            .read_exact_at(&mut bytes, segment.scanned)
            .is_err()
        {
            return;
        }
        let base = segment.scanned;
        let mut at = 0usize;
        if base == 0 {
            if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
                // Not a segment of this format (or its header is still being written).
                return;
            }
            at = MAGIC.len();
        }
        while let Some((key, size)) = parse_record(&bytes[at..]) {
            self.index.insert(key, (id, base + at as u64));
            at += size;
        }
        segment.scanned = base + at as u64;
    }

    fn forget(&mut self, id: u32) {
        if let Some(segment) = self.segments.get_mut(id as usize).and_then(Option::take) {
            self.by_name.remove(&segment.name);
        }
        if self.writer == Some(id) {
            self.writer = None;
        }
        self.index.retain(|_, (segment, _)| *segment != id);
    }

    /// Segments holding the oldest half of the cache's bytes, once the cache is more than half
    /// full (before that, nothing is close to eviction).
    fn older_half(&self, budget: u64) -> Vec<u32> {
        let total = self.bytes();
        if total <= budget / 2 {
            return Vec::new();
        }
        let mut by_age: Vec<(u32, &Segment)> = self
            .segments
            .iter()
            .enumerate()
            .filter_map(|(id, s)| Some((id as u32, s.as_ref()?)))
            .collect();
        by_age.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        let mut before = 0;
        let mut old = Vec::new();
        for (id, segment) in by_age {
            if before >= total / 2 || Some(id) == self.writer {
                break;
            }
            old.push(id);
            before += segment.scanned;
        }
        old
    }

    /// Appends records for the keys not yet stored (or, with `again`, for entries moving out
    /// of the older half) to this process's segment. Returns how many were written.
    fn append(
        &mut self,
        dir: &Path,
        items: &[(Key, &[f32])],
        again: bool,
    ) -> std::io::Result<usize> {
        let mut buffer = Vec::new();
        // Each new record's key and where it starts in `buffer`.
        let mut keys: Vec<(Key, u64)> = Vec::new();
        let mut fresh = std::collections::HashSet::new();
        for (key, vector) in items {
            if (!again && self.index.contains_key(key)) || !fresh.insert(*key) {
                continue;
            }
            keys.push((*key, buffer.len() as u64));
            encode_record(&mut buffer, key, vector);
        }
        if keys.is_empty() {
            return Ok(0);
        }
        let id = self.writer(dir)?;
        let segment = self.segments[id as usize]
            .as_mut()
            .expect("the writer's segment is open");
        let start = segment.scanned;
        if let Err(err) = (&segment.file).write_all(&buffer) {
            // A partial record may now end the file: never append after it.
            self.writer = None;
            return Err(err);
        }
        segment.scanned += buffer.len() as u64;
        for (key, at) in &keys {
            self.index.insert(*key, (id, start + at));
        }
        Ok(keys.len())
    }

    /// This process's segment, started anew when there is none yet, it is full, or another
    /// process's eviction deleted it.
    fn writer(&mut self, dir: &Path) -> std::io::Result<u32> {
        if let Some(id) = self.writer
            && let Some(Some(segment)) = self.segments.get(id as usize)
            && segment.scanned < SEGMENT_BYTES
            && dir.join(&segment.name).exists()
        {
            return Ok(id);
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        // Zero-padded time first, so names sort oldest first.
        let name = format!(
            "{nanos:024}-{}-{}.{EXTENSION}",
            std::process::id(),
            self.segments.len()
        );
        let mut file = std::fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .read(true)
            .open(dir.join(&name))?;
        file.write_all(MAGIC)?;
        let id = self.segments.len() as u32;
        self.segments.push(Some(Segment {
            name: name.clone(),
            file,
            scanned: MAGIC.len() as u64,
            own: true,
        }));
        self.by_name.insert(name, id);
        self.writer = Some(id);
        Ok(id)
    }

    /// Deletes the oldest segments until at most `target` bytes remain (never the one being
    /// written). Other processes see the files gone at their next scan.
    fn evict(&mut self, dir: &Path, target: u64) {
        self.refresh(dir);
        let mut by_age: Vec<(u32, String, u64)> = self
            .segments
            .iter()
            .enumerate()
            .filter_map(|(id, s)| {
                let s = s.as_ref()?;
                Some((id as u32, s.name.clone(), s.scanned))
            })
            .collect();
        by_age.sort_by(|a, b| a.1.cmp(&b.1));
        let mut total = self.bytes();
        for (id, name, bytes) in by_age {
            if total <= target {
                break;
            }
            if Some(id) == self.writer {
                continue;
            }
            match std::fs::remove_file(dir.join(&name)) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    tracing::debug!("embedding cache: {name} not evicted: {err}");
                    continue;
                }
            }
            total = total.saturating_sub(bytes);
            self.forget(id);
        }
    }
}

fn record_size(dims: usize) -> usize {
    RECORD_HEAD + dims * 4
}

fn record_crc(key: &Key, dims: u16, floats: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(key);
    crc.update(&dims.to_le_bytes());
    crc.update(floats);
    crc.finalize()
}

fn encode_record(buffer: &mut Vec<u8>, key: &Key, vector: &[f32]) {
    let dims = u16::try_from(vector.len()).unwrap_or(u16::MAX);
    let floats: Vec<u8> = vector
        .iter()
        .take(usize::from(dims))
        .flat_map(|x| x.to_le_bytes())
        .collect();
    buffer.extend_from_slice(key);
    buffer.extend_from_slice(&dims.to_le_bytes());
    buffer.extend_from_slice(&record_crc(key, dims, &floats).to_le_bytes());
    buffer.extend_from_slice(&floats);
}

/// The key and size of the complete, intact record at the start of `bytes`; `None` at the
/// end, at a torn record or at damage.
fn parse_record(bytes: &[u8]) -> Option<(Key, usize)> {
    let head = bytes.get(..RECORD_HEAD)?;
    let key: Key = head[..32].try_into().ok()?;
    let dims = u16::from_le_bytes([head[32], head[33]]);
    let crc = u32::from_le_bytes(head[34..38].try_into().ok()?);
    let size = record_size(usize::from(dims));
    let floats = bytes.get(RECORD_HEAD..size)?;
    (dims > 0 && record_crc(&key, dims, floats) == crc).then_some((key, size))
}

fn read_record(file: &File, offset: u64, key: &Key) -> Option<Vector> {
    let mut head = [0u8; RECORD_HEAD];
    file.read_exact_at(&mut head, offset).ok()?;
    let dims = usize::from(u16::from_le_bytes([head[32], head[33]]));
    let mut bytes = vec![0u8; record_size(dims)];
    file.read_exact_at(&mut bytes, offset).ok()?;
    let (found, _) = parse_record(&bytes)?;
    if &found != key {
        return None;
    }
    Some(
        bytes[RECORD_HEAD..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(seed: u32) -> Vector {
        (0..384)
            .map(|i| ((seed * 31 + i) % 97) as f32 / 97.0)
            .collect()
    }

    fn key(n: u32) -> Key {
        passage_key("test-model", &format!("text {n}"))
    }

    fn put(cache: &VectorCache, range: std::ops::Range<u32>) {
        let vectors: Vec<(Key, Vector)> = range.map(|n| (key(n), vector(n))).collect();
        let items: Vec<(Key, &[f32])> = vectors.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        cache.put_many(&items).unwrap();
    }

    /// The one segment file a single writer left in `dir`.
    fn only_segment(dir: &Path) -> PathBuf {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files.remove(0)
    }

    #[test]
    fn keys_separate_models_and_texts() {
        assert_ne!(passage_key("a", "x"), passage_key("b", "x"));
        assert_ne!(passage_key("a", "x"), passage_key("a", "y"));
        // The separator keeps the model id and the text from running together.
        assert_ne!(passage_key("ab", "c"), passage_key("a", "bc"));
    }

    #[test]
    fn what_one_process_writes_another_reads() {
        let dir = tempfile::tempdir().unwrap();
        let writer = VectorCache::open(dir.path(), 1 << 30).unwrap();
        put(&writer, 0..50);
        assert_eq!(writer.get_many(&[key(3)]), vec![Some(vector(3))]);

        // A second cache on the same directory stands for another server.
        let reader = VectorCache::open(dir.path(), 1 << 30).unwrap();
        let got = reader.get_many(&[key(7), key(99), key(49)]);
        assert_eq!(got, vec![Some(vector(7)), None, Some(vector(49))]);
        // Written after the reader's first look: found on its next miss.
        put(&writer, 50..60);
        assert_eq!(reader.get_many(&[key(55)]), vec![Some(vector(55))]);
        let stats = reader.stats();
        assert_eq!((stats.hits, stats.misses), (3, 1));
        assert_eq!(stats.entries, 60);
    }

    #[test]
    fn a_torn_record_ends_the_segment_and_loses_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let writer = VectorCache::open(dir.path(), 1 << 30).unwrap();
        put(&writer, 0..10);
        drop(writer);
        // A process killed half-way through its next record.
        let segment = only_segment(dir.path());
        let mut torn = Vec::new();
        encode_record(&mut torn, &key(10), &vector(10));
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&segment)
            .unwrap();
        file.write_all(&torn[..torn.len() / 2]).unwrap();

        let reader = VectorCache::open(dir.path(), 1 << 30).unwrap();
        let got = reader.get_many(&[key(0), key(9), key(10)]);
        assert_eq!(got, vec![Some(vector(0)), Some(vector(9)), None]);
        // And the reader's own writes go to a new segment, not after the torn record.
        put(&reader, 10..11);
        let again = VectorCache::open(dir.path(), 1 << 30).unwrap();
        assert_eq!(again.get_many(&[key(10)]), vec![Some(vector(10))]);
    }

    #[test]
    fn damage_is_a_miss_not_a_wrong_vector() {
        let dir = tempfile::tempdir().unwrap();
        let writer = VectorCache::open(dir.path(), 1 << 30).unwrap();
        put(&writer, 0..3);
        drop(writer);
        let segment = only_segment(dir.path());
        let mut bytes = std::fs::read(&segment).unwrap();
        // Flip a float of the second record.
        let second = MAGIC.len() + record_size(384) + RECORD_HEAD + 8;
        bytes[second] ^= 0x40;
        std::fs::write(&segment, bytes).unwrap();
        let reader = VectorCache::open(dir.path(), 1 << 30).unwrap();
        assert_eq!(
            reader.get_many(&[key(0), key(1)]),
            vec![Some(vector(0)), None]
        );
        // A stray file is not read as a segment.
        std::fs::write(dir.path().join("stray.seg"), b"not a segment").unwrap();
        let reader = VectorCache::open(dir.path(), 1 << 30).unwrap();
        assert_eq!(reader.get_many(&[key(0)]), vec![Some(vector(0))]);
    }

    #[test]
    fn the_budget_evicts_the_oldest_and_keeps_what_is_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let per_record = record_size(384) as u64;
        // Room for about 100 records.
        let budget = 100 * per_record + MAGIC.len() as u64;
        let first = VectorCache::open(dir.path(), budget).unwrap();
        put(&first, 0..60);
        drop(first);
        let second = VectorCache::open(dir.path(), budget).unwrap();
        // Record 5 is in use: read while it sits in the older half.
        assert_eq!(second.get_many(&[key(5)]), vec![Some(vector(5))]);
        put(&second, 60..120);
        let stats = second.stats();
        assert!(stats.bytes <= budget, "{stats:?}");
        let reader = VectorCache::open(dir.path(), budget).unwrap();
        let got = reader.get_many(&[key(0), key(5), key(119)]);
        assert_eq!(got, vec![None, Some(vector(5)), Some(vector(119))]);
    }

    #[test]
    fn several_writers_at_once_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for w in 0..4u32 {
                let path = dir.path().to_path_buf();
                scope.spawn(move || {
                    let cache = VectorCache::open(&path, 1 << 30).unwrap();
                    for batch in 0..10 {
                        let start = w * 1000 + batch * 10;
                        put(&cache, start..start + 10);
                    }
                });
            }
        });
        let reader = VectorCache::open(dir.path(), 1 << 30).unwrap();
        let keys: Vec<Key> = (0..4)
            .flat_map(|w| (0..100).map(move |i| key(w * 1000 + i)))
            .collect();
        let got = reader.get_many(&keys);
        assert!(got.iter().all(Option::is_some));
        assert_eq!(got[150], Some(vector(1050)));
    }
}
