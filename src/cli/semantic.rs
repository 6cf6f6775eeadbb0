//! The semantic index from the shell: `code-intel index`, `code-intel search` and the retrieval
//! evaluation `code-intel eval`.

use crate::index::semantic::Target;
use crate::index::sync::Progress;
use crate::search::hybrid::Fusion;
use crate::search::semantic::{Collection, Mode, SearchRequest, language_of};
use crate::tools::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// A progress bar with ETA on stderr (a plain line per phase step when stderr is not a
/// terminal, so logs stay readable).
struct Bar {
    tty: bool,
    phase: Mutex<(String, Instant, usize)>,
}

impl Bar {
    fn new() -> Bar {
        Bar {
            tty: std::io::stderr().is_terminal(),
            phase: Mutex::new((String::new(), Instant::now(), 0)),
        }
    }

    fn update(&self, p: &Progress) {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if phase.0 != p.phase {
            if self.tty && !phase.0.is_empty() {
                eprintln!();
            }
            *phase = (p.phase.to_string(), Instant::now(), p.done);
        }
        let elapsed = phase.1.elapsed().as_secs_f64();
        let done_here = p.done.saturating_sub(phase.2);
        let eta = if done_here > 0 && p.total > p.done {
            let rate = done_here as f64 / elapsed.max(1e-3);
            format!(" ETA {}", fmt_secs((p.total - p.done) as f64 / rate))
        } else {
            String::new()
        };
        let fraction = if p.total > 0 {
            p.done as f64 / p.total as f64
        } else {
            0.0
        };
        if self.tty {
            let filled = (fraction * 30.0).round() as usize;
            eprint!(
                "\r{:<6} [{}{}] {:>5.1}% {}/{}{}   ",
                p.phase,
                "#".repeat(filled.min(30)),
                ".".repeat(30 - filled.min(30)),
                fraction * 100.0,
                p.done,
                p.total,
                eta
            );
            let _ = std::io::stderr().flush();
        } else if p.total == 0 || p.done == p.total || p.done % 500 < 50 {
            eprintln!("{}: {}/{}{}", p.phase, p.done, p.total, eta);
        }
    }

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

fn fmt_secs(s: f64) -> String {
    if s >= 3600.0 {
        format!("{:.0}h{:02.0}m", (s / 3600.0).floor(), (s % 3600.0) / 60.0)
    } else if s >= 60.0 {
        format!("{:.0}m{:02.0}s", (s / 60.0).floor(), s % 60.0)
    } else {
        format!("{s:.0}s")
    }
}

/// The `--json` summary of `code-intel index`.
#[derive(Serialize)]
struct IndexSummary {
    files: usize,
    chunks: usize,
    embedded: usize,
    /// Of `embedded`, chunks whose vector is still of their head only.
    head_only: usize,
    added: usize,
    modified: usize,
    deleted: usize,
    seconds: f64,
    lexical_seconds: f64,
    embedding_state: String,
    embed_rate: f64,
    /// The machine's embedding cache during this run (hits: vectors not computed again).
    #[serde(skip_serializing_if = "Option::is_none")]
    vector_cache: Option<crate::embed::cache::CacheStats>,
    /// The team's cache during this run (hits: vectors neither this machine nor this run
    /// computed).
    #[serde(skip_serializing_if = "Option::is_none")]
    remote_cache: Option<crate::store::RemoteStatus>,
    /// With `--publish`: texts offered to the team's cache, already there, added.
    #[serde(skip_serializing_if = "Option::is_none")]
    published: Option<crate::store::PublishReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<crate::index::sync::Skipped>,
}

/// Longest wait for the store's indexes before a command that synced goes on or exits.
const MAINTENANCE_WAIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// `code-intel index`: sync and embed everything, waiting for the model; with `publish`, then
/// offer every vector to the team's cache.
pub fn index(ctx: &Context, force: bool, json: bool, publish: bool) -> anyhow::Result<i32> {
    let bar = Bar::new();
    let show = |p: Progress| {
        if !json || std::io::stderr().is_terminal() {
            bar.update(&p)
        }
    };
    // The CLI waits for the model (it is what the user asked for), up to a generous limit.
    let model = ctx
        .semantic
        .wait_for_model(std::time::Duration::from_secs(120));
    let outcome = match ctx
        .semantic
        .sync(&ctx.ws, &ctx.symbols, Target::All, force, None, &show)
    {
        Err(err) if let Some(block) = err.write_block() => {
            bar.finish();
            eprintln!("code-intel: {}", not_writable(block, &format!("{err:#}")));
            return Ok(1);
        }
        outcome => outcome?,
    };
    // The indexes are built in the background while a server runs; this process is about to
    // exit, so it builds them before it does.
    ctx.semantic.finish_maintenance(MAINTENANCE_WAIT)?;
    let forest = outcome.forest.clone().unwrap_or_default();
    let counts = ctx.semantic.store()?.counts()?;
    // Only a complete index is published: a partial one would publish a partial cache.
    let mut publish_error = None;
    let published = if publish && outcome.embedding.error.is_none() {
        match ctx.semantic.publish(&show) {
            Ok(report) => Some(report),
            Err(err) => {
                publish_error = Some(crate::error::without_source_locations(&format!("{err:#}")));
                None
            }
        }
    } else {
        None
    };
    bar.finish();
    let status = ctx.semantic.status();
    let summary = IndexSummary {
        files: forest.files,
        chunks: counts.chunks,
        embedded: counts.embedded,
        head_only: counts.head_only,
        added: forest.added,
        modified: forest.modified,
        deleted: forest.deleted,
        seconds: outcome.seconds,
        lexical_seconds: forest.lexical_ms as f64 / 1000.0,
        embedding_state: outcome.embedding.state.clone(),
        embed_rate: outcome.embedding.rate,
        vector_cache: status.vector_cache,
        remote_cache: status.remote_cache,
        published,
        skipped: forest.skipped.clone(),
    };
    if json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        println!(
            "{} files, {} chunks ({} embedded{}): {} added, {} modified, {} deleted in {:.1}s (lexical {:.1}s)",
            summary.files,
            summary.chunks,
            summary.embedded,
            match summary.head_only {
                0 => String::new(),
                n => format!(", {n} of them by their head only"),
            },
            summary.added,
            summary.modified,
            summary.deleted,
            summary.seconds,
            summary.lexical_seconds
        );
        if let Some(cache) = summary.vector_cache.filter(|c| c.hits + c.misses > 0) {
            println!(
                "embedding cache: {} of {} texts found ({:.0}%), {} added",
                cache.hits,
                cache.hits + cache.misses,
                100.0 * cache.hits as f64 / (cache.hits + cache.misses) as f64,
                cache.written
            );
        }
        if let Some(remote) = &summary.remote_cache {
            println!(
                "team cache ({}): {}, {} of {} texts found{}",
                remote.uri,
                serde_json::to_value(remote.state)?
                    .as_str()
                    .unwrap_or_default(),
                remote.hits,
                remote.hits + remote.misses,
                remote
                    .detail
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            );
        }
        if let Some(published) = &summary.published {
            println!(
                "published: {} texts offered, {} already there, {} added",
                published.offered, published.present, published.added
            );
        }
        if let Some(err) = outcome.embedding.model_error.as_ref() {
            println!("embedding: {} ({err})", outcome.embedding.state);
        } else {
            println!("embedding: {} (model {model:?})", outcome.embedding.state);
        }
        for s in &summary.skipped {
            println!("skipped {}: {}", s.file, s.reason);
        }
    }
    // The index is not complete and this process will not finish it: say why, and fail.
    if let Some(why) = &outcome.embedding.error {
        match ctx.semantic.write_block() {
            Some(block) => eprintln!(
                "code-intel: embedding stopped: {}",
                not_writable(block, "a vector could not be written")
            ),
            None => eprintln!("code-intel: embedding {}: {why}", outcome.embedding.state),
        }
        return Ok(1);
    }
    if let Some(why) = publish_error {
        eprintln!("code-intel: publishing to the team's cache failed: {why}");
        return Ok(1);
    }
    Ok(0)
}

