//! Incremental sync of the forest (code chunks) and the map (agreements) with the workspace.
//!
//! One sync: walk the configured source directories; classify each indexable file as unchanged
//! (same size and mtime as recorded, or same SHA-256), added or modified; files recorded but gone
//! are deleted. The table itself is consulted too: chunks of files the state does not know (a
//! sync killed between commit and state write) and files whose chunk count disagrees with the
//! state are re-synced. Changes are then committed in batches, each batch one store commit that
//! replaces exactly the chunks of its files, followed by the state update. Vectors of chunks
//! whose content did not change are carried over by fingerprint; the rest are left null for the
//! embedding queue. So a sync killed at any point leaves a usable store and the next one
//! finishes the job without duplicates or orphans.

use super::SymbolIndex;
use super::agreement_file::{self, AgreementFileError, AgreementText};
use super::chunks::{self, FileKind};
use super::error::{IndexError, IndexResult};
use super::sync_state::{FileState, SyncState};
use crate::store::{Agreement, ChunkRecord, Store};
use crate::workspace::{WalkOptions, Workspace, read_source, walk_files};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A progress report: `done` of `total` units of the current `phase`.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub phase: &'static str,
    pub done: usize,
    pub total: usize,
    pub message: String,
}

/// Receives progress reports (MCP notifications, the CLI progress bar).
pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

/// A file that was not indexed, and why.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// What one forest sync did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct ForestReport {
    /// Indexed files after the sync.
    pub files: usize,
    /// Chunks in the store after the sync.
    pub chunks: usize,
    pub added: usize,
    pub modified: usize,
    pub deleted: usize,
    pub unchanged: usize,
    /// Chunks written by this sync.
    pub chunks_written: usize,
    /// Chunks whose vector was reused (content unchanged).
    pub vectors_reused: usize,
    /// Chunks still waiting for an embedding.
    pub pending_embeddings: usize,
    /// The store was built for another model or format and was rebuilt.
    pub rebuilt: bool,
    /// `max_chunks` or `max_index_size_mb` stopped the sync before every file was indexed.
    pub truncated: bool,
    /// The chunking settings or rules changed since the last sync (`chunk_strategy`,
    /// `chunk_max_tokens`, another release), so every file was chunked again.
    pub rechunked: bool,
    pub skipped: Vec<Skipped>,
    pub lexical_ms: u128,
}

/// How a walked file relates to the recorded state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Unchanged,
    Added,
    Modified,
}

struct Candidate {
    rel: String,
    abs: std::path::PathBuf,
    kind: FileKind,
    size: u64,
    mtime_ns: u64,
    change: Change,
    /// Known when the file was hashed during detection.
    hash: Option<String>,
}

/// What decides a file's chunks: the strategy and size settings, the chunker's rules, and the
/// language registry (its tags queries name the units) of this release. A change re-chunks
/// every file.
fn chunking_stamp(cfg: &crate::config::Config) -> String {
    let strategy = match cfg.chunk_strategy {
        crate::config::ChunkStrategy::Ast => "ast",
        crate::config::ChunkStrategy::Lines => "lines",
    };
    format!(
        "{strategy}/{}/rules {}/{}",
        cfg.chunk_max_tokens,
        crate::chunk::RULES_VERSION,
        *super::cache_file::TOOL_VERSION
    )
}

/// Files per store commit: bounded so a commit stays small and progress stays fine-grained.
fn batch_files(memory_limit_mb: u64) -> usize {
    ((memory_limit_mb / 8) as usize).clamp(16, 256)
}

