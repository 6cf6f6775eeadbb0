//! Turning one file into forest rows: which files are indexed, how they are cut into chunks, and
//! the two texts each chunk is searched by (the embedding text and the full-text terms).
//!
//! Code is cut along its definitions (from the symbol analysis): a function or method is one
//! chunk, a class contributes a header chunk (declaration, properties) and its methods, long
//! units are split into windows that repeat the signature, and whatever lies outside any
//! definition (imports, top-level statements) becomes module windows, so no line is lost. Other
//! text files (docs, configs) are cut at Markdown headings or into windows. The `chunk` module's
//! framework-aware strategies replace the code part when available; everything downstream only
//! sees [`ChunkRecord`]s.

use crate::analysis::{FileSymbols, Symbol, SymbolKind};
use crate::search::lexical;
use crate::store::ChunkRecord;
use sha2::{Digest, Sha256};

/// Longest chunk in lines; longer units are split into windows of this size.
const MAX_LINES: usize = 80;
/// Window size for text outside definitions and for non-code files.
const WINDOW_LINES: usize = 60;
/// Non-code files larger than this are not indexed (data dumps, generated docs).
const MAX_TEXT_FILE_BYTES: u64 = 512 * 1024;
/// Characters of a chunk that go into its embedding text (the model reads ~512 tokens).
const MAX_EMBED_CHARS: usize = 2_000;

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
    /// A registry language: chunked along its symbols.
    Code(&'static crate::lang::LanguageDef),
    /// Documentation or configuration: headings or windows.
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

/// A chunk before it becomes a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub chunk_type: String,
    pub name: String,
    /// 1-based, inclusive.
    pub line_start: usize,
    pub line_end: usize,
    /// Declaration repeated in front of later windows of a split unit.
    pub header: Option<String>,
    pub signature: Option<String>,
}

/// Cuts a code file along its symbols (see the module doc).
pub fn code_pieces(symbols: &FileSymbols, line_count: usize, file_stem: &str) -> Vec<Piece> {
    let units: Vec<&Symbol> = symbols
        .symbols
        .iter()
        .filter(|s| is_unit(s.kind) && s.end_line >= s.line && s.line >= 1)
        .collect();
    let mut pieces = Vec::new();
    let mut covered = vec![false; line_count + 2];
    for unit in &units {
        let end = unit.end_line.min(line_count);
        // Nested inside a callable (closures, inner functions): part of the parent's chunk.
        let in_callable = units.iter().any(|outer| {
            outer.kind.is_callable()
                && !std::ptr::eq(*outer, *unit)
                && outer.line <= unit.line
                && unit.end_line <= outer.end_line
                && (outer.line, outer.end_line) != (unit.line, unit.end_line)
        });
        if in_callable {
            continue;
        }
        let first_child = units
            .iter()
            .filter(|c| {
                c.line > unit.line && c.end_line <= unit.end_line && !std::ptr::eq(**c, *unit)
            })
            .map(|c| c.line)
            .min();
        let (start, stop) = match first_child {
            // A class with members: its header is the declaration up to the first member.
            Some(child) if unit.kind.is_type_like() => (unit.line, child.saturating_sub(1)),
            Some(_) | None => (unit.line, end),
        };
        if stop < start {
            continue;
        }
        let chunk_type = unit.kind.as_str().to_string();
        let name = if unit.qualified_name.is_empty() {
            unit.name.clone()
        } else {
            unit.qualified_name.clone()
        };
        push_windows(
            &mut pieces,
            &mut covered,
            start,
            stop,
            MAX_LINES,
            &chunk_type,
            &name,
            Some(unit.signature.clone()).filter(|s| !s.is_empty()),
        );
    }
    // Everything outside definitions, in module windows named after the enclosing unit.
    let mut line = 1;
    while line <= line_count {
        if covered[line] {
            line += 1;
            continue;
        }
        let start = line;
        while line <= line_count && !covered[line] {
            line += 1;
        }
        let stop = line - 1;
        let enclosing = units
            .iter()
            .filter(|u| u.line <= start && stop <= u.end_line)
            .max_by_key(|u| u.line);
        let (chunk_type, name) = match enclosing {
            Some(u) => (u.kind.as_str().to_string(), u.qualified_name.clone()),
            None => ("module".to_string(), file_stem.to_string()),
        };
        push_windows(
            &mut pieces,
            &mut covered,
            start,
            stop,
            WINDOW_LINES,
            &chunk_type,
            &name,
            None,
        );
    }
    pieces.sort_by_key(|p| (p.line_start, p.line_end));
    pieces
}

