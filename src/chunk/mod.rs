//! Chunks: files cut into meaningful units for embedding — "here is a file; give me its
//! functions, classes, tables, forms and sections, each with the facts an agent asks about".
//!
//! Seed 004 ("AST ベースチャンク分割", 1.1–1.14): a function cut in half means nothing, and
//! the answers to "which form has the stock field" or "which columns are translatable" live in
//! framework conventions, not in raw text. So each file goes to one strategy:
//!
//! - framework files first, detected from path *and* content: `composer.json`/`package.json`
//!   ([`manifest`]), Tailwind configs ([`tailwind`]);
//! - then the strategy the language registry names ([`crate::lang::Chunking`]): [`code`] for
//!   tree-sitter languages (with the Laravel/Filament enrichments of [`laravel`] for PHP),
//!   [`css`], [`html`], [`blade`], [`vue`];
//! - everything else, and minified or generated files, as line windows ([`lines`]).
//!
//! Strategies only describe *units* (byte ranges, kind, name, metadata, nesting; see [`unit`]);
//! [`split`] turns units into [`Chunk`]s the same way for every strategy: a parent's content
//! leaves out its children's bodies, oversized units are split at child boundaries with the
//! signature repeated, tiny siblings are merged, and ids are derived from the file, kind and
//! qualified name (never line numbers) so they survive edits elsewhere in the file.
//! [`text::embedding_text`] is the one place that builds the text the model embeds; sizes are in
//! the embedding model's tokens ([`tokens`]); [`bench`] times chunking against parsing alone
//! (`code-intel chunks DIR --bench`).

pub mod bench;
pub mod blade;
pub mod code;
pub mod css;
pub mod html;
mod imports;
pub mod laravel;
pub mod lines;
pub mod manifest;
pub mod split;
pub mod tailwind;
pub mod text;
pub mod tokens;
pub mod unit;
pub mod vue;

pub use text::{HEAD_TOKENS, embedding_head, embedding_text};

/// The chunker's rules, as a number: raise it with any change that gives a file other chunks
/// (units, elisions, splits, headers). An index cut under other rules is cut again on its next
/// sync; the vectors of chunks whose content stays the same are kept (see `index::sync`).
pub const RULES_VERSION: u32 = 1;

/// Why a chunking run over a directory or a file could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Walk(#[from] WalkError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
pub use tokens::TokenCounter;

use crate::lang::{self, Chunking};
use crate::workspace::{WalkError, WalkOptions, Workspace, read_source, walk_files};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// What a chunk is. Serialized in snake_case (`table_schema`, `filament_form`, …).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// A file's summary: docstring, imports, top-level statements and an outline of the rest.
    Module,
    Function,
    Method,
    Class,
    Interface,
    Trait,
    Enum,
    Struct,
    /// A Rust `impl` block (its methods are their own chunks).
    Impl,
    /// A type alias.
    Type,
    Macro,
    /// A React function component (a capitalised function returning JSX).
    Component,
    /// One `Schema::create`/`Schema::table` of a Laravel migration.
    TableSchema,
    /// `require`/`dependencies`-style sections of a manifest.
    Dependencies,
    /// PSR-4 autoload mappings.
    NamespaceMapping,
    /// `scripts` of package.json.
    Scripts,
    /// Tailwind theme, plugins and content paths (config file or CSS `@theme`).
    UiConfig,
    FilamentResource,
    FilamentForm,
    FilamentTable,
    FilamentInfolist,
    FilamentActions,
    /// A Blade `@section`, `@push`, `@slot`, `@component` or `@fragment` block.
    BladeSection,
    /// A Blade component's own template (`resources/views/components/…`).
    BladeComponent,
    /// A template's summary (Blade view, Vue `<template>`).
    Template,
    /// A Vue single-file component's summary (script top level, blocks outline).
    VueComponent,
    /// An HTML element worth addressing (semantic, with an id, or a custom `x-`/`-` element).
    Element,
    CssRule,
    CssMedia,
    CssKeyframes,
    /// A `<style>` block of a Vue component.
    Style,
    /// A window of lines: unknown languages, syntax-error regions, generated files.
    Lines,
}

