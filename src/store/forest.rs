//! The `forest` table: code chunks, their analysed text and (once embedded) their vectors.

use super::error::{Result, StoreError};
use super::rows::{self, Columns};
use super::{ANN_MIN_ROWS, Store, sql_in};
use arrow_array::{Array, RecordBatch, RecordBatchIterator, UInt64Array};
use futures::TryStreamExt;
use lance::Dataset;
use lance::dataset::{MergeInsertBuilder, MergeInsertWriteMode, WhenMatched, WhenNotMatched};
use lance_index::scalar::FullTextSearchQuery;
use lancedb::index::Index;
use lancedb::index::scalar::{BTreeIndexBuilder, FtsIndexBuilder};
use lancedb::index::vector::IvfHnswSqIndexBuilder;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, OptimizeOptions};
use lancedb::{DistanceType, Table};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One chunk as written.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRecord {
    pub id: String,
    pub file: String,
    pub language: String,
    pub chunk_type: String,
    pub name: String,
    pub line_start: u32,
    pub line_end: u32,
    pub content: String,
    /// SHA-256 of `content`; equal fingerprints share vectors. The header the model reads with
    /// the code (path, name, facts) is left out on purpose: a renamed or re-chunked file keeps
    /// the vectors of its unchanged code, at the price of a header that may have moved on.
    pub fingerprint: String,
    pub file_sha: String,
    /// JSON object (docstring, signature, strategy fields …).
    pub metadata: String,
    /// Analysed text for the full-text index.
    pub text: String,
    pub vector: Option<Vec<f32>>,
    /// `vector` is of the chunk's head only (see [`Pass`]).
    pub head_only: bool,
}

/// One chunk as a search returns it, with the engine's raw score.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    pub id: String,
    pub file: String,
    pub language: String,
    pub chunk_type: String,
    pub name: String,
    pub line_start: u32,
    pub line_end: u32,
    pub content: String,
    pub file_sha: String,
    pub metadata: String,
    /// Cosine similarity for vector searches, BM25 for full-text searches, 0 otherwise.
    pub score: f32,
    /// Whether the chunk has its vector. Read by full-text searches, where a chunk may still be
    /// waiting for one; true for every other hit.
    pub embedded: bool,
    /// Whether its vector is of its head only (see [`Pass`]).
    pub head_only: bool,
}

/// The two background passes that give chunks their vectors: first every chunk's head (what
/// makes a new index searchable by meaning within minutes), then the whole text of the chunks
/// whose head was not all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Chunks without any vector.
    Head,
    /// Chunks whose vector is of their head only.
    Whole,
}

impl Pass {
    /// The rows that wait for this pass.
    pub(super) fn filter(self) -> &'static str {
        match self {
            Pass::Head => "vector IS NULL",
            Pass::Whole => "head_only = true",
        }
    }
}

/// A vector to store for a chunk: written only while the chunk's fingerprint is still the one
/// its text was read with.
#[derive(Debug, Clone, PartialEq)]
pub struct NewVector {
    pub id: String,
    pub fingerprint: String,
    pub vector: Vec<f32>,
    pub head_only: bool,
}

/// A chunk still waiting for its vector.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingChunk {
    pub id: String,
    pub fingerprint: String,
    pub file: String,
    pub chunk_type: String,
    pub name: String,
    pub content: String,
    pub metadata: String,
}

const HIT_COLUMNS: &[&str] = &[
    "id",
    "file",
    "language",
    "chunk_type",
    "name",
    "line_start",
    "line_end",
    "content",
    "file_sha",
    "metadata",
    "head_only",
];

/// Largest `IN (…)` list sent in one filter.
const IN_BATCH: usize = 500;

