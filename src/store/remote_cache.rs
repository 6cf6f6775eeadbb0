//! The team's vector cache: a Lance dataset on object storage (or a shared directory) that maps
//! the key of an embedded text to its vector, with the same key as the machine's cache
//! (`embed::cache::passage_key`: model identity and the SHA-256 of the exact text). One CI job
//! fills it (`code-intel index --publish`); every developer's server reads it before computing,
//! so a team embeds each text once instead of once per person and branch switch.
//!
//! **Layout.** One table per vector size (`vectors_384`), two columns: `key` (64 hex digits)
//! and `vector`; a B-tree index on `key` so a batch of keys reads a few index pages and rows
//! instead of the table. Rows are only ever appended. Publishers that run at once may both
//! append a text neither had seen; the copies hold the same vector, and a read takes either.
//!
//! **Never in the way.** Reads are bounded ([`FETCH_TIMEOUT`] per batch, short HTTP timeouts
//! underneath, `s3.rs`), run only from the background embedding pass, never from a tool call,
//! and any failure is a miss: the text is computed as if there were no cache. After a failure
//! the cache is left alone for a while ([`Health::backoff`]), doubling up to
//! [`MAX_BACKOFF`], so an unreachable store costs one timeout per backoff, not one per batch.
//! What the store said is kept as a state for `index_status` (`ok`, `empty`, `unreachable`,
//! `denied`, `no_bucket`, `error`) with hits and misses; credentials never appear in it.

use super::error::{Result, StoreError};
use super::rows::{Columns, strings, vector_type, vectors};
use super::{StoreRuntime, block};
use crate::embed::cache::Key;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures::TryStreamExt;
use lancedb::index::Index;
use lancedb::index::scalar::BTreeIndexBuilder;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, OptimizeOptions};
use lancedb::{Connection, Table};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest wait for one batch of keys, connecting included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// First pause after a failure; doubled with each failure in a row, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(30);
const MAX_BACKOFF: Duration = Duration::from_secs(600);
/// How long an empty cache (nothing published yet) is believed before it is asked again.
const EMPTY_RECHECK: Duration = Duration::from_secs(120);
/// A new published version is seen by readers within this time.
const READ_CONSISTENCY: Duration = Duration::from_secs(60);
/// Keys per query: an `IN` list this long is still one index lookup.
const KEYS_PER_QUERY: usize = 1_024;
/// Rows per appended batch when publishing (about 12 MB of vectors).
const ROWS_PER_APPEND: usize = 8_192;

/// What the store answered last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RemoteState {
    /// Not asked yet in this process.
    Untried,
    /// Answered.
    Ok,
    /// Reachable, but nothing has been published at this URI yet.
    Empty,
    /// No answer: the network, the endpoint or a timeout.
    Unreachable,
    /// The credentials were refused (missing, wrong, expired, or not allowed to read).
    Denied,
    /// The bucket named in the URI does not exist.
    NoBucket,
    /// Anything else (what the store said is in `detail`).
    Error,
}

/// `index_status.remote_cache`.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct RemoteStatus {
    /// The cache's location, without any query string.
    pub uri: String,
    pub state: RemoteState,
    /// Texts found there, and texts asked for and not found (or not asked for while the store
    /// was failing).
    pub hits: u64,
    pub misses: u64,
    /// Why the last request failed, without credentials or the storage engine's paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Seconds until the store is asked again, after a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_in_seconds: Option<u64>,
}

impl RemoteStatus {
    /// The status of a configured location that cannot be a cache (`why`: what
    /// [`RemoteCache::new`] said of it).
    pub fn unusable(uri: &str, why: &str) -> RemoteStatus {
        RemoteStatus {
            uri: shown(uri),
            state: RemoteState::Error,
            hits: 0,
            misses: 0,
            detail: Some(why.to_string()),
            retry_in_seconds: None,
        }
    }
}

/// A location as statuses show it: without any query string.
fn shown(uri: &str) -> String {
    uri.split('?').next().unwrap_or_default().to_string()
}

/// What a publish did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PublishReport {
    /// Distinct texts offered.
    pub offered: usize,
    /// Of those, texts the cache already held.
    pub present: usize,
    /// Rows appended.
    pub added: usize,
}

impl std::ops::AddAssign for PublishReport {
    fn add_assign(&mut self, other: PublishReport) {
        self.offered += other.offered;
        self.present += other.present;
        self.added += other.added;
    }
}