/// The sync state to start from: the saved one, or none when `force` asks for it (with the
/// forest table emptied) or the chunks were cut under another [`chunking_stamp`]. Then every
/// file is chunked again; without `force` the table is kept, so a chunk whose content did not
/// change keeps its vector (an upgrade of the chunker does not embed the project again).
fn starting_state(
    ws: &Workspace,
    store: &Store,
    force: bool,
    report: &mut ForestReport,
) -> IndexResult<SyncState> {
    let mut state = SyncState::load(&ws.state_dir(), store.uri());
    let chunking = chunking_stamp(&ws.config);
    let rechunk = state
        .chunking
        .as_ref()
        .is_some_and(|stamp| *stamp != chunking);
    if force {
        store.clear_forest()?;
    }
    if force || rechunk {
        // Files the state does not know are chunked again and replace their rows (`reconcile`
        // finds the rows of files gone meanwhile). A sync killed half-way has saved the new
        // stamp with only the files it finished, so the next one does the rest.
        state.files.clear();
        report.rechunked = rechunk;
    }
    state.chunking = Some(chunking);
    Ok(state)
}

/// Removes the rows of deleted files, 500 files a commit, saving the state after each so it
/// never names rows the table no longer has.
fn delete_files(
    store: &Store,
    state: &mut SyncState,
    state_dir: &Path,
    deleted: &BTreeSet<String>,
) -> IndexResult<()> {
    let files: Vec<String> = deleted.iter().cloned().collect();
    for part in files.chunks(500) {
        store.replace_files(part, Vec::new())?;
        for f in part {
            state.files.remove(f);
        }
        state
            .save(state_dir)
            .map_err(IndexError::io("saving the sync state"))?;
    }
    Ok(())
}

/// Syncs the forest with the workspace. `force` re-indexes everything.
pub fn sync_forest(
    ws: &Workspace,
    symbols: &SymbolIndex,
    store: &Store,
    force: bool,
    progress: ProgressFn,
) -> IndexResult<ForestReport> {
    let started = Instant::now();
    let mut phase = crate::timing::Phases::start("sync");
    let cfg = &ws.config;
    let state_dir = ws.state_dir();
    let mut report = ForestReport {
        rebuilt: store.was_rebuilt(),
        ..ForestReport::default()
    };
    let mut state = starting_state(ws, store, force, &mut report)?;

    progress(Progress {
        phase: "scan",
        done: 0,
        total: 0,
        message: "scanning files".into(),
    });
    // The symbol index first: definitions are a search signal of their own.
    symbols.refresh(ws, ws.root())?;
    phase.done("symbol refresh");
    let mut candidates = candidates(ws, &mut report)?;
    classify(&mut candidates, &state);
    phase.done("walk + classify");
    // Reconcile with the table: it is the truth about which rows exist.
    let in_table = store.chunk_counts()?;
    phase.done("table chunk counts");
    let deleted = reconcile(&mut candidates, &mut state, &in_table);
    delete_files(store, &mut state, &state_dir, &deleted)?;
    report.deleted = deleted.len();

    // In the order the embedding passes take them (code, then migrations, tests, prose), so
    // the store's data files hold them in that order (see `store::FRAGMENT_ROWS`).
    let mut changed: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.change != Change::Unchanged)
        .collect();
    changed.sort_by_cached_key(|&c| {
        (
            super::embedding_queue::embedding_rank(&c.rel),
            c.rel.as_str(),
        )
    });
    report.unchanged = candidates.len() - changed.len();
    let total = changed.len();
    let mut writer = BatchWriter {
        ws,
        store,
        chunker: crate::chunk::Chunker::for_workspace(ws),
        chunk_total: in_table
            .iter()
            .filter(|(f, _)| !deleted.contains(*f))
            .map(|(_, n)| n)
            .sum(),
        in_table,
        store_has_vectors: store.counts()?.embedded > 0,
        state: &mut state,
        report: &mut report,
    };
    phase.done("deletes + counts");
    let mut done = 0;
    for batch in changed.chunks(batch_files(cfg.memory_limit_mb)) {
        writer.write(batch)?;
        done += batch.len();
        progress(Progress {
            phase: "index",
            done,
            total,
            message: format!("indexed {done}/{total} changed files"),
        });
    }

    phase.done("chunk + write");
    // Keyword search needs its index to exist; everything else (folding these rows into the
    // indexes, compaction, the vector index) is left to the background maintenance.
    store.ensure_text_indexes()?;
    phase.done("text indexes");
    state.last_sync = Some(now_secs());
    state
        .save(&state_dir)
        .map_err(IndexError::io("saving the sync state"))?;
    let counts = store.counts()?;
    phase.done("state + counts");
    report.files = state.files.len();
    report.chunks = counts.chunks;
    report.pending_embeddings = counts.chunks - counts.embedded + counts.head_only;
    report.lexical_ms = started.elapsed().as_millis();
    Ok(report)
}

