//! Chunking throughput next to parsing alone, on the same files in the same run (issue 4's
//! benchmark: the chunker should cost at most 1.5× a bare tree-sitter parse). Files are read
//! into memory first so neither side pays for I/O, and both passes run on one thread so the
//! figures do not depend on what else the machine is doing with its other cores.

use super::Chunker;
use crate::workspace::{WalkOptions, Workspace, read_source, walk_files};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub files: usize,
    pub bytes: u64,
    pub chunks: usize,
    /// Files of registry languages (the ones parsed in the first pass).
    pub parsed_files: usize,
    pub parse_secs: f64,
    pub chunk_secs: f64,
    /// CPU time of the measuring thread in each pass (Linux), which other processes on a
    /// shared machine do not inflate; `None` where unavailable.
    pub parse_cpu_secs: Option<f64>,
    pub chunk_cpu_secs: Option<f64>,
    /// `chunk / parse`, on CPU time when available, else wall time.
    pub ratio: f64,
    pub tokenizer: String,
}

impl BenchReport {
    pub fn describe(&self) -> String {
        let mb = self.bytes as f64 / 1_048_576.0;
        format!(
            "{} files, {:.1} MB ({} parsed by a grammar)\n\
             parse only: {:.2} s  ({:.2} MB/s, {:.0} files/s)\n\
             chunking:   {:.2} s  ({:.2} MB/s, {:.0} files/s, {} chunks)\n\
             cpu: parse {} s, chunking {} s\n\
             ratio: {:.2}x parsing alone (target <= 1.5x)\n\
             tokens: {}",
            self.files,
            mb,
            self.parsed_files,
            self.parse_secs,
            mb / self.parse_secs.max(1e-9),
            self.files as f64 / self.parse_secs.max(1e-9),
            self.chunk_secs,
            mb / self.chunk_secs.max(1e-9),
            self.files as f64 / self.chunk_secs.max(1e-9),
            self.chunks,
            self.parse_cpu_secs
                .map_or("?".into(), |s| format!("{s:.2}")),
            self.chunk_cpu_secs
                .map_or("?".into(), |s| format!("{s:.2}")),
            self.ratio,
            self.tokenizer,
        )
    }
}

/// Reads every walked file under `base`, then times a parse-only pass and a chunking pass.
pub fn run(chunker: &Chunker, ws: &Workspace, base: &Path) -> Result<BenchReport, String> {
    let walked = walk_files(ws, base, &WalkOptions::default())?;
    let files: Vec<(String, String)> = walked
        .iter()
        .filter_map(|f| {
            read_source(&f.abs, &f.rel, ws.config.max_file_bytes)
                .ok()
                .map(|s| (f.rel.clone(), s.text))
        })
        .collect();
    let bytes = files.iter().map(|(_, t)| t.len() as u64).sum();

    let cpu = thread_cpu_secs();
    let started = Instant::now();
    let mut parsed_files = 0;
    for (rel, text) in &files {
        if let Some(lang) = crate::lang::detect(rel) {
            let parsed = crate::syntax::parse(lang, text);
            parsed_files += usize::from(parsed.tree.is_some());
        }
    }
    let parse_secs = started.elapsed().as_secs_f64();
    let parse_cpu_secs = cpu.zip(thread_cpu_secs()).map(|(a, b)| b - a);

    let cpu = thread_cpu_secs();
    let started = Instant::now();
    let mut chunks = 0;
    for (rel, text) in &files {
        chunks += chunker.chunk_text(rel, text).chunks.len();
    }
    let chunk_secs = started.elapsed().as_secs_f64();
    let chunk_cpu_secs = cpu.zip(thread_cpu_secs()).map(|(a, b)| b - a);
    let ratio = match (parse_cpu_secs, chunk_cpu_secs) {
        (Some(p), Some(c)) if p > 0.0 => c / p,
        _ => chunk_secs / parse_secs.max(1e-9),
    };

    Ok(BenchReport {
        files: files.len(),
        bytes,
        chunks,
        parsed_files,
        parse_secs,
        chunk_secs,
        parse_cpu_secs,
        chunk_cpu_secs,
        ratio,
        tokenizer: chunker.tokens().describe(),
    })
}

/// User + system CPU seconds of the calling thread, from `/proc/thread-self/stat` (clock ticks
/// of 1/100 s: fine for passes of seconds).
fn thread_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
