//! `get_chunks`: what the chunker makes of a file or a directory, the same as
//! `code-intel chunks FILE|DIR` — for checking what the semantic index embeds (strategy, kinds,
//! sizes in the embedding model's tokens, metadata, content).

use super::Context;
use super::search_text::bounded;
use crate::chunk::{Chunk, ChunkKind, Chunker, FileChunks, Metadata, embedding_text};
use crate::error::ToolResult;
use crate::workspace::read_source;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const DESCRIPTION: &str = "Show how the semantic index cuts a file, or every file of a directory, into chunks \
(a debugging aid). Per file: the strategy (code, blade, css, html, vue, manifest, tailwind, lines), language, \
syntax errors and whether it was truncated; per chunk: id, kind (function, method, class, table_schema, \
filament_form, blade_section, …), name, lines, size in the embedding model's tokens (of the text that is \
embedded, header included), fingerprint, metadata and content. `include_content: false` returns metadata only; \
`max_chunks` bounds the chunks returned (totals count them all).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File or directory, relative to the workspace root or absolute inside it.
    pub path: String,
    /// Maximum chunks returned over all files (1-5000, default 200).
    pub max_chunks: Option<usize>,
    /// Include each chunk's content (default true; false returns metadata only).
    pub include_content: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// Files in path order, until `max_chunks` chunks have been returned.
    pub files: Vec<FileOut>,
    /// Files chunked under the path.
    pub total_files: usize,
    /// Chunks made from all of them.
    pub total_chunks: usize,
    /// Chunks returned in `files`.
    pub returned_chunks: usize,
    /// True when chunks (and the files after them) were left out by `max_chunks`.
    pub truncated: bool,
    /// Chunk count per kind, over all files.
    pub by_kind: BTreeMap<String, usize>,
    /// The counter behind `tokens`: the model's tokenizer, or a labelled estimate.
    pub tokenizer: String,
    /// The configured limit per chunk (`chunk_max_tokens`).
    pub max_tokens: usize,
    /// Returned chunks whose embedded text is over `max_tokens`.
    pub over_max_tokens: usize,
    /// Files under the path that could not be read, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<crate::index::SkippedFile>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileOut {
    pub file: String,
    pub language: String,
    /// The strategy that made the chunks.
    pub strategy: String,
    /// Syntax errors found; their regions became `lines` chunks.
    pub syntax_errors: usize,
    /// The file hit the per-file chunk limit or was capped as generated/minified.
    pub truncated: bool,
    /// All chunks of the file (`chunks` may hold fewer when `max_chunks` was reached).
    pub chunk_count: usize,
    pub chunks: Vec<ChunkOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChunkOut {
    pub id: String,
    pub kind: ChunkKind,
    pub name: String,
    /// 1-based, inclusive.
    pub line_start: usize,
    pub line_end: usize,
    /// Size of the embedded text (header and content) in the embedding model's tokens.
    pub tokens: usize,
    /// SHA-256 of the content.
    pub fingerprint: String,
    pub metadata: Metadata,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let max_chunks = bounded("max_chunks", p.max_chunks.unwrap_or(200), 1, 5000)?;
    let include_content = p.include_content.unwrap_or(true);
    let target = ctx.ws.resolve(&p.path)?;
    let chunker = Chunker::for_workspace(&ctx.ws);
    let (mut files, skipped) = if target.is_dir {
        let run = chunker
            .chunk_workspace(&ctx.ws, &target.abs)
            .map_err(|err| match err {
                crate::chunk::RunError::Walk(walk) => walk.into(),
                read => crate::error::ToolError::internal(read.to_string()),
            })?;
        let skipped = run
            .skipped
            .into_iter()
            .map(|(file, reason)| crate::index::SkippedFile { file, reason })
            .collect();
        (run.files, skipped)
    } else {
        // One file: a reason not to read it (binary, too large) is the answer.
        let source = read_source(&target.abs, &target.rel, ctx.ws.config.max_file_bytes)?;
        let mut files = vec![chunker.chunk_text(&target.rel, &source.text)];
        crate::chunk::link(&mut files);
        (files, Vec::new())
    };
    files.sort_by(|a, b| a.file.cmp(&b.file));

    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for chunk in files.iter().flat_map(|f| &f.chunks) {
        *by_kind.entry(chunk.kind.as_str().to_string()).or_default() += 1;
    }
    let total_files = files.len();
    let total_chunks = by_kind.values().sum();
    let max_tokens = chunker.options().max_tokens;
    let mut out_files = Vec::new();
    let mut returned = 0;
    let mut over_max_tokens = 0;
    for file in files {
        if returned >= max_chunks {
            break;
        }
        let room = max_chunks - returned;
        let entry = file_out(file, room, include_content, &chunker);
        returned += entry.chunks.len();
        over_max_tokens += entry
            .chunks
            .iter()
            .filter(|c| c.tokens > max_tokens)
            .count();
        out_files.push(entry);
    }
    Ok(Output {
        truncated: returned < total_chunks,
        files: out_files,
        total_files,
        total_chunks,
        returned_chunks: returned,
        by_kind,
        tokenizer: chunker.tokens().describe(),
        max_tokens,
        over_max_tokens,
        skipped,
    })
}

fn file_out(file: FileChunks, room: usize, include_content: bool, chunker: &Chunker) -> FileOut {
    let chunk_count = file.chunks.len();
    let chunks = file
        .chunks
        .into_iter()
        .take(room)
        .map(|chunk| chunk_out(chunk, include_content, chunker))
        .collect();
    FileOut {
        file: file.file,
        language: file.language,
        strategy: file.strategy,
        syntax_errors: file.syntax_errors,
        truncated: file.truncated,
        chunk_count,
        chunks,
    }
}