/// The files this sync may index: walked, of a kind the forest holds, of a language the
/// configuration indexes, and not too large (those are reported as skipped).
fn candidates(ws: &Workspace, report: &mut ForestReport) -> IndexResult<Vec<Candidate>> {
    let cfg = &ws.config;
    Ok(walk_sources(ws)?
        .into_iter()
        .filter_map(|f| {
            let kind = chunks::file_kind(&f.rel, f.size)?;
            // `supported_languages`: code of other languages stays out (and leaves the index
            // when the setting narrows); documentation and configuration text has no language.
            if let FileKind::Code(lang) = kind
                && !cfg.indexes_language(lang.id)
            {
                return None;
            }
            if f.size > cfg.max_file_bytes {
                report.skipped.push(Skipped {
                    file: f.rel.clone(),
                    reason: format!("larger than max_file_bytes ({})", cfg.max_file_bytes),
                });
                return None;
            }
            Some(Candidate {
                mtime_ns: f.mtime.map_or(0, nanos),
                rel: f.rel,
                abs: f.abs,
                kind,
                size: f.size,
                change: Change::Added,
                hash: None,
            })
        })
        .collect())
}

/// Against the recorded state: size and mtime equal to the record means unchanged without
/// reading; otherwise the content's hash decides. On the lowered pool when this is the start-up
/// sync (see `background`).
fn classify(candidates: &mut [Candidate], state: &SyncState) {
    crate::background::parallel(|| {
        candidates.par_iter_mut().for_each(|c| {
            let Some(prev) = state.files.get(&c.rel) else {
                return;
            };
            if prev.size == c.size && prev.mtime_ns == c.mtime_ns {
                c.change = Change::Unchanged;
                return;
            }
            match std::fs::read(&c.abs) {
                Ok(bytes) => {
                    let hash = crate::digest::sha256_hex(&bytes);
                    c.change = if hash == prev.hash {
                        Change::Unchanged
                    } else {
                        Change::Modified
                    };
                    c.hash = Some(hash);
                }
                Err(_) => c.change = Change::Modified,
            }
        });
    });
}

/// Against the table, which is the truth about which rows exist: a file whose row count differs
/// from the state is synced again, and files the walk no longer finds (recorded, or only in the
/// table after a killed sync) are returned for deletion. Mtime-only changes are recorded, so the
/// next sync does not hash again.
fn reconcile(
    candidates: &mut [Candidate],
    state: &mut SyncState,
    in_table: &HashMap<String, usize>,
) -> BTreeSet<String> {
    for c in candidates.iter_mut() {
        if c.change != Change::Unchanged {
            continue;
        }
        let recorded = state.files.get(&c.rel).map_or(0, |s| s.chunks);
        if in_table.get(&c.rel).copied().unwrap_or(0) != recorded {
            c.change = Change::Modified;
        }
    }
    let walked: BTreeSet<&str> = candidates.iter().map(|c| c.rel.as_str()).collect();
    let mut deleted: BTreeSet<String> = state
        .files
        .keys()
        .filter(|f| !walked.contains(f.as_str()))
        .cloned()
        .collect();
    deleted.extend(
        in_table
            .keys()
            .filter(|f| !walked.contains(f.as_str()))
            .cloned(),
    );
    for c in candidates.iter().filter(|c| c.change == Change::Unchanged) {
        if let Some(entry) = state.files.get_mut(&c.rel)
            && (entry.size != c.size || entry.mtime_ns != c.mtime_ns)
        {
            entry.size = c.size;
            entry.mtime_ns = c.mtime_ns;
        }
    }
    deleted
}

