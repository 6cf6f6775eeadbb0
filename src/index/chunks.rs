//! Turning one file into forest rows: which files are indexed, and the adapter from the
//! chunker's [`Chunk`]s to the store's [`ChunkRecord`]s with the two texts each chunk is
//! searched by (the embedding text and the full-text terms).
//!
//! Cutting is the `chunk` module's job (language and framework strategies, token budgets,
//! stable ids); this module only decides which files go in and how a chunk is stored, so the
//! row can be turned back into the same [`Chunk`] when it is embedded.

use crate::chunk::{Chunk, ChunkKind, Chunker, Metadata};
use crate::lexical;
use crate::store::ChunkRecord;
/// Non-code files larger than this are not indexed (data dumps, generated docs).
const MAX_TEXT_FILE_BYTES: u64 = 512 * 1024;

/// Text files without a grammar that are still worth indexing (docs and configuration).
const TEXT_EXTENSIONS: &[&str] = &[
    "md",
    "mdx",
    "markdown",
    "rst",
    "txt",
    "adoc",
    "json",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "sql",
    "sh",
    "bash",
    "zsh",
    "graphql",
    "gql",
    "proto",
    "xml",
    "env",
    "properties",
    "gradle",
    "tf",
    "rb",
    "kt",
    "swift",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "scala",
    "lua",
    "dart",
    "ex",
    "exs",
    "erl",
    "clj",
    "r",
    "jl",
    "pl",
    "twig",
    "svelte",
    "astro",
];
const TEXT_FILE_NAMES: &[&str] = &["dockerfile", "makefile", "readme", "license", "procfile"];
const SKIPPED_FILE_NAMES: &[&str] = &[
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "composer.lock",
    "cargo.lock",
    "poetry.lock",
    "pipfile.lock",
    "gemfile.lock",
    "go.sum",
];

/// How a file is indexed, if at all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FileKind {
    /// A registry language (the chunker picks its strategy).
    Code(&'static crate::lang::LanguageDef),
    /// Documentation or configuration without a grammar: line windows.
    Text,
}

