//! The tools: one module per tool, each with typed `Params`, typed `Output` and a `run`
//! function. The [`TOOLS`] table is the single list both front ends (MCP and `code-intel call`)
//! are generated from, so a tool cannot exist in one and not the other.

mod add_explored_files;
mod analyze_file;
mod analyze_project;
mod analyze_structure;
mod check_write_target;
mod confirm_symbol_relevance;
mod find_definitions;
mod find_references;
mod gate;
mod get_chunks;
mod get_dependencies;
mod get_function_at_line;
mod get_improvement_insights;
mod get_session_analysis;
mod get_session_status;
mod get_symbols;
mod progress;
mod record_outcome;
mod repo_pack;
mod revert_to_exploration;
mod search_files;
mod search_symbol;
mod search_text;
pub mod semantic_search;
mod session_error;
mod set_query_frame;
mod start_session;
mod submit_semantic;
mod submit_understanding;
mod submit_verification;
pub mod sync_index;
mod validate_symbol_relevance;

pub use progress::{ProgressSink, Reporter, with_progress};

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::index::{FileEntry, SymbolIndex};
use crate::session::gate::{Gate, GatedTool};
use crate::workspace::{ResolvedPath, Workspace, read_source};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Everything a tool may use: the workspace and the per-project indexes.
pub struct Context {
    /// Shared so that work which outlives a call (a sync past `sync_timeout_seconds`) can hold it.
    pub ws: Arc<Workspace>,
    pub symbols: Arc<SymbolIndex>,
    /// Per-file outlines and manifests (`analyze_file`, `analyze_project`, `get_dependencies`).
    pub outlines: crate::index::outlines::OutlineIndex,
    /// The project-wide import graph, built from the outlines.
    pub graph: crate::deps::GraphStore,
    /// The phase-gated sessions of this project (`crate::session`).
    pub sessions: crate::session::Sessions,
    /// The embedding model (lazy; shared by everything that embeds in this process).
    pub embedder: crate::embed::EmbedderHandle,
    /// The semantic index (forest/map store); shares `embedder`, opens its store lazily.
    pub semantic: Arc<crate::index::semantic::SemanticIndex>,
    /// The hybrid search's term indexes over symbols and paths, rebuilt only when they change.
    pub search_cache: crate::search::semantic::SearchCache,
}

impl Context {
    /// Notes that the agent asked about one file: the embedding queue gives its chunks their
    /// vectors before others', since the agent is likely to search around it next.
    pub(crate) fn touched(&self, target: &ResolvedPath) {
        if !target.is_dir && !target.rel.is_empty() {
            self.semantic
                .prefer_files(std::slice::from_ref(&target.rel));
        }
    }
}

/// A failure of the semantic index as a tool reports it: a disk that refuses writes is
/// `INDEX_NOT_WRITABLE` with its state and what happens next; anything else is `INTERNAL`,
/// without the storage engine's source locations.
pub(crate) fn index_failure(what: &str, err: &crate::index::IndexError) -> ToolError {
    match err.write_block() {
        Some(block) => ToolError::new(
            ErrorCode::IndexNotWritable,
            format!("{what}: {}", block.note()),
        )
        .with("state", block.state()),
        None => ToolError::internal(crate::error::without_source_locations(&format!(
            "{what}: {err:#}"
        ))),
    }
}

/// How long a search that found the store damaged waits for the rebuild's lexical part.
const REPAIR_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

