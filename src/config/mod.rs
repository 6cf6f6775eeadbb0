//! Per-project settings read from `.code-intel/config.json`: one typed [`Config`], the JSON Schema
//! generated from it (`code-intel config schema`), and a loader that keeps every valid entry.
//!
//! A configuration file is input, and input can be wrong. So the file is read as a JSON value
//! and checked key by key against the schema (`validate.rs`): a value of the wrong type, out of
//! range or not among the allowed ones, and a key nobody reads (with the nearest known key), are
//! each reported as a [`ConfigProblem`] with its JSON path, and only that entry falls back to its
//! default; the rest of the file still applies. The problems travel with the workspace
//! ([`ConfigReport`]) so that the tools can tell the agent (`get_session_status`,
//! `index_status`, the first tool result of a server), not just stderr.
//!
//! Every key either changes what the server does or is refused: there is no key that is read
//! and then ignored. `init` writes [`Config::default`]'s values, so the file it writes says what
//! the server does anyway.

mod report;
mod schema;
mod validate;

pub use report::{ConfigProblem, ConfigReport, Entry, Origin};
pub use schema::{markdown_table, schema};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Directory (under the workspace root) holding everything code-intel keeps for a project.
pub const STATE_DIR: &str = ".code-intel";

/// The configuration file's name inside [`STATE_DIR`].
pub const CONFIG_FILE: &str = "config.json";

/// Environment variable naming the model directory; when set, it overrides `model_dir`.
pub const ENV_MODEL_DIR: &str = "CODE_INTEL_MODEL_DIR";

/// Environment variable naming the team's vector cache; when set, it overrides
/// `embedding_cache_uri` (a CI job sets it without touching the project's file).
pub const ENV_EMBEDDING_CACHE_URI: &str = "CODE_INTEL_EMBEDDING_CACHE_URI";

/// Keys an environment variable overrides, with the variable.
const ENV_OVERRIDES: &[(&str, &str)] = &[
    ("model_dir", ENV_MODEL_DIR),
    ("embedding_cache_uri", ENV_EMBEDDING_CACHE_URI),
];

/// The embedding model names this build can load: the seed's short name and the model's full id
/// ([`crate::embed::MODEL_ID`]). Another model would need another tokenizer, dimension and
/// calibration, none of which this build has.
pub const EMBEDDING_MODELS: &[&str] = &["multilingual-e5-small", "intfloat/multilingual-e5-small"];

/// The project configuration. Every key is optional; a missing key has the default shown in
/// the schema (and in README's configuration table, which a test keeps equal to the schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(
    title = "code-intel project configuration (.code-intel/config.json)",
    description = "Every key is optional. Print the effective values and any problem with `code-intel config`."
)]
pub struct Config {
    /// The schema this file follows, for editors (`init` points it at `config.schema.json`).
    /// Not read by the server.
    #[serde(rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<String>,

    // ---- what is walked ----
    /// Extra glob patterns (gitignore syntax) left out of every walk, on top of `.gitignore`.
    pub exclude_patterns: Vec<String>,
    /// Directory names never walked; set to `[]` to search dependencies too.
    pub skip_dirs: Vec<String>,
    /// Walk hidden files and directories (dot-files).
    pub include_hidden: bool,
    /// Files larger than this many bytes are not parsed or indexed (reported as skipped);
    /// `search_text` still searches them.
    #[schemars(range(min = 1))]
    pub max_file_bytes: u64,
    /// Wall-clock limit for one tool call, in seconds (`0` times every call out, which only
    /// tests want).
    pub tool_timeout_secs: u64,