impl Store {
    pub(super) fn forest_batch(&self, records: &[ChunkRecord]) -> Result<RecordBatch> {
        let schema = rows::forest_schema(&self.stamp);
        let dim = self.stamp.dim;
        for r in records {
            if let Some(v) = &r.vector
                && v.len() != dim
            {
                return Err(layout!(
                    "chunk {} has a {}-d vector, the store holds {dim}-d",
                    r.id,
                    v.len()
                ));
            }
        }
        Ok(RecordBatch::try_new(
            schema,
            vec![
                rows::strings(records.iter().map(|r| r.id.as_str())),
                rows::strings(records.iter().map(|r| r.file.as_str())),
                rows::strings(records.iter().map(|r| r.language.as_str())),
                rows::strings(records.iter().map(|r| r.chunk_type.as_str())),
                rows::strings(records.iter().map(|r| r.name.as_str())),
                rows::u32s(records.iter().map(|r| r.line_start)),
                rows::u32s(records.iter().map(|r| r.line_end)),
                rows::strings(records.iter().map(|r| r.content.as_str())),
                rows::strings(records.iter().map(|r| r.fingerprint.as_str())),
                rows::strings(records.iter().map(|r| r.file_sha.as_str())),
                rows::strings(records.iter().map(|r| r.metadata.as_str())),
                rows::strings(records.iter().map(|r| r.text.as_str())),
                rows::vectors(dim, records.iter().map(|r| r.vector.clone())),
                rows::bools(records.iter().map(|r| r.vector.is_some() && r.head_only)),
            ],
        )?)
    }

    /// Replaces, in one commit, every chunk of the files in `files` with `records` (which must
    /// all belong to those files). A file in `files` without records ends up with no chunks.
    pub fn replace_files(&self, files: &[String], records: Vec<ChunkRecord>) -> Result<()> {
        if files.is_empty() && records.is_empty() {
            return Ok(());
        }
        if let Some(stray) = records.iter().find(|r| !files.contains(&r.file)) {
            return Err(layout!(
                "chunk {} belongs to {}, which is not being replaced",
                stray.id,
                stray.file
            ));
        }
        let batch = self.forest_batch(&records)?;
        let forest = self.forest.clone();
        let filter = sql_in("file", files);
        let schema = batch.schema();
        self.run(async move {
            let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
            let mut merge = forest.merge_insert(&["id"]);
            merge
                .when_matched_update_all(None)
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(Some(filter));
            merge.execute(Box::new(reader)).await?;
            Ok(())
        })
    }

