//! Helpers for the chunker's tests: chunk a text or a fixture file, render chunks one per line.
//!
//! Structural tests use the labelled character estimate so their expectations do not depend on
//! whether the model is provisioned; the tokenizer itself is tested in `tokens`.

use super::{Chunk, ChunkKind, ChunkOptions, Chunker, FileChunks, TokenCounter};
use std::path::PathBuf;

pub(crate) fn chunker() -> Chunker {
    Chunker::new(ChunkOptions::default(), TokenCounter::estimate("tests"))
}

pub(crate) fn chunk(file: &str, text: &str) -> FileChunks {
    chunker().chunk_text(file, text)
}

pub(crate) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Chunks `fixtures/<project>/<rel>` with `rel` as the file path.
pub(crate) fn fixture(project: &str, rel: &str) -> FileChunks {
    let text = std::fs::read_to_string(fixtures().join(project).join(rel))
        .unwrap_or_else(|err| panic!("fixture {project}/{rel}: {err}"));
    chunk(rel, &text)
}

/// `type name @start-end`, one per chunk.
pub(crate) fn outline(chunks: &[Chunk]) -> Vec<String> {
    chunks
        .iter()
        .map(|c| {
            format!(
                "{} {} @{}-{}",
                c.kind.as_str(),
                c.name,
                c.line_start,
                c.line_end
            )
        })
        .collect()
}

/// The one chunk of a kind and name (panics with the outline when absent).
pub(crate) fn find<'a>(chunks: &'a [Chunk], kind: ChunkKind, name: &str) -> &'a Chunk {
    chunks
        .iter()
        .find(|c| c.kind == kind && c.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no {} {name} in:\n{}",
                kind.as_str(),
                outline(chunks).join("\n")
            )
        })
}

/// A metadata field as JSON.
pub(crate) fn field<'a>(chunk: &'a Chunk, key: &str) -> &'a serde_json::Value {
    chunk.metadata.fields.get(key).unwrap_or_else(|| {
        panic!(
            "{} {} has no {key}: {:?}",
            chunk.kind.as_str(),
            chunk.name,
            chunk.metadata
        )
    })
}

/// A metadata field that is a list of strings.
pub(crate) fn strings(chunk: &Chunk, key: &str) -> Vec<String> {
    field(chunk, key)
        .as_array()
        .unwrap_or_else(|| panic!("{key} is not a list"))
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string())
        })
        .collect()
}
