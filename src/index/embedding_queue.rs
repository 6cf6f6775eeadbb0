//! The embedding queue: chunks stored without a vector are embedded in the background, after
//! the lexical index is already usable.
//!
//! The queue is the table itself, so there is nothing to lose in a crash: a restarted process
//! simply continues. It runs in two passes ([`Pass`]). The first embeds every chunk's head
//! ([`embedding_head`]: its path, name, signature, doc comment and first lines, about 64 model
//! tokens), which on two cores is three to four times faster than whole chunks and ranks nearly
//! as well, so a large repository is searchable by meaning within minutes instead of an hour.
//! The second embeds the whole text of the chunks whose head was not all of it, replacing their
//! head vectors in place. Both vectors live in the same space, so a search mixes them freely.
//!
//! Within a pass, files go in order of what is most likely to be asked about first: files the
//! agent touched ([`QueueStatus::prefer`]), then code, then migrations, tests, documentation and
//! translations. Their rows are read through the table's `file` index a few files at a time,
//! sorted by length so each model batch holds texts of similar length (padding is wasted work),
//! embedded in batches and written back every few seconds. A write only lands if the chunk's
//! fingerprint is still the one that was embedded (see `Store::set_vectors`), so a re-sync
//! racing the queue never gets stale vectors.
//!
//! Before a text goes to the model, the machine's embedding cache is asked for it
//! (`embed::cache`): a chunk whose exact text this machine has embedded before, in any checkout,
//! gets that vector without inference, and every vector computed here is added to it. Texts the
//! machine lacks are then asked of the team's cache when one is configured
//! (`store::RemoteCache`, one bounded request per window; what it has goes into the machine's
//! cache too). Texts that occur more than once in a window (copied code, generated files) are
//! embedded once.

use super::chunks::embedding_text;
use super::error::IndexResult;
use super::sync::{Progress, ProgressFn};
use crate::chunk::{TokenCounter, embedding_head};
use crate::embed::Embedder;
use crate::embed::cache::{CachedPassages, Key, VectorCache};
use crate::store::{NewVector, Pass, PendingChunk, RemoteCache, Store};
use crate::workspace::file_role::{FileRole, role_of};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Chunks read from the table at a time (then sorted by length).
pub(super) const WINDOW: usize = 1_024;
/// Results are committed at least this often.
const COMMIT_EVERY: Duration = Duration::from_secs(5);
/// Files the agent touched that are remembered for the queue's order.
const PREFERRED_FILES: usize = 256;

/// Live counters of a running queue (read by `index_status` and progress reporting).
#[derive(Debug, Default)]
pub struct QueueStatus {
    pub running: AtomicBool,
    pub embedded: AtomicUsize,
    pub total: AtomicUsize,
    pub cancel: AtomicBool,
    /// The pass the counters are of: 0 while heads are embedded, 1 for whole texts.
    pub pass: AtomicUsize,
    /// Set when a sync stored chunks while the queue ran: the whole pass gives way to their
    /// heads.
    pub more: AtomicBool,
    /// Why the last run stopped before every chunk had its vector (cleared when a run starts).
    pub error: Mutex<Option<String>>,
    /// Files the agent touched, most recent last: their chunks are embedded first.
    preferred: Mutex<Vec<String>>,
    /// Bumped when `preferred` changes, so a running pass re-plans its order.
    preferred_changes: AtomicUsize,
}

impl QueueStatus {
    pub fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn set_error(&self, error: Option<String>) {
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = error;
    }