struct Health {
    state: RemoteState,
    detail: Option<String>,
    /// Not asked again before this.
    retry_at: Option<Instant>,
    failures: u32,
    table: Option<Table>,
}

impl Health {
    /// The pause after `failures` failures in a row.
    fn backoff(failures: u32) -> Duration {
        FIRST_BACKOFF
            .saturating_mul(1 << failures.saturating_sub(1).min(8))
            .min(MAX_BACKOFF)
    }
}

/// A vector cache at a URI (`s3://bucket/prefix`, `file:///shared/dir` or a path).
pub struct RemoteCache {
    uri: String,
    dim: usize,
    rt: StoreRuntime,
    health: Mutex<Health>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl RemoteCache {
    /// A handle for the cache at `uri` holding vectors of `dim` floats; nothing is contacted
    /// until the first lookup. Only the URI's form is checked here.
    pub fn new(uri: &str, dim: usize) -> Result<RemoteCache> {
        let uri = uri.trim();
        match uri.split_once("://") {
            Some(("s3" | "file" | "memory", rest)) if rest.trim_matches('/').is_empty() => {
                return Err(StoreError::Layout(format!(
                    "embedding_cache_uri {uri:?} names no bucket or directory"
                )));
            }
            Some(("s3" | "file" | "memory", _)) => {}
            Some((scheme, _)) => {
                return Err(StoreError::Layout(format!(
                    "embedding_cache_uri: {scheme}:// is not supported; use s3://bucket/prefix \
                     (S3 or an S3-compatible store) or a directory path"
                )));
            }
            None if !uri.is_empty() => {}
            None => return Err(StoreError::Layout("embedding_cache_uri is empty".into())),
        }
        let uri = uri.trim_end_matches('/').to_string();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("code-intel-remote-cache")
            .enable_all()
            .build()
            .map_err(StoreError::Runtime)?;
        Ok(RemoteCache {
            uri,
            dim,
            rt: StoreRuntime(Some(rt)),
            health: Mutex::new(Health {
                state: RemoteState::Untried,
                detail: None,
                retry_at: None,
                failures: 0,
                table: None,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    pub fn status(&self) -> RemoteStatus {
        let health = self.health();
        RemoteStatus {
            state: health.state,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            detail: health.detail.clone(),
            retry_in_seconds: health
                .retry_at
                .map(|at| at.saturating_duration_since(Instant::now()).as_secs()),
            uri: shown(&self.uri),
        }
    }

    /// The vector of each key the cache holds. Never fails and never waits longer than
    /// [`FETCH_TIMEOUT`] per [`KEYS_PER_QUERY`] keys: a store that fails is a miss for every key
    /// (and is left alone for a while).
    pub fn fetch(&self, keys: &[Key]) -> Vec<Option<Vec<f32>>> {
        let mut out = vec![None; keys.len()];
        for (part, keys) in out
            .chunks_mut(KEYS_PER_QUERY)
            .zip(keys.chunks(KEYS_PER_QUERY))
        {
            let table = match self.table_for_reading() {
                Some(table) => table,
                None => {
                    self.misses.fetch_add(keys.len() as u64, Ordering::Relaxed);
                    continue;
                }
            };
            let hex: Vec<String> = keys.iter().map(|k| crate::digest::hex(k)).collect();
            let dim = self.dim;
            let asked = hex.clone();
            let found = block(
                &self.rt,
                bounded(async move { read_vectors(&table, &asked, dim).await }),
            );
            match found {
                Ok(found) => {
                    self.answered();
                    let mut hits = 0;
                    for (slot, key) in part.iter_mut().zip(&hex) {
                        *slot = found.get(key).cloned();
                        hits += u64::from(slot.is_some());
                    }
                    self.hits.fetch_add(hits, Ordering::Relaxed);
                    self.misses
                        .fetch_add(keys.len() as u64 - hits, Ordering::Relaxed);
                }
                Err(failure) => {
                    self.misses.fetch_add(keys.len() as u64, Ordering::Relaxed);
                    self.failed(failure);
                }
            }
        }
        out
    }

    /// Appends the vectors of `items` the cache lacks, creating the table on first use. Unlike
    /// [`Self::fetch`], waits as long as the store takes and fails with what it said: a publish
    /// is a job that must know whether it worked. Call [`Self::index_keys`] once at the end.
    pub fn append(&self, items: &[(Key, Vec<f32>)]) -> Result<PublishReport> {
        let mut distinct: HashMap<String, &[f32]> = HashMap::new();
        for (key, vector) in items {
            if vector.len() != self.dim {
                return Err(StoreError::Layout(format!(
                    "a {}-d vector offered to a cache of {}-d vectors",
                    vector.len(),
                    self.dim
                )));
            }
            distinct.entry(crate::digest::hex(key)).or_insert(vector);
        }
        let mut report = PublishReport {
            offered: distinct.len(),
            ..PublishReport::default()
        };
        if distinct.is_empty() {
            return Ok(report);
        }
        let table = self.writable()?;
        let mut keys: Vec<String> = distinct.keys().cloned().collect();
        keys.sort();
        let present = self.present_keys(&table, &keys)?;
        report.present = present.len();
        let missing: Vec<&String> = keys.iter().filter(|k| !present.contains(*k)).collect();
        let schema = schema(self.dim);
        for rows in missing.chunks(ROWS_PER_APPEND) {
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    strings(rows.iter().map(|k| k.as_str())),
                    vectors(self.dim, rows.iter().map(|k| Some(distinct[*k].to_vec()))),
                ],
            )?;
            let table = table.clone();
            block(&self.rt, async move {
                retrying(|| async { Ok(table.add(batch.clone()).execute().await?) }).await
            })?;
            report.added += rows.len();
        }
        self.answered();
        Ok(report)
    }

    /// Which of `keys` the cache holds, asked for in batches.
    fn present_keys(&self, table: &Table, keys: &[String]) -> Result<HashSet<String>> {
        let mut present = HashSet::new();
        for batch in keys.chunks(KEYS_PER_QUERY) {
            let (table, filter) = (table.clone(), key_filter(batch));
            present.extend(block(&self.rt, async move {
                read_keys(&table, Some(filter)).await
            })?);
        }
        Ok(present)
    }

    /// Builds the key index, or folds the rows appended since into it: without it every read
    /// scans the table.
    pub fn index_keys(&self) -> Result<()> {
        let table = self.writable()?;
        block(
            &self.rt,
            async move { retrying(|| index_keys(&table)).await },
        )
    }

    /// The table for writing (created if missing); a failure to reach it is recorded as the
    /// cache's state too.
    fn writable(&self) -> Result<Table> {
        let uri = self.uri.clone();
        let dim = self.dim;
        block(&self.rt, async move { open_or_create(&uri, dim).await })
            .inspect_err(|err| self.failed(Failure::Store(crate::error::chain(err))))
    }

    /// Every row's key, and how many rows there are (for consistency checks).
    pub fn keys(&self) -> Result<(HashSet<String>, usize)> {
        let uri = self.uri.clone();
        let dim = self.dim;
        let all = block(&self.rt, async move {
            read_keys(&open_or_create(&uri, dim).await?, None).await
        })?;
        let rows = all.len();
        Ok((all.into_iter().collect(), rows))
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The open table, opened now if needed; `None` while backing off after a failure, or
    /// when nothing has been published yet.
    fn table_for_reading(&self) -> Option<Table> {
        {
            let health = self.health();
            if health.retry_at.is_some_and(|at| Instant::now() < at) {
                return None;
            }
            if let Some(table) = &health.table {
                return Some(table.clone());
            }
        }
        let uri = self.uri.clone();
        let dim = self.dim;
        match block(&self.rt, bounded(async move { open(&uri, dim).await })) {
            Ok(Some(table)) => {
                let mut health = self.health();
                health.table = Some(table.clone());
                Some(table)
            }
            Ok(None) => {
                let mut health = self.health();
                health.state = RemoteState::Empty;
                health.detail = Some("nothing has been published at this location yet".into());
                health.retry_at = Some(Instant::now() + EMPTY_RECHECK);
                health.failures = 0;
                None
            }
            Err(failure) => {
                self.failed(failure);
                None
            }
        }
    }

    fn answered(&self) {
        let mut health = self.health();
        health.state = RemoteState::Ok;
        health.detail = None;
        health.retry_at = None;
        health.failures = 0;
    }

    fn failed(&self, failure: Failure) {
        let (state, detail) = failure.describe();
        // The store's own words go to the log; `index_status` gets the sentence.
        let said = match &failure {
            Failure::TimedOut => detail.clone(),
            Failure::Store(text) => crate::error::without_source_locations(text),
        };
        tracing::warn!(
            "team cache at {}: {} ({said}); texts are embedded here meanwhile",
            self.uri,
            serde_json::to_string(&state).unwrap_or_default()
        );
        let mut health = self.health();
        health.failures += 1;
        health.state = state;
        health.detail = Some(detail);
        health.retry_at = Some(Instant::now() + Health::backoff(health.failures));
        // A handle to a store that failed is opened again on the next try.
        health.table = None;
    }
}

/// Why a bounded request came back empty-handed.
enum Failure {
    TimedOut,
    Store(String),
}

impl Failure {
    /// The state it leaves the cache in, and a sentence for `index_status`.
    fn describe(&self) -> (RemoteState, String) {
        let text = match self {
            Failure::TimedOut => {
                return (
                    RemoteState::Unreachable,
                    format!(
                        "the store gave no answer within {} s",
                        FETCH_TIMEOUT.as_secs()
                    ),
                );
            }
            Failure::Store(text) => text,
        };
        let lower = text.to_lowercase();
        let has = |needles: &[&str]| needles.iter().any(|n| lower.contains(n));
        let state = if has(&["nosuchbucket", "bucket does not exist"]) {
            RemoteState::NoBucket
        } else if has(&[
            "accessdenied",
            "access denied",
            "invalidaccesskeyid",
            "signaturedoesnotmatch",
            "expiredtoken",
            "invalidtoken",
            "forbidden",
            "unauthorized",
            "credential",
        ]) {
            RemoteState::Denied
        } else if has(&[
            "connect",
            "timed out",
            "timeout",
            "dns",
            "error sending request",
            "connection reset",
            "broken pipe",
            "incomplete message",
            "error reading a body",
        ]) {
            RemoteState::Unreachable
        } else {
            RemoteState::Error
        };
        let detail = match state {
            RemoteState::NoBucket => "the bucket does not exist".to_string(),
            RemoteState::Denied => {
                "the store refused the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY \
                 or the provider chain)"
                    .to_string()
            }
            RemoteState::Unreachable => {
                "the store could not be reached (connection refused, reset or timed out; \
                 AWS_ENDPOINT_URL and the network)"
                    .to_string()
            }
            _ => {
                // The first line, without compiler paths; object stores put the response body
                // (XML) after it.
                let first = text.lines().next().unwrap_or_default();
                let mut short = crate::error::without_source_locations(first);
                if short.len() > 300 {
                    let cut = (0..=300)
                        .rev()
                        .find(|&i| short.is_char_boundary(i))
                        .unwrap_or(0);
                    short.truncate(cut);
                    short.push('…');
                }
                short
            }
        };
        (state, detail)
    }
}

impl From<StoreError> for Failure {
    fn from(err: StoreError) -> Self {
        Failure::Store(crate::error::chain(&err))
    }
}

impl From<lancedb::Error> for Failure {
    fn from(err: lancedb::Error) -> Self {
        Failure::from(StoreError::from(err))
    }
}

/// `fut` with [`FETCH_TIMEOUT`].
async fn bounded<T>(
    fut: impl Future<Output = std::result::Result<T, Failure>>,
) -> std::result::Result<T, Failure> {
    match tokio::time::timeout(FETCH_TIMEOUT, fut).await {
        Ok(result) => result,
        Err(_) => Err(Failure::TimedOut),
    }
}

fn table_name(dim: usize) -> String {
    format!("vectors_{dim}")
}

fn schema(dim: usize) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("vector", vector_type(dim), false),
    ]))
}

/// A connection whose tables look for new versions every `consistency` (zero: on every
/// operation, what a writer needs to see another writer's commit when it retries).
async fn connect(
    uri: &str,
    consistency: Duration,
) -> std::result::Result<Connection, lancedb::Error> {
    let session = lance::session::Session::new(64 << 20, 16 << 20, super::s3::registry());
    lancedb::connect(uri)
        .session(Arc::new(session))
        .read_consistency_interval(consistency)
        .execute()
        .await
}

/// The table, or `None` when nothing has been published yet. Listing the tables first also
/// tells a missing bucket or refused credentials from an empty cache.
async fn open(uri: &str, dim: usize) -> std::result::Result<Option<Table>, Failure> {
    let db = connect(uri, READ_CONSISTENCY).await?;
    let name = table_name(dim);
    let names = db.table_names().execute().await?;
    if !names.contains(&name) {
        return Ok(None);
    }
    Ok(Some(db.open_table(&name).execute().await?))
}

async fn open_or_create(uri: &str, dim: usize) -> Result<Table> {
    const ATTEMPTS: u64 = 10;
    let db = connect(uri, Duration::ZERO).await?;
    let name = table_name(dim);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let opened = if db.table_names().execute().await?.contains(&name) {
            db.open_table(&name).execute().await
        } else {
            match db.create_empty_table(&name, schema(dim)).execute().await {
                // Another publisher created it first.
                Err(lancedb::Error::TableAlreadyExists { .. }) => {
                    db.open_table(&name).execute().await
                }
                Ok(created) => {
                    keep_rows_of_an_earlier_creation(&db, &name, &created).await?;
                    Ok(created)
                }
                failed => failed,
            }
        };
        match opened {
            // Another publisher's creation under way: its directory shows before its first
            // version is written.
            Err(lancedb::Error::TableNotFound { .. }) if attempt < ATTEMPTS => {
                tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
            }
            opened => return Ok(opened?),
        }
    }
}