impl Context {
    pub fn open(root: &std::path::Path) -> Result<Context, crate::workspace::OpenError> {
        let ws = Arc::new(Workspace::open(root)?);
        let symbols = Arc::new(SymbolIndex::new(&ws.state_dir()));
        let outlines = crate::index::outlines::OutlineIndex::new(&ws.state_dir());
        let graph = crate::deps::GraphStore::new(ws.root(), &ws.state_dir());
        let sessions = crate::session::Sessions::open(
            &ws.state_dir(),
            crate::session::SessionSettings::of(&ws),
        );
        let embedder = crate::relevance::embedded::project_embedder(&ws);
        sessions
            .relevance()
            .set(Arc::new(crate::relevance::embedded::EmbedRelevance::new(
                embedder.clone(),
            )));
        let semantic = Arc::new(
            crate::index::semantic::SemanticIndex::with_model(&ws, embedder.clone())
                .with_vector_cache(crate::embed::cache::VectorCache::machine())
                .with_remote_cache(ws.config.embedding_cache_uri().as_deref()),
        );
        // One memory of agreements: the session service learns into the store's map table and
        // search scores it with the same calibrated relevance.
        semantic.set_relevance(sessions.relevance().clone());
        sessions.set_map_store(semantic.clone());
        // A disk that refused the index's writes and accepts them again: the sync resumes by
        // itself, storing what is missing and embedding the rest. (A weak handle: the index
        // keeps the hook, and must not keep itself alive through it.)
        let resumed = (Arc::downgrade(&semantic), ws.clone(), symbols.clone());
        semantic.on_writes_resumed(move || {
            let (semantic, ws, symbols) = &resumed;
            if let Some(semantic) = semantic.upgrade() {
                let outcome = semantic.sync(
                    ws,
                    symbols,
                    crate::index::semantic::Target::All,
                    false,
                    Some(Duration::ZERO),
                    &|_| {},
                );
                if let Err(err) = outcome {
                    tracing::warn!("the resumed sync failed: {err:#}");
                }
            }
        });
        Ok(Context {
            ws,
            symbols,
            outlines,
            graph,
            sessions,
            embedder,
            semantic,
            search_cache: Default::default(),
        })
    }

    /// One hybrid search over this project's index (`search::semantic`), with its term caches.
    /// The project's search as the relevance judge uses it (its field).
    pub fn field_search(&self) -> crate::judge::FieldSearch<'_> {
        crate::judge::FieldSearch {
            ws: &self.ws,
            symbols: &self.symbols,
            semantic: &self.semantic,
            cache: &self.search_cache,
            words_only: false,
        }
    }

    /// A store found damaged is rebuilt first (lexical in seconds, vectors from the machine's
    /// cache) and the search answered from the new one.
    pub fn search(
        &self,
        request: &crate::search::semantic::SearchRequest,
    ) -> crate::index::IndexResult<crate::search::semantic::SearchResponse> {
        let search = || {
            crate::search::semantic::search(
                &self.semantic,
                &self.ws,
                &self.symbols,
                &self.search_cache,
                request,
            )
        };
        let generation = self.semantic.store_generation();
        match search() {
            // Damage, or the store set aside under the search (a forced sync, another
            // search's repair), which `repair` tells apart; either way, search the new one.
            Err(err) if err.is_store_damage() => {
                self.semantic
                    .repair(&self.ws, &self.symbols, &err, generation, REPAIR_WAIT)?;
                search()
            }
            result => result,
        }
    }

    /// Watches the project's directories so that whole-project refreshes of the symbol and
    /// outline indexes cost nothing while no file changed (for a long-running server).
    pub fn watch_changes(&self) {
        let watch = Arc::new(crate::workspace::watch::TreeWatch::new());
        self.symbols.watch_changes(watch.clone());
        self.outlines.watch_changes(watch);
    }

    /// The progress reporter of the current call (a no-op unless the front end asked for
    /// progress; see [`with_progress`]).
    pub fn progress(&self) -> Reporter {
        Reporter::current()
    }

    /// Deadline for one tool call, from the configuration.
    pub fn deadline(&self) -> Instant {
        Instant::now() + Duration::from_secs(self.ws.config.tool_timeout_secs)
    }

    /// The fresh index entry of one file, or the precise reason it has none (not found,
    /// unsupported language, binary, too large …).
    pub fn file_entry(
        &self,
        path: &ResolvedPath,
    ) -> ToolResult<(&'static crate::lang::LanguageDef, Arc<FileEntry>)> {
        let Some(lang) = crate::lang::detect(&path.rel) else {
            return Err(ToolError::new(
                ErrorCode::InvalidParameter,
                format!("'{}' is not in a supported language", path.rel),
            )
            .with("file", path.rel.clone())
            .with("supported_languages", crate::lang::ids())
            .with("hint", "search_text works on any text file"));
        };
        let (snapshot, _) = self
            .symbols
            .refresh(&self.ws, &path.abs)
            .map_err(ToolError::from)?;
        match snapshot.files.get(&path.rel) {
            Some(entry) => Ok((lang, entry.clone())),
            // Not indexed: ignored by .gitignore, binary, too large … read it to say exactly why,
            // and analyse it directly when it is readable (an explicit request beats ignore rules).
            None => {
                let source = read_source(&path.abs, &path.rel, self.ws.config.max_file_bytes)?;
                let symbols = crate::analysis::analyze_source(lang, &source.text);
                Ok((
                    lang,
                    Arc::new(FileEntry {
                        size: source.size,
                        mtime_ns: 0,
                        sha256: [0; 32],
                        lossy: source.lossy,
                        symbols: crate::index::LazySymbols::new(symbols),
                    }),
                ))
            }
        }
    }
}

