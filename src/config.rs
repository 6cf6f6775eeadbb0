//! Per-project settings read from `.code-intel/config.json`.
//!
//! Every field has a default so a project without the file, or with only some keys, works; unknown
//! keys are kept out of the way (later features add their own sections) rather than rejected.

use serde::Deserialize;
use std::path::Path;

/// Directory (under the workspace root) holding everything code-intel keeps for a project.
pub const STATE_DIR: &str = ".code-intel";

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Extra glob patterns (gitignore syntax) excluded from every walk, on top of `.gitignore`.
    pub exclude_patterns: Vec<String>,
    /// Directory names skipped by default; set to `[]` to search dependencies too.
    pub skip_dirs: Vec<String>,
    /// Files larger than this are not parsed (they are reported as skipped).
    pub max_file_bytes: u64,
    /// Whether hidden files and directories (dot-files) are walked.
    pub include_hidden: bool,
    /// Wall-clock limit for one tool call, in seconds.
    pub tool_timeout_secs: u64,
    /// The embedding model directory (relative to the project root, or absolute, or `~/…`).
    /// `$CODE_INTEL_MODEL_DIR` takes precedence; unset means
    /// `~/.cache/code-intel/models/multilingual-e5-small` (see `embed::model_dir`).
    pub model_dir: Option<std::path::PathBuf>,
    /// `"int8"` (default) or `"fp32"`: the model that embeds search requests. fp32 costs about
    /// 1 GB more memory and twice the load time (see `embed::onnx`).
    pub embedding_query_precision: Option<String>,
    /// Largest chunk for embedding, in tokens of the embedding model's tokenizer (seed 004).
    pub chunk_max_tokens: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            exclude_patterns: Vec::new(),
            skip_dirs: [
                ".git",
                "node_modules",
                "vendor",
                "target",
                "dist",
                "build",
                "out",
                ".next",
                ".nuxt",
                "__pycache__",
                ".venv",
                "venv",
                ".tox",
                ".mypy_cache",
                ".pytest_cache",
                "coverage",
                STATE_DIR,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            max_file_bytes: 2 * 1024 * 1024,
            include_hidden: false,
            tool_timeout_secs: 60,
            model_dir: None,
            embedding_query_precision: None,
            chunk_max_tokens: 512,
        }
    }
}

impl Config {
    /// Loads `<root>/.code-intel/config.json`; a missing file gives the defaults, a broken one
    /// is reported on stderr and the defaults are used, so a typo never takes the server down.
    pub fn load(root: &Path) -> Config {
        let path = root.join(STATE_DIR).join("config.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|err| {
                tracing::warn!("ignoring {}: {err}", path.display());
                Config::default()
            }),
            Err(_) => Config::default(),
        }
    }
}
