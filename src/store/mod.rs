//! The vector + full-text store: LanceDB tables `forest` (code chunks) and `map` (learned
//! agreements), per project. The only module that uses lancedb or arrow.
//!
//! **Location.** A URI (default `<root>/.code-intel/lancedb`), so the store can later live on
//! object storage; nothing here assumes a local path except the size check.
//!
//! **Stamp.** Each table's schema metadata carries [`FORMAT_VERSION`] and the vector dimension;
//! opening a table stamped differently drops and recreates it (a layout change is not
//! migrated). The id of the model the stored vectors came from is recorded too
//! ([`Store::adopt_model`]): when another model shows up, the vectors are cleared and
//! re-embedded, while chunks and the full-text index stay.
//!
//! **Consistency.** Every write is one LanceDB commit (a new table version): readers see the old
//! or the new version, never a half. Replacing a file's chunks is a single `merge_insert` that
//! deletes the file's old rows and inserts the new ones, so a killed writer leaves either all
//! old or all new chunks of that file. Handles are opened with a zero read-consistency interval:
//! every query sees the latest commit, also one made by another process.
//!
//! **Indexes.** Full-text (BM25) over the pre-analysed `text` column (see
//! [`crate::lexical`]); a B-tree on `file`; an IVF_HNSW_SQ vector index only once the
//! table holds enough vectors that brute force gets slow ([`ANN_MIN_ROWS`]). Rows written after
//! an index was built are searched flat until folded in. Each write makes a table version and
//! usually a small file, so [`Store::maintain`] folds new rows into the indexes, compacts small
//! files and prunes old versions — in steps, each one commit, so it can be stopped between them
//! and a kill at any point leaves the last committed version. Lance resolves maintenance commits
//! against concurrent writes (a losing compaction is simply retried later), so maintenance needs
//! no lock; the caller decides when to run it (see `index::maintenance`).
//!
//! lancedb is async; the rest of the program is not. The store owns a small tokio runtime and
//! exposes blocking methods. Maintenance runs on a second, single-threaded runtime so a long
//! index build never occupies the workers searches and writes run on.

/// A [`StoreError::Layout`] with a formatted message.
macro_rules! layout {
    ($($arg:tt)*) => {
        $crate::store::StoreError::Layout(format!($($arg)*))
    };
}

mod error;
mod forest;
mod map;
mod remote_cache;
mod rows;
mod s3;

pub use forest::{ChunkHit, ChunkRecord, NewVector, Pass, PendingChunk};
pub use map::{Agreement, AgreementHit};
pub use remote_cache::{PublishReport, RemoteCache, RemoteState, RemoteStatus};

pub use error::StoreError;

use arrow_schema::SchemaRef;
use error::Result;
use lancedb::{Connection, Table};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Process-wide settings of the storage engine; call first thing in `main`, before any thread
/// starts. Lance runs compute-heavy work (vector index builds, full-text search) on one shared
/// pool, by default a single thread on a 2-core machine: a background index build holding it
/// would make a search wait for the whole build. A few more threads let searches through.
pub fn configure_process() {
    const VAR: &str = "LANCE_CPU_THREADS";
    if std::env::var_os(VAR).is_none() {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        // SAFETY: called at the start of `main`, before any other thread exists.
        unsafe { std::env::set_var(VAR, (cpus + 2).to_string()) };
    }
}

/// Starts Lance's CPU pool, every thread of it, from the calling thread (`main`, before any
/// thread is lowered). Its threads live as long as the process and serve every caller, but a
/// thread is started by whichever caller finds none idle, and it inherits that caller's
/// priority: started by background maintenance, a thread would stay lowered and a search
/// waiting on it would starve on a busy machine (`crate::background`).
pub fn start_pools() {
    let threads = lance_core::utils::tokio::get_num_compute_intensive_cpus();
    for _ in 0..threads {
        // Each task holds its thread a moment, so that the next one finds none idle and
        // starts another. The pool starts the thread here, at the call; the result is not
        // awaited.
        drop(lance_core::utils::tokio::spawn_cpu(|| {
            std::thread::sleep(Duration::from_millis(20));
            Ok::<(), std::io::Error>(())
        }));
    }
}