    /// Appends chunks of files that have none in the table yet (cheaper than a merge).
    pub fn append_chunks(&self, records: Vec<ChunkRecord>) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let batch = self.forest_batch(&records)?;
        let forest = self.forest.clone();
        // A commit of a few hundred files can hold tens of thousands of chunks (generated data
        // files); cut it into files of the size compaction keeps (see `FRAGMENT_ROWS`).
        let options = lancedb::table::WriteOptions {
            lance_write_params: Some(lance::dataset::WriteParams {
                mode: lance::dataset::WriteMode::Append,
                max_rows_per_file: super::FRAGMENT_ROWS,
                ..Default::default()
            }),
        };
        self.run(async move {
            forest.add(batch).write_options(options).execute().await?;
            Ok(())
        })
    }

    /// Chunk count per file, read from the table itself (the truth after a crash).
    pub fn chunk_counts(&self) -> Result<HashMap<String, usize>> {
        self.file_counts(None)
    }

    /// Every chunk id (for consistency checks: ids are unique when nothing is duplicated).
    pub fn chunk_ids(&self) -> Result<Vec<String>> {
        let forest = self.forest.clone();
        self.run(async move {
            let mut out = Vec::new();
            let mut stream = forest
                .query()
                .select(Select::columns(&["id"]))
                .execute()
                .await?;
            while let Some(batch) = stream.try_next().await? {
                let ids = Columns::new(&batch).str("id")?;
                out.extend((0..batch.num_rows()).map(|i| ids.value(i).to_string()));
            }
            Ok(out)
        })
    }

    /// Vectors already computed for any of `fingerprints` (so unchanged chunks of a modified or
    /// renamed file are not embedded again), each with whether it is of the head only; a
    /// whole text's vector is preferred where both exist.
    pub fn vectors_for(
        &self,
        fingerprints: &[String],
    ) -> Result<HashMap<String, (Vec<f32>, bool)>> {
        let mut unique: Vec<String> = fingerprints.to_vec();
        unique.sort();
        unique.dedup();
        let forest = self.forest.clone();
        self.run(async move {
            let mut out: HashMap<String, (Vec<f32>, bool)> = HashMap::new();
            for part in unique.chunks(IN_BATCH) {
                let filter = format!("{} AND vector IS NOT NULL", sql_in("fingerprint", part));
                let mut stream = forest
                    .query()
                    .only_if(filter)
                    .select(Select::columns(&["fingerprint", "vector", "head_only"]))
                    .execute()
                    .await?;
                while let Some(batch) = stream.try_next().await? {
                    let cols = Columns::new(&batch);
                    let fps = cols.str("fingerprint")?;
                    let heads = cols.bool("head_only")?;
                    for i in 0..batch.num_rows() {
                        if let Some(v) = cols.vector("vector", i)? {
                            let head_only = heads.value(i);
                            let known = out.entry(fps.value(i).to_string());
                            match known {
                                Entry::Occupied(mut e) => {
                                    if e.get().1 && !head_only {
                                        e.insert((v, false));
                                    }
                                }
                                Entry::Vacant(e) => {
                                    e.insert((v, head_only));
                                }
                            }
                        }
                    }
                }
            }
            Ok(out)
        })
    }

    /// How many chunks of each file wait for `pass`.
    pub fn pending_files(&self, pass: Pass) -> Result<HashMap<String, usize>> {
        self.file_counts(Some(pass.filter()))
    }

    /// Chunk count per file, of the rows `filter` keeps (all without one).
    fn file_counts(&self, filter: Option<&str>) -> Result<HashMap<String, usize>> {
        let forest = self.forest.clone();
        let filter = filter.map(str::to_string);
        self.run(async move {
            let mut out: HashMap<String, usize> = HashMap::new();
            let mut query = forest.query().select(Select::columns(&["file"]));
            if let Some(filter) = filter {
                query = query.only_if(filter);
            }
            let mut stream = query.execute().await?;
            while let Some(batch) = stream.try_next().await? {
                let files = Columns::new(&batch).str("file")?;
                for i in 0..batch.num_rows() {
                    *out.entry(files.value(i).to_string()).or_default() += 1;
                }
            }
            Ok(out)
        })
    }

    /// Up to `limit` chunks waiting for `pass`, of `files` only when given (read through the
    /// `file` index).
    pub fn pending_chunks(
        &self,
        pass: Pass,
        files: Option<&[String]>,
        limit: usize,
    ) -> Result<Vec<PendingChunk>> {
        let filter = match files {
            Some([]) => return Ok(Vec::new()),
            Some(files) => format!("{} AND {}", sql_in("file", files), pass.filter()),
            None => pass.filter().to_string(),
        };
        self.read_chunks(filter, Some(limit))
    }

    /// Every chunk of `files`, embedded or not, with what its embedding text is made of (what
    /// a publish to the team's cache reads).
    pub fn chunks_of(&self, files: &[String]) -> Result<Vec<PendingChunk>> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        self.read_chunks(sql_in("file", files), None)
    }

    fn read_chunks(&self, filter: String, limit: Option<usize>) -> Result<Vec<PendingChunk>> {
        let forest = self.forest.clone();
        self.run(async move {
            let mut out = Vec::new();
            let mut query = forest.query().only_if(filter).select(Select::columns(&[
                "id",
                "fingerprint",
                "file",
                "chunk_type",
                "name",
                "content",
                "metadata",
            ]));
            if let Some(limit) = limit {
                query = query.limit(limit);
            }
            let mut stream = query.execute().await?;
            while let Some(batch) = stream.try_next().await? {
                let c = Columns::new(&batch);
                let (id, fp, file, ty, name, content, meta) = (
                    c.str("id")?,
                    c.str("fingerprint")?,
                    c.str("file")?,
                    c.str("chunk_type")?,
                    c.str("name")?,
                    c.str("content")?,
                    c.str("metadata")?,
                );
                for i in 0..batch.num_rows() {
                    out.push(PendingChunk {
                        id: id.value(i).to_string(),
                        fingerprint: fp.value(i).to_string(),
                        file: file.value(i).to_string(),
                        chunk_type: ty.value(i).to_string(),
                        name: name.value(i).to_string(),
                        content: content.value(i).to_string(),
                        metadata: meta.value(i).to_string(),
                    });
                }
            }
            Ok(out)
        })
    }

    /// Stores vectors for chunks by `(id, fingerprint)`. A chunk whose fingerprint changed in the
    /// meantime (its file was re-synced) keeps its state: the stale vector is dropped.
    /// Returns how many chunks took their vector.
    ///
    /// Only the `vector` column is written when that is cheap (see [`vector_write_mode`]): the
    /// rows then keep their place, so the full-text and `file` indexes still cover them and a
    /// search right after an embedding run does not fall back to reading rows flat.
    pub fn set_vectors(&self, items: Vec<NewVector>) -> Result<usize> {
        if items.is_empty() {
            return Ok(0);
        }
        let dim = self.stamp.dim;
        if let Some(bad) = items.iter().find(|n| n.vector.len() != dim) {
            return Err(layout!(
                "chunk {} has a {}-d vector, the store holds {dim}-d",
                bad.id,
                bad.vector.len()
            ));
        }
        let schema = rows::forest_vector_schema(&self.stamp);
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                rows::strings(items.iter().map(|n| n.id.as_str())),
                rows::strings(items.iter().map(|n| n.fingerprint.as_str())),
                rows::vectors(dim, items.iter().map(|n| Some(n.vector.clone()))),
                rows::bools(items.iter().map(|n| n.head_only)),
            ],
        )?;
        let ids: Vec<String> = items.into_iter().map(|n| n.id).collect();
        let forest = self.forest.clone();
        self.run(async move {
            let handle = forest
                .dataset()
                .ok_or_else(|| layout!("the forest is not a local Lance table"))?;
            let dataset = handle.get().await?;
            let Some(mode) = vector_write_mode(&dataset, &ids).await? else {
                return Ok(0);
            };
            let mut merge = MergeInsertBuilder::try_new(dataset.clone(), vec!["id".to_string()])?;
            merge
                .when_matched(WhenMatched::update_if(
                    &dataset,
                    "target.fingerprint = source.fingerprint",
                )?)
                .when_not_matched(WhenNotMatched::DoNothing)
                .write_mode(mode);
            let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
            let (updated, stats) = merge.try_build()?.execute_reader(reader).await?;
            // The table handle reads through this wrapper: hand it the version just committed.
            handle.update(Arc::unwrap_or_clone(updated));
            Ok::<_, StoreError>(stats.num_updated_rows as usize)
        })
    }

    /// The `k` chunks nearest to `vector` (cosine). `exact` bypasses the ANN index (used to
    /// measure its recall). Scores are cosine similarities.
    pub fn vector_search(&self, vector: &[f32], k: usize, exact: bool) -> Result<Vec<ChunkHit>> {
        if vector.len() != self.stamp.dim {
            return Err(layout!(
                "query vector is {}-d, the store holds {}-d",
                vector.len(),
                self.stamp.dim
            ));
        }
        let forest = self.forest.clone();
        let vector = vector.to_vec();
        self.run(async move {
            let mut query = forest
                .query()
                .nearest_to(vector)?
                .column("vector")
                .distance_type(DistanceType::Cosine)
                .only_if("vector IS NOT NULL")
                .select(Select::columns(HIT_COLUMNS))
                .limit(k);
            if exact {
                query = query.bypass_vector_index();
            } else {
                query = query.nprobes(ANN_NPROBES)?.ef(ANN_EF);
            }
            let mut out = Vec::new();
            let mut stream = query.execute().await?;
            while let Some(batch) = stream.try_next().await? {
                let cols = Columns::new(&batch);
                let mut hits = hits_from(&batch)?;
                for (i, hit) in hits.iter_mut().enumerate() {
                    hit.score = 1.0 - cols.score("_distance", i)?;
                }
                out.extend(hits);
            }
            out.sort_by(|a, b| b.score.total_cmp(&a.score));
            Ok(out)
        })
    }

    /// The `k` best BM25 matches of analysed query text (terms joined by spaces).
    pub fn text_search(&self, terms: &str, k: usize) -> Result<Vec<ChunkHit>> {
        if terms.trim().is_empty() {
            return Ok(Vec::new());
        }
        let forest = self.forest.clone();
        let query = FullTextSearchQuery::new(terms.to_string());
        self.run(async move {
            let has_fts = forest
                .list_indices()
                .await?
                .iter()
                .any(|i| i.columns == ["text"]);
            if !has_fts {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            // The hit columns, and whether each chunk has its vector yet: the ranking gives a
            // chunk still waiting for one its keyword rank in place of the dense rank it lacks.
            let mut columns: Vec<(String, String)> = HIT_COLUMNS
                .iter()
                .map(|c| (c.to_string(), c.to_string()))
                .collect();
            columns.push(("embedded".into(), "vector IS NOT NULL".into()));
            let mut stream = forest
                .query()
                .full_text_search(query)
                .select(Select::Dynamic(columns))
                .limit(k)
                .execute()
                .await?;
            while let Some(batch) = stream.try_next().await? {
                let cols = Columns::new(&batch);
                let embedded = cols.bool("embedded")?;
                let mut hits = hits_from(&batch)?;
                for (i, hit) in hits.iter_mut().enumerate() {
                    hit.score = cols.score("_score", i)?;
                    hit.embedded = embedded.is_valid(i) && embedded.value(i);
                }
                out.extend(hits);
            }
            out.sort_by(|a, b| b.score.total_cmp(&a.score));
            Ok(out)
        })
    }

    /// Every chunk of the given files (used to place symbol and path matches on chunks).
    pub fn chunks_of_files(&self, files: &[String]) -> Result<Vec<ChunkHit>> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let forest = self.forest.clone();
        let files = files.to_vec();
        self.run(async move {
            let mut out = Vec::new();
            for part in files.chunks(IN_BATCH) {
                let mut stream = forest
                    .query()
                    .only_if(sql_in("file", part))
                    .select(Select::columns(HIT_COLUMNS))
                    .execute()
                    .await?;
                while let Some(batch) = stream.try_next().await? {
                    out.extend(hits_from(&batch)?);
                }
            }
            Ok(out)
        })
    }
}

