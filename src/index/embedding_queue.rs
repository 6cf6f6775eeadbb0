//! The embedding queue: chunks stored without a vector are embedded in the background, after
//! the lexical index is already usable.
//!
//! The queue is the table itself (`vector IS NULL`), so there is nothing to lose in a crash: a
//! restarted process simply continues. Rows are read in windows, sorted by length so each model
//! batch holds texts of similar length (padding is wasted work), embedded in batches and written
//! back every few seconds. A write only lands if the chunk's fingerprint is still the one that
//! was embedded (see `Store::set_vectors`), so a re-sync racing the queue never gets stale
//! vectors.
//!
//! Before a text goes to the model, the machine's embedding cache is asked for it
//! (`embed::cache`): a chunk whose exact text this machine has embedded before, in any checkout,
//! gets that vector without inference, and every vector computed here is added to it.

use super::chunks::embedding_text;
use super::error::IndexResult;
use super::sync::{Progress, ProgressFn};
use crate::embed::Embedder;
use crate::embed::cache::{CachedPassages, Key, VectorCache};
use crate::store::Store;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Rows read from the table per window (then sorted by length).
const WINDOW: usize = 1_024;
/// Results are committed at least this often.
const COMMIT_EVERY: Duration = Duration::from_secs(5);

/// Live counters of a running queue (read by `index_status` and progress reporting).
#[derive(Debug, Default)]
pub struct QueueStatus {
    pub running: AtomicBool,
    pub embedded: AtomicUsize,
    pub total: AtomicUsize,
    pub cancel: AtomicBool,
    /// Why the last run stopped before every chunk had its vector (cleared when a run starts).
    pub error: std::sync::Mutex<Option<String>>,
}

impl QueueStatus {
    pub fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn set_error(&self, error: Option<String>) {
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = error;
    }
}

/// What one run of the queue did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct EmbedReport {
    pub embedded: usize,
    /// Of `embedded`, vectors found in the machine's embedding cache (no inference).
    #[serde(default)]
    pub from_cache: usize,
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

/// Embeds pending chunks until none are left, `deadline` passes or `status.cancel` is set;
/// texts found in `cache` are not embedded again, and those embedded are added to it.
pub fn run(
    store: &Store,
    model: &dyn Embedder,
    cache: Option<&VectorCache>,
    batch: usize,
    deadline: Option<Instant>,
    status: &QueueStatus,
    progress: ProgressFn,
) -> IndexResult<EmbedReport> {
    let started = Instant::now();
    let passages = CachedPassages::new(cache, model);
    let counts = store.counts()?;
    let mut remaining = counts.chunks - counts.embedded;
    status.total.store(remaining, Ordering::Relaxed);
    status.embedded.store(0, Ordering::Relaxed);
    let mut report = EmbedReport::default();
    let mut buffer: Vec<(String, String, Vec<f32>)> = Vec::new();
    let mut last_commit = Instant::now();
    let mut stalls = 0;
    let out_of_time =
        || deadline.is_some_and(|d| Instant::now() >= d) || status.cancel.load(Ordering::Relaxed);
    // Writes the buffered vectors in one store commit and reports the new totals.
    let commit = |buffer: &mut Vec<(String, String, Vec<f32>)>,
                  report: &mut EmbedReport,
                  remaining: &mut usize|
     -> IndexResult<usize> {
        let n = store.set_vectors(std::mem::take(buffer))?;
        report.embedded += n;
        *remaining = remaining.saturating_sub(n);
        status.embedded.store(report.embedded, Ordering::Relaxed);
        progress(Progress {
            phase: "embed",
            done: report.embedded,
            total: report.embedded + *remaining,
            message: format!("embedded {} chunks", report.embedded),
        });
        Ok(n)
    };

    'outer: while !out_of_time() {
        let read = Instant::now();
        let mut pending = store.pending_chunks(WINDOW)?;
        tracing::debug!(
            "embedding queue: read {} pending chunks in {} ms",
            pending.len(),
            read.elapsed().as_millis()
        );
        if pending.is_empty() {
            break;
        }
        let mut texts: Vec<(usize, String)> = pending
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    i,
                    embedding_text(&p.file, &p.chunk_type, &p.name, &p.metadata, &p.content),
                )
            })
            .collect();
        texts.sort_by_key(|(_, t)| t.len());
        let mut made_progress = false;
        let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
        let mut todo: Vec<(usize, &str, Key)> = Vec::new();
        for ((i, text), (key, hit)) in texts.iter().zip(passages.lookup(&refs)) {
            match hit {
                Some(v) => {
                    let p = &mut pending[*i];
                    buffer.push((std::mem::take(&mut p.id), p.fingerprint.clone(), v));
                    report.from_cache += 1;
                }
                None => todo.push((*i, text, key)),
            }
        }
        for group in todo.chunks(batch.max(1)) {
            if out_of_time() {
                break 'outer;
            }
            let inputs: Vec<&str> = group.iter().map(|(_, t, _)| *t).collect();
            let vectors = model.embed_passages(&inputs)?;
            let keys: Vec<Key> = group.iter().map(|(_, _, key)| *key).collect();
            passages.keep(&keys, &vectors);
            for ((i, _, _), v) in group.iter().zip(vectors) {
                let p = &mut pending[*i];
                buffer.push((std::mem::take(&mut p.id), p.fingerprint.clone(), v));
            }
            if last_commit.elapsed() >= COMMIT_EVERY {
                made_progress |= commit(&mut buffer, &mut report, &mut remaining)? > 0;
                last_commit = Instant::now();
            }
        }
        let n = commit(&mut buffer, &mut report, &mut remaining)?;
        last_commit = Instant::now();
        if made_progress || n > 0 {
            stalls = 0;
        } else {
            // Every row of the window changed under us (a re-sync); re-read, but never spin.
            stalls += 1;
            if stalls > 3 {
                report.error =
                    Some("pending chunks keep changing; will retry on the next sync".into());
                break;
            }
        }
    }
    commit(&mut buffer, &mut report, &mut remaining)?;
    let counts = store.counts()?;
    report.remaining = counts.chunks - counts.embedded;
    report.seconds = started.elapsed().as_secs_f64();
    report.rate = report.embedded as f64 / report.seconds.max(1e-9);
    Ok(report)
}