/// Lance's caches per store. Its defaults (6 GiB of index cache, 1 GiB of metadata cache) are
/// sized for a server that owns the machine, and a long embedding run commits a version every
/// few seconds, each with its manifest and fragment metadata to cache. Bounded, the resident
/// size of a 100 s embedding run (stand-in model slowed to 250 texts/s, 3.5k files) grew by
/// 108 MiB instead of 140 MiB. The indexes a search reads on a large project's forest
/// (IVF_HNSW_SQ, full text) take tens of MiB.
const INDEX_CACHE_BYTES: usize = 512 << 20;
const METADATA_CACHE_BYTES: usize = 64 << 20;

/// Bumped whenever the table layout or the meaning of a column changes (2: `head_only`).
pub const FORMAT_VERSION: u32 = 2;

/// Below this many embedded rows brute-force search is fast enough (and exact).
pub const ANN_MIN_ROWS: usize = 8_192;

const FOREST: &str = "forest";
const MAP: &str = "map";
const META_FORMAT: &str = "code_intel.format";
const META_DIM: &str = "code_intel.dim";
const META_VECTOR_MODEL: &str = "code_intel.vector_model";

/// The shape of the store's vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStamp {
    pub dim: usize,
}

/// Row counts, for `index_status` and sync reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct StoreCounts {
    pub chunks: usize,
    /// Chunks with a vector, of their whole text or of their head.
    pub embedded: usize,
    /// Of `embedded`, chunks whose vector is still of their head only.
    pub head_only: usize,
    pub agreements: usize,
}

/// Data files, versions and rows the full-text index does not cover yet (`None`: no index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLayout {
    pub fragments: usize,
    pub versions: usize,
    pub unindexed_text_rows: Option<usize>,
}

/// How much [`Store::maintain`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceScope {
    /// Only the full-text and `file` indexes (cheap; keeps keyword search fast during long
    /// embedding runs).
    TextIndexes,
    /// Everything: text indexes, compaction and version pruning, the vector index.
    All,
}

/// What [`Store::maintain`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct MaintenanceReport {
    /// Text indexes created or folded.
    pub text_indexes: bool,
    pub compacted: bool,
    /// A vector index exists afterwards.
    pub vector_index: bool,
    /// Every step of the scope ran (false: stopped early, or a step failed).
    pub finished: bool,
    pub millis: u128,
}

pub struct Store {
    rt: Arc<StoreRuntime>,
    /// Maintenance only (see the module doc).
    maintenance_rt: Arc<StoreRuntime>,
    uri: String,
    stamp: ModelStamp,
    forest: Table,
    map: Table,
    /// Handles of their own for maintenance: a handle serialises some operations (an index
    /// build on it would hold up searches through the same handle for its whole duration).
    maintenance_tables: (Table, Table),
    /// Tables dropped at open because their stamp differed (reported once by the caller).
    rebuilt: bool,
    /// Lance's caches (index and metadata) behind every table of this store.
    session: Arc<lance::session::Session>,
}

impl Store {
    /// Opens (creating as needed) the store at `uri` for vectors of `stamp`.
    pub fn open(uri: &str, stamp: ModelStamp) -> Result<Store> {
        // The runtimes' threads are started at normal priority even when the start-up sync
        // opens the store: tool calls search on them (`background::unlowered`). Maintenance's
        // own threads lower themselves.
        let (rt, maintenance_rt) = crate::background::unlowered(|| {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("code-intel-store")
                .enable_all()
                .build()?;
            let maintenance_rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("code-intel-store-maintenance")
                .on_thread_start(crate::background::lower_this_thread)
                .enable_all()
                .build()?;
            Ok((rt, maintenance_rt))
        })
        .and_then(|built| built)
        .map_err(StoreError::Runtime)?;
        let rt = Arc::new(StoreRuntime(Some(rt)));
        let maintenance_rt = Arc::new(StoreRuntime(Some(maintenance_rt)));
        let uri_owned = uri.to_string();
        let stamp_owned = stamp.clone();
        let (forest, map, maintenance_tables, rebuilt, session) = block(&rt, async move {
            let session = Arc::new(lance::session::Session::new(
                INDEX_CACHE_BYTES,
                METADATA_CACHE_BYTES,
                Default::default(),
            ));
            let db = lancedb::connect(&uri_owned)
                .session(session.clone())
                .read_consistency_interval(Duration::ZERO)
                .execute()
                .await
                .map_err(|source| StoreError::Open {
                    uri: uri_owned.clone(),
                    source,
                })?;
            let (forest, a) =
                open_stamped(&db, FOREST, rows::forest_schema(&stamp_owned), &stamp_owned).await?;
            let (map, b) =
                open_stamped(&db, MAP, rows::map_schema(&stamp_owned), &stamp_owned).await?;
            let maintenance_tables = (
                db.open_table(FOREST).execute().await?,
                db.open_table(MAP).execute().await?,
            );
            Ok::<_, StoreError>((forest, map, maintenance_tables, a || b, session))
        })?;
        Ok(Store {
            rt,
            maintenance_rt,
            uri: uri.to_string(),
            stamp,
            forest,
            map,
            maintenance_tables,
            rebuilt,
            session,
        })
    }