/// ANN search parameters: the recall test in `store::tests` checks them against brute force.
const ANN_NPROBES: usize = 20;
const ANN_EF: usize = 100;

fn hits_from(batch: &RecordBatch) -> Result<Vec<ChunkHit>> {
    let c = Columns::new(batch);
    let (id, file, lang, ty, name, ls, le, content, sha, meta) = (
        c.str("id")?,
        c.str("file")?,
        c.str("language")?,
        c.str("chunk_type")?,
        c.str("name")?,
        c.u32("line_start")?,
        c.u32("line_end")?,
        c.str("content")?,
        c.str("file_sha")?,
        c.str("metadata")?,
    );
    let heads = c.bool("head_only")?;
    Ok((0..batch.num_rows())
        .map(|i| ChunkHit {
            id: id.value(i).to_string(),
            file: file.value(i).to_string(),
            language: lang.value(i).to_string(),
            chunk_type: ty.value(i).to_string(),
            name: name.value(i).to_string(),
            line_start: ls.value(i),
            line_end: le.value(i),
            content: content.value(i).to_string(),
            file_sha: sha.value(i).to_string(),
            metadata: meta.value(i).to_string(),
            score: 0.0,
            embedded: true,
            head_only: heads.value(i),
        })
        .collect())
}

/// The full-text index analyses our pre-analysed text only lightly: split on whitespace,
/// lowercase, English stemming and stop words (so "orders" finds "order").
fn fts_params() -> FtsIndexBuilder {
    FtsIndexBuilder::default()
        .base_tokenizer("whitespace".to_string())
        .lower_case(true)
        .stem(true)
        .remove_stop_words(true)
        .ascii_folding(true)
        .max_token_length(Some(40))
        .with_position(false)
}

