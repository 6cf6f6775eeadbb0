//! From units to chunks, the same way for every strategy.
//!
//! - A unit's content is its text with each child's body replaced by a stub (`{ … }`), so a
//!   class chunk reads as an outline and every line of code lives in exactly one leaf chunk.
//! - A unit over the token budget is split at its syntax node's child boundaries (statements,
//!   members, rules), recursing into a child that is itself too big, then lines, and as the last
//!   resort whitespace inside one enormous line: never inside a token. Every part after the
//!   first starts with the unit's signature so it still says what it belongs to.
//! - Adjacent tiny siblings of the same kind are merged (a model's four one-line relation
//!   methods make one chunk, not four weak ones).
//! - Ids hash the file, kind, key and an ordinal among equal keys: no line numbers, so an edit
//!   elsewhere in the file leaves them unchanged.

use super::tokens::{Part, TextTokens};
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, ChunkOptions, Metadata, Source, TokenCounter};
use crate::digest::sha256_hex;
use serde_json::json;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::Node;

/// Emits chunks for one file.
pub struct Emitter<'a> {
    source: &'a Source<'a>,
    opts: &'a ChunkOptions,
    tokens: &'a TokenCounter,
    /// Counts of stretches of this file (each word counted once).
    counts: TextTokens<'a>,
}

/// A chunk before ids and fingerprints.
struct Draft {
    kind: ChunkKind,
    name: String,
    key: String,
    lines: (usize, usize),
    content: String,
    meta: Metadata,
}

/// A stretch of a unit considered as one piece when splitting.
#[derive(Clone)]
struct Piece<'t> {
    range: Range<usize>,
    node: Option<Node<'t>>,
}

/// Deepest recursion into children when a child is itself too big.
const MAX_SPLIT_DEPTH: usize = 8;