    /// Moves `files` (project-relative) to the front of the queue's order: a file the agent
    /// reads or asks about is likely to be searched next.
    pub fn prefer(&self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        let mut preferred = self.preferred.lock().unwrap_or_else(|p| p.into_inner());
        let before = preferred.clone();
        preferred.retain(|f| !files.contains(f));
        preferred.extend(files.iter().cloned());
        let excess = preferred.len().saturating_sub(PREFERRED_FILES);
        preferred.drain(..excess);
        if *preferred != before {
            self.preferred_changes.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn preferred(&self) -> (Vec<String>, usize) {
        let preferred = self.preferred.lock().unwrap_or_else(|p| p.into_inner());
        (
            preferred.clone(),
            self.preferred_changes.load(Ordering::Relaxed),
        )
    }
}

/// What one run of the queue did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct EmbedReport {
    /// Vectors written, of heads and of whole texts.
    pub embedded: usize,
    /// Of `embedded`, vectors found in the machine's embedding cache (no inference).
    #[serde(default)]
    pub from_cache: usize,
    /// Of `embedded`, vectors found in the team's cache (no inference).
    #[serde(default)]
    pub from_remote: usize,
    /// Chunks still without a vector, plus those with only their head's.
    pub remaining: usize,
    pub seconds: f64,
    /// Texts per second through the whole pipeline (read, embed, write).
    pub rate: f64,
    pub error: Option<String>,
}

/// Model batch size: texts of ~512 tokens cost ~1.5 MB of activations each at batch time.
pub fn batch_size(memory_limit_mb: u64) -> usize {
    ((memory_limit_mb / 64) as usize).clamp(4, 32)
}

/// What the queue embeds with.
pub struct Embedding<'a> {
    pub model: &'a dyn Embedder,
    /// The machine's embedding cache, asked before the model.
    pub cache: Option<&'a VectorCache>,
    /// The team's cache, asked for what the machine's lacks.
    pub remote: Option<&'a RemoteCache>,
    /// Measures chunk heads.
    pub tokens: &'a TokenCounter,
    /// Texts per model call.
    pub batch: usize,
}

/// Embeds pending chunks, heads first, until none are left, `deadline` passes or
/// `status.cancel` is set; texts found in the cache are not embedded again, and those embedded
/// are added to it.
pub fn run(
    store: &Store,
    with: &Embedding,
    deadline: Option<Instant>,
    status: &QueueStatus,
    progress: ProgressFn,
) -> IndexResult<EmbedReport> {
    let started = Instant::now();
    let mut run = Run {
        store,
        model: with.model,
        tokens: with.tokens,
        passages: CachedPassages::new(with.cache, with.model),
        remote: with.remote,
        batch: with.batch.max(1),
        deadline,
        status,
        progress,
        report: EmbedReport::default(),
        buffer: Vec::new(),
        last_commit: Instant::now(),
        remaining: 0,
        pass_done: 0,
    };
    // Heads while any chunk has no vector (a sync may add some during the whole pass), then
    // whole texts.
    let mut current = None;
    status.more.store(false, Ordering::Relaxed);
    loop {
        let counts = store.counts()?;
        let (pass, remaining) = if counts.chunks > counts.embedded {
            (Pass::Head, counts.chunks - counts.embedded)
        } else if counts.head_only > 0 {
            (Pass::Whole, counts.head_only)
        } else {
            break;
        };
        if current != Some(pass) {
            current = Some(pass);
            run.pass_done = 0;
            status
                .pass
                .store(usize::from(pass == Pass::Whole), Ordering::Relaxed);
            status.embedded.store(0, Ordering::Relaxed);
        }
        run.remaining = remaining;
        status
            .total
            .store(run.pass_done + remaining, Ordering::Relaxed);
        if !run.pass(pass)? {
            break;
        }
    }
    run.commit()?;
    let counts = store.counts()?;
    let report = &mut run.report;
    report.remaining = counts.chunks - counts.embedded + counts.head_only;
    report.seconds = started.elapsed().as_secs_f64();
    report.rate = report.embedded as f64 / report.seconds.max(1e-9);
    Ok(run.report)
}

/// One run of the queue: what it writes to, and what it has done so far.
struct Run<'a> {
    store: &'a Store,
    model: &'a dyn Embedder,
    tokens: &'a TokenCounter,
    passages: CachedPassages<'a>,
    remote: Option<&'a RemoteCache>,
    batch: usize,
    deadline: Option<Instant>,
    status: &'a QueueStatus,
    progress: ProgressFn<'a>,
    report: EmbedReport,
    buffer: Vec<NewVector>,
    last_commit: Instant,
    /// Chunks still waiting for the current pass, and those it has done.
    remaining: usize,
    pass_done: usize,
}