impl ChunkKind {
    /// The wire name (`table_schema`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Module => "module",
            ChunkKind::Function => "function",
            ChunkKind::Method => "method",
            ChunkKind::Class => "class",
            ChunkKind::Interface => "interface",
            ChunkKind::Trait => "trait",
            ChunkKind::Enum => "enum",
            ChunkKind::Struct => "struct",
            ChunkKind::Impl => "impl",
            ChunkKind::Type => "type",
            ChunkKind::Macro => "macro",
            ChunkKind::Component => "component",
            ChunkKind::TableSchema => "table_schema",
            ChunkKind::Dependencies => "dependencies",
            ChunkKind::NamespaceMapping => "namespace_mapping",
            ChunkKind::Scripts => "scripts",
            ChunkKind::UiConfig => "ui_config",
            ChunkKind::FilamentResource => "filament_resource",
            ChunkKind::FilamentForm => "filament_form",
            ChunkKind::FilamentTable => "filament_table",
            ChunkKind::FilamentInfolist => "filament_infolist",
            ChunkKind::FilamentActions => "filament_actions",
            ChunkKind::BladeSection => "blade_section",
            ChunkKind::BladeComponent => "blade_component",
            ChunkKind::Template => "template",
            ChunkKind::VueComponent => "vue_component",
            ChunkKind::Element => "element",
            ChunkKind::CssRule => "css_rule",
            ChunkKind::CssMedia => "css_media",
            ChunkKind::CssKeyframes => "css_keyframes",
            ChunkKind::Style => "style",
            ChunkKind::Lines => "lines",
        }
    }
}

/// Facts about a chunk. The common fields are typed; each strategy adds its own under
/// `fields` (flattened on the wire): table columns, Eloquent relations, Filament fields, …
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    /// Scope-qualified name (`AuthService.login`, `App\Models\Product::category`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualified_name: Option<String>,
    /// The declaration up to its body, on one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Docstring or doc comment, markers removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docstring: Option<String>,
    /// PHP: the fully qualified class name (for members, `Class::member`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fqcn: Option<String>,
    /// What the file imports, fully qualified (module and type-like chunks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// Symbols this chunk depends on, resolved through the imports (FQCNs, module paths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_symbols: Vec<String>,
    /// Strategy-specific facts.
    #[serde(flatten)]
    pub fields: BTreeMap<String, Value>,
}

impl Metadata {
    /// Sets a strategy field from anything serializable (a failure to serialize is a bug in a
    /// strategy's types and is skipped rather than taking chunking down).
    pub fn set(&mut self, key: &str, value: impl Serialize) {
        if let Ok(value) = serde_json::to_value(value) {
            self.fields.insert(key.to_string(), value);
        }
    }

    /// Adds related symbols, keeping the first occurrence of each.
    pub fn relate(&mut self, symbols: impl IntoIterator<Item = String>) {
        for symbol in symbols {
            if !symbol.is_empty() && !self.related_symbols.contains(&symbol) {
                self.related_symbols.push(symbol);
            }
        }
    }
}

/// One unit of a file, ready to embed and to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chunk {
    /// Stable id: a hash of file, kind, qualified name and ordinal (no line numbers).
    pub id: String,
    /// Path relative to the workspace root, `/`-separated.
    pub file: String,
    /// Language id from the registry, or `json`/`text` for files outside it.
    pub language: String,
    #[serde(rename = "type")]
    pub kind: ChunkKind,
    pub name: String,
    /// 1-based, inclusive.
    pub line_start: usize,
    pub line_end: usize,
    /// The unit's text; a parent's content shows its children's signatures with `{ … }` bodies,
    /// and split parts after the first start with the unit's signature.
    pub content: String,
    /// SHA-256 of `content`, hex.
    pub fingerprint: String,
    pub metadata: Metadata,
}

