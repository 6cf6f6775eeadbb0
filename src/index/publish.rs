//! Publishing the project's vectors to the team's cache (`code-intel index --publish`, what a
//! CI job runs on the default branch after indexing).
//!
//! Every text the background pass embeds for a chunk is published: its head (what the first
//! pass embeds) and its whole text, so a developer's server that reads the cache skips both
//! passes. Vectors come from the machine's cache, which the indexing run has just filled; a text
//! it lacks (the cache is off, or evicted it) is embedded here. Only what the team's cache lacks
//! is appended, a few files at a time, and the key index is brought up to date at the end.

use super::chunks::embedding_text;
use super::embedding_queue::{Embedding, WINDOW, file_groups};
use super::error::IndexResult;
use super::sync::{Progress, ProgressFn};
use crate::chunk::embedding_head;
use crate::embed::cache::{CachedPassages, Key};
use crate::store::{PublishReport, RemoteCache, Store};

/// Offers every chunk's embedding texts to `remote`, computing the vectors the machine's cache
/// lacks; returns what was offered, already there and added.
pub fn publish(
    store: &Store,
    with: &Embedding,
    remote: &RemoteCache,
    progress: ProgressFn,
) -> IndexResult<PublishReport> {
    let passages = CachedPassages::new(with.cache, with.model);
    let files = store.chunk_counts()?;
    let total: usize = files.values().sum();
    let mut report = PublishReport::default();
    let mut done = 0;
    for group in file_groups(files, &[], WINDOW) {
        let chunks = store.chunks_of(&group)?;
        done += chunks.len();
        // Each chunk's whole text and, when shorter, its head; each distinct text once.
        let mut texts: Vec<String> = Vec::new();
        for c in &chunks {
            let text = embedding_text(&c.file, &c.chunk_type, &c.name, &c.metadata, &c.content);
            let head = embedding_head(&text, with.tokens);
            if head.len() < text.len() {
                texts.push(head.to_string());
            }
            texts.push(text);
        }
        texts.sort();
        texts.dedup();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut found = passages.lookup(&refs);
        passages.compute_missing(&refs, &mut found, with.batch)?;
        let items: Vec<(Key, Vec<f32>)> = found
            .into_iter()
            .filter_map(|(key, vector)| Some((key, vector?)))
            .collect();
        report += remote.append(&items)?;
        progress(Progress {
            phase: "publish",
            done,
            total,
            message: format!("{} texts offered, {} added", report.offered, report.added),
        });
    }
    remote.index_keys()?;
    Ok(report)
}
