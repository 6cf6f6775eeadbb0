//! Embedding throughput: the pipeline against the raw model, on the same texts and batches.
//!
//! The requirement: the pipeline (identifier splitting, prefixes, length sorting, tokenising,
//! inference, pooling, normalisation, reordering) keep at least 0.9× the throughput of the
//! model alone. "The model alone" here is an ONNX Runtime session on the same model file with
//! the same thread count, fed the pipeline's own batches already tokenised, timing nothing but
//! `Session::run`. Rounds alternate between the two so that load from other processes hits
//! both alike.

use super::model_dir::{MODEL_INT8, ModelDir};
use super::onnx::{E5Embedder, E5Options, Precision, ort_environment, plan_batches};
use super::prepare::passage_text;
use super::{EmbedError, Embedder};
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use serde::Serialize;
use std::time::{Duration, Instant};

/// What `code-intel model bench` prints.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub texts: usize,
    pub batch_size: usize,
    pub rounds: usize,
    /// Mean tokens per text as the model sees it (prefix and special tokens included).
    pub mean_tokens: f64,
    pub load_seconds: f64,
    /// Texts per second, from each batch's best time over the rounds.
    pub raw_per_second: f64,
    pub pipeline_per_second: f64,
    /// pipeline / raw; the requirement is ≥ 0.9.
    pub ratio: f64,
    /// Resident memory after loading and running (MB), and the peak (Linux only).
    pub rss_mb: Option<f64>,
    pub peak_rss_mb: Option<f64>,
}

/// Options for a benchmark load: passages int8 as indexing runs them, and no second session
/// (queries are not measured), so the memory figure is that of indexing.
pub fn bench_options(batch_size: usize) -> E5Options {
    E5Options {
        batch_size: batch_size.max(1),
        query_precision: Precision::Int8,
        ..E5Options::default()
    }
}

/// Measures `texts` through `embedder` (loaded from `dir`) and through a raw session on the
/// same model file.
pub fn run(
    dir: &ModelDir,
    embedder: &E5Embedder,
    texts: &[String],
    rounds: usize,
) -> Result<BenchReport, EmbedError> {
    let raw_session = raw_session(dir, embedder)?;
    measure(embedder, raw_session, texts, rounds.max(1))
}

fn raw_session(dir: &ModelDir, embedder: &E5Embedder) -> Result<Session, EmbedError> {
    let manifest = dir.manifest()?;
    let lib = manifest.runtime_library().unwrap_or_default();
    let env = ort_environment(&dir.file(lib))?;
    let threads = embedder
        .options()
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let error = |reason: String| EmbedError::Load {
        file: dir.file(MODEL_INT8).display().to_string(),
        reason,
    };
    Session::builder(&env)
        .map_err(|e| error(e.to_string()))?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| error(e.to_string()))?
        .with_intra_threads(threads)
        .map_err(|e| error(e.to_string()))?
        .commit_from_file(dir.file(MODEL_INT8))
        .map_err(|e| error(e.to_string()))
}

/// One batch, tokenised and padded the way fastembed does it.
struct RawBatch {
    shape: [usize; 2],
    ids: Vec<i64>,
    mask: Vec<i64>,
}

fn measure(
    embedder: &E5Embedder,
    mut raw: Session,
    texts: &[String],
    rounds: usize,
) -> Result<BenchReport, EmbedError> {
    let batch_size = embedder.options().batch_size;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // The pipeline's batches: prepared texts, sorted by length, planned as the pipeline plans.
    let prepared: Vec<String> = refs.iter().map(|t| passage_text(t)).collect();
    let mut order: Vec<usize> = (0..prepared.len()).collect();
    order.sort_by_key(|&i| prepared[i].len());
    let mut batches = Vec::new();
    let mut tokens = 0usize;
    let plan = plan_batches(
        &order,
        |i| prepared[i].len(),
        batch_size,
        embedder.options().max_batch_tokens,
    );
    for chunk in &plan {
        let inputs: Vec<&str> = chunk.iter().map(|&i| prepared[i].as_str()).collect();
        let encodings = embedder.encode_passage_batch(&inputs)?;
        let width = encodings.first().map_or(0, |e| e.0.len());
        let mut batch = RawBatch {
            shape: [inputs.len(), width],
            ids: Vec::with_capacity(inputs.len() * width),
            mask: Vec::with_capacity(inputs.len() * width),
        };
        for (ids, mask) in encodings {
            tokens += mask.iter().filter(|&&m| m == 1).count();
            batch.ids.extend(ids);
            batch.mask.extend(mask);
        }
        batches.push(batch);
    }

    // Warm-up: first runs allocate arenas and pick kernels.
    if let Some(first) = batches.first() {
        run_raw(&mut raw, first)?;
        embedder.embed_passages(&refs[..refs.len().min(batch_size)])?;
    }
    // Interleaved batch by batch (alternating which side goes first), and each batch's best
    // time over the rounds, so that load from other processes, which comes and goes within
    // seconds, hits both sides alike and is mostly filtered out. The pipeline is called with
    // each batch's original texts, so its per-call work (preparing, sorting, planning,
    // tokenising, pooling, reordering) is all inside the timing.
    let mut best = vec![[Duration::MAX; 2]; batches.len()];
    for _ in 0..rounds {
        for (n, (batch, indices)) in batches.iter().zip(&plan).enumerate() {
            let texts: Vec<&str> = indices.iter().map(|&i| refs[i]).collect();
            for side in [n % 2, 1 - n % 2] {
                let start = Instant::now();
                if side == 0 {
                    run_raw(&mut raw, batch)?;
                } else {
                    let vectors = embedder.embed_passages(&texts)?;
                    debug_assert_eq!(vectors.len(), texts.len());
                }
                best[n][side] = best[n][side].min(start.elapsed());
            }
        }
    }
    let best_raw: Duration = best.iter().map(|b| b[0]).sum();
    let best_pipeline: Duration = best.iter().map(|b| b[1]).sum();
    let per_second = |d: Duration| texts.len() as f64 / d.as_secs_f64().max(1e-9);
    let (raw_per_second, pipeline_per_second) = (per_second(best_raw), per_second(best_pipeline));
    let (rss_mb, peak_rss_mb) = memory_mb();
    Ok(BenchReport {
        texts: texts.len(),
        batch_size,
        rounds,
        mean_tokens: tokens as f64 / texts.len().max(1) as f64,
        load_seconds: embedder.load_time().as_secs_f64(),
        raw_per_second,
        pipeline_per_second,
        ratio: pipeline_per_second / raw_per_second,
        rss_mb,
        peak_rss_mb,
    })
}