/// Writes changed files a batch at a time: each batch is chunked in parallel, linked (cross-file
/// facts), committed as one store write that replaces exactly its files' chunks, and then
/// recorded in the state, so a sync killed between two batches loses nothing.
struct BatchWriter<'a> {
    ws: &'a Workspace,
    store: &'a Store,
    chunker: crate::chunk::Chunker,
    /// Rows per file in the table when the sync started.
    in_table: HashMap<String, usize>,
    /// Rows the table will hold after the batches so far (for `max_chunks`).
    chunk_total: usize,
    /// Whether vectors exist to carry over to unchanged content.
    store_has_vectors: bool,
    state: &'a mut SyncState,
    report: &'a mut ForestReport,
}

impl BatchWriter<'_> {
    fn write(&mut self, batch: &[&Candidate]) -> IndexResult<()> {
        let cfg = &self.ws.config;
        if self.report.truncated {
            for c in batch {
                self.report.skipped.push(Skipped {
                    file: c.rel.clone(),
                    reason: "index limit reached (max_chunks / max_index_size_mb)".into(),
                });
            }
            return Ok(());
        }
        let made = self.chunk(batch);
        let mut records = Vec::new();
        let mut files = Vec::new();
        let mut entries = Vec::new();
        for (c, result) in made {
            match result {
                Ok((hash, file_chunks)) => {
                    let recs: Vec<ChunkRecord> = file_chunks
                        .chunks
                        .into_iter()
                        .filter(|ch| !ch.content.trim().is_empty())
                        .map(|ch| chunks::record(ch, &hash))
                        .collect();
                    let replaced = self.in_table.get(&c.rel).copied().unwrap_or(0);
                    if self.chunk_total + recs.len() > cfg.max_chunks + replaced {
                        self.report.truncated = true;
                        self.report.skipped.push(Skipped {
                            file: c.rel.clone(),
                            reason: format!("max_chunks ({}) reached", cfg.max_chunks),
                        });
                        continue;
                    }
                    self.chunk_total = self.chunk_total + recs.len() - replaced;
                    match c.change {
                        Change::Added => self.report.added += 1,
                        _ => self.report.modified += 1,
                    }
                    entries.push((
                        c.rel.clone(),
                        FileState {
                            hash,
                            size: c.size,
                            mtime_ns: c.mtime_ns,
                            chunks: recs.len(),
                            indexed_at: now_secs(),
                        },
                    ));
                    files.push(c.rel.clone());
                    records.extend(recs);
                }
                Err(reason) => {
                    // Unreadable now: whatever it had is removed, and it is reported.
                    files.push(c.rel.clone());
                    self.report.skipped.push(Skipped {
                        file: c.rel.clone(),
                        reason,
                    });
                }
            }
        }
        if self.store_has_vectors {
            let fps: Vec<String> = records.iter().map(|r| r.fingerprint.clone()).collect();
            let known = self.store.vectors_for(&fps)?;
            for r in &mut records {
                if let Some((v, head_only)) = known.get(&r.fingerprint) {
                    r.vector = Some(v.clone());
                    r.head_only = *head_only;
                    self.report.vectors_reused += 1;
                }
            }
        }
        self.report.chunks_written += records.len();
        if files.iter().all(|f| !self.in_table.contains_key(f)) {
            self.store.append_chunks(records)?;
        } else {
            self.store.replace_files(&files, records)?;
        }
        for f in &files {
            self.state.files.remove(f);
        }
        self.state.files.extend(entries);
        self.state
            .save(&self.ws.state_dir())
            .map_err(IndexError::io("saving the sync state"))?;
        let size_limit = cfg.max_index_size_mb.saturating_mul(1024 * 1024);
        if size_limit > 0
            && self
                .store
                .local_size_bytes()
                .is_some_and(|size| size > size_limit)
        {
            self.report.truncated = true;
        }
        Ok(())
    }

    /// The batch's files chunked in parallel, then linked: cross-file facts (a Filament
    /// resource and its schema classes) among the files chunked together; a full index chunks a
    /// project's related files in the same batches.
    fn chunk<'c>(&self, batch: &[&'c Candidate]) -> Vec<(&'c Candidate, Chunked)> {
        let max_file_bytes = self.ws.config.max_file_bytes;
        let mut made: Vec<(&Candidate, Chunked)> = crate::background::parallel(|| {
            batch
                .par_iter()
                .map(|c| (*c, chunk_one(c, &self.chunker, max_file_bytes)))
                .collect()
        });
        let mut linked: Vec<crate::chunk::FileChunks> = made
            .iter_mut()
            .filter_map(|(_, r)| r.as_mut().ok().map(|(_, fc)| std::mem::take(fc)))
            .collect();
        crate::chunk::link(&mut linked);
        let mut linked = linked.into_iter();
        for (_, r) in made.iter_mut() {
            if let Ok((_, fc)) = r {
                *fc = linked.next().unwrap_or_default();
            }
        }
        made
    }
}