/// Two publishers that find the cache missing at the same instant both create it, and Lance
/// commits the later creation over the earlier one's versions as an empty table. The later
/// one, seeing its table start above version 1, appends back what the version before its own
/// held.
async fn keep_rows_of_an_earlier_creation(
    db: &Connection,
    name: &str,
    created: &Table,
) -> Result<()> {
    let version = created.version().await?;
    if version <= 1 {
        return Ok(());
    }
    let earlier = db.open_table(name).execute().await?;
    earlier.checkout(version - 1).await?;
    let rows: Vec<RecordBatch> = earlier.query().execute().await?.try_collect().await?;
    tracing::debug!(
        "team cache: created over version {}; appending its {} rows back",
        version - 1,
        rows.iter().map(RecordBatch::num_rows).sum::<usize>()
    );
    for batch in rows.into_iter().filter(|b| b.num_rows() > 0) {
        retrying(|| async { Ok(created.add(batch.clone()).execute().await?) }).await?;
    }
    Ok(())
}

/// `key IN (…)` for hex keys (only hex digits, so nothing to escape).
fn key_filter(keys: &[String]) -> String {
    let list: Vec<String> = keys.iter().map(|k| format!("'{k}'")).collect();
    format!("key IN ({})", list.join(", "))
}

async fn read_vectors(
    table: &Table,
    keys: &[String],
    dim: usize,
) -> std::result::Result<HashMap<String, Vec<f32>>, Failure> {
    let mut out = HashMap::new();
    let mut stream = table
        .query()
        .only_if(key_filter(keys))
        .select(Select::columns(&["key", "vector"]))
        .execute()
        .await?;
    while let Some(batch) = stream.try_next().await.map_err(StoreError::from)? {
        let c = Columns::new(&batch);
        let key = c.str("key")?;
        for i in 0..batch.num_rows() {
            if let Some(vector) = c.vector("vector", i)?.filter(|v| v.len() == dim) {
                out.insert(key.value(i).to_string(), vector);
            }
        }
    }
    Ok(out)
}

