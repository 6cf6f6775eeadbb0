//! Tree helpers every outline extractor uses: node text, positions, doc comments, body excerpts.
//!
//! Doc comments follow one rule for all languages: the comments directly above a declaration
//! (no blank line in between, attributes and decorators may sit between them) belong to it; a
//! comment block among the file's leading statements that is followed by a blank line or by
//! more imports describes the file.

use crate::lang::outline::{Location, Position};
use tree_sitter::{Node, Point};

/// The source text of a node ("" when the range is not on char boundaries).
pub fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Collapses runs of whitespace to one space.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Collapsed text of a node, cut at `MAX_TYPE_CHARS`.
pub fn one_line(node: Node, src: &str) -> String {
    truncate(&collapse(text(node, src)), MAX_TYPE_CHARS)
}

/// Longest type or value text kept; longer ones end in `…`.
pub const MAX_TYPE_CHARS: usize = 200;

pub fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

pub fn position(point: Point) -> Position {
    Position {
        line: point.row + 1,
        column: point.column + 1,
    }
}

/// The node's span: start inclusive, end exclusive (1-based), as seed 002 shows them.
pub fn location(node: Node) -> Location {
    Location {
        file: String::new(),
        start: position(node.start_position()),
        end: position(node.end_position()),
    }
}

pub fn line(node: Node) -> usize {
    node.start_position().row + 1
}

/// Whether the node has a direct child (named or anonymous token) of this kind.
pub fn has_child(node: Node, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

pub fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).find(|c| c.kind() == kind)
}

/// The named children of `node`'s `field` child; none when it has no such child.
pub fn field_children<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    node.child_by_field_name(field)
        .map(named_children)
        .unwrap_or_default()
}

pub fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// Text of a type annotation without its leading `:` (TypeScript) or `->` (Python, Rust).
pub fn type_text(node: Node, src: &str) -> String {
    let raw = collapse(text(node, src));
    let trimmed = raw
        .trim_start_matches(':')
        .trim_start_matches("->")
        .trim()
        .to_string();
    truncate(&trimmed, MAX_TYPE_CHARS)
}

/// A string literal's content without quotes (handles `'…'`, `"…"`, backticks, Python prefixes).
pub fn unquote(raw: &str) -> String {
    let raw = raw.trim();
    let raw = raw.trim_start_matches(['r', 'b', 'u', 'f', 'R', 'B', 'U', 'F']);
    for quote in ["\"\"\"", "'''", "\"", "'", "`"] {
        if raw.len() >= 2 * quote.len() && raw.starts_with(quote) && raw.ends_with(quote) {
            return raw[quote.len()..raw.len() - quote.len()].to_string();
        }
    }
    raw.to_string()
}

/// Whether a node is a comment in any of our grammars.
pub fn is_comment(node: Node) -> bool {
    matches!(node.kind(), "comment" | "line_comment" | "block_comment")
}

/// Which comments count as documentation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DocStyle {
    /// `/** … */` blocks and runs of `//` lines (TypeScript, JavaScript, PHP, Java).
    Block,
    /// Runs of `//` lines (Go).
    Line,
    /// `///` and `/** … */` only (Rust); plain `//` comments are not docs.
    RustDoc,
    /// Runs of `#` lines (Ruby); `#!` and `# frozen_string_literal:`-style magic comments are not
    /// docs.
    Hash,
}

/// The doc comment directly above `node`, skipping over siblings of the `skip` kinds
/// (attributes, decorators, annotations).
pub fn doc_before(node: Node, src: &str, style: DocStyle, skip: &[&str]) -> Option<String> {
    let mut next_start = node.start_position().row;
    let mut sibling = node.prev_sibling();
    while let Some(s) = sibling.filter(|s| skip.contains(&s.kind())) {
        next_start = s.start_position().row;
        sibling = s.prev_sibling();
    }
    let mut run: Vec<&str> = Vec::new();
    while let Some(comment) = sibling.filter(|s| is_comment(*s)) {
        // Tree-sitter-rust line comments include their newline: end on the next row, column 0.
        let end = comment.end_position();
        let end_row = if end.column == 0 && end.row > comment.start_position().row {
            end.row - 1
        } else {
            end.row
        };
        if end_row + 1 < next_start {
            break;
        }
        let raw = text(comment, src);
        let wanted = match style {
            DocStyle::Block => raw.starts_with("/**") || raw.starts_with("//"),
            DocStyle::Line => raw.starts_with("//"),
            DocStyle::Hash => raw.starts_with('#') && !raw.starts_with("#!") && !is_magic(raw),
            DocStyle::RustDoc => {
                (raw.starts_with("///") && !raw.starts_with("////")) || raw.starts_with("/**")
            }
        };
        if !wanted {
            break;
        }
        run.push(raw);
        // A `/** … */` block is a complete doc on its own; line comments continue upwards.
        if raw.starts_with("/*") {
            break;
        }
        next_start = comment.start_position().row;
        sibling = comment.prev_sibling();
    }
    if run.is_empty() {
        return None;
    }
    run.reverse();
    let cleaned = clean_comment(&run.join("\n"));
    (!cleaned.is_empty()).then_some(cleaned)
}

/// A Ruby or Python magic comment (`# frozen_string_literal: true`, `# -*- coding: utf-8 -*-`).
pub fn is_magic(comment: &str) -> bool {
    let body = comment.trim_start_matches('#').trim();
    body.starts_with("-*-")
        || [
            "frozen_string_literal:",
            "encoding:",
            "coding:",
            "warn_indent:",
        ]
        .iter()
        .any(|key| body.starts_with(key))
}