fn chunk_out(chunk: Chunk, include_content: bool, chunker: &Chunker) -> ChunkOut {
    let tokens = chunker.tokens().count(&embedding_text(&chunk));
    ChunkOut {
        id: chunk.id,
        kind: chunk.kind,
        name: chunk.name,
        line_start: chunk.line_start,
        line_end: chunk.line_end,
        tokens,
        fingerprint: chunk.fingerprint,
        metadata: chunk.metadata,
        content: include_content.then_some(chunk.content),
    }
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{fixture_copy, project, run};
    use serde_json::{Value, json};

    fn chunks_of<'a>(out: &'a Value, file: &str) -> &'a Vec<Value> {
        let entry = out["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("{file} not in {}", out["files"]));
        entry["chunks"].as_array().unwrap()
    }

    fn kinds(chunks: &[Value]) -> Vec<&str> {
        chunks.iter().map(|c| c["kind"].as_str().unwrap()).collect()
    }

    #[test]
    fn laravel_files_come_out_as_framework_chunks() {
        let (_d, ctx) = fixture_copy("laravel-shop");
        let migration = "database/migrations/2024_01_10_100100_create_products_table.php";
        let out = run(&ctx, "get_chunks", json!({"path": migration})).unwrap();
        assert_eq!(out["total_files"], 1);
        assert_eq!(out["files"][0]["strategy"], "code");
        assert_eq!(out["files"][0]["language"], "php");
        let chunks = chunks_of(&out, migration);
        let table = chunks
            .iter()
            .find(|c| c["kind"] == "table_schema")
            .unwrap_or_else(|| panic!("no table_schema in {:?}", kinds(chunks)));
        assert_eq!(table["metadata"]["table"], "products");
        assert!(table["tokens"].as_u64().unwrap() > 0);
        assert!(
            table["content"]
                .as_str()
                .unwrap()
                .contains("Schema::create")
        );
        assert_eq!(table["fingerprint"].as_str().unwrap().len(), 64);

        // A Filament v4 schema class, and the directory it is in.
        let form = "app/Filament/Resources/Orders/Schemas/OrderForm.php";
        let out = run(&ctx, "get_chunks", json!({"path": form})).unwrap();
        assert!(
            kinds(chunks_of(&out, form)).contains(&"filament_form"),
            "{:?}",
            kinds(chunks_of(&out, form))
        );
        let out = run(
            &ctx,
            "get_chunks",
            json!({"path": "app/Filament/Resources/Orders", "include_content": false}),
        )
        .unwrap();
        assert!(out["total_files"].as_u64().unwrap() >= 5);
        assert!(out["by_kind"]["filament_form"].as_u64().unwrap() >= 1);
        assert!(out["by_kind"]["filament_table"].as_u64().unwrap() >= 1);
        for file in out["files"].as_array().unwrap() {
            for chunk in file["chunks"].as_array().unwrap() {
                assert!(chunk.get("content").is_none());
                assert!(chunk["tokens"].as_u64().unwrap() > 0);
            }
        }

        // Blade views: sections and the layout's template.
        let out = run(&ctx, "get_chunks", json!({"path": "resources/views"})).unwrap();
        assert!(out["by_kind"]["blade_section"].as_u64().unwrap() >= 1);
        assert!(
            out["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["strategy"] == "blade")
        );
    }

    #[test]
    fn max_chunks_bounds_the_answer_and_totals_count_everything() {
        let (_d, ctx) = fixture_copy("laravel-shop");
        let all = run(
            &ctx,
            "get_chunks",
            json!({"path": "app", "max_chunks": 5000, "include_content": false}),
        )
        .unwrap();
        let total = all["total_chunks"].as_u64().unwrap();
        assert!(total > 20, "{total}");
        assert_eq!(all["returned_chunks"], total);
        assert_eq!(all["truncated"], false);
        let some = run(&ctx, "get_chunks", json!({"path": "app", "max_chunks": 7})).unwrap();
        assert_eq!(some["returned_chunks"], 7);
        assert_eq!(some["total_chunks"], total);
        assert_eq!(some["truncated"], true);
        let listed: usize = some["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["chunks"].as_array().unwrap().len())
            .sum();
        assert_eq!(listed, 7);
        // The same chunks, in the same order, as the full answer starts with.
        let ids = |out: &Value| -> Vec<String> {
            out["files"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|f| f["chunks"].as_array().unwrap().iter())
                .map(|c| c["id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(ids(&some), ids(&all)[..7]);
    }

    #[test]
    fn bad_paths_and_parameters_are_errors() {
        let (_d, ctx) = project(&[("src/a.py", "def f():\n    return 1\n")]);
        let out = run(&ctx, "get_chunks", json!({"path": "src/a.py"})).unwrap();
        assert_eq!(kinds(chunks_of(&out, "src/a.py")), ["module", "function"]);
        let err = run(&ctx, "get_chunks", json!({"path": "src/missing.py"})).unwrap_err();
        assert_eq!(err.code.as_str(), "FILE_NOT_FOUND");
        let err = run(&ctx, "get_chunks", json!({"path": "../elsewhere"})).unwrap_err();
        assert_eq!(err.code.as_str(), "OUTSIDE_WORKSPACE");
        let err = run(&ctx, "get_chunks", json!({"path": "/etc/passwd"})).unwrap_err();
        assert_eq!(err.code.as_str(), "OUTSIDE_WORKSPACE");
        for bad in [json!(0), json!(5001)] {
            let err = run(
                &ctx,
                "get_chunks",
                json!({"path": "src", "max_chunks": bad}),
            )
            .unwrap_err();
            assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
        }
        let err = run(&ctx, "get_chunks", json!({"path": "src", "max_chunks": -1})).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
    }
}