impl<'a> Emitter<'a> {
    pub(crate) fn new(
        source: &'a Source<'a>,
        opts: &'a ChunkOptions,
        tokens: &'a TokenCounter,
    ) -> Emitter<'a> {
        Emitter {
            source,
            opts,
            tokens,
            counts: TextTokens::new(tokens, source.text),
        }
    }

    /// Tokens available to one chunk's content.
    pub(crate) fn budget(&self) -> usize {
        self.opts.content_budget()
    }

    fn text(&self) -> &'a str {
        self.source.text
    }

    /// Turns a unit tree into the file's chunks, ordered by position (outer before inner).
    pub(crate) fn emit(&self, root: &Unit, language: &str) -> Vec<Chunk> {
        let mut drafts = Vec::new();
        self.emit_unit(root, &mut drafts);
        drafts.sort_by(|a, b| a.lines.0.cmp(&b.lines.0).then(b.lines.1.cmp(&a.lines.1)));
        let mut seen: HashMap<(ChunkKind, String), usize> = HashMap::new();
        drafts
            .into_iter()
            .map(|d| {
                let ordinal = seen.entry((d.kind, d.key.clone())).or_insert(0);
                let id = chunk_id(self.source.file, d.kind, &d.key, *ordinal);
                *ordinal += 1;
                Chunk {
                    id,
                    file: self.source.file.to_string(),
                    language: language.to_string(),
                    kind: d.kind,
                    name: d.name,
                    line_start: d.lines.0,
                    line_end: d.lines.1,
                    fingerprint: sha256_hex(d.content.as_bytes()),
                    content: d.content,
                    metadata: d.meta,
                }
            })
            .collect()
    }

    fn emit_unit(&self, unit: &Unit, out: &mut Vec<Draft>) {
        let elisions = child_elisions(unit);
        let range = self.trim(unit.range.clone());
        if !range.is_empty() {
            let content = self.render(range.clone(), &elisions);
            if !content.trim().is_empty() {
                if self.fits(&content, &range, &elisions) {
                    out.push(self.draft(unit, range, content, unit.key.clone(), None));
                } else {
                    out.extend(self.split(unit, range, &elisions));
                }
            }
        }
        self.emit_children(&unit.children, out);
    }

    /// Children in order, with runs of tiny mergeable leaves of one kind merged.
    fn emit_children(&self, children: &[Unit], out: &mut Vec<Draft>) {
        let cap = self.opts.merge_below_tokens * 4;
        let mut group: Vec<(&Unit, usize)> = Vec::new();
        for child in children {
            let tiny = if child.mergeable && child.children.is_empty() {
                self.tiny_tokens(child)
            } else {
                None
            };
            match tiny {
                Some(tokens)
                    if group
                        .first()
                        .is_none_or(|(first, _)| first.kind == child.kind)
                        && group.iter().map(|(_, t)| t).sum::<usize>() + tokens <= cap =>
                {
                    group.push((child, tokens));
                }
                Some(tokens) => {
                    self.flush(&mut group, out);
                    group.push((child, tokens));
                }
                None => {
                    self.flush(&mut group, out);
                    self.emit_unit(child, out);
                }
            }
        }
        self.flush(&mut group, out);
    }

    /// Token count of a leaf unit when it is small enough to merge.
    fn tiny_tokens(&self, unit: &Unit) -> Option<usize> {
        let range = self.trim(unit.range.clone());
        self.tokens.at_most_with(
            &self.text()[range.clone()],
            self.opts.merge_below_tokens,
            || self.counts.count(&[Part::File(range.clone())]).tokens,
        )
    }

    fn flush(&self, group: &mut Vec<(&Unit, usize)>, out: &mut Vec<Draft>) {
        match group.len() {
            0 => {}
            1 => self.emit_unit(group[0].0, out),
            _ => {
                let units: Vec<&Unit> = group.iter().map(|(u, _)| *u).collect();
                out.push(self.merged(&units));
            }
        }
        group.clear();
    }

    fn merged(&self, units: &[&Unit]) -> Draft {
        let mut contents = Vec::new();
        let mut meta = Metadata::default();
        let mut members = Vec::new();
        for unit in units {
            let range = self.trim(unit.range.clone());
            let (first, last) = self.line_span(&range);
            contents.push(self.text()[range].to_string());
            meta.relate(unit.meta.related_symbols.iter().cloned());
            let mut member = serde_json::Map::new();
            member.insert("name".into(), json!(unit.name));
            member.insert("line_start".into(), json!(first));
            member.insert("line_end".into(), json!(last));
            if let Some(q) = &unit.meta.qualified_name {
                member.insert("qualified_name".into(), json!(q));
            }
            if let Some(s) = &unit.meta.signature {
                member.insert("signature".into(), json!(s));
            }
            if let Some(d) = &unit.meta.docstring {
                member.insert("docstring".into(), json!(d));
            }
            for (k, v) in &unit.meta.fields {
                member.insert(k.clone(), v.clone());
            }
            members.push(serde_json::Value::Object(member));
        }
        meta.fqcn = units[0]
            .meta
            .fqcn
            .as_ref()
            .and_then(|f| f.split("::").next().map(str::to_string));
        meta.set(
            "merged",
            units.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        );
        meta.set("members", members);
        let start = self.trim(units[0].range.clone());
        let end = self.trim(units[units.len() - 1].range.clone());
        Draft {
            kind: units[0].kind,
            name: units
                .iter()
                .map(|u| u.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            key: units
                .iter()
                .map(|u| u.key.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            lines: (self.line_span(&start).0, self.line_span(&end).1),
            content: contents.join("\n\n"),
            meta,
        }
    }

    fn draft(
        &self,
        unit: &Unit,
        range: Range<usize>,
        content: String,
        key: String,
        part: Option<(usize, usize)>,
    ) -> Draft {
        let lines = self.line_span(&range);
        let mut meta = unit.meta.clone();
        let name = if unit.kind == ChunkKind::Lines && unit.name.is_empty() {
            format!("lines {}-{}", lines.0, lines.1)
        } else {
            unit.name.clone()
        };
        if let Some((index, count)) = part {
            meta.set("part", json!({"index": index, "count": count}));
        }
        Draft {
            kind: unit.kind,
            name,
            key,
            lines,
            content,
            meta,
        }
    }

    /// Whether content (`range` rendered with `elisions`) fits the budget, counting only when
    /// the estimate cannot tell.
    fn fits(&self, content: &str, range: &Range<usize>, elisions: &[Elision]) -> bool {
        self.tokens
            .at_most_with(content, self.opts.content_budget(), || {
                self.counts
                    .count(&rendered_parts(range.clone(), elisions))
                    .tokens
            })
            .is_some()
    }

    /// Tokens of some text; none for blank text.
    fn count(&self, content: &str) -> usize {
        if content.trim().is_empty() {
            return 0;
        }
        self.tokens.count(content)
    }

    /// Tokens of `range` rendered with `elisions` (see [`render`](Self::render)), without
    /// rendering it; none for blank text.
    fn count_rendered(&self, range: Range<usize>, elisions: &[Elision]) -> usize {
        let counted = self.counts.count(&rendered_parts(range, elisions));
        if counted.blank { 0 } else { counted.tokens }
    }

    fn split(&self, unit: &Unit, range: Range<usize>, elisions: &[Elision]) -> Vec<Draft> {
        let mut out = Vec::new();
        let budget = self.opts.content_budget();
        let header = if unit.header.is_empty() {
            String::new()
        } else {
            format!("{} …\n", unit.header)
        };
        let header_tokens = self.count(&header);
        let room = budget.saturating_sub(header_tokens).max(budget / 2);
        let mut pieces = Vec::new();
        self.pieces(range.clone(), unit.node, elisions, room, 0, &mut pieces);
        // As few parts as greedy filling gives, then the smallest cap that still gives that
        // many: parts of even size instead of a full one and a scrap.
        let count = pack(&pieces, room).len();
        let largest = pieces.iter().map(|(_, t)| *t).max().unwrap_or(0).min(room);
        let (mut low, mut high) = (largest, room);
        while low < high {
            let mid = (low + high) / 2;
            if pack(&pieces, mid).len() <= count {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        let parts = pack(&pieces, low);
        let count = parts.len();
        for (i, part) in parts.into_iter().enumerate() {
            let part = self.trim(part);
            if part.is_empty() {
                continue;
            }
            let body = self.render(part.clone(), elisions);
            if body.trim().is_empty() {
                continue;
            }
            let content = if i == 0 {
                body
            } else {
                format!("{header}{body}")
            };
            let key = if i == 0 {
                unit.key.clone()
            } else {
                format!("{}#{}", unit.key, i + 1)
            };
            out.push(self.draft(unit, part, content, key, Some((i + 1, count))));
        }
        out
    }

    /// Cuts `range` into pieces that each fit `room` tokens, with their token counts.
    fn pieces<'t>(
        &self,
        range: Range<usize>,
        node: Option<Node<'t>>,
        elisions: &[Elision],
        room: usize,
        depth: usize,
        out: &mut Vec<(Range<usize>, usize)>,
    ) {
        let candidates = match node {
            Some(node) if depth < MAX_SPLIT_DEPTH => {
                self.node_pieces(range.clone(), node, elisions)
            }
            _ => Vec::new(),
        };
        let candidates = if candidates.len() > 1 {
            candidates
        } else {
            self.line_pieces(range.clone(), elisions)
        };
        if candidates.len() <= 1 {
            // One line over the budget (minified code, a data blob): cut at whitespace.
            for r in self.whitespace_pieces(range, room) {
                let tokens = self.count_rendered(r.clone(), &[]);
                out.push((r, tokens));
            }
            return;
        }
        for piece in candidates {
            let tokens = self.count_rendered(piece.range.clone(), elisions);
            if tokens <= room {
                out.push((piece.range, tokens));
            } else {
                self.pieces(piece.range, piece.node, elisions, room, depth + 1, out);
            }
        }
    }

    /// Pieces at the starts of a node's children (of its body when it has one), each snapped
    /// to the start of its line when only indentation precedes it.
    fn node_pieces<'t>(
        &self,
        range: Range<usize>,
        node: Node<'t>,
        elisions: &[Elision],
    ) -> Vec<Piece<'t>> {
        // Through wrappers with a single child (`return (…)`, a parenthesised JSX tree) to the
        // level where there is something to choose between.
        let mut container = node.child_by_field_name("body").unwrap_or(node);
        let mut cursor = container.walk();
        let mut children: Vec<Node<'t>> = container.named_children(&mut cursor).collect();
        while children.len() == 1 && children[0].named_child_count() > 0 {
            container = children[0];
            let mut inner = container.walk();
            children = container.named_children(&mut inner).collect();
        }
        let mut cuts: Vec<(usize, Option<Node<'t>>)> = vec![(range.start, None)];
        for child in children {
            let at = self.snap_to_line_start(child.start_byte());
            let last = cuts.last().map_or(range.start, |(c, _)| *c);
            // Parts start on whole lines: a child that starts mid-line stays with what precedes.
            let at_line_start = self.source.lines.line_start_at(at) == at;
            if at_line_start && at > last && at < range.end && !inside_elision(at, elisions) {
                cuts.push((at, Some(child)));
            } else if let Some(prev) = cuts.last_mut()
                && prev.1.is_none()
                && at == prev.0
            {
                prev.1 = Some(child);
            }
        }
        let mut pieces = Vec::new();
        for (i, (start, child)) in cuts.iter().enumerate() {
            let end = cuts.get(i + 1).map_or(range.end, |(c, _)| *c);
            // A piece spanning more than one child (comments before a method) recurses into the
            // child it ends with only when that child covers most of it.
            let node = child.filter(|c| c.end_byte() + 2 >= end || c.end_byte() >= end);
            pieces.push(Piece {
                range: *start..end,
                node,
            });
        }
        pieces
    }

    /// Pieces at line starts, preferring to keep blank-line-separated blocks together is left
    /// to the packer (which fills parts greedily in order).
    fn line_pieces(&self, range: Range<usize>, elisions: &[Elision]) -> Vec<Piece<'static>> {
        let text = self.text();
        let mut pieces = Vec::new();
        let mut start = range.start;
        for nl in memchr::memchr_iter(b'\n', &text.as_bytes()[range.clone()]) {
            let end = range.start + nl + 1;
            if end < range.end && !inside_elision(end, elisions) {
                pieces.push(Piece {
                    range: start..end,
                    node: None,
                });
                start = end;
            }
        }
        pieces.push(Piece {
            range: start..range.end,
            node: None,
        });
        pieces
    }

    /// Pieces of about `room` tokens cut after whitespace (never inside a word or literal that
    /// has no spaces); a run without any whitespace is cut at a character boundary.
    fn whitespace_pieces(&self, range: Range<usize>, room: usize) -> Vec<Range<usize>> {
        let text = self.text();
        // Aim below the budget: the estimate of characters per token is only approximate.
        let target_chars = (room * 2).max(16);
        let mut out = Vec::new();
        let mut start = range.start;
        while start < range.end {
            let mut end = start;
            let mut last_space = None;
            for (n, (i, ch)) in text[start..range.end].char_indices().enumerate() {
                end = start + i + ch.len_utf8();
                if ch.is_whitespace() {
                    last_space = Some(end);
                }
                if n + 1 >= target_chars {
                    break;
                }
            }
            let cut = if end >= range.end {
                range.end
            } else {
                last_space.filter(|s| *s > start).unwrap_or(end)
            };
            out.push(start..cut);
            start = cut;
        }
        out
    }

    /// The text of `range` with elisions applied (the parts of [`rendered_parts`] joined).
    pub(crate) fn render(&self, range: Range<usize>, elisions: &[Elision]) -> String {
        let text = self.text();
        let mut out = String::with_capacity(range.len());
        let mut pos = range.start;
        for e in elisions {
            // An elision may run past a range whose trailing whitespace was trimmed: clip it.
            if e.range.start < pos || e.range.start >= range.end {
                continue;
            }
            out.push_str(&text[pos..e.range.start]);
            out.push_str(&e.stub);
            pos = e.range.end.min(range.end);
        }
        out.push_str(&text[pos..range.end]);
        out
    }

    /// Drops leading blank lines and trailing whitespace.
    fn trim(&self, range: Range<usize>) -> Range<usize> {
        let text = self.text();
        let slice = &text[range.clone()];
        let trimmed_end = range.start + slice.trim_end().len();
        let mut start = range.start;
        let leading = &text[start..trimmed_end];
        let first_content = leading.len() - leading.trim_start().len();
        if let Some(nl) = leading[..first_content].rfind('\n') {
            start += nl + 1;
        }
        start..trimmed_end.max(start)
    }

    fn line_span(&self, range: &Range<usize>) -> (usize, usize) {
        let lines = &self.source.lines;
        let first = lines.line_of(range.start);
        let last = lines.line_of(range.end.saturating_sub(1).max(range.start));
        (first, last.max(first))
    }

    /// The start of `byte`'s line when only indentation and a little punctuation precede it
    /// (`->filters(`, `.then(`, `, item`): parts then begin on whole lines.
    fn snap_to_line_start(&self, byte: usize) -> usize {
        let line_start = self.source.lines.line_start_at(byte);
        let before = self.text()[line_start..byte].trim();
        if before.len() <= 3 && !before.chars().any(char::is_alphanumeric) {
            line_start
        } else {
            byte
        }
    }
}