/// Why `code-intel index` stopped on a disk that refuses writes, and what to do.
fn not_writable(block: crate::index::error::WriteBlock, detail: &str) -> String {
    format!(
        "{}; what was stored before is kept. Run `code-intel index` again once it accepts \
         writes ({})",
        block.what(),
        crate::error::without_source_locations(detail)
    )
}

/// One line of `code-intel search --json`.
#[derive(Serialize)]
struct SearchLine<'a> {
    path: &'a str,
    start_line: u32,
    end_line: u32,
    symbol: Option<&'a str>,
    score: f32,
}

/// `code-intel search`: ranked results, one JSON object per line with `--json`.
pub fn search_cmd(ctx: &Context, query: &str, top: usize, json: bool) -> anyhow::Result<i32> {
    ctx.semantic.ensure_indexed(&ctx.ws, &ctx.symbols)?;
    let mut request = SearchRequest::new(query, top.clamp(1, 200), ctx.ws.config.search_weights);
    request.collection = Collection::Auto;
    // A one-shot process would answer before a model loads; give it a moment when it exists.
    ctx.semantic
        .wait_for_model(std::time::Duration::from_secs(30));
    let response = ctx.search(&request)?;
    let mut out = std::io::stdout().lock();
    for hit in &response.results {
        if json {
            serde_json::to_writer(
                &mut out,
                &SearchLine {
                    path: &hit.file,
                    start_line: hit.line_start,
                    end_line: hit.line_end,
                    symbol: hit.symbol.as_deref(),
                    score: hit.score,
                },
            )?;
            writeln!(out)?;
        } else {
            writeln!(
                out,
                "{:.3}  {}:{}-{}  {}",
                hit.score,
                hit.file,
                hit.line_start,
                hit.line_end,
                hit.symbol.as_deref().unwrap_or("")
            )?;
        }
    }
    if !json && response.index_status.model != "ready" {
        eprintln!(
            "note: embedding model {} — results from lexical and symbol signals",
            response.index_status.model
        );
    }
    Ok(0)
}