/// Size limits and merging.
#[derive(Debug, Clone, Copy)]
pub struct ChunkOptions {
    /// Largest chunk in model tokens (`chunk_max_tokens`, seed default 512). A quarter of it is
    /// reserved for the header that [`embedding_text`] puts before the code.
    pub max_tokens: usize,
    /// Adjacent sibling units (same kind) under this many tokens are merged into one chunk.
    pub merge_below_tokens: usize,
    /// At most this many chunks per file; the rest of a huge file is left out and flagged.
    pub max_chunks_per_file: usize,
    /// `chunk_strategy: "lines"`: every file is cut into line windows, with no syntax tree and
    /// no framework strategy (seed 004's lightweight mode).
    pub lines_only: bool,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_tokens: 512,
            merge_below_tokens: 48,
            max_chunks_per_file: 1000,
            lines_only: false,
        }
    }
}

impl ChunkOptions {
    /// Tokens available to a chunk's content: the rest is kept for the name, kind, signature and
    /// metadata summary that precede it in the embedded text.
    pub fn content_budget(&self) -> usize {
        (self.max_tokens - self.max_tokens / 4).max(32)
    }
}

/// The chunks of one file and how they were made.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct FileChunks {
    pub file: String,
    pub language: String,
    /// Which strategy made them (`code`, `blade`, `manifest`, …, `lines`).
    pub strategy: String,
    pub chunks: Vec<Chunk>,
    /// Syntax errors found; their regions became flagged `lines` chunks.
    pub syntax_errors: usize,
    /// The file hit `max_chunks_per_file` or was capped as generated/minified.
    pub truncated: bool,
}

/// A chunking run over many files.
#[derive(Debug, Clone, Serialize)]
pub struct ChunkRun {
    pub files: Vec<FileChunks>,
    /// Files that could not be read (binary, too large, …) with the reason.
    pub skipped: Vec<(String, String)>,
    pub bytes: u64,
}

/// The file being chunked, shared by the strategies.
pub(crate) struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub lines: LineIndex,
}

impl<'a> Source<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Source<'a> {
        Source {
            file,
            text,
            lines: LineIndex::new(text),
        }
    }

    /// The file name without directories.
    pub fn file_name(&self) -> &'a str {
        self.file.rsplit('/').next().unwrap_or(self.file)
    }
}

/// Byte offset ↔ 1-based line.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// The 1-based line of a byte offset.
    pub fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|&start| start <= byte).max(1)
    }

    /// The byte offset where 1-based `line` starts (the end of the text past the last line).
    pub fn start_of(&self, line: usize) -> usize {
        self.starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or_else(|| *self.starts.last().unwrap_or(&0))
    }

    /// The start of the line holding `byte`.
    pub fn line_start_at(&self, byte: usize) -> usize {
        self.start_of(self.line_of(byte))
    }
}

/// Turns files into chunks. Cheap to share between threads.
pub struct Chunker {
    opts: ChunkOptions,
    tokens: TokenCounter,
}

impl Chunker {
    pub fn new(opts: ChunkOptions, tokens: TokenCounter) -> Chunker {
        Chunker { opts, tokens }
    }

    /// Options from the workspace configuration and the provisioned tokenizer (or the estimate).
    pub fn for_workspace(ws: &Workspace) -> Chunker {
        let opts = ChunkOptions {
            max_tokens: ws.config.chunk_max_tokens.max(64),
            lines_only: ws.config.chunk_strategy == crate::config::ChunkStrategy::Lines,
            ..ChunkOptions::default()
        };
        Chunker::new(opts, TokenCounter::for_workspace(ws))
    }

    pub fn options(&self) -> &ChunkOptions {
        &self.opts
    }

    pub fn tokens(&self) -> &TokenCounter {
        &self.tokens
    }

    /// Chunks one file's text. `file` is its workspace-relative path: strategies are chosen
    /// from it (and from the content), and chunk ids are derived from it.
    pub fn chunk_text(&self, file: &str, text: &str) -> FileChunks {
        let source = Source::new(file, text);
        let emitter = split::Emitter::new(&source, &self.opts, &self.tokens);
        let mut out = dispatch(&source, &emitter, self.opts.lines_only);
        if out.chunks.len() > self.opts.max_chunks_per_file {
            out.chunks.truncate(self.opts.max_chunks_per_file);
            out.truncated = true;
        }
        out
    }