/// What [`Emitter::render`] joins: the file's text of `range` with each elision that starts
/// inside it replaced by its stub (an elision running past the end is clipped).
fn rendered_parts(range: Range<usize>, elisions: &[Elision]) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut pos = range.start;
    for e in elisions {
        if e.range.start < pos || e.range.start >= range.end {
            continue;
        }
        parts.push(Part::File(pos..e.range.start));
        parts.push(Part::Literal(&e.stub));
        pos = e.range.end.min(range.end);
    }
    parts.push(Part::File(pos..range.end));
    parts
}

/// Consecutive pieces joined into parts of at most `cap` tokens (a piece over the cap is a
/// part of its own).
fn pack(pieces: &[(Range<usize>, usize)], cap: usize) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut current: Option<(Range<usize>, usize)> = None;
    for (piece, tokens) in pieces {
        current = match current {
            Some((r, t)) if t + tokens <= cap => Some((r.start..piece.end, t + tokens)),
            Some((r, _)) => {
                parts.push(r);
                Some((piece.clone(), *tokens))
            }
            None => Some((piece.clone(), *tokens)),
        };
    }
    if let Some((r, _)) = current {
        parts.push(r);
    }
    parts
}

/// A replacement inside a parent's content.
#[derive(Debug, Clone)]
pub(crate) struct Elision {
    pub range: Range<usize>,
    pub stub: String,
}