fn run_raw(session: &mut Session, batch: &RawBatch) -> Result<(), EmbedError> {
    let err = |e: ort::Error| EmbedError::Inference(e.to_string());
    let shape = [batch.shape[0] as i64, batch.shape[1] as i64];
    let inputs = ort::inputs![
        "input_ids" => Tensor::from_array((shape, batch.ids.clone())).map_err(err)?,
        "attention_mask" => Tensor::from_array((shape, batch.mask.clone())).map_err(err)?,
        "token_type_ids" => Tensor::from_array((shape, vec![0i64; batch.ids.len()])).map_err(err)?,
    ];
    let outputs = session.run(inputs).map_err(err)?;
    let (out_shape, _) = outputs["last_hidden_state"]
        .try_extract_tensor::<f32>()
        .map_err(err)?;
    if out_shape.len() != 3 {
        return Err(EmbedError::Inference(format!(
            "unexpected output shape {out_shape:?}"
        )));
    }
    Ok(())
}

/// Current and peak resident set size of this process, from /proc (None elsewhere).
pub fn memory_mb() -> (Option<f64>, Option<f64>) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return (None, None);
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Texts of about `target_tokens` tokens cut from `sources` (whole lines, in order), for a
/// benchmark on real code. Stops after `count` texts.
pub fn texts_of_tokens(
    embedder: &E5Embedder,
    sources: &[String],
    target_tokens: usize,
    count: usize,
) -> Result<Vec<String>, EmbedError> {
    let mut out = Vec::new();
    for source in sources {
        let mut current = String::new();
        let mut tokens = 0usize;
        for line in source.lines() {
            if line.trim().is_empty() && current.is_empty() {
                continue;
            }
            current.push_str(line);
            current.push('\n');
            // Re-counting the whole text is exact (tokens do not add up line by line) and
            // cheap at these sizes.
            tokens = embedder.passage_tokens(&current)?;
            if tokens >= target_tokens {
                out.push(std::mem::take(&mut current));
                tokens = 0;
                if out.len() == count {
                    return Ok(out);
                }
            }
        }
        if tokens >= target_tokens / 2 {
            out.push(current);
            if out.len() == count {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// Text of up to `max_files` source files under `root` (languages the registry knows,
/// `.gitignore` honoured, sorted by path so runs are comparable).
pub fn source_texts(root: &std::path::Path, max_files: usize) -> Vec<String> {
    let mut paths: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(root)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| crate::lang::detect(&p.to_string_lossy()).is_some())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|t| t.len() < 256 * 1024)
        .take(max_files)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::test_model;

    /// The benchmark runs end to end on real source (this crate's fixtures) and reports sane
    /// figures; the ≥ 0.9 ratio itself is measured by `code-intel model bench` on a quiet
    /// machine, not asserted in a test that shares its cores.
    #[test]
    fn bench_reports_both_throughputs() {
        let model = test_model::real();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python-service");
        let sources = source_texts(&root, 20);
        let texts = texts_of_tokens(&model, &sources, 60, 6).unwrap();
        assert_eq!(texts.len(), 6);
        for text in &texts {
            let tokens = model.passage_tokens(text).unwrap();
            // Whole lines up to the target; a file's tail counts from half of it.
            assert!((30..200).contains(&tokens), "{tokens} tokens: {text:?}");
        }
        let report = run(&test_model::model_dir(), &model, &texts, 1).unwrap();
        assert_eq!(report.texts, 6);
        assert!(report.raw_per_second > 0.0 && report.pipeline_per_second > 0.0);
        assert!(report.mean_tokens >= 30.0, "{report:?}");
    }
}