    // ---- the semantic index (seed 004) ----
    /// Directories (relative to the project root) the semantic index covers; `[]` means the
    /// whole repository minus ignored files.
    pub source_dirs: Vec<String>,
    /// Language ids whose code files the semantic index chunks and embeds; `[]` means every
    /// language this build supports. Documentation and configuration text files (no language
    /// id) are indexed either way.
    #[schemars(schema_with = "schema::language_list")]
    pub supported_languages: Vec<String>,
    /// How files are cut into chunks: `ast` (syntax-aware units: classes, functions, framework
    /// structures) or `lines` (windows of lines, the seed's lightweight mode: no syntax trees).
    pub chunk_strategy: ChunkStrategy,
    /// Largest chunk, in tokens of the embedding model's tokenizer (the model reads at most 512).
    #[schemars(range(min = 64, max = 512))]
    pub chunk_max_tokens: usize,
    /// The embedding model. This build loads multilingual-e5-small only; any other name is
    /// refused with the list of available ones.
    #[schemars(extend("enum" = EMBEDDING_MODELS))]
    pub embedding_model: String,
    /// `int8` (default) or `fp32`: the model that embeds search requests. fp32 costs about 1 GB
    /// more memory and twice the load time.
    pub embedding_query_precision: QueryPrecision,
    /// The embedding model directory (relative to the project root, absolute, or `~/…`).
    /// `$CODE_INTEL_MODEL_DIR` takes precedence; unset means
    /// `~/.cache/code-intel/models/multilingual-e5-small`.
    pub model_dir: Option<PathBuf>,
    /// No embedding model at all: the semantic index is lexical + symbols only.
    pub lightweight_mode: bool,
    /// Where the vector store lives: a path relative to the project root or a URI (default
    /// `.code-intel/lancedb`).
    pub store_uri: Option<String>,
    /// The team's vector cache: `s3://bucket/prefix` (S3 or an S3-compatible store; the
    /// endpoint and credentials come from the standard `AWS_*` environment, never from this
    /// file) or a shared directory. Chunks the machine's cache lacks are looked up there before
    /// they are embedded; `code-intel index --publish` fills it. `$CODE_INTEL_EMBEDDING_CACHE_URI`
    /// takes precedence.
    pub embedding_cache_uri: Option<String>,
    /// Re-sync at server start when the last sync is older than this many hours.
    #[schemars(range(min = 0.0))]
    pub sync_ttl_hours: f64,
    /// Sync (in the background) at server start when the last sync is older than
    /// `sync_ttl_hours`.
    pub sync_on_start: bool,
    /// A `sync_index` call that runs longer than this many seconds returns and says so; the
    /// sync goes on in the background (`0`: always in the background).
    pub sync_timeout_seconds: u64,
    /// Relative weights of the ranking signals of `semantic_search`.
    pub search_weights: SearchWeights,
    /// Upper bound on indexed chunks; files beyond it are reported as skipped, not indexed.
    #[schemars(range(min = 1))]
    pub max_chunks: usize,
    /// Upper bound on the store's size on disk, in MiB; syncing stops adding files beyond it
    /// (`0`: no bound).
    pub max_index_size_mb: u64,
    /// Memory budget for indexing, in MiB (sizes sync and embedding batches).
    #[schemars(range(min = 1))]
    pub memory_limit_mb: u64,
    /// Learned pairs older than this many days are purged, and so are agreements older than
    /// this whose symbols no longer exist in the code.
    #[schemars(range(min = 1))]
    pub auto_purge_days: u64,

    // ---- the session ----
    /// With no active session, the Claude Code hook denies edits instead of allowing them.
    pub strict_write_gate: bool,
}

/// How files are cut into chunks (seed 004's `chunk_strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChunkStrategy {
    /// Syntax-aware units from the language registry and the framework strategies.
    Ast,
    /// Windows of lines within the token budget, for every file.
    Lines,
}

/// The model that embeds search requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueryPrecision {
    Int8,
    Fp32,
}

/// Weights of the ranking signals (seed 004's `search_weights`, extended). Each is the weight of
/// one ranked list in reciprocal-rank fusion; 0 switches a signal off.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SearchWeights {
    /// Dense (embedding) similarity.
    #[schemars(range(min = 0.0))]
    pub vector: f64,
    /// BM25 over chunk text, identifiers and paths.
    #[schemars(range(min = 0.0))]
    pub keyword: f64,
    /// Query words naming a defined symbol.
    #[schemars(range(min = 0.0))]
    pub definition: f64,
    /// How often the matched symbols are referenced elsewhere.
    #[schemars(range(min = 0.0))]
    pub reference: f64,
    /// Query words in the file path.
    #[schemars(range(min = 0.0))]
    pub path: f64,
    /// Files and symbols from learned agreements (the map).
    #[schemars(range(min = 0.0))]
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
            json_schema: None,
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
            include_hidden: false,
            max_file_bytes: 2 * 1024 * 1024,
            tool_timeout_secs: 60,
            source_dirs: Vec::new(),
            supported_languages: Vec::new(),
            chunk_strategy: ChunkStrategy::Ast,
            chunk_max_tokens: 512,
            embedding_model: EMBEDDING_MODELS[0].to_string(),
            embedding_query_precision: QueryPrecision::Int8,
            model_dir: None,
            lightweight_mode: false,
            store_uri: None,
            embedding_cache_uri: None,
            sync_ttl_hours: 1.0,
            sync_on_start: true,
            sync_timeout_seconds: 30,
            search_weights: SearchWeights::default(),
            max_chunks: 200_000,
            max_index_size_mb: 4096,
            memory_limit_mb: 1024,
            auto_purge_days: 30,
            strict_write_gate: false,
        }
    }
}