/// Creates the full-text and `file` indexes when missing (the full-text search needs its index
/// to exist; rows added since are searched flat). Cheap when both exist.
pub(super) async fn ensure_text_indexes(forest: &Table) -> Result<bool> {
    if forest.count_rows(None).await? == 0 {
        return Ok(false);
    }
    let indices = forest.list_indices().await?;
    let has = |column: &str| indices.iter().any(|i| i.columns == [column]);
    let mut created = false;
    if !has("text") {
        forest
            .create_index(&["text"], Index::FTS(fts_params()))
            .execute()
            .await?;
        created = true;
    }
    if !has("file") {
        forest
            .create_index(&["file"], Index::BTree(BTreeIndexBuilder::default()))
            .execute()
            .await?;
        created = true;
    }
    Ok(created)
}

/// Folds unindexed rows into the full-text and `file` indexes once they add up: until then they
/// are searched flat, which gets slow in the thousands (re-embedded rows count when their vector
/// write moved them, see [`vector_write_mode`]). Returns whether it folded.
pub(super) async fn fold_text_indexes(forest: &Table) -> Result<bool> {
    let rows = forest.count_rows(None).await?;
    let mut names = Vec::new();
    for index in forest.list_indices().await? {
        if (index.columns == ["text"] || index.columns == ["file"])
            && worth_folding(unindexed(forest, &index.name).await?, rows)
        {
            names.push(index.name);
        }
    }
    if names.is_empty() {
        return Ok(false);
    }
    forest
        .optimize(OptimizeAction::Index(
            OptimizeOptions::default().index_names(names),
        ))
        .await?;
    Ok(true)
}