/// The keys of the rows `filter` keeps (every row without one).
async fn read_keys(table: &Table, filter: Option<String>) -> Result<Vec<String>> {
    let mut query = table.query().select(Select::columns(&["key"]));
    if let Some(filter) = filter {
        query = query.only_if(filter);
    }
    let mut out = Vec::new();
    let mut stream = query.execute().await?;
    while let Some(batch) = stream.try_next().await? {
        let column = Columns::new(&batch).str("key")?;
        out.extend((0..batch.num_rows()).map(|i| column.value(i).to_string()));
    }
    Ok(out)
}

/// Runs a commit again when another writer's commit got in first (another publisher appending
/// or building the index at the same moment): the second attempt sees the first's result, so
/// an index already built is folded instead of built twice.
async fn retrying<T, F, Fut>(op: F) -> Result<T>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    const ATTEMPTS: u32 = 6;
    let mut attempt = 0;
    loop {
        attempt += 1;
        match op().await {
            Err(err) if attempt < ATTEMPTS && err.is_commit_conflict() => {
                tracing::debug!("team cache: {err}; committing again");
                tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt))).await;
            }
            result => return result,
        }
    }
}

/// Builds the key index, or folds the rows appended since into it.
async fn index_keys(table: &Table) -> Result<()> {
    let indices = table.list_indices().await?;
    match indices.iter().find(|i| i.columns == ["key"]) {
        None => {
            table
                .create_index(&["key"], Index::BTree(BTreeIndexBuilder::default()))
                .execute()
                .await?
        }
        Some(index) => {
            table
                .optimize(OptimizeAction::Index(
                    OptimizeOptions::default().index_names(vec![index.name.clone()]),
                ))
                .await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
