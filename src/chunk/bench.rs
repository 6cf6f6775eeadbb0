//! Chunking throughput next to parsing alone, on the same files in the same run (issue 4's
//! benchmark: the chunker should cost at most 1.5× a bare tree-sitter parse of the same files).
//! Files are read into memory first so neither side pays for I/O, and every pass runs on one
//! thread so the figures do not depend on what else the machine does with its other cores.

use super::Chunker;
use crate::lang::Parsing;
use crate::workspace::{WalkError, WalkOptions, Workspace, read_source, walk_files};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub files: usize,
    pub bytes: u64,
    pub chunks: usize,
    /// Files a grammar parses: the parse pass and the compared chunking pass run on these.
    pub parsed_files: usize,
    pub parsed_bytes: u64,
    /// Best of the alternating rounds, wall time.
    pub parse_secs: f64,
    pub chunk_secs: f64,
    /// Best of the rounds in CPU time of the measuring thread (Linux), which other processes on
    /// a shared machine do not inflate; `None` where unavailable.
    pub parse_cpu_secs: Option<f64>,
    pub chunk_cpu_secs: Option<f64>,
    /// Chunking the remaining files (markdown, SQL, JSON, templates …: no parse to compare
    /// with), reported beside the comparison rather than inside it.
    pub other_files: usize,
    pub other_chunk_secs: f64,
    /// `chunk / parse` on the same files, on CPU time when available, else wall time.
    pub ratio: f64,
    /// `(chunk + other) / parse`: the whole chunker's cost against parsing the parsed files.
    pub ratio_all_files: f64,
    pub rounds: usize,
    pub tokenizer: String,
}

impl BenchReport {
    pub fn describe(&self) -> String {
        let mb = self.bytes as f64 / 1_048_576.0;
        let parsed_mb = self.parsed_bytes as f64 / 1_048_576.0;
        let cpu = |s: Option<f64>| s.map_or("?".into(), |s| format!("{s:.2}"));
        format!(
            "{} files, {:.1} MB; {} parsed by a grammar ({:.1} MB); best of {} alternating rounds\n\
             parse only: {:.2} s  ({:.2} MB/s, {:.0} files/s)\n\
             chunking:   {:.2} s  ({:.2} MB/s, {:.0} files/s) on the same files\n\
             other files: {} chunked in {:.2} s\n\
             cpu: parse {} s, chunking {} s\n\
             ratio: {:.2}x parsing alone on the same files (target <= 1.5x); {:.2}x with the other files\n\
             chunks: {}\n\
             tokens: {}",
            self.files,
            mb,
            self.parsed_files,
            parsed_mb,
            self.rounds,
            self.parse_secs,
            parsed_mb / self.parse_secs.max(1e-9),
            self.parsed_files as f64 / self.parse_secs.max(1e-9),
            self.chunk_secs,
            parsed_mb / self.chunk_secs.max(1e-9),
            self.parsed_files as f64 / self.chunk_secs.max(1e-9),
            self.other_files,
            self.other_chunk_secs,
            cpu(self.parse_cpu_secs),
            cpu(self.chunk_cpu_secs),
            self.ratio,
            self.ratio_all_files,
            self.chunks,
            self.tokenizer,
        )
    }
}

/// One timed pass: wall and thread-CPU seconds.
#[derive(Clone, Copy)]
struct Pass {
    wall: f64,
    cpu: Option<f64>,
}

impl Pass {
    fn time(work: impl FnOnce()) -> Pass {
        let cpu = thread_cpu_secs();
        let started = Instant::now();
        work();
        Pass {
            wall: started.elapsed().as_secs_f64(),
            cpu: cpu.zip(thread_cpu_secs()).map(|(a, b)| b - a),
        }
    }

    fn best(self, other: Pass) -> Pass {
        Pass {
            wall: self.wall.min(other.wall),
            cpu: match (self.cpu, other.cpu) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// Reads every walked file under `base`, then alternates a parse-only pass and a chunking pass
/// over the files a grammar parses, `rounds` times each (so a busy moment on the machine does
/// not land on one side only), and chunks the other files once on their own.
pub fn run(
    chunker: &Chunker,
    ws: &Workspace,
    base: &Path,
    rounds: usize,
) -> Result<BenchReport, WalkError> {
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
    let (parsed, other): (Vec<_>, Vec<_>) = files.iter().partition(|(rel, _)| {
        crate::lang::detect(rel).is_some_and(|lang| !matches!(lang.parsing, Parsing::Scanner))
    });
    let parsed_bytes = parsed.iter().map(|(_, t)| t.len() as u64).sum();

    let rounds = rounds.max(1);
    let mut parse: Option<Pass> = None;
    let mut chunk: Option<Pass> = None;
    let mut chunks = 0;
    for _ in 0..rounds {
        let p = Pass::time(|| {
            for (rel, text) in &parsed {
                if let Some(lang) = crate::lang::detect(rel) {
                    std::hint::black_box(crate::syntax::parse(lang, text));
                }
            }
        });
        parse = Some(parse.map_or(p, |best| best.best(p)));
        chunks = 0;
        let c = Pass::time(|| {
            for (rel, text) in &parsed {
                chunks += chunker.chunk_text(rel, text).chunks.len();
            }
        });
        chunk = Some(chunk.map_or(c, |best| best.best(c)));
    }
    let (parse, chunk) = (parse.expect("one round"), chunk.expect("one round"));
    let others = Pass::time(|| {
        for (rel, text) in &other {
            chunks += chunker.chunk_text(rel, text).chunks.len();
        }
    });
    let seconds = |p: Pass| {
        p.cpu
            .filter(|_| parse.cpu.is_some_and(|c| c > 0.0))
            .unwrap_or(p.wall)
    };
    let ratio = seconds(chunk) / seconds(parse).max(1e-9);
    let ratio_all_files = (seconds(chunk) + seconds(others)) / seconds(parse).max(1e-9);

    Ok(BenchReport {
        files: files.len(),
        bytes,
        chunks,
        parsed_files: parsed.len(),
        parsed_bytes,
        parse_secs: parse.wall,
        chunk_secs: chunk.wall,
        parse_cpu_secs: parse.cpu,
        chunk_cpu_secs: chunk.cpu,
        other_files: other.len(),
        other_chunk_secs: others.wall,
        ratio,
        ratio_all_files,
        rounds,
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