/// A tool as both front ends see it.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    /// Where the session's phase matrix puts the tool.
    pub gate: Gate,
    pub input_schema: fn() -> Map<String, Value>,
    pub output_schema: fn() -> Map<String, Value>,
    pub run: fn(&Context, Value) -> ToolResult<Value>,
}

macro_rules! tool {
    ($module:ident, $title:literal, $gate:ident) => {
        ToolDef {
            name: stringify!($module),
            title: $title,
            description: $module::DESCRIPTION,
            read_only: true,
            gate: Gate::$gate,
            input_schema: input_schema_of::<$module::Params>,
            output_schema: output_schema_of::<$module::Output>,
            run: |ctx, args| call(ctx, args, $module::run),
        }
    };
    // A tool that changes state (most session tools, sync_index): not read-only.
    ($module:ident, $title:literal, $gate:ident, writes) => {
        ToolDef {
            read_only: false,
            ..tool!($module, $title, $gate)
        }
    };
}

/// Every tool, in the order clients list them.
pub static TOOLS: &[ToolDef] = &[
    tool!(search_text, "Search text (ripgrep)", Code),
    tool!(search_files, "Find files by name", Code),
    tool!(find_definitions, "Find definitions", Code),
    tool!(find_references, "Find references", Code),
    tool!(get_symbols, "List symbols", Code),
    tool!(analyze_structure, "File structure", Code),
    tool!(get_function_at_line, "Function at line", Code),
    tool!(analyze_file, "Analyze a file", Code),
    tool!(search_symbol, "Search symbols", Code),
    tool!(analyze_project, "Analyze the project", Code),
    tool!(get_dependencies, "File dependencies", Code),
    tool!(repo_pack, "Pack files for an LLM", Code),
    tool!(
        start_session,
        "Start a phase-gated session",
        Session,
        writes
    ),
    tool!(
        set_query_frame,
        "Set the request's QueryFrame",
        Session,
        writes
    ),
    tool!(
        submit_understanding,
        "Submit the exploration",
        Session,
        writes
    ),
    tool!(
        validate_symbol_relevance,
        "Symbol relevance prompt and scores",
        Session
    ),
    tool!(
        confirm_symbol_relevance,
        "Confirm symbols with code evidence",
        Session,
        writes
    ),
    tool!(
        submit_semantic,
        "Submit semantic hypotheses",
        Session,
        writes
    ),
    tool!(
        submit_verification,
        "Submit hypothesis verification",
        Session,
        writes
    ),
    tool!(check_write_target, "May this file be written?", Session),
    tool!(add_explored_files, "Add explored files", Session, writes),
    tool!(
        revert_to_exploration,
        "Back to exploration",
        Session,
        writes
    ),
    tool!(
        record_outcome,
        "Record the session's outcome",
        Session,
        writes
    ),
    tool!(get_session_status, "Session status", Session),
    tool!(get_session_analysis, "Session analysis", Session),
    tool!(get_improvement_insights, "Improvement insights", Session),
    tool!(semantic_search, "Semantic code search", Search),
    tool!(sync_index, "Sync the semantic index", Maintenance, writes),
    tool!(get_chunks, "Chunks of a file or directory", Code),
];