    pub fn uri(&self) -> &str {
        &self.uri
    }

    pub fn stamp(&self) -> &ModelStamp {
        &self.stamp
    }

    /// Whether opening dropped tables stamped with another format or model.
    pub fn was_rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// Runs a store future to completion from synchronous code (also from a thread that is
    /// itself inside another tokio runtime, such as the MCP server's blocking pool).
    fn run<T: Send + 'static>(&self, fut: impl Future<Output = T> + Send + 'static) -> T {
        block(&self.rt, fut)
    }

    pub fn counts(&self) -> Result<StoreCounts> {
        let (forest, map) = (self.forest.clone(), self.map.clone());
        self.run(async move {
            Ok(StoreCounts {
                chunks: forest.count_rows(None).await?,
                embedded: forest
                    .count_rows(Some("vector IS NOT NULL".to_string()))
                    .await?,
                head_only: forest
                    .count_rows(Some(Pass::Whole.filter().to_string()))
                    .await?,
                agreements: map.count_rows(None).await?,
            })
        })
    }

    /// On-disk size in bytes when the store is a local directory; `None` for remote URIs.
    pub fn local_size_bytes(&self) -> Option<u64> {
        let path = std::path::Path::new(&self.uri);
        if self.uri.contains("://") || !path.exists() {
            return None;
        }
        Some(walk_size(path))
    }

    /// Removes every chunk (a forced full re-index).
    pub fn clear_forest(&self) -> Result<()> {
        let forest = self.forest.clone();
        self.run(async move {
            forest.delete("true").await?;
            Ok(())
        })
    }

    /// Creates the full-text and `file` indexes if missing (a sync calls this: keyword search
    /// needs the index to exist). Returns whether it created one.
    pub fn ensure_text_indexes(&self) -> Result<bool> {
        let forest = self.forest.clone();
        self.run(async move { forest::ensure_text_indexes(&forest).await })
    }

    /// Runs the maintenance steps of `scope` in order of what searches gain most — text
    /// indexes, then compaction and pruning of versions older than `keep_versions_for`, then
    /// the vector index — checking `stop` before each. Safe to run while others read and write.
    pub fn maintain(
        &self,
        keep_versions_for: Duration,
        scope: MaintenanceScope,
        stop: &dyn Fn() -> bool,
    ) -> Result<MaintenanceReport> {
        let started = std::time::Instant::now();
        let mut report = MaintenanceReport::default();
        let (forest, map) = self.maintenance_tables.clone();
        let step = |name: &str, fut: MaintenanceFuture| -> Result<bool> {
            let t = std::time::Instant::now();
            let done = block(&self.maintenance_rt, fut);
            tracing::debug!(
                "store maintenance {name}: {} ms ({done:?}); Lance's caches hold {} MB in {} items",
                t.elapsed().as_millis(),
                self.session.size_bytes() >> 20,
                self.session.approx_num_items()
            );
            done
        };
        let f = forest.clone();
        report.text_indexes = step(
            "text indexes",
            Box::pin(async move {
                let created = forest::ensure_text_indexes(&f).await?;
                Ok(forest::fold_text_indexes(&f).await? || created)
            }),
        )?;
        if scope == MaintenanceScope::TextIndexes {
            report.finished = true;
            report.millis = started.elapsed().as_millis();
            return Ok(report);
        }
        if stop() {
            report.millis = started.elapsed().as_millis();
            return Ok(report);
        }
        let f = forest.clone();
        report.compacted = step(
            "compaction",
            Box::pin(async move {
                let a = compact_if_needed(&f, keep_versions_for).await?;
                let b = compact_if_needed(&map, keep_versions_for).await?;
                Ok(a || b)
            }),
        )?;
        if stop() {
            report.millis = started.elapsed().as_millis();
            return Ok(report);
        }
        report.vector_index = step(
            "vector index",
            Box::pin(async move { forest::maintain_vector_index(&forest).await }),
        )?;
        report.finished = true;
        report.millis = started.elapsed().as_millis();
        Ok(report)
    }

    /// The forest's physical state: what maintenance acts on.
    pub fn forest_layout(&self) -> Result<TableLayout> {
        let forest = self.forest.clone();
        self.run(async move {
            let stats = forest.stats().await?;
            let mut unindexed_text_rows = None;
            for index in forest.list_indices().await? {
                if index.columns == ["text"] {
                    unindexed_text_rows = Some(
                        forest
                            .index_stats(&index.name)
                            .await?
                            .map_or(0, |s| s.num_unindexed_rows),
                    );
                }
            }
            Ok(TableLayout {
                fragments: stats.fragment_stats.num_fragments,
                versions: forest.list_versions().await?.len(),
                unindexed_text_rows,
            })
        })
    }

    /// Opens the index files a search reads (full-text, `file`, vectors) so the first search
    /// after start does not pay for it. Best effort.
    pub fn warm(&self) {
        let started = std::time::Instant::now();
        let _ = self.text_search("warm", 1);
        let mut probe = vec![0.0; self.stamp.dim];
        probe[0] = 1.0;
        let _ = self.vector_search(&probe, 1, false);
        let _ = self.chunks_of_files(&["".to_string()]);
        tracing::debug!("store warmed in {} ms", started.elapsed().as_millis());
    }

    /// The model the stored vectors came from, if any was recorded.
    pub fn vector_model(&self) -> Result<Option<String>> {
        let forest = self.forest.clone();
        self.run(async move {
            Ok(forest
                .schema()
                .await?
                .metadata()
                .get(META_VECTOR_MODEL)
                .cloned())
        })
    }

    /// Records that vectors now come from `model_id`. If vectors of another model are stored,
    /// they are cleared first (chunks stay; the embedding queue re-embeds them). Returns
    /// whether vectors were cleared.
    pub fn adopt_model(&self, model_id: &str) -> Result<bool> {
        let current = self.vector_model()?;
        if current.as_deref() == Some(model_id) {
            return Ok(false);
        }
        let (forest, map) = (self.forest.clone(), self.map.clone());
        let id = model_id.to_string();
        let cleared = current.is_some();
        self.run(async move {
            for table in [&forest, &map] {
                if cleared {
                    table
                        .update()
                        .only_if("vector IS NOT NULL")
                        .column("vector", "NULL")
                        .execute()
                        .await?;
                }
                // `replace_schema_metadata` replaces the whole map: keep the layout stamp.
                let mut meta = table.schema().await?.metadata().clone();
                meta.insert(META_VECTOR_MODEL.to_string(), id.clone());
                table
                    .as_native()
                    .ok_or_else(|| layout!("the store is not a local LanceDB table"))?
                    .replace_schema_metadata(meta)
                    .await?;
            }
            Ok::<_, StoreError>(())
        })?;
        Ok(cleared)
    }

    /// The indexes present on the forest table, by column.
    pub fn forest_indexes(&self) -> Result<HashMap<String, String>> {
        let forest = self.forest.clone();
        self.run(async move {
            let mut out = HashMap::new();
            for index in forest.list_indices().await? {
                out.insert(index.columns.join(","), index.index_type.to_string());
            }
            Ok(out)
        })
    }
}

