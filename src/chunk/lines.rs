//! The fallback: windows of lines, for files no strategy understands (README, YAML, SQL …) and
//! for generated or minified files, which are capped instead of flooding the index.

use super::split::Emitter;
use super::unit::Unit;
use super::{Chunk, ChunkKind, Source};

/// A line longer than this marks a file as generated/minified.
const GENERATED_LINE_BYTES: usize = 5_000;

/// Generated or minified files get one capped chunk of at most this many bytes.
const GENERATED_CAP_BYTES: usize = 1_500;

/// Whether the file looks machine-written: minified (a very long line) or marked generated in
/// its first lines.
pub fn is_generated(text: &str) -> bool {
    let head: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    if head.contains("@generated") || head.contains("DO NOT EDIT") {
        return true;
    }
    text.split('\n')
        .any(|line| line.len() > GENERATED_LINE_BYTES)
}

/// Line windows of at most the token budget, split at line boundaries.
pub(crate) fn chunk(source: &Source, emitter: &Emitter) -> Vec<Chunk> {
    let mut root = Unit::new(ChunkKind::Lines, "", 0..source.text.len()).key("lines");
    root.header = String::new();
    emitter.emit(&root, language_of(source.file))
}

/// One capped chunk for a generated file, flagged so nobody mistakes it for the whole file.
pub(crate) fn generated(source: &Source, emitter: &Emitter) -> Vec<Chunk> {
    // About two characters per token for minified code keeps the one chunk within budget.
    let mut end = source
        .text
        .len()
        .min(GENERATED_CAP_BYTES)
        .min(emitter.budget() * 2);
    while !source.text.is_char_boundary(end) {
        end -= 1;
    }
    let mut unit = Unit::new(ChunkKind::Lines, "", 0..end).key("generated");
    unit.meta.set("generated", true);
    unit.meta.set("truncated", end < source.text.len());
    unit.meta.set("bytes", source.text.len());
    let language =
        crate::lang::detect(source.file).map_or_else(|| language_of(source.file), |l| l.id);
    emitter.emit(&unit, language)
}

/// A language label for files outside the registry: the extension, or `text`.
pub fn language_of(file: &str) -> &str {
    let name = file.rsplit('/').next().unwrap_or(file);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() && ext.len() <= 10 => ext,
        _ => "text",
    }
}