/// Cuts a documentation or configuration file: at Markdown headings, else into windows.
pub fn text_pieces(text: &str, file_stem: &str, markdown: bool) -> Vec<Piece> {
    let lines: Vec<&str> = text.lines().collect();
    let mut pieces = Vec::new();
    let mut covered = vec![false; lines.len() + 2];
    if markdown {
        let mut starts: Vec<(usize, String)> = vec![(1, file_stem.to_string())];
        let mut fenced = false;
        for (i, l) in lines.iter().enumerate() {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if !fenced && l.starts_with('#') && i > 0 {
                starts.push((i + 1, l.trim_start_matches('#').trim().to_string()));
            }
        }
        for (k, (start, title)) in starts.iter().enumerate() {
            let stop = starts.get(k + 1).map_or(lines.len(), |(s, _)| s - 1);
            if stop >= *start {
                push_windows(
                    &mut pieces,
                    &mut covered,
                    *start,
                    stop,
                    MAX_LINES,
                    "section",
                    title,
                    None,
                );
            }
        }
    } else {
        push_windows(
            &mut pieces,
            &mut covered,
            1,
            lines.len(),
            WINDOW_LINES,
            "lines",
            file_stem,
            None,
        );
    }
    pieces
}

#[allow(clippy::too_many_arguments)]
fn push_windows(
    out: &mut Vec<Piece>,
    covered: &mut [bool],
    start: usize,
    stop: usize,
    size: usize,
    chunk_type: &str,
    name: &str,
    signature: Option<String>,
) {
    let mut s = start;
    while s <= stop {
        let e = (s + size - 1).min(stop);
        for flag in covered.iter_mut().take(e + 1).skip(s) {
            *flag = true;
        }
        out.push(Piece {
            chunk_type: chunk_type.to_string(),
            name: name.to_string(),
            line_start: s,
            line_end: e,
            header: if s > start { signature.clone() } else { None },
            signature: signature.clone(),
        });
        s = e + 1;
    }
}

fn is_unit(kind: SymbolKind) -> bool {
    use SymbolKind::*;
    matches!(
        kind,
        Function
            | Method
            | Class
            | Interface
            | Trait
            | Enum
            | Struct
            | Type
            | Macro
            | Rule
            | Keyframes
            | Section
            | Element
    )
}

/// The text a chunk is embedded by: where it is, what it is, then the code.
pub fn embedding_text(
    file: &str,
    chunk_type: &str,
    name: &str,
    metadata: &str,
    content: &str,
) -> String {
    let mut text = format!("{file}\n{chunk_type} {name}\n");
    if let Ok(serde_json::Value::Object(meta)) = serde_json::from_str::<serde_json::Value>(metadata)
    {
        for key in ["signature", "docstring", "header"] {
            if let Some(serde_json::Value::String(v)) = meta.get(key)
                && !v.is_empty()
                && !content.starts_with(v.as_str())
            {
                text.push_str(v);
                text.push('\n');
            }
        }
    }
    let mut end = content.len().min(MAX_EMBED_CHARS);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    text.push_str(&content[..end]);
    text
}

/// Turns pieces of one file into rows (without vectors).
pub fn records(
    file: &str,
    language: &str,
    text: &str,
    file_sha: &str,
    pieces: Vec<Piece>,
) -> Vec<ChunkRecord> {
    let lines: Vec<&str> = text.lines().collect();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let from = piece.line_start.saturating_sub(1).min(lines.len());
        let to = piece.line_end.min(lines.len());
        let content = lines[from..to].join("\n");
        if content.trim().is_empty() || is_trivial(&content) {
            continue;
        }
        let mut metadata = serde_json::Map::new();
        if let Some(sig) = &piece.signature {
            metadata.insert("signature".into(), sig.clone().into());
        }
        if let Some(header) = &piece.header {
            metadata.insert("header".into(), header.clone().into());
        }
        let metadata = serde_json::Value::Object(metadata).to_string();
        let base = format!("{file}#{}:{}", piece.chunk_type, piece.name);
        let n = seen.entry(base.clone()).or_default();
        *n += 1;
        let id = if *n == 1 { base } else { format!("{base}~{n}") };
        let embed = embedding_text(file, &piece.chunk_type, &piece.name, &metadata, &content);
        let fingerprint = hex(&Sha256::digest(embed.as_bytes()))[..32].to_string();
        let terms = lexical::index_text(&[file, &piece.name, &content]);
        out.push(ChunkRecord {
            id,
            file: file.to_string(),
            language: language.to_string(),
            chunk_type: piece.chunk_type,
            name: piece.name,
            line_start: piece.line_start as u32,
            line_end: piece.line_end.min(lines.len().max(1)) as u32,
            content,
            fingerprint,
            file_sha: file_sha.to_string(),
            metadata,
            text: terms,
            vector: None,
        });
    }
    out
}