impl Run<'_> {
    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.status.cancel.load(Ordering::Relaxed)
    }

    /// Embeds every chunk waiting for `pass`, file group by file group in the queue's order;
    /// the whole pass gives way as soon as a chunk without any vector appears. Returns false
    /// when it stopped early (out of time, cancelled, rows that keep changing).
    fn pass(&mut self, pass: Pass) -> IndexResult<bool> {
        let mut stalls = 0;
        loop {
            if self.out_of_time() {
                return Ok(false);
            }
            let waiting = self.store.pending_files(pass)?;
            if waiting.is_empty() {
                return Ok(true);
            }
            let (preferred, plan_version) = self.status.preferred();
            let before = self.report.embedded;
            for group in file_groups(waiting, &preferred, WINDOW) {
                if self.out_of_time() {
                    return Ok(false);
                }
                // Chunks a sync stored meanwhile get their heads before more whole texts.
                if pass == Pass::Whole && self.status.more.swap(false, Ordering::Relaxed) {
                    self.commit()?;
                    return Ok(true);
                }
                let pending = self.store.pending_chunks(pass, Some(&group), WINDOW * 2)?;
                self.embed(pass, pending)?;
                if self.status.preferred_changes.load(Ordering::Relaxed) != plan_version {
                    break;
                }
            }
            self.commit()?;
            if self.report.embedded > before {
                stalls = 0;
            } else {
                // Every row read changed under us (a re-sync); re-read, but never spin.
                stalls += 1;
                if stalls > 3 {
                    self.report.error =
                        Some("pending chunks keep changing; will retry on the next sync".into());
                    return Ok(false);
                }
            }
        }
    }

    /// Embeds `pending` for `pass` (each text once, cached ones not at all) into the buffer,
    /// committing every few seconds.
    fn embed(&mut self, pass: Pass, pending: Vec<PendingChunk>) -> IndexResult<()> {
        // The text each chunk is embedded with, and whether that is only its head.
        let mut texts: Vec<(PendingChunk, String, bool)> = pending
            .into_iter()
            .map(|p| {
                let text = embedding_text(&p.file, &p.chunk_type, &p.name, &p.metadata, &p.content);
                match pass {
                    Pass::Head => {
                        let head = embedding_head(&text, self.tokens);
                        if head.len() < text.len() {
                            let head = head.to_string();
                            (p, head, true)
                        } else {
                            (p, text, false)
                        }
                    }
                    Pass::Whole => (p, text, false),
                }
            })
            .collect();
        texts.sort_by_key(|(_, t, _)| t.len());
        // Distinct texts, each with the chunks that share it.
        let mut distinct: Vec<(&str, Vec<usize>)> = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, (_, text, _)) in texts.iter().enumerate() {
            match seen.get(text.as_str()) {
                Some(&d) => distinct[d].1.push(i),
                None => {
                    seen.insert(text, distinct.len());
                    distinct.push((text, vec![i]));
                }
            }
        }
        let refs: Vec<&str> = distinct.iter().map(|(t, _)| *t).collect();
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; distinct.len()];
        let mut todo: Vec<(usize, Key)> = Vec::new();
        for (d, (key, hit)) in self.passages.lookup(&refs).into_iter().enumerate() {
            match hit {
                Some(v) => {
                    self.report.from_cache += distinct[d].1.len();
                    vectors[d] = Some(v);
                }
                None => todo.push((d, key)),
            }
        }
        let cached: Vec<usize> = (0..distinct.len())
            .filter(|&d| vectors[d].is_some())
            .collect();
        self.take(&texts, &distinct, &mut vectors, &cached);
        let todo = self.ask_team_cache(todo, &texts, &distinct, &mut vectors);
        for group in todo.chunks(self.batch) {
            // A sync stored chunks without any vector: their heads come first, and what is
            // left of this window keeps its heads' vectors until the whole pass returns to it.
            let heads_wait = pass == Pass::Whole && self.status.more.load(Ordering::Relaxed);
            if self.out_of_time() || heads_wait {
                break;
            }
            let inputs: Vec<&str> = group.iter().map(|(d, _)| refs[*d]).collect();
            let computed = self.model.embed_passages(&inputs)?;
            let keys: Vec<Key> = group.iter().map(|(_, key)| *key).collect();
            self.passages.keep(&keys, &computed);
            let ds: Vec<usize> = group.iter().map(|(d, _)| *d).collect();
            for (&d, v) in ds.iter().zip(computed) {
                vectors[d] = Some(v);
            }
            self.take(&texts, &distinct, &mut vectors, &ds);
            if self.last_commit.elapsed() >= COMMIT_EVERY {
                self.commit()?;
            }
        }
        Ok(())
    }

    /// Asks the team's cache for the distinct texts of `todo` (the machine's cache lacked them),
    /// keeps what it has in the machine's cache and the write buffer, and returns the rest.
    fn ask_team_cache(
        &mut self,
        todo: Vec<(usize, Key)>,
        texts: &[(PendingChunk, String, bool)],
        distinct: &[(&str, Vec<usize>)],
        vectors: &mut [Option<Vec<f32>>],
    ) -> Vec<(usize, Key)> {
        let Some(remote) = self.remote.filter(|_| !todo.is_empty()) else {
            return todo;
        };
        let keys: Vec<Key> = todo.iter().map(|(_, key)| *key).collect();
        let dims = self.model.dims();
        let (mut found, mut found_keys, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for ((d, key), hit) in todo.into_iter().zip(remote.fetch(&keys)) {
            match hit.filter(|v| v.len() == dims) {
                Some(vector) => {
                    self.report.from_remote += distinct[d].1.len();
                    vectors[d] = Some(vector);
                    found.push(d);
                    found_keys.push(key);
                }
                None => rest.push((d, key)),
            }
        }
        let kept: Vec<Vec<f32>> = found.iter().filter_map(|&d| vectors[d].clone()).collect();
        self.passages.keep(&found_keys, &kept);
        self.take(texts, distinct, vectors, &found);
        rest
    }

    /// Moves the vectors of the distinct texts `ds` into the write buffer, one per chunk.
    fn take(
        &mut self,
        texts: &[(PendingChunk, String, bool)],
        distinct: &[(&str, Vec<usize>)],
        vectors: &mut [Option<Vec<f32>>],
        ds: &[usize],
    ) {
        for &d in ds {
            let Some(vector) = vectors[d].take() else {
                continue;
            };
            for &i in &distinct[d].1 {
                let (chunk, _, head_only) = &texts[i];
                self.buffer.push(NewVector {
                    id: chunk.id.clone(),
                    fingerprint: chunk.fingerprint.clone(),
                    vector: vector.clone(),
                    head_only: *head_only,
                });
            }
        }
    }

    /// Writes the buffered vectors in one store commit and reports the new totals.
    fn commit(&mut self) -> IndexResult<()> {
        self.last_commit = Instant::now();
        if self.buffer.is_empty() {
            return Ok(());
        }
        let n = self.store.set_vectors(std::mem::take(&mut self.buffer))?;
        self.report.embedded += n;
        self.pass_done += n;
        self.remaining = self.remaining.saturating_sub(n);
        self.status
            .embedded
            .store(self.pass_done, Ordering::Relaxed);
        let (phase, what) = match self.status.pass.load(Ordering::Relaxed) {
            0 => ("embed heads", "chunk heads"),
            _ => ("embed", "chunks"),
        };
        (self.progress)(Progress {
            phase,
            done: self.pass_done,
            total: self.pass_done + self.remaining,
            message: format!("embedded {} {what}", self.pass_done),
        });
        Ok(())
    }
}