/// A file's hash and chunks, or why it could not be read.
type Chunked = Result<(String, crate::chunk::FileChunks), String>;

/// Texts to vectors, for the map's terms.
pub type EmbedTerms<'a> = &'a dyn Fn(&[String]) -> IndexResult<Vec<Vec<f32>>>;

/// Reads, hashes and chunks one file.
fn chunk_one(c: &Candidate, chunker: &crate::chunk::Chunker, max_bytes: u64) -> Chunked {
    let source = read_source(&c.abs, &c.rel, max_bytes).map_err(|e| e.message)?;
    let hash = crate::digest::sha256_hex(source.text.as_bytes());
    if matches!(c.kind, FileKind::Text) && chunks::looks_generated(&source.text) {
        return Ok((hash, Default::default()));
    }
    Ok((hash, chunker.chunk_text(&c.rel, &source.text)))
}

/// Every file under the configured `source_dirs` (the whole root when empty).
fn walk_sources(ws: &Workspace) -> IndexResult<Vec<crate::workspace::WalkedFile>> {
    let dirs: Vec<std::path::PathBuf> = if ws.config.source_dirs.is_empty() {
        vec![ws.root().to_path_buf()]
    } else {
        ws.config
            .source_dirs
            .iter()
            .map(|d| ws.root().join(d))
            .filter(|d| d.starts_with(ws.root()) && d.is_dir())
            .collect()
    };
    let mut out = Vec::new();
    for dir in dirs {
        out.extend(walk_files(ws, &dir, &WalkOptions::default())?);
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.dedup_by(|a, b| a.rel == b.rel);
    Ok(out)
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// What one map sync did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct MapReport {
    pub agreements: usize,
    pub upserted: usize,
    pub deleted: usize,
    /// Agreements purged by `auto_purge_days` (old, and their symbols are gone).
    pub purged: usize,
    pub skipped: Vec<Skipped>,
}

/// Syncs the map with `.code-intel/agreements/*.md` (seed 001's agreement format: front matter
/// with `nl_term`, `symbol`/`symbols`, `similarity`, `session_id`; `## 根拠`/evidence and
/// `## 関連ファイル`/files sections). `embed` turns terms into vectors when a model is ready;
/// agreements stored without one are embedded on a later sync.
///
/// Agreements older than `auto_purge_days` whose symbols are all gone from the code are purged,
/// file and row (seed 003's expiry): a fact about code that no longer exists would send the next
/// session after it. Younger ones stay even when their symbols vanished, since a rename in
/// progress should not cost the project what it learned.
pub fn sync_map(
    ws: &Workspace,
    symbols: &SymbolIndex,
    store: &Store,
    embed: Option<EmbedTerms>,
) -> IndexResult<MapReport> {
    let dir = ws.state_dir().join("agreements");
    let mut report = MapReport::default();
    let mut parsed = read_agreement_files(&dir, &mut report.skipped);
    let existing: HashMap<String, Agreement> = store
        .agreements()?
        .into_iter()
        .map(|a| (a.id.clone(), a))
        .collect();
    let purged = expired_agreements(ws, symbols, parsed.iter().chain(existing.values()))?;
    remove_agreement_files(&dir, &purged, &mut report.skipped);
    parsed.retain(|a| !purged.contains(&a.id));
    report.purged = purged.len();
    let mut upserts = changed_agreements(parsed, &existing);
    if let Some(embed) = embed {
        let need: Vec<usize> = (0..upserts.len())
            .filter(|&i| upserts[i].vector.is_none())
            .collect();
        if !need.is_empty() {
            let texts: Vec<String> = need.iter().map(|&i| upserts[i].nl_term.clone()).collect();
            for (i, v) in need.into_iter().zip(embed(&texts)?) {
                upserts[i].vector = Some(v);
            }
        }
    }
    let ids: BTreeSet<String> = upserts.iter().map(|a| a.id.clone()).collect();
    report.upserted = upserts.len();
    store.upsert_agreements(upserts)?;
    // Agreements in the table whose file is gone are removed, except ones written directly
    // (by `record_outcome`) without a file, which carry a `session:` id prefix.
    let on_disk = agreement_file_ids(&dir);
    let stale: Vec<String> = existing
        .keys()
        .filter(|id| {
            purged.contains(*id)
                || (!on_disk.contains(*id) && !ids.contains(*id) && !id.starts_with("session:"))
        })
        .cloned()
        .collect();
    report.deleted = stale.len();
    store.delete_agreements(&stale)?;
    report.agreements = store.counts()?.agreements;
    Ok(report)
}

/// The agreement files of `dir` (`*.md`), in name order.
fn agreement_paths(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

/// Every agreement file of `dir` that parses; the others are reported as skipped with why.
fn read_agreement_files(dir: &Path, skipped: &mut Vec<Skipped>) -> Vec<Agreement> {
    let mut parsed = Vec::new();
    for path in agreement_paths(dir) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| parse_agreement(&path, &text).map_err(|e| e.to_string()))
        {
            Ok(a) => parsed.push(a),
            Err(reason) => skipped.push(Skipped {
                file: name.unwrap_or_default(),
                reason,
            }),
        }
    }
    parsed
}