/// Every add or delete makes a table version and usually a small file. Past
/// [`MAX_SMALL_FRAGMENTS`] files under half of [`FRAGMENT_ROWS`], or a tenth of the rows
/// deleted (but still on disk), compacts the files into files of [`FRAGMENT_ROWS`]; past
/// [`MAX_VERSIONS`] versions, prunes those older than `keep` (readers on an older snapshot keep
/// working that long). Returns whether it compacted.
pub(super) async fn compact_if_needed(table: &Table, keep: Duration) -> Result<bool> {
    let stats = table.stats().await?;
    let deleted = stats.num_deleted_rows.unwrap_or(0);
    let small = match table.dataset() {
        Some(handle) => handle
            .get()
            .await?
            .fragments()
            .iter()
            .filter(|f| f.physical_rows.is_some_and(|rows| rows < FRAGMENT_ROWS / 2))
            .count(),
        None => stats.fragment_stats.num_fragments,
    };
    let compact = small > MAX_SMALL_FRAGMENTS || (deleted > 0 && deleted * 10 >= stats.num_rows);
    if compact {
        // Said before it starts: the kill tests aim at this moment (tests/semantic/kill_resume.rs).
        tracing::debug!(
            "compacting {} files of {}",
            stats.fragment_stats.num_fragments,
            table.name()
        );
        table
            .optimize(lancedb::table::OptimizeAction::Compact {
                options: lance::dataset::optimize::CompactionOptions {
                    target_rows_per_fragment: FRAGMENT_ROWS,
                    ..Default::default()
                },
                remap_options: None,
            })
            .await?;
    }
    if compact || table.list_versions().await?.len() > MAX_VERSIONS {
        table
            .optimize(lancedb::table::OptimizeAction::Prune {
                older_than: Some(
                    lancedb::table::Duration::from_std(keep)
                        .unwrap_or(lancedb::table::Duration::minutes(10)),
                ),
                delete_unverified: Some(false),
                error_if_tagged_old_versions: Some(false),
            })
            .await?;
    }
    Ok(compact)
}