/// Every tool as the session's phase gate sees it: name and class.
pub fn gated() -> &'static [GatedTool] {
    static GATED: std::sync::OnceLock<Vec<GatedTool>> = std::sync::OnceLock::new();
    GATED.get_or_init(|| {
        TOOLS
            .iter()
            .map(|t| GatedTool {
                name: t.name,
                gate: t.gate,
            })
            .collect()
    })
}

pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// Runs a tool by name with JSON arguments; panics inside a tool become `INTERNAL` errors so
/// one bad input can never take the server down.
pub fn dispatch(ctx: &Context, name: &str, args: Value) -> ToolResult<Value> {
    let Some(tool) = find(name) else {
        return Err(
            ToolError::new(ErrorCode::UnknownTool, format!("no tool named '{name}'")).with(
                "available",
                TOOLS.iter().map(|t| t.name).collect::<Vec<_>>(),
            ),
        );
    };
    // The active session's phase gate and call record wrap every call (tools/gate.rs).
    gate::guarded(ctx, tool, args, |args| run_caught(ctx, tool, args))
}

fn run_caught(ctx: &Context, tool: &ToolDef, args: Value) -> ToolResult<Value> {
    let name = tool.name;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (tool.run)(ctx, args))) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(
                ToolError::internal(format!("{name} failed unexpectedly: {message}"))
                    .with("tool", name),
            )
        }
    }
}

fn call<P: DeserializeOwned, O: Serialize>(
    ctx: &Context,
    args: Value,
    run: fn(&Context, P) -> ToolResult<O>,
) -> ToolResult<Value> {
    let output = run(ctx, params(args)?)?;
    serde_json::to_value(output).map_err(|err| ToolError::internal(err.to_string()))
}

/// A tool's arguments as its parameters (an absent object is an empty one), or the
/// `INVALID_PARAMETER` error the client sees.
pub fn params<P: DeserializeOwned>(args: Value) -> ToolResult<P> {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    serde_json::from_value(args).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParameter,
            format!("invalid arguments: {err}"),
        )
        .with(
            "hint",
            "see the tool's input schema for parameter names and types",
        )
    })
}

/// Schema of what a tool accepts (serde's deserialize view: `Option` fields are optional).
fn input_schema_of<T: JsonSchema>() -> Map<String, Value> {
    schema_of::<T>(schemars::generate::SchemaSettings::draft2020_12().for_deserialize())
}

/// Schema of what a tool returns. It must describe the serialized form: a field with
/// `skip_serializing_if` is absent when empty, so it must not be `required`, or clients that
/// validate `structuredContent` (the official MCP SDKs do) reject the result.
fn output_schema_of<T: JsonSchema>() -> Map<String, Value> {
    schema_of::<T>(schemars::generate::SchemaSettings::draft2020_12().for_serialize())
}

fn schema_of<T: JsonSchema>(settings: schemars::generate::SchemaSettings) -> Map<String, Value> {
    let schema = settings.into_generator().into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Resolves an optional path parameter, defaulting to the workspace root.
fn resolve_or_root(ctx: &Context, path: Option<&str>) -> ToolResult<ResolvedPath> {
    ctx.ws.resolve(path.unwrap_or(""))
}

/// Checks a symbol parameter: non-empty, no whitespace inside.
fn check_symbol(symbol: &str) -> ToolResult<&str> {
    let trimmed = symbol.trim();
    if trimmed.is_empty() {
        return Err(
            ToolError::new(ErrorCode::InvalidSymbol, "the symbol name is empty")
                .with("symbol", symbol),
        );
    }
    if trimmed.chars().any(char::is_whitespace) {
        return Err(ToolError::new(
            ErrorCode::InvalidSymbol,
            format!("'{trimmed}' is not a symbol name (it contains whitespace)"),
        )
        .with("symbol", symbol)
        .with("hint", "use search_text for phrases"));
    }
    Ok(trimmed)
}

/// A syntax error as tools report it (seed 002's `errors[]` entries).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParseIssue {
    pub code: &'static str,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn parse_issues(file: &str, entry: &FileEntry) -> Vec<ParseIssue> {
    entry
        .symbols
        .errors
        .iter()
        .map(|e| ParseIssue {
            code: "PARSE_ERROR",
            file: file.to_string(),
            line: e.line,
            column: e.column,
            message: e.message.clone(),
        })
        .collect()
}

