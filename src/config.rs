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

    // ---- semantic index (seed 004's config.json keys) ----
    /// Directories (relative to the root) the semantic index covers; empty = the whole
    /// repository minus ignores.
    pub source_dirs: Vec<String>,
    /// Where the vector store lives: a path relative to the root or a URI
    /// (default `.code-intel/lancedb`).
    pub store_uri: Option<String>,
    /// Re-sync at server start when the last sync is older than this many hours.
    pub sync_ttl_hours: f64,
    /// Whether the server syncs (in the background) at start when the TTL has passed.
    pub sync_on_start: bool,
    /// Relative weights of the ranking signals of `semantic_search`.
    pub search_weights: SearchWeights,
    /// Upper bound on indexed chunks; files beyond it are reported, not indexed.
    pub max_chunks: usize,
    /// Upper bound on the on-disk size of the store; syncing stops adding files beyond it.
    pub max_index_size_mb: u64,
    /// Memory budget for indexing (sizes sync and embedding batches).
    pub memory_limit_mb: u64,
    /// No embedding model at all: the semantic index is lexical + symbols only.
    pub lightweight_mode: bool,
    /// `"int8"` (default) or `"fp32"`: the model that embeds search requests. fp32 costs about
    /// 1 GB more memory and twice the load time (see `embed::onnx`).
    pub embedding_query_precision: Option<String>,
    /// Largest chunk for embedding, in tokens of the embedding model's tokenizer (seed 004).
    pub chunk_max_tokens: usize,
}

/// Weights of the ranking signals (seed 004's `search_weights`, extended). Each is the weight of
/// one ranked list in reciprocal-rank fusion; 0 switches a signal off.
#[derive(Debug, Clone, Copy, Deserialize, serde::Serialize, PartialEq)]
#[serde(default)]
pub struct SearchWeights {
    /// Dense (embedding) similarity.
    pub vector: f64,
    /// BM25 over chunk text, identifiers and paths.
    pub keyword: f64,
    /// Query words naming a defined symbol.
    pub definition: f64,
    /// How often the matched symbols are referenced elsewhere.
    pub reference: f64,
    /// Query words in the file path.
    pub path: f64,
    /// Files and symbols from learned agreements (the map).
    pub map: f64,
}

impl Default for SearchWeights {
    fn default() -> Self {
        SearchWeights {
            vector: 2.0,
            keyword: 1.0,
            definition: 0.5,
            reference: 0.1,
            path: 0.3,
            map: 0.5,
        }
    }
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
            source_dirs: Vec::new(),
            store_uri: None,
            sync_ttl_hours: 1.0,
            sync_on_start: true,
            search_weights: SearchWeights::default(),
            max_chunks: 200_000,
            max_index_size_mb: 4096,
            memory_limit_mb: 1024,
            lightweight_mode: false,
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