/// One evaluation query (a line of the queries file).
#[derive(Debug, Deserialize)]
pub struct EvalQuery {
    /// Project root, relative to the queries file's directory or its ancestors.
    pub root: String,
    pub query: String,
    /// `en` or `ja`; detected from the text when absent.
    pub lang: Option<String>,
    /// Files (relative to the root) that answer the query (grade 2).
    pub relevant: Vec<String>,
    /// Files related to the answer but not it (grade 1).
    #[serde(default)]
    pub related: Vec<String>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Figures {
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub recall_at_5: f64,
}

/// NDCG@10 with binary relevance over the ranked, de-duplicated file list.
/// Graded NDCG@10 with gain 2^grade − 1 (answer: grade 2, related: grade 1), the definition
/// `tests/eval/run_eval.py` uses, so figures from both runners compare.
pub fn ndcg_at_10(ranked: &[String], relevant: &[String], related: &[String]) -> f64 {
    let grade = |f: &String| {
        if relevant.contains(f) {
            2
        } else if related.contains(f) {
            1
        } else {
            0
        }
    };
    let gain = |g: i32| (2f64.powi(g)) - 1.0;
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, f)| gain(grade(f)) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<i32> = relevant
        .iter()
        .map(|_| 2)
        .chain(related.iter().filter(|f| !relevant.contains(f)).map(|_| 1))
        .collect();
    ideal.truncate(10);
    let idcg: f64 = ideal
        .iter()
        .enumerate()
        .map(|(i, g)| gain(*g) / (i as f64 + 2.0).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

pub fn recall_at_5(ranked: &[String], relevant: &[String]) -> f64 {
    if relevant.is_empty() {
        return 0.0;
    }
    let found = relevant
        .iter()
        .filter(|r| ranked.iter().take(5).any(|f| f == *r))
        .count();
    found as f64 / relevant.len() as f64
}

fn resolve_root(queries: &Path, root: &str) -> Option<PathBuf> {
    let mut dir = queries.parent();
    while let Some(d) = dir {
        let candidate = d.join(root);
        if candidate.is_dir() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    let direct = PathBuf::from(root);
    direct.is_dir().then_some(direct)
}

/// `code-intel eval`: NDCG@10 and Recall@5 per mode and language.
pub fn eval(
    queries_path: &Path,
    modes: &[Mode],
    fusion: Fusion,
    verbose: bool,
    json: bool,
) -> anyhow::Result<i32> {
    let text = std::fs::read_to_string(queries_path)?;
    let mut queries: Vec<EvalQuery> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        queries.push(
            serde_json::from_str(line)
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", queries_path.display(), i + 1))?,
        );
    }
    let mut by_root: BTreeMap<String, Vec<&EvalQuery>> = BTreeMap::new();
    for q in &queries {
        by_root.entry(q.root.clone()).or_default().push(q);
    }
    // figures[mode][lang]
    let mut sums: BTreeMap<(String, String), (usize, f64, f64)> = BTreeMap::new();
    let mut latencies: Vec<f64> = Vec::new();
    for (root, qs) in &by_root {
        let Some(path) = resolve_root(queries_path, root) else {
            anyhow::bail!("eval root {root} not found");
        };
        let ctx = Context::open(&path)?;
        ctx.semantic
            .wait_for_model(std::time::Duration::from_secs(120));
        let outcome =
            ctx.semantic
                .sync(&ctx.ws, &ctx.symbols, Target::All, false, None, &|_| {})?;
        ctx.semantic.finish_maintenance(MAINTENANCE_WAIT)?;
        if verbose {
            eprintln!(
                "{root}: {} chunks, embedding {}",
                outcome.forest.as_ref().map_or(0, |f| f.chunks),
                outcome.embedding.state
            );
        }
        for &mode in modes {
            for q in qs {
                let mut req = SearchRequest::new(&q.query, 10, ctx.ws.config.search_weights);
                req.collection = Collection::Forest;
                req.mode = mode;
                req.fusion = fusion;
                let started = Instant::now();
                let resp = ctx.search(&req)?;
                latencies.push(started.elapsed().as_secs_f64() * 1000.0);
                let mut files: Vec<String> = Vec::new();
                for hit in &resp.results {
                    if !files.contains(&hit.file) {
                        files.push(hit.file.clone());
                    }
                }
                let n = ndcg_at_10(&files, &q.relevant, &q.related);
                let r = recall_at_5(&files, &q.relevant);
                let lang = q
                    .lang
                    .clone()
                    .unwrap_or_else(|| language_of(&q.query).to_string());
                let mode_name = format!("{mode:?}").to_lowercase();
                // Per language, overall, and per project (where a change helps or hurts).
                for key in [
                    (mode_name.clone(), lang.clone()),
                    (mode_name.clone(), "all".into()),
                    (mode_name.clone(), format!("{root}/{lang}")),
                ] {
                    let e = sums.entry(key).or_default();
                    e.0 += 1;
                    e.1 += n;
                    e.2 += r;
                }
                if verbose {
                    eprintln!(
                        "[{mode_name}] {n:.2} {r:.2}  {}  → {}",
                        q.query,
                        files.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
                    );
                }
            }
        }
    }
    let figures: BTreeMap<String, Figures> = sums
        .into_iter()
        .map(|((mode, lang), (n, ndcg, recall))| {
            (
                format!("{mode}/{lang}"),
                Figures {
                    queries: n,
                    ndcg_at_10: ndcg / n as f64,
                    recall_at_5: recall / n as f64,
                },
            )
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    if json {
        println!(
            "{}",
            serde_json::json!({"figures": figures, "latency_ms": {"p50": pct(0.5), "p95": pct(0.95)}})
        );
    } else {
        println!(
            "{:<36} {:>7} {:>8} {:>9}",
            "mode/lang", "queries", "NDCG@10", "Recall@5"
        );
        for (key, f) in &figures {
            println!(
                "{key:<36} {:>7} {:>8.3} {:>9.3}",
                f.queries, f.ndcg_at_10, f.recall_at_5
            );
        }
        println!(
            "search latency p50 {:.1} ms, p95 {:.1} ms",
            pct(0.5),
            pct(0.95)
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_match_hand_computed_values() {
        let ranked: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let rel = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let none = rel(&[]);
        assert!((ndcg_at_10(&ranked, &rel(&["a"]), &none) - 1.0).abs() < 1e-9);
        assert!((ndcg_at_10(&ranked, &rel(&["b"]), &none) - 1.0 / 3f64.log2()).abs() < 1e-9);
        assert_eq!(ndcg_at_10(&ranked, &rel(&["z"]), &none), 0.0);
        // Answer at rank 2, related at rank 1: (1 + 3/log2 3) / (3 + 1/log2 3).
        let graded = ndcg_at_10(&ranked, &rel(&["b"]), &rel(&["a"]));
        let want = (1.0 + 3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
        assert!((graded - want).abs() < 1e-9, "{graded} vs {want}");
        assert!((recall_at_5(&ranked, &rel(&["a", "z"])) - 0.5).abs() < 1e-9);
    }
}