/// Decides whether `rel` is indexed (by name; size and content are checked by the caller).
pub fn file_kind(rel: &str, size: u64) -> Option<FileKind> {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    if SKIPPED_FILE_NAMES.contains(&name.as_str())
        || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
    {
        return None;
    }
    if let Some(lang) = crate::lang::detect(rel) {
        return Some(FileKind::Code(lang));
    }
    if size > MAX_TEXT_FILE_BYTES {
        return None;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    let stem = name.split('.').next().unwrap_or(&name);
    if ext.is_some_and(|e| TEXT_EXTENSIONS.contains(&e)) || TEXT_FILE_NAMES.contains(&stem) {
        return Some(FileKind::Text);
    }
    None
}

/// Whether text looks generated or minified (very long lines): not worth indexing.
pub fn looks_generated(text: &str) -> bool {
    let lines = text.lines().count().max(1);
    text.len() / lines > 400
}

/// The text the model embeds for a stored row: the row is turned back into the chunker's
/// [`Chunk`] so indexing and re-embedding use the one definition in `chunk::text`.
pub fn embedding_text(
    file: &str,
    chunk_type: &str,
    name: &str,
    metadata: &str,
    content: &str,
) -> String {
    let kind = serde_json::from_value(serde_json::Value::String(chunk_type.to_string()))
        .unwrap_or(ChunkKind::Lines);
    let chunk = Chunk {
        id: String::new(),
        file: file.to_string(),
        language: String::new(),
        kind,
        name: name.to_string(),
        line_start: 0,
        line_end: 0,
        content: content.to_string(),
        fingerprint: String::new(),
        metadata: serde_json::from_str::<Metadata>(metadata).unwrap_or_default(),
    };
    crate::chunk::embedding_text(&chunk)
}

/// Chunks one file into rows (without vectors).
pub fn chunk_file(chunker: &Chunker, file: &str, text: &str, file_sha: &str) -> Vec<ChunkRecord> {
    let chunked = chunker.chunk_text(file, text);
    chunked
        .chunks
        .into_iter()
        .filter(|c| !c.content.trim().is_empty())
        .map(|c| record(c, file_sha))
        .collect()
}

/// One chunk as a row. The full-text terms cover the path, the name, the qualified name and
/// the related symbols as well as the code, so a query naming any of them finds the chunk.
pub fn record(chunk: Chunk, file_sha: &str) -> ChunkRecord {
    let m = &chunk.metadata;
    let mut named: Vec<&str> = vec![&chunk.file, &chunk.name];
    named.extend(m.fqcn.as_deref());
    named.extend(m.qualified_name.as_deref());
    named.extend(m.related_symbols.iter().map(String::as_str));
    named.push(&chunk.content);
    let terms = lexical::index_text(&named);
    ChunkRecord {
        metadata: serde_json::to_string(&chunk.metadata).unwrap_or_else(|_| "{}".into()),
        text: terms,
        id: chunk.id,
        file: chunk.file,
        language: chunk.language,
        chunk_type: chunk.kind.as_str().to_string(),
        name: chunk.name,
        line_start: chunk.line_start as u32,
        line_end: chunk.line_end as u32,
        content: chunk.content,
        fingerprint: chunk.fingerprint,
        file_sha: file_sha.to_string(),
        vector: None,
        head_only: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{ChunkOptions, TokenCounter};

    fn chunker() -> Chunker {
        Chunker::new(ChunkOptions::default(), TokenCounter::estimate("tests"))
    }

    const PY: &str = "import os\n\nLIMIT = 3\n\nclass Cart:\n    \"\"\"A cart.\"\"\"\n    items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        \"\"\"Sum of the prices.\"\"\"\n        return sum(i.price for i in self.items)\n\n\ndef helper():\n    return 1\n";

    #[test]
    fn rows_carry_the_chunkers_ids_kinds_and_metadata() {
        let c = chunker();
        let rows = chunk_file(&c, "app/cart.py", PY, "sha");
        let direct = c.chunk_text("app/cart.py", PY);
        assert_eq!(rows.len(), direct.chunks.len());
        for (row, chunk) in rows.iter().zip(&direct.chunks) {
            assert_eq!(row.id, chunk.id);
            assert_eq!(row.chunk_type, chunk.kind.as_str());
            assert_eq!(row.file_sha, "sha");
            // The row turns back into the very text the chunker would embed.
            assert_eq!(
                embedding_text(
                    &row.file,
                    &row.chunk_type,
                    &row.name,
                    &row.metadata,
                    &row.content
                ),
                crate::chunk::embedding_text(chunk)
            );
        }
        assert!(rows.iter().any(|r| r.name.ends_with("total")));
        let total = rows.iter().find(|r| r.name.ends_with("total")).unwrap();
        assert!(total.text.contains("total") && total.text.contains("cart"));
    }

    #[test]
    fn ids_survive_an_edit_elsewhere_in_the_file() {
        let c = chunker();
        let before = chunk_file(&c, "app/cart.py", PY, "a");
        let edited = PY.replace(
            "def helper():\n    return 1",
            "def helper():\n    return 2 + 2",
        );
        let after = chunk_file(&c, "app/cart.py", &edited, "b");
        let ids = |rows: &[ChunkRecord]| rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&before), ids(&after));
        let fp = |rows: &[ChunkRecord], name: &str| {
            rows.iter()
                .find(|r| r.name.ends_with(name))
                .unwrap()
                .fingerprint
                .clone()
        };
        assert_eq!(fp(&before, "total"), fp(&after, "total"));
        assert_ne!(fp(&before, "helper"), fp(&after, "helper"));
    }

    #[test]
    fn which_files_are_indexed() {
        assert!(matches!(file_kind("src/a.py", 10), Some(FileKind::Code(_))));
        assert_eq!(file_kind("docs/guide.md", 10), Some(FileKind::Text));
        assert_eq!(file_kind("package-lock.json", 10), None);
        assert_eq!(file_kind("static/app.min.js", 10), None);
        assert_eq!(file_kind("docs/huge.md", MAX_TEXT_FILE_BYTES + 1), None);
        assert_eq!(file_kind("img/logo.png", 10), None);
    }
}
