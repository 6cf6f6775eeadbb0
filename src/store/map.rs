//! The `map` table: agreements, i.e. natural-language terms confirmed (by a successful session)
//! to mean certain symbols in certain files, with the evidence. Small, searched first.

use super::error::Result;
use super::rows::{self, Columns};
use super::{Store, sql_in};
use arrow_array::{RecordBatch, RecordBatchIterator};
use futures::TryStreamExt;
use lancedb::DistanceType;
use lancedb::query::{ExecutableQuery, QueryBase};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Agreement {
    /// Stable id (the agreement file's name, or a hash of term + symbols).
    pub id: String,
    pub nl_term: String,
    pub symbols: Vec<String>,
    pub evidence: String,
    pub files: Vec<String>,
    /// The relevance the session measured when it confirmed the agreement.
    pub similarity: f64,
    pub session: String,
    /// The request of the session that learned it (a similar request is a strong match).
    #[serde(default)]
    pub query: String,
    /// Unix seconds.
    pub time: i64,
    #[serde(skip)]
    pub vector: Option<Vec<f32>>,
}

/// An agreement found by a map search, with the cosine similarity of its term to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementHit {
    pub agreement: Agreement,
    pub cosine: f32,
}

impl Store {
    fn map_batch(&self, items: &[Agreement]) -> Result<RecordBatch> {
        let dim = self.stamp.dim;
        if let Some(bad) = items
            .iter()
            .find(|a| a.vector.as_ref().is_some_and(|v| v.len() != dim))
        {
            return Err(layout!(
                "agreement {} has a vector of the wrong size",
                bad.id
            ));
        }
        let json = |v: &Vec<String>| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
        let symbols: Vec<String> = items.iter().map(|a| json(&a.symbols)).collect();
        let files: Vec<String> = items.iter().map(|a| json(&a.files)).collect();
        Ok(RecordBatch::try_new(
            rows::map_schema(&self.stamp),
            vec![
                rows::strings(items.iter().map(|a| a.id.as_str())),
                rows::strings(items.iter().map(|a| a.nl_term.as_str())),
                rows::strings(symbols.iter().map(String::as_str)),
                rows::strings(items.iter().map(|a| a.evidence.as_str())),
                rows::strings(files.iter().map(String::as_str)),
                rows::f64s(items.iter().map(|a| a.similarity)),
                rows::strings(items.iter().map(|a| a.session.as_str())),
                rows::strings(items.iter().map(|a| a.query.as_str())),
                rows::i64s(items.iter().map(|a| a.time)),
                rows::vectors(dim, items.iter().map(|a| a.vector.clone())),
            ],
        )?)
    }

    /// Inserts or replaces agreements by id.
    pub fn upsert_agreements(&self, items: Vec<Agreement>) -> Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let batch = self.map_batch(&items)?;
        let schema = batch.schema();
        let map = self.map.clone();
        self.run(async move {
            let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
            let mut merge = map.merge_insert(&["id"]);
            merge
                .when_matched_update_all(None)
                .when_not_matched_insert_all();
            merge.execute(Box::new(reader)).await?;
            Ok(())
        })
    }

    /// Deletes agreements by id.
    pub fn delete_agreements(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let map = self.map.clone();
        let filter = sql_in("id", ids);
        self.run(async move {
            map.delete(filter.as_str()).await?;
            Ok(())
        })
    }

    /// Every agreement (the map stays small: one row per confirmed term).
    pub fn agreements(&self) -> Result<Vec<Agreement>> {
        let map = self.map.clone();
        self.run(async move {
            let mut out = Vec::new();
            let mut stream = map.query().execute().await?;
            while let Some(batch) = stream.try_next().await? {
                out.extend(agreements_from(&batch)?);
            }
            Ok(out)
        })
    }

    /// The `k` agreements whose term is nearest to `vector`.
    pub fn search_map(&self, vector: &[f32], k: usize) -> Result<Vec<AgreementHit>> {
        let map = self.map.clone();
        let vector = vector.to_vec();
        self.run(async move {
            if map.count_rows(Some("vector IS NOT NULL".into())).await? == 0 {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            let mut stream = map
                .query()
                .nearest_to(vector)?
                .column("vector")
                .distance_type(DistanceType::Cosine)
                .only_if("vector IS NOT NULL")
                .bypass_vector_index()
                .limit(k)
                .execute()
                .await?;
            while let Some(batch) = stream.try_next().await? {
                let cols = Columns::new(&batch);
                for (i, agreement) in agreements_from(&batch)?.into_iter().enumerate() {
                    out.push(AgreementHit {
                        agreement,
                        cosine: 1.0 - cols.score("_distance", i)?,
                    });
                }
            }
            out.sort_by(|a, b| b.cosine.total_cmp(&a.cosine));
            Ok(out)
        })
    }
}

fn agreements_from(batch: &RecordBatch) -> Result<Vec<Agreement>> {
    let c = Columns::new(batch);
    let (id, term, symbols, evidence, files, sim, session, query, time) = (
        c.str("id")?,
        c.str("nl_term")?,
        c.str("symbols")?,
        c.str("evidence")?,
        c.str("files")?,
        c.f64("similarity")?,
        c.str("session")?,
        c.str("query")?,
        c.i64("time")?,
    );
    let list = |s: &str| serde_json::from_str::<Vec<String>>(s).unwrap_or_default();
    (0..batch.num_rows())
        .map(|i| {
            Ok(Agreement {
                id: id.value(i).to_string(),
                nl_term: term.value(i).to_string(),
                symbols: list(symbols.value(i)),
                evidence: evidence.value(i).to_string(),
                files: list(files.value(i)),
                similarity: sim.value(i),
                session: session.value(i).to_string(),
                query: query.value(i).to_string(),
                time: time.value(i),
                vector: if c.has("vector") {
                    c.vector("vector", i)?
                } else {
                    None
                },
            })
        })
        .collect()
}