/// Removes the files of expired agreements; a file that cannot be removed is reported.
fn remove_agreement_files(dir: &Path, ids: &BTreeSet<String>, skipped: &mut Vec<Skipped>) {
    for id in ids {
        match std::fs::remove_file(dir.join(format!("{id}.md"))) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => skipped.push(Skipped {
                file: format!("{id}.md"),
                reason: format!("expired, but could not be removed: {e}"),
            }),
        }
    }
}

/// The parsed agreements that are new or differ from the table's, each keeping its stored
/// vector while its term is unchanged (only new terms are embedded).
fn changed_agreements(
    parsed: Vec<Agreement>,
    existing: &HashMap<String, Agreement>,
) -> Vec<Agreement> {
    let mut upserts = Vec::new();
    for mut a in parsed {
        match existing.get(&a.id) {
            Some(old) if old.nl_term == a.nl_term && old.vector.is_some() => {
                a.vector = old.vector.clone();
                if *old != a {
                    upserts.push(a);
                }
            }
            _ => upserts.push(a),
        }
    }
    upserts
}

/// The ids (file stems) of the agreement files in `dir`.
fn agreement_file_ids(dir: &Path) -> BTreeSet<String> {
    agreement_paths(dir)
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

/// Ids of the agreements older than `auto_purge_days` none of whose symbols is defined in the
/// code any more. An agreement without a recorded time or without symbols is never purged: its
/// age or its subject cannot be told.
fn expired_agreements<'a>(
    ws: &Workspace,
    symbols: &SymbolIndex,
    agreements: impl Iterator<Item = &'a Agreement>,
) -> IndexResult<BTreeSet<String>> {
    let days = ws.config.auto_purge_days.min(365_000) as i64;
    let cutoff = now_secs() - days * 86_400;
    let old: Vec<&Agreement> = agreements
        .filter(|a| a.time > 0 && a.time < cutoff && !a.symbols.is_empty())
        .collect();
    if old.is_empty() {
        return Ok(BTreeSet::new());
    }
    let (snapshot, _) = symbols.refresh(ws, ws.root())?;
    let defined: BTreeSet<&str> = snapshot
        .files
        .values()
        .flat_map(|entry| entry.symbols.symbols.iter().map(|s| s.name.as_str()))
        .collect();
    // A qualified name (`App\Cart::total`, `cart.Cart.total`) counts by its last part, as the
    // symbol index stores bare names.
    let exists = |name: &str| {
        let bare = name.rsplit([':', '.', '\\']).next().unwrap_or(name);
        defined.contains(bare)
    };
    Ok(old
        .into_iter()
        .filter(|a| !a.symbols.iter().any(|s| exists(s)))
        .map(|a| a.id.clone())
        .collect())
}

