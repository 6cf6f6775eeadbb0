//! Where the provisioned model lives, and whether it is intact.
//!
//! The model directory is built by `scripts/model/provision.sh` (see its README) from registry
//! packages, never downloaded from a model hub, so air-gapped machines can be pointed at a copy.
//! Lookup order: `$CODE_INTEL_MODEL_DIR`, then `model_dir` in `.code-intel/config.json`
//! (relative paths are relative to the project root, `~/` is the home directory), then
//! `~/.cache/code-intel/models/multilingual-e5-small`. The environment wins so one machine-wide
//! setting (CI, a shared install) applies to every project.
//!
//! `manifest.json` lists every file with its size and SHA-256. Loading checks the recipe, the
//! sizes and the hashes of the small files (milliseconds); `code-intel model verify` hashes
//! everything (about 640 MB, a few seconds), and the loader runs a known-similarity check that
//! catches damaged weights anyway.

use super::{DIM, EmbedError, MODEL_ID};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Environment variable naming the model directory (the configuration owns it: it overrides the
/// `model_dir` key).
pub use crate::config::ENV_MODEL_DIR;

/// The provisioner recipe this code understands; provision.py bumps it when the files change.
pub const RECIPE: &str = "code-intel/e5s1-onnx/1";

/// int8 model (passages).
pub const MODEL_INT8: &str = "model.onnx";
/// fp32 model (queries, when enabled).
pub const MODEL_FP32: &str = "model_fp32.onnx";
pub const TOKENIZER: &str = "tokenizer.json";
pub const CONFIG: &str = "config.json";
pub const TOKENIZER_CONFIG: &str = "tokenizer_config.json";
pub const SPECIAL_TOKENS_MAP: &str = "special_tokens_map.json";
pub const MANIFEST: &str = "manifest.json";
/// The Japanese → English dictionary written next to the model (`scripts/model/dictionary.py`;
/// read by [`crate::search::dictionary`]). Not part of the model's manifest: a directory without
/// it is still a valid model directory.
pub const DICTIONARY: &str = "ja-en.tsv";

/// Files hashed on every load: small enough that it costs milliseconds.
const QUICK_HASH_LIMIT: u64 = 32 * 1024 * 1024;

/// How the directory was chosen; part of every error so the user knows which setting to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelDirSource {
    /// `$CODE_INTEL_MODEL_DIR`.
    Env,
    /// `model_dir` in `.code-intel/config.json`.
    Config,
    /// `~/.cache/code-intel/models/multilingual-e5-small`.
    Default,
    /// Given explicitly (command-line `--model-dir`, tests).
    Explicit,
}

impl ModelDirSource {
    pub fn describe(self) -> &'static str {
        match self {
            ModelDirSource::Env => "from CODE_INTEL_MODEL_DIR",
            ModelDirSource::Config => "from model_dir in .code-intel/config.json",
            ModelDirSource::Default => "the default location",
            ModelDirSource::Explicit => "given explicitly",
        }
    }
}

/// A model directory and how it was chosen. Nothing is checked until [`ModelDir::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelDir {
    pub path: PathBuf,
    pub source: ModelDirSource,
}

/// One file of the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct ManifestFile {
    pub sha256: String,
    pub bytes: u64,
}

/// The parts of `manifest.json` the Rust side relies on (the file holds more).
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub recipe: String,
    pub model_id: String,
    #[serde(default)]
    pub created: String,
    pub files: BTreeMap<String, ManifestFile>,
    #[serde(default)]
    pub interface: serde_json::Value,
    /// Figures measured by the provisioner (similarities, load times).
    #[serde(default)]
    pub checks: serde_json::Value,
}

impl Manifest {
    /// The ONNX Runtime shared library listed in the manifest (`libonnxruntime.so.X.Y.Z`).
    pub fn runtime_library(&self) -> Option<&str> {
        self.files
            .keys()
            .map(String::as_str)
            .find(|name| name.contains("onnxruntime"))
    }

    /// A similarity the provisioner measured, e.g. `("int8", "cos_login_auth")`.
    pub fn check_figure(&self, model: &str, key: &str) -> Option<f64> {
        self.checks.get(model)?.get(key)?.as_f64()
    }
}

/// How thoroughly [`ModelDir::verify`] checks the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyLevel {
    /// Recipe, model id, every size, and the hashes of the small files.
    Quick,
    /// Every hash.
    Full,
}

impl ModelDir {
    /// The default location: `~/.cache/code-intel/models/multilingual-e5-small`.
    pub fn default_path() -> Option<PathBuf> {
        home_dir().map(|home| {
            home.join(".cache")
                .join("code-intel")
                .join("models")
                .join("multilingual-e5-small")
        })
    }