/// Longest doc comment kept.
const MAX_DOC_CHARS: usize = 1200;

/// One line of a comment without its marker (`///`, `//!`, `//`, `/**`, `/*!`, `/*`, `*/`, `#`,
/// or the `*` that starts a block comment's inner line) and without a closing `*/`; the text
/// after the marker keeps its spacing. `None` when the line is not a comment line. The one
/// reading of comment markers that the outline, the chunker and the relevance evidence share.
pub fn comment_line(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let rest = ["/**", "/*!", "/*", "*/", "///", "//!", "//", "#"]
        .iter()
        .find_map(|marker| line.strip_prefix(marker))
        .or_else(|| {
            let rest = line.strip_prefix('*')?;
            (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest)
        })?;
    Some(rest.trim_end().trim_end_matches("*/"))
}

/// Comment text without its markers: `/** … */`, leading `*`, `//`, `///`, `//!`, `#`.
pub fn clean_comment(raw: &str) -> String {
    let raw = raw.trim();
    let body = if raw.starts_with("/*") {
        raw.trim_start_matches("/**")
            .trim_start_matches("/*!")
            .trim_start_matches("/*")
            .trim_end_matches("*/")
    } else {
        raw
    };
    let mut lines: Vec<&str> = body
        .lines()
        .map(|line| {
            let line = line.trim();
            let line = comment_line(line).unwrap_or(line);
            line.strip_prefix(' ').unwrap_or(line).trim_end()
        })
        .collect();
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    truncate(&lines.join("\n"), MAX_DOC_CHARS)
}

/// A docstring's text with its common indentation removed (like Python's `inspect.cleandoc`).
pub fn clean_docstring(raw: &str) -> String {
    let content = unquote(raw);
    let mut lines = content.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = vec![first];
    out.extend(
        rest.iter()
            .map(|l| l.get(indent..).unwrap_or(l.trim()).trim_end().to_string()),
    );
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    truncate(&out.join("\n"), MAX_DOC_CHARS)
}

/// Lines of a body excerpt in detailed mode.
const BODY_EXCERPT_LINES: usize = 8;

/// The first lines of a body, its indentation kept, ending in `…` when cut.
pub fn body_excerpt(body: Node, src: &str) -> String {
    let line_start = src[..body.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let text = src.get(line_start..body.end_byte()).unwrap_or("");
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<&str> = lines.iter().take(BODY_EXCERPT_LINES).copied().collect();
    // The declaration line before the body's opening brace is not part of the body.
    if let Some(first) = out.first_mut() {
        let offset = body.start_byte() - line_start;
        if let Some(rest) = first.get(offset..) {
            *first = rest;
        }
    }
    let mut excerpt = truncate(&out.join("\n"), 800);
    if lines.len() > BODY_EXCERPT_LINES && !excerpt.ends_with('…') {
        excerpt.push_str("\n…");
    }
    excerpt
}

/// The file's own doc: the first comment run among the leading statements that is followed by
/// a blank line or by another leading statement (so it is not a declaration's doc).
/// `is_leading` says which statements may precede it (imports, package, namespace, `use`, and
/// comments that are not prose, such as Ruby's magic comments).
pub fn file_doc(root: Node, src: &str, is_leading: impl Fn(Node) -> bool) -> Option<String> {
    let nodes = named_children(root);
    let mut i = 0;
    while i < nodes.len() && (!is_comment(nodes[i]) || is_leading(nodes[i])) {
        if !is_leading(nodes[i]) {
            return None;
        }
        i += 1;
    }
    let start = i;
    while i < nodes.len() && is_comment(nodes[i]) {
        if i > start && nodes[i].start_position().row > nodes[i - 1].end_position().row + 1 {
            break;
        }
        i += 1;
    }
    if start >= nodes.len() {
        return None;
    }
    let run = &nodes[start..i];
    let last = run[run.len() - 1];
    let detached = match nodes.get(i) {
        None => true,
        Some(next) => {
            next.start_position().row > last.end_position().row + 1
                || (last.end_position().column == 0
                    && next.start_position().row > last.end_position().row)
                || is_leading(*next)
        }
    };
    if !detached {
        return None;
    }
    let raw: Vec<&str> = run.iter().map(|n| text(*n, src)).collect();
    let cleaned = clean_comment(&raw.join("\n"));
    (!cleaned.is_empty() && !looks_like_license(&cleaned)).then_some(cleaned)
}

/// License headers and tool directives (`eslint-disable`, `@ts-nocheck`, `-*- coding -*-`)
/// say nothing about what the file does.
pub fn looks_like_license(doc: &str) -> bool {
    let lower = doc.to_ascii_lowercase();
    const DIRECTIVES: &[&str] = &[
        "eslint",
        "@ts-",
        "prettier",
        "tslint",
        "jshint",
        "global ",
        "@flow",
        "noqa",
        "pylint",
        "-*-",
        "@format",
        "phpcs",
        "@generated",
    ];
    lower.contains("copyright")
        || lower.contains("license")
        || DIRECTIVES.iter().any(|d| lower.starts_with(d))
}

/// The last segment of a path-like name (`a/b/c` → `c`, `App\Models\User` → `User`).
pub fn last_segment(path: &str) -> &str {
    path.rsplit(['/', '\\', '.', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(path)
}