/// Builds the ANN index once enough rows have vectors, or folds new vectors into it once they
/// add up (until then they are searched by brute force). The slowest step: seconds to minutes
/// on a large forest. Returns whether an index exists afterwards.
pub(super) async fn maintain_vector_index(forest: &Table) -> Result<bool> {
    let embedded = forest
        .count_rows(Some("vector IS NOT NULL".to_string()))
        .await?;
    let existing = forest
        .list_indices()
        .await?
        .into_iter()
        .find(|i| i.columns == ["vector"]);
    match existing {
        None if embedded >= ANN_MIN_ROWS => {
            forest
                .create_index(
                    &["vector"],
                    Index::IvfHnswSq(
                        IvfHnswSqIndexBuilder::default().distance_type(DistanceType::Cosine),
                    ),
                )
                .execute()
                .await?;
            Ok(true)
        }
        None => Ok(false),
        Some(index) => {
            if worth_folding(unindexed(forest, &index.name).await?, embedded) {
                forest
                    .optimize(OptimizeAction::Index(
                        OptimizeOptions::default().index_names(vec![index.name]),
                    ))
                    .await?;
            }
            Ok(true)
        }
    }
}

/// Unindexed rows are worth an index fold past a thousand or a tenth of the indexed ones.
fn worth_folding(unindexed: usize, rows: usize) -> bool {
    unindexed > 1_000 || unindexed * 10 > rows
}

async fn unindexed(table: &Table, index: &str) -> Result<usize> {
    Ok(table
        .index_stats(index)
        .await?
        .map_or(0, |s| s.num_unindexed_rows))
}

/// How a vector write reaches disk. Patching the `vector` column keeps every row where it is
/// (indexes stay valid), but writes the column for *every* row of each fragment it touches;
/// rewriting rows writes only the matched rows, but moves them out of the full-text index until
/// the next fold. Patch unless the touched fragments are much larger than the write (a re-embed
/// of a compacted table after a model change), where patching would rewrite the whole vector
/// column on every commit.
async fn vector_write_mode(
    dataset: &Dataset,
    ids: &[String],
) -> Result<Option<MergeInsertWriteMode>> {
    let mut touched = HashSet::new();
    for part in ids.chunks(IN_BATCH) {
        let mut scan = dataset.scan();
        scan.filter(&sql_in("id", part))?
            .project(&["id"])?
            .with_row_address();
        let mut stream = scan.try_into_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            let addresses = batch
                .column_by_name("_rowaddr")
                .and_then(|c| c.as_any().downcast_ref::<UInt64Array>())
                .ok_or_else(|| layout!("row addresses missing from a scan"))?;
            touched.extend(addresses.values().iter().map(|a| a >> 32));
        }
    }
    if touched.is_empty() {
        // Every chunk was replaced or removed meanwhile: nothing to write.
        return Ok(None);
    }
    let touched_rows: usize = dataset
        .fragments()
        .iter()
        .filter(|f| touched.contains(&f.id))
        // A fragment of unknown size is taken as a huge one.
        .map(|f| f.physical_rows.unwrap_or(usize::MAX))
        .fold(0, usize::saturating_add);
    let patch = touched_rows <= PATCH_ROWS_PER_WRITTEN * ids.len() + PATCH_SLACK_ROWS;
    tracing::debug!(
        "{} vectors into {} files of {touched_rows} rows: {}",
        ids.len(),
        touched.len(),
        if patch { "patching" } else { "moving rows" }
    );
    Ok(Some(if patch {
        MergeInsertWriteMode::RewriteColumns
    } else {
        MergeInsertWriteMode::RewriteRows
    }))
}

/// A vector is about a third of a row's bytes, so patching the column stays cheaper than moving
/// rows while fragments hold no more than about three rows per row written; and moved rows
/// cost a full-text fold besides (seconds and hundreds of MB on a large forest). The slack lets
/// a write that spans two compacted fragments ([`super::FRAGMENT_ROWS`]) always be patched.
const PATCH_ROWS_PER_WRITTEN: usize = 4;
const PATCH_SLACK_ROWS: usize = 2 * super::FRAGMENT_ROWS;