fn child_elisions(unit: &Unit) -> Vec<Elision> {
    let mut out = Vec::new();
    for child in &unit.children {
        match &child.elide {
            Elide::Body { lead, body, stub } => {
                if let Some(lead) = lead
                    && !lead.is_empty()
                {
                    out.push(Elision {
                        range: lead.clone(),
                        stub: String::new(),
                    });
                }
                out.push(Elision {
                    range: body.clone(),
                    stub: stub.clone(),
                });
            }
            Elide::Whole { stub } => out.push(Elision {
                range: child.range.clone(),
                stub: stub.clone(),
            }),
            Elide::Keep => {}
        }
    }
    out.sort_by_key(|e| e.range.start);
    // Overlapping elisions (a strategy bug) would garble the content: keep the first.
    let mut kept: Vec<Elision> = Vec::with_capacity(out.len());
    for e in out {
        if kept.last().is_none_or(|k| k.range.end <= e.range.start) {
            kept.push(e);
        }
    }
    kept
}

fn inside_elision(at: usize, elisions: &[Elision]) -> bool {
    elisions
        .iter()
        .any(|e| e.range.start < at && at < e.range.end)
}

/// The stable id of a chunk: 16 hex digits of SHA-256 over file, kind, key and ordinal.
pub fn chunk_id(file: &str, kind: ChunkKind, key: &str, ordinal: usize) -> String {
    let hex = sha256_hex(format!("{file}\0{}\0{key}\0{ordinal}", kind.as_str()).as_bytes());
    hex[..16].to_string()
}