    /// Picks the directory: environment, then the project's `model_dir`, then the default.
    /// `configured` is the raw `model_dir` value; `root` is the project root it is relative to.
    pub fn resolve(configured: Option<&Path>, root: &Path) -> Result<ModelDir, EmbedError> {
        Self::resolve_with(
            std::env::var_os(ENV_MODEL_DIR).map(PathBuf::from),
            configured,
            root,
        )
    }

    /// [`ModelDir::resolve`] with the environment value passed in (tests must not mutate the
    /// process environment).
    pub fn resolve_with(
        env: Option<PathBuf>,
        configured: Option<&Path>,
        root: &Path,
    ) -> Result<ModelDir, EmbedError> {
        if let Some(path) = env.filter(|p| !p.as_os_str().is_empty()) {
            return Ok(ModelDir {
                path: expand(&path, root),
                source: ModelDirSource::Env,
            });
        }
        if let Some(path) = configured.filter(|p| !p.as_os_str().is_empty()) {
            return Ok(ModelDir {
                path: expand(path, root),
                source: ModelDirSource::Config,
            });
        }
        match Self::default_path() {
            Some(path) => Ok(ModelDir {
                path,
                source: ModelDirSource::Default,
            }),
            None => Err(EmbedError::ModelMissing {
                dir: "~/.cache/code-intel/models/multilingual-e5-small".into(),
                origin: ModelDirSource::Default.describe().into(),
                problem: "the home directory is unknown (HOME is not set)".into(),
            }),
        }
    }

    pub fn explicit(path: impl Into<PathBuf>) -> ModelDir {
        ModelDir {
            path: path.into(),
            source: ModelDirSource::Explicit,
        }
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    fn missing(&self, problem: impl Into<String>) -> EmbedError {
        EmbedError::ModelMissing {
            dir: self.path.display().to_string(),
            origin: self.source.describe().into(),
            problem: problem.into(),
        }
    }

    /// Reads `manifest.json` without checking the files.
    pub fn manifest(&self) -> Result<Manifest, EmbedError> {
        if !self.path.is_dir() {
            return Err(self.missing("the directory does not exist"));
        }
        let path = self.file(MANIFEST);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.missing(format!("{MANIFEST} is missing")));
            }
            Err(err) => return Err(self.invalid(vec![format!("{MANIFEST}: {err}")])),
        };
        serde_json::from_str(&text)
            .map_err(|err| self.invalid(vec![format!("{MANIFEST} is not valid: {err}")]))
    }

    fn invalid(&self, problems: Vec<String>) -> EmbedError {
        EmbedError::ModelInvalid {
            dir: self.path.display().to_string(),
            problems,
        }
    }

    /// Checks the directory against its manifest; returns the manifest when everything holds,
    /// else every problem found (not just the first).
    pub fn verify(&self, level: VerifyLevel) -> Result<Manifest, EmbedError> {
        let manifest = self.manifest()?;
        let mut problems = Vec::new();
        if manifest.recipe != RECIPE {
            problems.push(format!(
                "recipe {:?} is not {RECIPE:?} (built by another provisioner version)",
                manifest.recipe
            ));
        }
        if manifest.model_id != MODEL_ID {
            problems.push(format!("model {:?} is not {MODEL_ID:?}", manifest.model_id));
        }
        if let Some(dim) = manifest.interface.get("dim").and_then(|d| d.as_u64())
            && dim != DIM as u64
        {
            problems.push(format!("dimension {dim} is not {DIM}"));
        }
        let mut required = vec![
            MODEL_INT8,
            MODEL_FP32,
            TOKENIZER,
            CONFIG,
            TOKENIZER_CONFIG,
            SPECIAL_TOKENS_MAP,
        ];
        match manifest.runtime_library() {
            Some(lib) => required.push(lib),
            None => problems.push("the manifest lists no ONNX Runtime library".into()),
        }
        let mut missing = Vec::new();
        for name in required {
            let Some(entry) = manifest.files.get(name) else {
                problems.push(format!("{name}: not listed in the manifest"));
                continue;
            };
            let path = self.file(name);
            let size = match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => meta.len(),
                _ => {
                    missing.push(name.to_string());
                    continue;
                }
            };
            if size != entry.bytes {
                problems.push(format!(
                    "{name}: {size} bytes, the manifest says {}",
                    entry.bytes
                ));
                continue;
            }
            let hash_it = level == VerifyLevel::Full || entry.bytes <= QUICK_HASH_LIMIT;
            if hash_it {
                match sha256_file(&path) {
                    Ok(hash) if hash.eq_ignore_ascii_case(&entry.sha256) => {}
                    Ok(_) => problems.push(format!("{name}: SHA-256 does not match the manifest")),
                    Err(err) => problems.push(format!("{name}: {err}")),
                }
            }
        }
        if !missing.is_empty() && problems.is_empty() {
            return Err(self.missing(format!("missing {}", missing.join(", "))));
        }
        problems.extend(missing.into_iter().map(|name| format!("{name}: missing")));
        if problems.is_empty() {
            Ok(manifest)
        } else {
            Err(self.invalid(problems))
        }
    }
}