type MaintenanceFuture = std::pin::Pin<Box<dyn Future<Output = Result<bool>> + Send>>;

/// Small data files tolerated before [`compact_if_needed`] compacts.
const MAX_SMALL_FRAGMENTS: usize = 8;
/// Rows per data file after compaction (Lance's default is a million). Writing vectors patches
/// the `vector` column of each file it touches, whole (`forest::vector_write_mode`): with files
/// this size an embedding commit of a thousand vectors rewrites a few MB in place, where one
/// file of the whole forest would make it move the rows instead, out of the full-text index,
/// whose catch-up folds then cost seconds of CPU and hundreds of MB each.
pub(super) const FRAGMENT_ROWS: usize = 8_192;
/// Table versions tolerated before [`compact_if_needed`] prunes.
const MAX_VERSIONS: usize = 20;

/// Opens `name`, or creates it empty; recreates it when its stamp differs from `stamp`.
async fn open_stamped(
    db: &Connection,
    name: &str,
    schema: SchemaRef,
    stamp: &ModelStamp,
) -> Result<(Table, bool)> {
    let names = db.table_names().execute().await?;
    if names.iter().any(|n| n == name) {
        let table = db.open_table(name).execute().await?;
        let existing = table.schema().await?;
        let meta = existing.metadata();
        let matches = meta.get(META_FORMAT) == Some(&FORMAT_VERSION.to_string())
            && meta.get(META_DIM) == Some(&stamp.dim.to_string());
        if matches {
            return Ok((table, false));
        }
        tracing::info!(
            "store table {name} was built with another format ({:?}); rebuilding",
            meta
        );
        db.drop_table(name, &[]).await?;
        let table = db.create_empty_table(name, schema).execute().await?;
        return Ok((table, true));
    }
    let table = db.create_empty_table(name, schema).execute().await?;
    Ok((table, false))
}

fn stamp_metadata(stamp: &ModelStamp) -> HashMap<String, String> {
    HashMap::from([
        (META_FORMAT.to_string(), FORMAT_VERSION.to_string()),
        (META_DIM.to_string(), stamp.dim.to_string()),
    ])
}

/// The store's own runtime. LanceDB is async; the store is used from synchronous code on any
/// thread, including the MCP server's. A tokio runtime may not be dropped inside another one's
/// async context (the server drops its context there at shutdown), so it is shut down in the
/// background instead of waited for: every write has completed by then.
struct StoreRuntime(Option<tokio::runtime::Runtime>);

impl std::ops::Deref for StoreRuntime {
    type Target = tokio::runtime::Runtime;
    fn deref(&self) -> &tokio::runtime::Runtime {
        self.0.as_ref().expect("the runtime lives until drop")
    }
}

impl Drop for StoreRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

fn block<T: Send + 'static>(
    rt: &tokio::runtime::Runtime,
    fut: impl Future<Output = T> + Send + 'static,
) -> T {
    if tokio::runtime::Handle::try_current().is_ok() {
        // Inside another runtime's context `block_on` would panic: wait on a plain thread.
        let handle = rt.spawn(fut);
        std::thread::scope(|scope| {
            scope
                .spawn(|| rt.block_on(handle))
                .join()
                .expect("store thread panicked")
        })
        .expect("store task panicked")
    } else {
        rt.block_on(fut)
    }
}

fn walk_size(path: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => walk_size(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}

/// An SQL string literal.
fn sql_str(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// `column IN ('a', 'b', …)`.
fn sql_in(column: &str, values: &[String]) -> String {
    let list: Vec<String> = values.iter().map(|v| sql_str(v)).collect();
    format!("{column} IN ({})", list.join(", "))
}

#[cfg(test)]
mod tests;
