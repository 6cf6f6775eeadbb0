//! `code-intel chunks FILE|DIR`: what the chunker makes of any file, for people tuning it and
//! for bug reports. A table by default; `--json` prints one chunk per line (with `tokens`, the
//! size of its embedding text) and the summary on stderr.

use crate::chunk::{ChunkRun, Chunker, embedding_text};
use crate::workspace::Workspace;
use clap::Args;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct ChunksArgs {
    /// A file or directory inside the project (relative to the root, or absolute).
    pub path: PathBuf,
    /// Print JSON lines (one chunk each) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Project root (default: the current directory). Chunk ids and paths are relative to it.
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Instead of listing chunks, time chunking against a bare tree-sitter parse of the same
    /// files (one thread each, files preloaded).
    #[arg(long)]
    pub bench: bool,
    /// With `--bench`: alternating parse and chunking rounds (the best of each is reported).
    /// Three by default: with two, the ratio moved by up to 0.16 between runs of one binary on
    /// a shared 2-core machine.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
}

pub fn run(args: ChunksArgs) -> anyhow::Result<i32> {
    let root = match args.root {
        Some(root) => root,
        None => std::env::current_dir()?,
    };
    let ws = Workspace::open(&root)?;
    let target = ws
        .resolve(&args.path.to_string_lossy())
        .map_err(|err| anyhow::anyhow!("{}", err.message))?;
    let chunker = Chunker::for_workspace(&ws);
    if args.bench {
        let report = crate::chunk::bench::run(&chunker, &ws, &target.abs, args.rounds)?;
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            println!("{}", report.describe());
        }
        return Ok(0);
    }
    let started = Instant::now();
    let run = chunker.chunk_workspace(&ws, &target.abs)?;
    let elapsed = started.elapsed();
    let mut out = std::io::stdout().lock();
    let max = chunker.options().max_tokens;
    let mut over = 0usize;
    for file in &run.files {
        if !args.json {
            let mut notes = Vec::new();
            if file.syntax_errors > 0 {
                notes.push(format!("{} syntax errors", file.syntax_errors));
            }
            if file.truncated {
                notes.push("truncated".to_string());
            }
            writeln!(
                out,
                "{}  [{} · {} · {} chunks{}]",
                file.file,
                file.language,
                file.strategy,
                file.chunks.len(),
                notes.iter().map(|n| format!(" · {n}")).collect::<String>()
            )?;
        }
        for chunk in &file.chunks {
            let tokens = chunker.tokens().count(&embedding_text(chunk));
            if tokens > max {
                over += 1;
            }
            if args.json {
                let mut value = serde_json::to_value(chunk)?;
                if let Some(object) = value.as_object_mut() {
                    object.insert("tokens".into(), tokens.into());
                }
                serde_json::to_writer(&mut out, &value)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "  {:>9}  {:<18} {:<44} {:>5}  {}",
                    format!("{}-{}", chunk.line_start, chunk.line_end),
                    chunk.kind.as_str(),
                    clip(&chunk.name, 44),
                    tokens,
                    chunk.id
                )?;
            }
        }
    }
    let summary = summary(&run, &chunker, elapsed.as_secs_f64(), over);
    if args.json {
        eprintln!("{summary}");
    } else {
        writeln!(out, "\n{summary}")?;
    }
    Ok(0)
}

fn summary(run: &ChunkRun, chunker: &Chunker, seconds: f64, over: usize) -> String {
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut total = 0;
    for chunk in run.files.iter().flat_map(|f| f.chunks.iter()) {
        *by_kind.entry(chunk.kind.as_str()).or_default() += 1;
        total += 1;
    }
    let kinds = by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut text = format!(
        "{total} chunks from {} files ({:.1} KB) in {:.1} ms\nby type: {kinds}\ntokens: {} (max {} per chunk{})",
        run.files.len(),
        run.bytes as f64 / 1024.0,
        seconds * 1000.0,
        chunker.tokens().describe(),
        chunker.options().max_tokens,
        if over > 0 {
            format!("; {over} embedding texts over it")
        } else {
            String::new()
        },
    );
    for (file, reason) in &run.skipped {
        text.push_str(&format!("\nskipped {file}: {reason}"));
    }
    text
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}