    /// Chunks every file under `base` (a path inside the workspace) that the workspace walk
    /// keeps, in parallel, then links chunks across files (Filament resources ↔ schema classes).
    /// Files that cannot be read are listed as skipped; only a walk that cannot start, or a
    /// single file that cannot be read, fails the run.
    pub fn chunk_workspace(&self, ws: &Workspace, base: &Path) -> Result<ChunkRun, RunError> {
        let files = if base.is_file() {
            let meta = std::fs::metadata(base).map_err(|source| RunError::Read {
                path: ws.relative(base),
                source,
            })?;
            vec![crate::workspace::WalkedFile {
                abs: base.to_path_buf(),
                rel: ws.relative(base),
                size: meta.len(),
                mtime: meta.modified().ok(),
            }]
        } else {
            walk_files(ws, base, &WalkOptions::default())?
        };
        let max_bytes = ws.config.max_file_bytes;
        let results: Vec<Result<(FileChunks, u64), (String, String)>> = files
            .par_iter()
            .map(|f| match read_source(&f.abs, &f.rel, max_bytes) {
                Ok(source) => Ok((self.chunk_text(&f.rel, &source.text), source.size)),
                Err(err) => Err((f.rel.clone(), err.message)),
            })
            .collect();
        let mut run = ChunkRun {
            files: Vec::new(),
            skipped: Vec::new(),
            bytes: 0,
        };
        for result in results {
            match result {
                Ok((chunks, size)) => {
                    run.bytes += size;
                    run.files.push(chunks);
                }
                Err(skip) => run.skipped.push(skip),
            }
        }
        link(&mut run.files);
        Ok(run)
    }
}

/// Cross-file facts that no single file holds (a v4 Filament `OrderForm` does not name its
/// resource; the resource names it). Run after chunking a set of files.
pub fn link(files: &mut [FileChunks]) {
    laravel::filament::link(files);
}

/// Picks the strategy: framework files by path and content, then the registry's chunking, then
/// line windows; with `lines_only`, line windows for every file.
fn dispatch(source: &Source, emitter: &split::Emitter, lines_only: bool) -> FileChunks {
    let done =
        |language: &str, strategy: &str, chunks: Vec<Chunk>, syntax_errors: usize| FileChunks {
            file: source.file.to_string(),
            language: language.to_string(),
            strategy: strategy.to_string(),
            chunks,
            syntax_errors,
            truncated: false,
        };
    if lines::is_generated(source.text) {
        let mut out = done(
            lang::detect(source.file).map_or("text", |l| l.id),
            "lines",
            lines::generated(source, emitter),
            0,
        );
        out.truncated = true;
        return out;
    }
    if lines_only {
        let language =
            lang::detect(source.file).map_or_else(|| lines::language_of(source.file), |l| l.id);
        return done(language, "lines", lines::chunk(source, emitter), 0);
    }
    if let Some(chunks) = manifest::chunk(source, emitter) {
        return done("json", "manifest", chunks, 0);
    }
    if let Some((language, chunks)) = tailwind::chunk_config(source, emitter) {
        return done(language, "tailwind", chunks, 0);
    }
    let Some(language) = lang::detect(source.file) else {
        return done(
            lines::language_of(source.file),
            "lines",
            lines::chunk(source, emitter),
            0,
        );
    };
    let (chunks, errors) = match language.chunking {
        Chunking::Code => code::chunk(source, language, emitter),
        Chunking::Css => css::chunk(source, language, emitter),
        Chunking::Html => html::chunk(source, language, emitter),
        Chunking::Blade => (blade::chunk(source, language, emitter), 0),
        Chunking::Vue => vue::chunk(source, language, emitter),
    };
    done(language.id, language.chunking.name(), chunks, errors)
}

#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests;