/// Where a file's chunks come in each pass, by the part the file plays: code first, then
/// migrations, tests, prose. The sync stores files in this order too, so that a pass walks the
/// store's data files one after another and each commit patches one or two of them.
pub(super) fn embedding_rank(file: &str) -> u8 {
    match role_of(file) {
        FileRole::Code => 0,
        FileRole::Migration => 1,
        FileRole::Test => 2,
        FileRole::Docs => 3,
        FileRole::Translations | FileRole::ReverseMigration => 4,
    }
}

/// The files waiting for a pass (with their chunk counts), in the order they are embedded, cut
/// into groups of about `window` chunks: files the agent touched (most recent first), then by
/// the part they play (code first, then migrations, tests, prose), then by path.
pub(super) fn file_groups(
    waiting: HashMap<String, usize>,
    preferred: &[String],
    window: usize,
) -> Vec<Vec<String>> {
    let mut files: Vec<(usize, u8, String, usize)> = waiting
        .into_iter()
        .map(|(file, count)| {
            let touched = preferred
                .iter()
                .rev()
                .position(|f| *f == file)
                .unwrap_or(usize::MAX);
            (touched, embedding_rank(&file), file, count)
        })
        .collect();
    files.sort();
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut in_group = 0;
    for (_, _, file, count) in files {
        if groups.is_empty() || in_group + count > window {
            groups.push(Vec::new());
            in_group = 0;
        }
        in_group += count;
        groups.last_mut().expect("pushed above").push(file);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{DIM, EmbedError, FakeEmbedder, Vector};
    use crate::store::{ChunkRecord, ModelStamp};

    /// What the queue embeds with in these tests: `model` alone, no cache of either kind.
    fn without_caches<'a>(
        model: &'a dyn Embedder,
        tokens: &'a TokenCounter,
        batch: usize,
    ) -> Embedding<'a> {
        Embedding {
            model,
            cache: None,
            remote: None,
            tokens,
            batch,
        }
    }

    /// The fake model, remembering every passage it was given, call by call; with `midway`,
    /// a sync that stores a new chunk while the first whole text containing `return total` is
    /// embedded.
    #[derive(Default)]
    struct Recorder {
        calls: Mutex<Vec<Vec<String>>>,
        midway: Option<(std::sync::Arc<Store>, std::sync::Arc<QueueStatus>)>,
        synced: AtomicBool,
    }

    impl Embedder for Recorder {
        fn model_id(&self) -> &str {
            "recorder"
        }
        fn dims(&self) -> usize {
            DIM
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
            Ok(texts.iter().map(|t| FakeEmbedder::vector(t)).collect())
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
            self.calls
                .lock()
                .unwrap()
                .push(texts.iter().map(|t| t.to_string()).collect());
            if let Some((store, status)) = &self.midway
                && texts.iter().any(|t| t.contains("return total"))
                && !self.synced.swap(true, Ordering::Relaxed)
            {
                let late = record("shop/late.py", 1, "late", "def late():\n    pass\n");
                store.append_chunks(vec![late]).unwrap();
                status.more.store(true, Ordering::Relaxed);
            }
            self.embed_queries(texts)
        }
    }

    fn record(file: &str, line: u32, name: &str, content: &str) -> ChunkRecord {
        let chunk = crate::chunk::Chunk {
            id: String::new(),
            file: file.into(),
            language: String::new(),
            kind: crate::chunk::ChunkKind::Function,
            name: name.into(),
            line_start: line as usize,
            line_end: line as usize + 1,
            content: content.into(),
            fingerprint: crate::digest::sha256_hex(content.as_bytes()),
            metadata: Default::default(),
        };
        let mut r = super::super::chunks::record(chunk, "sha");
        r.id = format!("{file}:{line}");
        r
    }

    #[test]
    fn heads_go_first_then_whole_texts_and_a_repeated_text_is_embedded_once() {
        let dir = tempfile::tempdir().unwrap();
        let uri = dir.path().join("db");
        let store = Store::open(uri.to_str().unwrap(), ModelStamp { dim: DIM }).unwrap();
        let long_body: String = (0..60)
            .map(|i| format!("    total = total + price_of(item_{i})\n"))
            .collect();
        let long = format!("def order_total(items):\n    total = 0\n{long_body}    return total\n");
        let short = "def tax(total):\n    return total * 0.1\n";
        store
            .append_chunks(vec![
                record("shop/cart.py", 1, "order_total", &long),
                record("shop/cart.py", 70, "tax", short),
                // The same chunk text again (a copied definition): one embedding for both.
                record("shop/cart.py", 75, "tax", short),
                record(
                    "tests/test_cart.py",
                    1,
                    "test_tax",
                    "def test_tax():\n    assert tax(10) == 1\n",
                ),
            ])
            .unwrap();
        let model = Recorder::default();
        let status = QueueStatus::default();
        let tokens = TokenCounter::estimate("tests");
        let with = without_caches(&model, &tokens, 8);
        let report = run(&store, &with, None, &status, &|_| {}).unwrap();

        let counts = store.counts().unwrap();
        assert_eq!(
            (counts.chunks, counts.embedded, counts.head_only),
            (4, 4, 0)
        );
        assert_eq!(report.remaining, 0, "{report:?}");
        // Four chunk heads and one whole text were written.
        assert_eq!(report.embedded, 5, "{report:?}");
        let calls = model.calls.lock().unwrap().clone();
        let texts: Vec<&String> = calls.iter().flatten().collect();
        // Three distinct heads (the copy shares its text), then the long chunk's whole text.
        assert_eq!(texts.len(), 4, "{calls:?}");
        assert!(
            texts[..3]
                .iter()
                .all(|t| tokens.count(t) <= crate::chunk::HEAD_TOKENS)
        );
        assert!(tokens.count(texts[3]) > crate::chunk::HEAD_TOKENS);
        let head_of_long = texts[..3].iter().find(|t| t.contains("order")).unwrap();
        assert!(texts[3].starts_with(head_of_long.as_str()), "{calls:?}");
        assert!(texts[3].contains("return total"), "{calls:?}");
    }

    #[test]
    fn a_chunk_stored_during_the_whole_pass_gets_its_head_first() {
        let dir = tempfile::tempdir().unwrap();
        let uri = dir.path().join("db");
        let store = std::sync::Arc::new(
            Store::open(uri.to_str().unwrap(), ModelStamp { dim: DIM }).unwrap(),
        );
        let body: String = (0..60)
            .map(|i| format!("    total += price_{i}\n"))
            .collect();
        let long = |name: &str| format!("def {name}(items):\n{body}    return total\n");
        store
            .append_chunks(vec![
                record("shop/a.py", 1, "first_total", &long("first_total")),
                record("shop/b.py", 1, "second_total", &long("second_total")),
            ])
            .unwrap();
        let status = std::sync::Arc::new(QueueStatus::default());
        let model = Recorder {
            midway: Some((store.clone(), status.clone())),
            ..Recorder::default()
        };
        let tokens = TokenCounter::estimate("tests");
        let with = without_caches(&model, &tokens, 1);
        run(&store, &with, None, &status, &|_| {}).unwrap();
        let counts = store.counts().unwrap();
        assert_eq!(
            (counts.chunks, counts.embedded, counts.head_only),
            (3, 3, 0)
        );
        // Heads of a and b, a's whole text (the sync stores late.py), late.py's head, then b's
        // whole text.
        let calls = model.calls.lock().unwrap().clone();
        let late = calls.iter().position(|c| c[0].contains("late")).unwrap();
        let second_whole = calls
            .iter()
            .position(|c| c[0].contains("second_total") && c[0].contains("return total"))
            .unwrap();
        assert!(late < second_whole, "{calls:?}");
    }

    #[test]
    fn touched_files_come_first_then_code_then_tests_and_prose() {
        let waiting: HashMap<String, usize> = [
            ("README.md", 3),
            ("tests/test_auth.py", 5),
            ("src/auth.py", 4),
            ("src/cart.py", 600),
            ("src/mail.py", 600),
        ]
        .into_iter()
        .map(|(f, n)| (f.to_string(), n))
        .collect();
        let preferred = ["src/mail.py".to_string(), "tests/test_auth.py".to_string()];
        let groups = file_groups(waiting, &preferred, 1_000);
        assert_eq!(
            groups,
            [
                vec!["tests/test_auth.py", "src/mail.py", "src/auth.py"],
                vec!["src/cart.py", "README.md"],
            ]
        );
    }

    #[test]
    fn a_file_larger_than_the_window_is_a_group_of_its_own() {
        let waiting: HashMap<String, usize> = [("a.py", 5_000), ("b.py", 1)]
            .into_iter()
            .map(|(f, n)| (f.to_string(), n))
            .collect();
        assert_eq!(
            file_groups(waiting, &[], 1_024),
            [vec!["a.py"], vec!["b.py"]]
        );
    }
}