impl Config {
    /// The configuration of the project at `root` (see [`load`]), without the report: for
    /// commands that only need the values.
    pub fn load(root: &Path) -> Config {
        load(root).0
    }

    /// The path of `root`'s configuration file.
    pub fn path(root: &Path) -> PathBuf {
        root.join(STATE_DIR).join(CONFIG_FILE)
    }

    /// Where the team's vector cache is: `$CODE_INTEL_EMBEDDING_CACHE_URI` when set, else
    /// `embedding_cache_uri`; `None` when neither names one.
    pub fn embedding_cache_uri(&self) -> Option<String> {
        std::env::var(ENV_EMBEDDING_CACHE_URI)
            .ok()
            .or_else(|| self.embedding_cache_uri.clone())
            .map(|uri| uri.trim().to_string())
            .filter(|uri| !uri.is_empty())
    }

    /// Whether a code file of language `id` goes into the semantic index.
    pub fn indexes_language(&self, id: &str) -> bool {
        self.supported_languages.is_empty() || self.supported_languages.iter().any(|l| l == id)
    }
}

/// Loads `<root>/.code-intel/config.json`. A missing file gives the defaults and no problem; an
/// unreadable file or invalid JSON gives the defaults and one problem; otherwise every valid
/// entry applies and every invalid one is a problem (see the module doc).
pub fn load(root: &Path) -> (Config, ConfigReport) {
    let path = Config::path(root);
    let mut report = ConfigReport::new(&path);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return (report.finish(Config::default(), None), report);
        }
        Err(err) => {
            report.problem(
                "$",
                format!("cannot read the file: {err}; the defaults apply"),
            );
            return (report.finish(Config::default(), None), report);
        }
    };
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            report.problem("$", format!("not valid JSON: {err}; the defaults apply"));
            return (report.finish(Config::default(), None), report);
        }
    };
    let (clean, problems) = validate::validate(&value, &schema());
    report.problems.extend(problems);
    // Every entry left in `clean` passed the same deserialisation on its own, so the whole
    // can only fail on a bug; the defaults are then the safe answer, and it is reported.
    let mut config = match serde_json::from_value::<Config>(clean.clone()) {
        Ok(config) => config,
        Err(err) => {
            report.problem(
                "$",
                format!("internal: the checked entries do not load ({err}); the defaults apply"),
            );
            Config::default()
        }
    };
    check_paths(root, &mut config, &mut report);
    (report.finish(config, Some(&clean)), report)
}

/// Checks what the schema cannot: `exclude_patterns` are globs the walker accepts (one it
/// refuses would fail every walk), `source_dirs` name directories inside the project.
fn check_paths(root: &Path, config: &mut Config, report: &mut ConfigReport) {
    let mut globs = Vec::new();
    for (i, pattern) in config.exclude_patterns.iter().enumerate() {
        let bare = pattern.strip_prefix('!').unwrap_or(pattern);
        let mut builder = ignore::overrides::OverrideBuilder::new(root);
        match builder.add(&format!("!{bare}")) {
            Ok(_) => globs.push(pattern.clone()),
            Err(err) => report.problem(
                &format!("$.exclude_patterns[{i}]"),
                format!("{pattern:?} is not a valid glob ({err}); it is left out"),
            ),
        }
    }
    config.exclude_patterns = globs;
    let mut kept = Vec::new();
    for (i, dir) in config.source_dirs.iter().enumerate() {
        let path = format!("$.source_dirs[{i}]");
        let relative = Path::new(dir);
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            report.problem(
                &path,
                format!("{dir:?} is not a directory inside the project (give it relative to the project root); it is left out"),
            );
            continue;
        }
        if !root.join(relative).is_dir() {
            report.problem(
                &path,
                format!("{dir:?} does not exist in the project; nothing is indexed from it"),
            );
        }
        kept.push(dir.clone());
    }
    config.source_dirs = kept;
}

#[cfg(test)]
mod tests;