#[cfg(test)]
mod session_tests;

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A context over a fixture project under `fixtures/`.
    #[allow(dead_code)] // used by the per-tool fixture tests as they are added
    pub fn fixture(name: &str) -> Context {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name);
        Context::open(&root).unwrap()
    }

    /// A context over a private copy of a fixture project (tools that persist state write
    /// `.code-intel/` into their project, which must not land in the repository).
    #[allow(dead_code)] // used by the per-tool fixture tests as they are added
    pub fn fixture_copy(name: &str) -> (tempfile::TempDir, Context) {
        fn copy(from: &std::path::Path, to: &std::path::Path) {
            std::fs::create_dir_all(to).unwrap();
            for entry in std::fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                let target = to.join(entry.file_name());
                if entry.file_name() == crate::config::STATE_DIR {
                    continue;
                }
                if entry.file_type().unwrap().is_dir() {
                    copy(&entry.path(), &target);
                } else {
                    std::fs::copy(entry.path(), target).unwrap();
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name);
        copy(&source, dir.path());
        let ctx = Context::open(dir.path()).unwrap();
        (dir, ctx)
    }

    /// A context over a temporary project made of `(path, content)` pairs.
    pub fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Context) {
        let dir = crate::fsutil::temp_tree(files);
        let ctx = Context::open(dir.path()).unwrap();
        (dir, ctx)
    }

    pub fn run(ctx: &Context, tool: &str, args: Value) -> ToolResult<Value> {
        dispatch(ctx, tool, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The judge's field of a project whose first sync has stored its chunks: searched by the
    /// project's words when asked to (as before the chunks are embedded), it shows the code
    /// that holds the term and not the rest.
    #[test]
    fn the_judges_field_of_words_shows_the_terms_code_after_the_first_sync() {
        let (_dir, ctx) = test_support::project(&[
            (
                "app/login.py",
                "def login_user(name, password):\n    return check_password(name, password)\n",
            ),
            (
                "app/cart.py",
                "def cart_total(items):\n    return sum(items)\n",
            ),
        ]);
        let words = || crate::judge::FieldSearch {
            words_only: true,
            ..ctx.field_search()
        };
        assert_eq!(
            words().field("login"),
            None,
            "no field before the first sync"
        );
        test_support::run(&ctx, "sync_index", serde_json::json!({"target": "forest"})).unwrap();
        let field = words().field("login").expect("a field after the sync");
        assert!(!field.by_meaning);
        assert!(field.standing("app/login.py", 1).is_some(), "{field:?}");
        assert_eq!(field.standing("app/cart.py", 1), None, "{field:?}");
    }

    /// The gate column: the session tools are the session's, `semantic_search` is the one search
    /// whose class depends on its collection, `sync_index` only maintains, and everything else
    /// explores code (also the read-only tools added after the matrix was written).
    #[test]
    fn every_tool_has_its_place_in_the_phase_matrix() {
        let of = |gate: Gate| -> Vec<&str> {
            TOOLS
                .iter()
                .filter(|t| t.gate == gate)
                .map(|t| t.name)
                .collect()
        };
        assert_eq!(of(Gate::Search), ["semantic_search"]);
        assert_eq!(of(Gate::Maintenance), ["sync_index"]);
        let session = of(Gate::Session);
        assert_eq!(session.len(), 14, "{session:?}");
        assert!(session.iter().all(|t| {
            t.starts_with("start_")
                || t.starts_with("submit_")
                || t.contains("session")
                || t.contains("symbol_relevance")
                || [
                    "set_query_frame",
                    "check_write_target",
                    "add_explored_files",
                    "revert_to_exploration",
                    "record_outcome",
                    "get_improvement_insights",
                ]
                .contains(t)
        }));
        for tool in TOOLS.iter().filter(|t| t.gate == Gate::Code) {
            assert!(tool.read_only, "{} explores code but writes", tool.name);
        }
        assert!(of(Gate::Code).contains(&"get_chunks"));
        assert_eq!(gated().len(), TOOLS.len());
    }
}