/// Why an agreement file does not make an agreement of the map.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgreementError {
    #[error("agreement file has no name")]
    NoName,
    #[error(transparent)]
    File(#[from] AgreementFileError),
    #[error("front matter lacks nl_term")]
    NoTerm,
}

/// Reads one agreement file as the map indexes it. The id is the file stem; the front matter
/// may list several symbols (`symbols: [A, B]`) and files, and date it by `created_at` (what
/// the memory writes) or `time`.
pub fn parse_agreement(path: &Path, text: &str) -> Result<Agreement, AgreementError> {
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or(AgreementError::NoName)?;
    let AgreementText {
        fields,
        evidence,
        mut files,
    } = agreement_file::read(text)?;
    let nl_term = fields
        .get("nl_term")
        .filter(|t| !t.is_empty())
        .ok_or(AgreementError::NoTerm)?
        .clone();
    let list = |v: &str| -> Vec<String> {
        v.trim_matches(['[', ']'])
            .split(',')
            .map(|s| s.trim().trim_matches(['"', '\'']).to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let mut symbols = Vec::new();
    for key in ["symbol", "symbols"] {
        if let Some(v) = fields.get(key) {
            symbols.extend(list(v));
        }
    }
    for key in ["files", "file"] {
        if let Some(v) = fields.get(key) {
            files.extend(list(v));
        }
    }
    // Unix seconds (older files) or RFC 3339 (what `record_outcome` writes).
    let time = fields
        .get("time")
        .or_else(|| fields.get("created_at"))
        .and_then(|t| {
            t.parse::<i64>().ok().or_else(|| {
                chrono::DateTime::parse_from_rfc3339(t)
                    .ok()
                    .map(|d| d.timestamp())
            })
        })
        .unwrap_or(0);
    Ok(Agreement {
        id,
        nl_term,
        symbols,
        evidence,
        files,
        similarity: fields
            .get("similarity")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0),
        session: fields
            .get("session_id")
            .or_else(|| fields.get("session"))
            .cloned()
            .unwrap_or_default(),
        query: fields.get("query").cloned().unwrap_or_default(),
        time,
        vector: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewVector, Pass};

    /// Chunks cut under other rules (an index written by an older release) are cut again, and
    /// the vectors of chunks whose content is the same are kept: only what changed is left for
    /// the model. A file deleted meanwhile leaves the table.
    #[test]
    fn other_chunking_rules_rechunk_every_file_and_keep_unchanged_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            (
                "app/cart.py",
                "class Cart:\n    def total(self):\n        return 1\n",
            ),
            ("app/user.py", "def login(name):\n    return name\n"),
            ("app/gone.py", "def gone():\n    return 0\n"),
        ];
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        let uri = ws.state_dir().join("db");
        let store =
            Store::open(uri.to_str().unwrap(), crate::store::ModelStamp { dim: 4 }).unwrap();
        let symbols = SymbolIndex::new(&ws.state_dir());
        let first = sync_forest(&ws, &symbols, &store, false, &|_| {}).unwrap();
        assert!(!first.rechunked);
        let pending = store.pending_chunks(Pass::Head, None, 100).unwrap();
        let total = pending.len();
        let vectors = pending
            .into_iter()
            .map(|p| NewVector {
                id: p.id,
                fingerprint: p.fingerprint,
                vector: vec![0.5; 4],
                head_only: false,
            })
            .collect();
        assert_eq!(store.set_vectors(vectors).unwrap(), total);

        let mut state = SyncState::load(&ws.state_dir(), store.uri());
        state.chunking = Some("ast/512".into());
        state.save(&ws.state_dir()).unwrap();
        std::fs::write(
            dir.path().join("app/user.py"),
            "def login(name):\n    return name.strip()\n",
        )
        .unwrap();
        std::fs::remove_file(dir.path().join("app/gone.py")).unwrap();
        let again = sync_forest(&ws, &symbols, &store, false, &|_| {}).unwrap();
        assert!(again.rechunked, "{again:?}");
        assert_eq!(again.files, 2, "{again:?}");
        assert_eq!(again.deleted, 1, "{again:?}");
        // `login` is the one chunk whose content changed (its file's module chunk, if any,
        // elides the body and stays the same).
        let counts = store.counts().unwrap();
        assert_eq!(counts.chunks - counts.embedded, 1, "{again:?}");
        assert_eq!(again.vectors_reused, again.chunks_written - 1, "{again:?}");
        let stamp = SyncState::load(&ws.state_dir(), store.uri()).chunking;
        assert_eq!(stamp, Some(chunking_stamp(&ws.config)));

        let steady = sync_forest(&ws, &symbols, &store, false, &|_| {}).unwrap();
        assert!(!steady.rechunked);
        assert_eq!(steady.unchanged, 2, "{steady:?}");
    }

    #[test]
    fn seed_agreements_parse() {
        let text = "---\ndoc_type: agreement\nnl_term: ログイン機能\nsymbol: AuthService\nsimilarity: 0.85\nsession_id: session_20250112_143000\n---\n\n# ログイン機能 → AuthService\n\n## 根拠 (Code Evidence)\n\nAuthService.login() がユーザー認証を処理\n\n## 関連ファイル\n\n- `src/auth/service.py`\n";
        let a = parse_agreement(Path::new("x/login.md"), text).unwrap();
        assert_eq!(a.id, "login");
        assert_eq!(a.nl_term, "ログイン機能");
        assert_eq!(a.symbols, ["AuthService"]);
        assert_eq!(a.files, ["src/auth/service.py"]);
        assert_eq!(a.evidence, "AuthService.login() がユーザー認証を処理");
        assert!((a.similarity - 0.85).abs() < 1e-9);
        assert_eq!(a.session, "session_20250112_143000");
        let many = "---\nnl_term: cart\nsymbols: [Cart, \"CartService\"]\n---\n";
        assert_eq!(
            parse_agreement(Path::new("c.md"), many).unwrap().symbols,
            ["Cart", "CartService"]
        );
        assert!(parse_agreement(Path::new("c.md"), "no front matter").is_err());
        assert!(parse_agreement(Path::new("c.md"), "---\nsymbol: X\n---\n").is_err());
    }
}