/// Lower-case hex SHA-256 of a file, streamed.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(crate::digest::hex(&hasher.finalize()))
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `~/x` → home/x; relative → root/x.
fn expand(path: &Path, root: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = home_dir()
    {
        return home.join(rest);
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_order_is_env_then_config_then_default() {
        let root = Path::new("/project");
        let cases: &[(Option<&str>, Option<&str>, &str, ModelDirSource)] = &[
            (
                Some("/env/m"),
                Some("/cfg/m"),
                "/env/m",
                ModelDirSource::Env,
            ),
            (None, Some("/cfg/m"), "/cfg/m", ModelDirSource::Config),
            (
                None,
                Some("models/e5"),
                "/project/models/e5",
                ModelDirSource::Config,
            ),
            (Some(""), Some("/cfg/m"), "/cfg/m", ModelDirSource::Config),
            (Some("rel"), None, "/project/rel", ModelDirSource::Env),
        ];
        for (env, cfg, want, source) in cases {
            let dir =
                ModelDir::resolve_with(env.map(PathBuf::from), cfg.map(Path::new), root).unwrap();
            assert_eq!((dir.path.as_path(), dir.source), (Path::new(want), *source));
        }
        if let Some(default) = ModelDir::default_path() {
            let dir = ModelDir::resolve_with(None, None, root).unwrap();
            assert_eq!((dir.path, dir.source), (default, ModelDirSource::Default));
        }
    }

    #[test]
    fn missing_directory_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ModelDir::explicit(tmp.path().join("nope"));
        let err = dir.verify(VerifyLevel::Quick).unwrap_err();
        assert!(matches!(err, EmbedError::ModelMissing { .. }), "{err:?}");
        assert!(
            err.to_string().contains("code-intel model install"),
            "{err}"
        );
    }

    /// A directory with a manifest whose files are tampered with in different ways: each
    /// problem is reported, and a directory without the files is "missing", not "invalid".
    #[test]
    fn manifest_problems_are_all_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let names = [
            MODEL_INT8,
            MODEL_FP32,
            TOKENIZER,
            CONFIG,
            TOKENIZER_CONFIG,
            SPECIAL_TOKENS_MAP,
            "libonnxruntime.so.1.32.0",
        ];
        let mut files = serde_json::Map::new();
        for name in names {
            let body = format!("content of {name}");
            std::fs::write(tmp.path().join(name), &body).unwrap();
            let hash = sha256_file(&tmp.path().join(name)).unwrap();
            files.insert(
                name.into(),
                serde_json::json!({"sha256": hash, "bytes": body.len()}),
            );
        }
        let manifest = serde_json::json!({
            "recipe": RECIPE, "model_id": MODEL_ID, "files": files, "interface": {"dim": DIM}
        });
        std::fs::write(tmp.path().join(MANIFEST), manifest.to_string()).unwrap();
        let dir = ModelDir::explicit(tmp.path());
        assert!(dir.verify(VerifyLevel::Full).is_ok());

        // Same size, different bytes: only a hash notices.
        std::fs::write(tmp.path().join(CONFIG), "CONTENT OF config.json").unwrap();
        // Different size.
        std::fs::write(tmp.path().join(TOKENIZER), "short").unwrap();
        let err = dir.verify(VerifyLevel::Quick).unwrap_err();
        let EmbedError::ModelInvalid { problems, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(problems.len(), 2, "{problems:?}");
        let has = |file: &str, what: &str| {
            problems
                .iter()
                .any(|p| p.contains(file) && p.contains(what))
        };
        assert!(
            has(CONFIG, "SHA-256") && has(TOKENIZER, "bytes"),
            "{problems:?}"
        );

        // Only files missing: the user needs to install, not repair.
        let tmp2 = tempfile::tempdir().unwrap();
        std::fs::write(tmp2.path().join(MANIFEST), manifest.to_string()).unwrap();
        let err = ModelDir::explicit(tmp2.path())
            .verify(VerifyLevel::Quick)
            .unwrap_err();
        assert!(matches!(err, EmbedError::ModelMissing { .. }), "{err:?}");
    }
}