/// Closing braces and blank lines only: nothing to find.
fn is_trivial(content: &str) -> bool {
    content.lines().all(|l| {
        l.trim()
            .chars()
            .all(|c| matches!(c, '}' | ')' | ']' | ';' | ','))
    })
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Chunks one file: code along its symbols, text at headings or in windows.
pub fn chunk_file(
    file: &str,
    kind: FileKind,
    text: &str,
    file_sha: &str,
    symbols: Option<&FileSymbols>,
) -> Vec<ChunkRecord> {
    let stem = file
        .rsplit('/')
        .next()
        .unwrap_or(file)
        .split('.')
        .next()
        .unwrap_or(file);
    let line_count = crate::workspace::count_lines(text);
    match kind {
        FileKind::Code(lang) => {
            let owned;
            let symbols = match symbols {
                Some(s) => s,
                None => {
                    owned = crate::analysis::analyze_source(lang, text);
                    &owned
                }
            };
            let pieces = code_pieces(symbols, line_count, stem);
            records(file, lang.id, text, file_sha, pieces)
        }
        FileKind::Text => {
            let lower = file.to_ascii_lowercase();
            let markdown =
                lower.ends_with(".md") || lower.ends_with(".mdx") || lower.ends_with(".markdown");
            let language = lower
                .rsplit_once('.')
                .map_or("text", |(_, e)| e)
                .to_string();
            let pieces = text_pieces(text, stem, markdown);
            records(file, &language, text, file_sha, pieces)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "import os\n\nLIMIT = 3\n\nclass Cart:\n    \"\"\"A cart.\"\"\"\n    items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return sum(i.price for i in self.items)\n\n\ndef helper():\n    return 1\n";

    fn chunks(path: &str, text: &str) -> Vec<ChunkRecord> {
        let kind = file_kind(path, text.len() as u64).unwrap();
        chunk_file(path, kind, text, "sha", None)
    }

    #[test]
    fn code_is_cut_along_definitions_and_nothing_is_lost() {
        let got = chunks("app/cart.py", PY);
        let summary: Vec<(String, String, u32, u32)> = got
            .iter()
            .map(|c| {
                (
                    c.chunk_type.clone(),
                    c.name.clone(),
                    c.line_start,
                    c.line_end,
                )
            })
            .collect();
        let expect = |t: &str, n: &str, a: u32, b: u32| (t.to_string(), n.to_string(), a, b);
        assert_eq!(
            summary,
            vec![
                expect("module", "cart", 1, 4),
                expect("class", "Cart", 5, 8),
                expect("method", "Cart.add", 9, 10),
                expect("method", "Cart.total", 12, 13),
                expect("function", "helper", 16, 17),
            ]
        );
        // Every non-blank line is in some chunk.
        for (i, line) in PY.lines().enumerate() {
            let n = i as u32 + 1;
            if !line.trim().is_empty() {
                assert!(
                    got.iter().any(|c| c.line_start <= n && n <= c.line_end),
                    "line {n} lost"
                );
            }
        }
        // Ids are unique and stable; terms include identifier parts and the path.
        let again = chunks("app/cart.py", PY);
        assert_eq!(got, again);
        let mut ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
        ids.dedup();
        assert_eq!(ids.len(), got.len());
        assert!(got[2].text.split(' ').any(|t| t == "append"));
        assert!(got[2].text.split(' ').any(|t| t == "cart"));
    }

    #[test]
    fn long_units_are_split_with_their_signature() {
        let body: String = (0..200).map(|i| format!("    x{i} = {i}\n")).collect();
        let text = format!("def big(a, b):\n{body}");
        let got = chunks("big.py", &text);
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].line_start, got[0].line_end), (1, 80));
        assert_eq!((got[1].line_start, got[1].line_end), (81, 160));
        assert!(
            got[1].metadata.contains("def big(a, b)"),
            "{}",
            got[1].metadata
        );
        assert_ne!(got[0].fingerprint, got[1].fingerprint);
    }

    #[test]
    fn docs_are_cut_at_headings_and_unindexable_files_are_skipped() {
        let md =
            "# Title\nintro\n\n## Setup\nrun it\n```\n# not a heading\n```\n## Usage\ncall it\n";
        let got = chunks("README.md", md);
        let names: Vec<&str> = got.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["README", "Setup", "Usage"]);
        assert_eq!(file_kind("package-lock.json", 10), None);
        assert_eq!(file_kind("dist/app.min.js", 10), None);
        assert_eq!(file_kind("image.png", 10), None);
        assert_eq!(file_kind("docs/big.json", 10 << 20), None);
        assert!(matches!(
            file_kind("src/a.ts", 10 << 20),
            Some(FileKind::Code(_))
        ));
        assert!(looks_generated(&"x".repeat(5000)));
        assert!(!looks_generated(PY));
    }
}
