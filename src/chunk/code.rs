//! The tree-sitter strategy for the languages cut by their definitions (`Chunking::Code`).
//!
//! Units are the definitions `analysis` finds with each language's tags query (one parse serves
//! both), mapped back to their syntax nodes: functions and methods (the seed's main search unit),
//! classes and other type-likes (an outline: members' bodies are elided), and the module
//! (docstring, imports, top-level statements and an outline of everything else). Functions nested
//! in functions stay inside their parent. Each unit gets its signature, docstring (Python
//! docstrings, doc comments), imports resolved to full names and the symbols it refers to;
//! PHP files then go through the Laravel/Filament enrichments.
//!
//! Broken code still chunks: a definition containing a syntax error, and every top-level error
//! region, becomes a `lines` chunk flagged `syntax_error` instead of a misleading AST chunk.

use super::imports::{Imports, SkipRanges};
use super::split::Emitter;
use super::unit::{Elide, Unit, body_stub};
use super::{Chunk, ChunkKind, Source, laravel};
use crate::analysis::{Reach, Symbol, SymbolKind, symbols_in_tree};
use crate::lang::{Framework, LanguageDef};
use crate::syntax::{self, node_text};
use std::ops::Range;
use tree_sitter::Node;

/// Chunks a whole file of a tree-sitter language.
pub(crate) fn chunk(
    source: &Source,
    lang: &'static LanguageDef,
    emitter: &Emitter,
) -> (Vec<Chunk>, usize) {
    let parsed = syntax::parse(lang, source.text);
    let errors = parsed.errors.len();
    let Some(tree) = &parsed.tree else {
        return (super::lines::chunk(source, emitter), errors);
    };
    let root = tree.root_node();
    let code = CodeUnits::build(source, parsed.code_lang, root);
    let mut module = Unit::new(
        ChunkKind::Module,
        module_name(source.file),
        0..source.text.len(),
    )
    .key("module")
    .node(root);
    module.meta.docstring = module_docstring(parsed.code_lang, root, source.text);
    module.meta.imports = code.imports.list().to_vec();
    module.meta.set(
        "symbols",
        code.units
            .iter()
            .filter(|u| u.kind != ChunkKind::Lines && is_top_level(u, &code.units))
            .map(|u| u.name.clone())
            .collect::<Vec<_>>(),
    );
    if let Some(ns) = code.imports.namespace().filter(|_| lang.package_scoped) {
        module.meta.set("namespace", ns);
    }
    if errors > 0 {
        module.meta.set("syntax_errors", errors);
    }
    module.nest(code.units);
    (emitter.emit(&module, lang.id), errors)
}

/// The module chunk's name: the path without extension.
pub(crate) fn module_name(file: &str) -> String {
    let name_start = file.rfind('/').map_or(0, |i| i + 1);
    match file[name_start..].rfind('.') {
        Some(dot) if dot > 0 => file[..name_start + dot].to_string(),
        _ => file.to_string(),
    }
}

fn is_top_level(unit: &Unit, all: &[Unit]) -> bool {
    !all.iter().any(|other| {
        other.range != unit.range
            && other.range.start <= unit.range.start
            && unit.range.end <= other.range.end
    })
}

/// Definitions deeper than this below the root are inside function bodies (closures, local
/// helpers), which stay in their function's chunk; not matching them saves query time. Deep
/// enough for `namespace { class { method } }`, Rust `mod { impl { fn } }` and a JavaScript
/// IIFE's `Widget.prototype.render = function …`.
const MAX_DEFINITION_DEPTH: u32 = 9;

/// The definition units of one parsed tree (flat; the caller nests them) and its imports.
pub(crate) struct CodeUnits<'t> {
    pub units: Vec<Unit<'t>>,
    pub imports: Imports,
}

/// A unit candidate with what nesting and enrichment need.
impl<'t> CodeUnits<'t> {
    pub fn build(source: &Source, lang: &'static LanguageDef, root: Node<'t>) -> CodeUnits<'t> {
        let text = source.text;
        let reach = Reach {
            max_start_depth: Some(MAX_DEFINITION_DEPTH),
            inside_functions: false,
        };
        let symbols = symbols_in_tree(lang, root, text, reach);
        let locals: Vec<String> = symbols
            .iter()
            // A class's scope may be its namespace, which still makes it the file's own.
            .filter(|s| s.scope.is_none() || lang.namespace_separator.is_some())
            .filter(|s| s.kind.is_type_like() || s.kind.is_callable() || s.kind == SymbolKind::Type)
            .map(|s| s.name.clone())
            .collect();
        let imports = Imports::read(lang, root, text, source.file, &locals);
        let mut units: Vec<Unit<'t>> = Vec::new();
        let mut impls: Vec<Node<'t>> = Vec::new();
        for symbol in &symbols {
            let Some(kind) = unit_kind(symbol.kind) else {
                continue;
            };
            let Some(node) = definition_node(root, symbol, source) else {
                continue;
            };
            if kind == ChunkKind::Module && body_node(node).is_none() {
                // `mod ledger;` declares a file; it is not a unit of this one.
                continue;
            }
            if lang.impl_blocks
                && let Some(imp) = enclosing_impl(node)
                && !impls.iter().any(|i| i.id() == imp.id())
            {
                impls.push(imp);
            }
            units.push(definition_unit(source, lang, kind, symbol, node, &imports));
        }
        for imp in impls {
            units.push(impl_unit(source, imp));
        }
        let mut units = keep_chunkable(units);
        error_units(source, root, &mut units);
        if lang.frameworks.contains(&Framework::Laravel) {
            laravel::enrich(source, root, &imports, &mut units);
        }
        for unit in units.iter_mut() {
            if unit.kind.is_type_like_kind() {
                super::laravel::di::apply(lang, unit, text, &imports);
            }
        }
        // Related symbols last, when enrichment has added its units (whose ranges are skipped
        // as their own chunks').
        let skips: Vec<(Range<usize>, Range<usize>)> = units
            .iter()
            .map(|u| (u.range.clone(), body_range(u).unwrap_or(u.range.clone())))
            .collect();
        for unit in units.iter_mut() {
            let Some(node) = unit.node else { continue };
            if unit.kind == ChunkKind::Lines {
                continue;
            }
            let skip = SkipRanges::new(
                skips
                    .iter()
                    .filter(|(outer, _)| {
                        *outer != unit.range
                            && unit.range.start <= outer.start
                            && outer.end <= unit.range.end
                    })
                    .map(|(_, body)| body.clone())
                    .collect(),
            );
            let refs = imports.references(node, text, &skip);
            let own = unit.meta.fqcn.clone().or(unit.meta.qualified_name.clone());
            unit.meta
                .relate(refs.into_iter().filter(|r| Some(r) != own.as_ref()));
        }
        CodeUnits { units, imports }
    }
}

/// What a body elision hides (skipped when a parent computes its references).
fn body_range(unit: &Unit) -> Option<Range<usize>> {
    match &unit.elide {
        Elide::Body { body, .. } => Some(body.clone()),
        Elide::Whole { .. } => Some(unit.range.clone()),
        Elide::Keep => None,
    }
}

impl ChunkKind {
    /// Kinds whose members become their own chunks.
    pub(crate) fn is_type_like_kind(self) -> bool {
        matches!(
            self,
            ChunkKind::Class
                | ChunkKind::Interface
                | ChunkKind::Trait
                | ChunkKind::Enum
                | ChunkKind::Struct
                | ChunkKind::Impl
                | ChunkKind::FilamentResource
        )
    }

    fn is_container(self) -> bool {
        self.is_type_like_kind() || self == ChunkKind::Module
    }
}

fn unit_kind(kind: SymbolKind) -> Option<ChunkKind> {
    Some(match kind {
        SymbolKind::Function => ChunkKind::Function,
        SymbolKind::Method => ChunkKind::Method,
        SymbolKind::Class => ChunkKind::Class,
        SymbolKind::Interface => ChunkKind::Interface,
        SymbolKind::Trait => ChunkKind::Trait,
        SymbolKind::Enum => ChunkKind::Enum,
        SymbolKind::Struct => ChunkKind::Struct,
        SymbolKind::Type => ChunkKind::Type,
        SymbolKind::Module => ChunkKind::Module,
        SymbolKind::Macro => ChunkKind::Macro,
        _ => return None,
    })
}

/// The syntax node of a symbol: the deepest node starting at the symbol's position whose
/// `name` is the symbol's name. Found going down from the root with one cursor: asking a node
/// for its parent walks down from the root each time.
fn definition_node<'t>(root: Node<'t>, symbol: &Symbol, source: &Source) -> Option<Node<'t>> {
    let byte = source.lines.start_of(symbol.line) + symbol.column.saturating_sub(1);
    let named = |node: Node| {
        // `name: …` for declarations; `left: a.b.name` for `obj.prototype.name = function …`.
        node.child_by_field_name("name")
            .or_else(|| node.child_by_field_name("left"))
            .is_some_and(|n| {
                let written = node_text(n, source.text).trim();
                written == symbol.name || written.rsplit('.').next() == Some(symbol.name.as_str())
            })
    };
    let mut cursor = root.walk();
    let mut found = None;
    loop {
        let node = cursor.node();
        if node.start_byte() == byte && named(node) {
            found = Some(node);
        }
        if node.start_byte() > byte || cursor.goto_first_child_for_byte(byte).is_none() {
            return found;
        }
    }
}

/// Where a definition ends with the `;` or `,` that closes it, which its node leaves to the
/// enclosing body: a class field holding a function (`load = () => fetch(url);`) or an object
/// literal's method (`update: () => reload(),`). Left out, it would stay behind in the
/// container's chunk, splitting the definition's line between two chunks.
fn with_terminator(node: Node) -> usize {
    let end = node.end_byte();
    match node.next_sibling() {
        Some(next)
            if !next.is_named() && matches!(next.kind(), ";" | ",") && next.start_byte() == end =>
        {
            next.end_byte()
        }
        _ => end,
    }
}

fn enclosing_impl(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        match n.kind() {
            "impl_item" => return Some(n),
            "declaration_list" => current = n.parent(),
            _ => return None,
        }
    }
    None
}

/// Wrappers that belong to a definition: decorators, `export`, `const f = …`, Go `type`.
fn outer_node(node: Node) -> Node {
    let mut n = node;
    while let Some(parent) = n.parent() {
        let single_child = parent.named_child_count() == 1
            || (parent.kind() == "decorated_definition")
            || (parent.kind() == "export_statement");
        let wraps = match parent.kind() {
            "decorated_definition" | "export_statement" | "ambient_declaration" => true,
            "lexical_declaration" | "variable_declaration" | "type_declaration" => single_child,
            "expression_statement" => n.kind() == "assignment_expression",
            _ => false,
        };
        if !wraps {
            break;
        }
        n = parent;
    }
    n
}

fn is_lead_kind(kind: &str) -> bool {
    matches!(
        kind,
        "comment"
            | "line_comment"
            | "block_comment"
            | "attribute_item"
            | "decorator"
            | "annotation"
    )
}

/// Doc comments and attributes directly above a definition (no blank line between), not
/// counting a trailing comment of the previous line.
pub(crate) fn leading<'t>(outer: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut first = outer;
    while let Some(prev) = first.prev_named_sibling() {
        if !is_lead_kind(prev.kind()) || prev.end_position().row + 1 < first.start_position().row {
            break;
        }
        if let Some(before) = prev.prev_sibling()
            && before.end_position().row == prev.start_position().row
            && !is_lead_kind(before.kind())
        {
            break;
        }
        out.push(prev);
        first = prev;
    }
    out.reverse();
    out
}

fn body_node<'t>(node: Node<'t>) -> Option<Node<'t>> {
    node.child_by_field_name("body")
        .or_else(|| {
            node.child_by_field_name("value")
                .and_then(|v| v.child_by_field_name("body"))
        })
        .or_else(|| {
            node.child_by_field_name("right")
                .and_then(|v| v.child_by_field_name("body"))
        })
        .or_else(|| {
            // Go `type X struct { … }`: the field list.
            let ty = node.child_by_field_name("type")?;
            let mut cursor = ty.walk();
            ty.named_children(&mut cursor)
                .find(|c| matches!(c.kind(), "field_declaration_list" | "method_spec_list"))
        })
}

fn definition_unit<'t>(
    source: &Source,
    lang: &'static LanguageDef,
    kind: ChunkKind,
    symbol: &Symbol,
    node: Node<'t>,
    imports: &Imports,
) -> Unit<'t> {
    let text = source.text;
    let outer = outer_node(node);
    let lead = leading(outer);
    let lead_start = lead.first().map_or(outer.start_byte(), |n| n.start_byte());
    let start = line_start_if_indented(source, lead_start);
    let range = start..with_terminator(outer);
    let indented = lang.indented_blocks;
    let body = body_node(node);
    let elide = match body {
        Some(body) => Elide::Body {
            lead: (lead_start < outer.start_byte()).then_some(lead_start..outer.start_byte()),
            body: body.start_byte()..body.end_byte(),
            stub: body_stub(node_text(body, text), indented),
        },
        None => {
            let first_line_end = text[outer.start_byte()..outer.end_byte()]
                .find('\n')
                .map(|i| outer.start_byte() + i);
            match first_line_end {
                Some(end) => Elide::Body {
                    lead: (lead_start < outer.start_byte())
                        .then_some(lead_start..outer.start_byte()),
                    body: end..outer.end_byte(),
                    stub: " …".to_string(),
                },
                None => Elide::Keep,
            }
        }
    };
    let mut kind = kind;
    if kind == ChunkKind::Function
        && lang.jsx
        && symbol.name.starts_with(|c: char| c.is_ascii_uppercase())
        && contains_jsx(node)
    {
        kind = ChunkKind::Component;
    }
    // `Widget.prototype.render = function …`: the assigned path is the identity.
    let key = match node.child_by_field_name("left") {
        Some(left) if node.kind() == "assignment_expression" => node_text(left, text).to_string(),
        _ => symbol.qualified_name.clone(),
    };
    let mut unit = Unit::new(kind, symbol.name.clone(), range)
        .key(key.clone())
        .node(node)
        .elide(elide)
        .header(symbol.signature.clone());
    unit.mergeable = matches!(
        kind,
        ChunkKind::Function
            | ChunkKind::Method
            | ChunkKind::Type
            | ChunkKind::Interface
            | ChunkKind::Enum
            | ChunkKind::Struct
    );
    unit.meta.qualified_name = Some(key);
    unit.meta.signature = Some(symbol.signature.clone());
    unit.meta.docstring = docstring(lang, node, &lead, text);
    unit.meta.set("exported", symbol.exported);
    let namespaced = lang.namespace_separator.is_some();
    if namespaced {
        unit.meta.fqcn = Some(symbol.qualified_name.clone());
    }
    if kind.is_type_like_kind() && symbol.scope.as_deref().is_none_or(|_| namespaced) {
        unit.meta.imports = imports.list().to_vec();
    }
    unit
}

fn impl_unit<'t>(source: &Source, node: Node<'t>) -> Unit<'t> {
    let text = source.text;
    let ty = node
        .child_by_field_name("type")
        .map_or("", |t| node_text(t, text))
        .split('<')
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    let trait_name = node
        .child_by_field_name("trait")
        .map(|t| node_text(t, text).to_string());
    let name = match &trait_name {
        Some(t) => format!("impl {t} for {ty}"),
        None => format!("impl {ty}"),
    };
    let signature = node
        .child_by_field_name("body")
        .map_or(node_text(node, text), |b| {
            &text[node.start_byte()..b.start_byte()]
        })
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let lead = leading(node);
    let lead_start = lead.first().map_or(node.start_byte(), |n| n.start_byte());
    let body = node.child_by_field_name("body");
    let mut unit = Unit::new(
        ChunkKind::Impl,
        name.clone(),
        line_start_if_indented(source, lead_start)..node.end_byte(),
    )
    .key(name)
    .node(node)
    .header(signature.clone());
    if let Some(body) = body {
        unit.elide = Elide::Body {
            lead: (lead_start < node.start_byte()).then_some(lead_start..node.start_byte()),
            body: body.start_byte()..body.end_byte(),
            stub: "{ … }".into(),
        };
    }
    unit.meta.signature = Some(signature);
    unit.meta.set("type_name", ty);
    if let Some(t) = trait_name {
        unit.meta.set("trait_name", t);
    }
    unit
}

pub(crate) fn line_start_if_indented(source: &Source, byte: usize) -> usize {
    let line_start = source.lines.line_start_at(byte);
    if source.text[line_start..byte].trim().is_empty() {
        line_start
    } else {
        byte
    }
}

fn contains_jsx(node: Node) -> bool {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind().starts_with("jsx_") {
            return true;
        }
        for child in n.named_children(&mut cursor) {
            stack.push(child);
        }
    }
    false
}

/// Drops definitions nested in functions (they stay in their function's chunk) and members of
/// kinds that do not split into members (an interface's method signatures).
fn keep_chunkable(mut units: Vec<Unit>) -> Vec<Unit> {
    units.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
    });
    let mut kept: Vec<Unit> = Vec::new();
    // (end, is container) of the kept units enclosing the current one.
    let mut stack: Vec<(usize, bool)> = Vec::new();
    for unit in units {
        while stack
            .last()
            .is_some_and(|(end, _)| *end <= unit.range.start)
        {
            stack.pop();
        }
        if let Some((_, container)) = stack.last()
            && !container
        {
            continue;
        }
        let has_body = matches!(unit.elide, Elide::Body { .. });
        let nested = !stack.is_empty();
        if nested && !has_body && unit.kind != ChunkKind::Impl {
            // A one-line member (an abstract signature) reads best inside its parent.
            continue;
        }
        stack.push((unit.range.end, unit.kind.is_container()));
        kept.push(unit);
    }
    kept
}

/// Definitions that contain a syntax error, and top-level error regions, become flagged line
/// units: valid parts stay AST chunks, the broken part is kept verbatim.
pub(crate) fn error_units<'t>(source: &Source, root: Node<'t>, units: &mut Vec<Unit<'t>>) {
    if !root.has_error() {
        return;
    }
    let mut broken: Vec<Range<usize>> = Vec::new();
    units.retain(|u| {
        let bad = u.node.is_some_and(|n| n.has_error()) && u.kind.is_callable_kind();
        if bad {
            broken.push(u.range.clone());
        }
        !bad
    });
    // Units inside a broken one go with it.
    units.retain(|u| {
        !broken
            .iter()
            .any(|b| b.start <= u.range.start && u.range.end <= b.end)
    });
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            // Whole lines: the broken text is kept verbatim, never cut inside a line.
            let end_line = source
                .lines
                .line_of(node.end_byte().saturating_sub(1).max(node.start_byte()));
            let end = source
                .lines
                .start_of(end_line + 1)
                .min(source.text.len())
                .max(node.end_byte());
            let range = source.lines.line_start_at(node.start_byte())..end;
            if !units.iter().any(|u| {
                u.range.start <= range.start
                    && range.end <= u.range.end
                    && u.kind.is_callable_kind()
            }) && !broken
                .iter()
                .any(|b| b.start <= range.start && range.end <= b.end)
            {
                broken.push(range);
            }
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                stack.push(child);
            }
        }
    }
    broken.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::new();
    for r in broken {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    for range in merged {
        if range.is_empty() {
            continue;
        }
        let first = source.lines.line_of(range.start);
        let mut unit = Unit::new(ChunkKind::Lines, "", range)
            .key(format!("syntax_error:{}", error_key(source, first)))
            .elide(Elide::Whole {
                stub: "… (syntax error: see its lines chunk)".into(),
            });
        unit.meta.set("syntax_error", true);
        units.push(unit);
    }
}

/// A key for an error region that does not depend on its line: its first line's text.
fn error_key(source: &Source, line: usize) -> String {
    let start = source.lines.start_of(line);
    source.text[start..]
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(60)
        .collect()
}

impl ChunkKind {
    pub(crate) fn is_callable_kind(self) -> bool {
        matches!(
            self,
            ChunkKind::Function | ChunkKind::Method | ChunkKind::Component | ChunkKind::Macro
        )
    }
}

/// Python docstrings (first statement of the body), otherwise the doc comment above.
fn docstring(lang: &LanguageDef, node: Node, lead: &[Node], text: &str) -> Option<String> {
    if lang.docstrings {
        let body = node.child_by_field_name("body")?;
        return python_docstring(body, text);
    }
    let comments: Vec<&str> = lead
        .iter()
        .filter(|n| n.kind().contains("comment"))
        .map(|n| node_text(*n, text))
        .collect();
    if comments.is_empty() {
        return None;
    }
    clean_comment(&comments.join("\n"))
}

fn python_docstring(block: Node, text: &str) -> Option<String> {
    let first = block.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0).filter(|s| s.kind() == "string")?;
    let raw = node_text(string, text);
    let inner = raw
        .trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F'])
        .trim_start_matches("\"\"\"")
        .trim_start_matches("'''")
        .trim_end_matches("\"\"\"")
        .trim_end_matches("'''")
        .trim_matches(['"', '\'']);
    let cleaned = dedent(inner);
    (!cleaned.is_empty()).then_some(cleaned)
}

/// The module docstring (Python) or the comment block at the top of the file.
fn module_docstring(lang: &LanguageDef, root: Node, text: &str) -> Option<String> {
    if lang.docstrings {
        return python_docstring(root, text);
    }
    let mut cursor = root.walk();
    let mut comments = Vec::new();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            k if k.contains("comment") => comments.push(node_text(child, text)),
            "php_tag" | "package_clause" | "package_declaration" => {}
            _ => break,
        }
    }
    // Only file headers: `//!` in Rust, or a comment block that is not a definition's docblock.
    clean_comment(&comments.join("\n"))
}

/// Comment markers removed, lines trimmed, at most 600 characters.
pub(crate) fn clean_comment(raw: &str) -> Option<String> {
    let mut lines = Vec::new();
    for line in raw.lines() {
        let l = line.trim();
        let l = crate::lang::walk::comment_line(l)
            .unwrap_or(l)
            .trim_end_matches("*/")
            .trim();
        if l.starts_with('@') && !lines.is_empty() {
            // `@param`/`@return` tags: the summary above them is what matters for search.
            break;
        }
        if !l.is_empty() || !lines.is_empty() {
            lines.push(l.to_string());
        }
    }
    while lines.last().is_some_and(|l: &String| l.is_empty()) {
        lines.pop();
    }
    let joined = lines.join("\n");
    let joined: String = joined.chars().take(600).collect();
    (!joined.trim().is_empty()).then_some(joined)
}

fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            out.push(line.trim().to_string());
        } else {
            out.push(
                line.get(indent..)
                    .unwrap_or(line.trim())
                    .trim_end()
                    .to_string(),
            );
        }
    }
    out.join("\n").trim().chars().take(600).collect()
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{chunk, field, find, fixture, outline, strings};

    /// `type name @start-end`, one per chunk, compared with the expected outline.
    fn check(file: &str, text: &str, expected: &str) {
        let result = chunk(file, text);
        let actual = outline(&result.chunks);
        let expected: Vec<&str> = expected.trim().lines().map(str::trim).collect();
        assert_eq!(actual, expected, "\nactual:\n{}", actual.join("\n"));
    }

    #[test]
    fn python_functions_classes_methods_and_module() {
        check(
            "pkg/auth.py",
            r#""""Auth helpers."""
import hashlib


class Hasher:
    """Hashes passwords."""

    rounds = 3

    def hash(self, password: str) -> str:
        """One-way hash."""
        digest = hashlib.sha256(password.encode())
        for _ in range(self.rounds):
            digest = hashlib.sha256(digest.digest())
        return digest.hexdigest()

    def verify(self, password: str, expected: str) -> bool:
        def same(a, b):
            return a == b
        return same(self.hash(password), expected)


@cache
def default_hasher() -> Hasher:
    return Hasher()
"#,
            "
            module pkg/auth @1-25
            class Hasher @5-20
            method hash @10-15
            method verify @17-20
            function default_hasher @23-25
            ",
        );
        let result = chunk(
            "pkg/auth.py",
            "\"\"\"Auth helpers.\"\"\"\nimport hashlib\n\nclass Hasher:\n    \"\"\"Hashes passwords.\"\"\"\n    def hash(self, p: str) -> str:\n        \"\"\"One-way hash.\"\"\"\n        return p\n",
        );
        let module = find(&result.chunks, ChunkKind::Module, "pkg/auth");
        assert_eq!(module.metadata.docstring.as_deref(), Some("Auth helpers."));
        assert_eq!(module.metadata.imports, vec!["hashlib"]);
        assert_eq!(strings(module, "symbols"), vec!["Hasher"]);
        assert!(
            module.content.contains("class Hasher:\n    ..."),
            "{}",
            module.content
        );
        let class = find(&result.chunks, ChunkKind::Class, "Hasher");
        assert_eq!(
            class.metadata.docstring.as_deref(),
            Some("Hashes passwords.")
        );
        assert!(
            class
                .content
                .contains("def hash(self, p: str) -> str:\n        ..."),
            "{}",
            class.content
        );
    }

    #[test]
    fn python_fixture_service_with_constructor_injection() {
        let result = fixture("python-service", "src/orderly/services/order_service.py");
        let service = find(&result.chunks, ChunkKind::Class, "OrderService");
        assert_eq!(service.line_start, 24);
        let deps = field(service, "injected_dependencies");
        assert_eq!(deps[0]["class"], "orderly.db.repository.OrderRepository");
        assert_eq!(deps[0]["variable"], "orders");
        assert_eq!(
            deps[1]["class"],
            "orderly.services.email_service.EmailService"
        );
        assert_eq!(
            service.metadata.related_symbols[..2],
            [
                "orderly.db.repository.OrderRepository",
                "orderly.services.email_service.EmailService"
            ]
        );
        let place = find(&result.chunks, ChunkKind::Method, "place_order");
        assert_eq!((place.line_start, place.line_end), (31, 50));
        assert_eq!(
            place.metadata.qualified_name.as_deref(),
            Some("OrderService.place_order")
        );
        assert_eq!(
            place.metadata.docstring.as_deref(),
            Some("Create an order for ``user`` and send the confirmation e-mail.")
        );
        assert_eq!(
            place.metadata.signature.as_deref(),
            Some("async def place_order(self, user: User, payload: OrderCreate) -> Order:")
        );
        assert!(
            place
                .metadata
                .related_symbols
                .contains(&"orderly.models.order.OrderLine".to_string())
        );
        let module = find(
            &result.chunks,
            ChunkKind::Module,
            "src/orderly/services/order_service",
        );
        assert!(
            module
                .metadata
                .imports
                .contains(&"orderly.utils.pagination.PageParams".to_string())
        );
    }

    #[test]
    fn typescript_components_interfaces_arrow_functions_and_classes() {
        check(
            "src/Cart.tsx",
            r#"import { useState } from 'react';
import { api } from './api';

/** A cart line. */
export interface Line {
  sku: string;
  qty: number;
}

export const total = (lines: Line[]): number => {
  return lines.reduce((sum, l) => sum + l.qty, 0);
};

export function CartSummary({ lines }: { lines: Line[] }) {
  const [open, setOpen] = useState(false);
  return <Badge count={total(lines)} onClick={() => setOpen(!open)} />;
}

export class CartApi {
  constructor(private readonly client: ApiClient) {}

  async load(id: string): Promise<Line[]> {
    return this.client.get(`/carts/${id}`);
  }
}
"#,
            "
            module src/Cart @1-25
            interface Line @4-8
            function total @10-12
            component CartSummary @14-17
            class CartApi @19-25
            method constructor, load @20-24
            ",
        );
        let result = chunk(
            "src/Cart.tsx",
            "import { useState } from 'react';\n\n/** A cart line. */\nexport interface Line {\n  sku: string;\n}\n",
        );
        let line = find(&result.chunks, ChunkKind::Interface, "Line");
        assert_eq!(line.metadata.docstring.as_deref(), Some("A cart line."));
        assert_eq!(field(line, "exported"), true);
    }

    /// A field holding a function and an object literal's arrow method are methods whose
    /// chunks end with the `;` or `,` that closes them, so their line is in one chunk.
    #[test]
    fn function_valued_fields_and_literal_methods_keep_their_terminator() {
        let text = "export class Store {\n  count = 0;\n  load = (id: string) => fetch(id);\n  reset() {\n    this.count = 0;\n  }\n}\nconst api = {\n  save: (user) => post(user),\n  limit: 3,\n};\n";
        let result = chunk("src/store.ts", text);
        let methods = result
            .chunks
            .iter()
            .find(|c| c.kind == ChunkKind::Method)
            .unwrap();
        assert!(
            methods
                .content
                .contains("load = (id: string) => fetch(id);"),
            "{}",
            methods.content
        );
        let store = find(&result.chunks, ChunkKind::Class, "Store");
        assert!(!store.content.contains("fetch(id)"), "{}", store.content);
        let line = "save: (user) => post(user),";
        assert!(
            result
                .chunks
                .iter()
                .any(|c| c.line_start <= 9 && 9 <= c.line_end && c.content.contains(line)),
            "{}",
            outline(&result.chunks).join("\n")
        );
    }

    #[test]
    fn ts_fixture_resolves_imports_to_workspace_paths() {
        let result = fixture("ts-app", "src/services/api.ts");
        let client = find(&result.chunks, ChunkKind::Class, "ApiClient");
        assert_eq!(
            client.metadata.signature.as_deref(),
            Some("class ApiClient extends HttpClient")
        );
        assert!(
            client
                .metadata
                .related_symbols
                .contains(&"src/services/api#HttpClient".to_string())
        );
        let list = fixture("ts-app", "src/components/ProductList.tsx");
        let component = find(&list.chunks, ChunkKind::Component, "ProductList");
        assert!(
            component
                .metadata
                .related_symbols
                .iter()
                .any(|s| s.ends_with("ProductCard#ProductCard")
                    || s.ends_with("ProductCard#default")),
            "{:?}",
            component.metadata.related_symbols
        );
    }

    #[test]
    fn go_java_rust_units() {
        let go = fixture("polyglot", "go/internal/quote/quote.go");
        let quoter = find(&go.chunks, ChunkKind::Struct, "Quoter");
        assert_eq!((quoter.line_start, quoter.line_end), (17, 22));
        let offers = find(&go.chunks, ChunkKind::Method, "Offers");
        assert_eq!(
            offers.metadata.qualified_name.as_deref(),
            Some("Quoter.Offers")
        );

        let java = fixture(
            "polyglot",
            "java/src/main/java/com/example/inventory/InventoryService.java",
        );
        let service = find(&java.chunks, ChunkKind::Class, "InventoryService");
        assert_eq!(
            field(service, "injected_dependencies")[0]["class"],
            "com.example.inventory.InventoryRepository"
        );
        let module = java
            .chunks
            .iter()
            .find(|c| c.kind == ChunkKind::Module)
            .unwrap();
        assert_eq!(field(module, "namespace"), "com.example.inventory");

        let rust = fixture("polyglot", "rust/src/money.rs");
        let imp = find(&rust.chunks, ChunkKind::Impl, "impl fmt::Display for Money");
        assert_eq!(field(imp, "trait_name"), "fmt::Display");
        let fmt = rust
            .chunks
            .iter()
            .find(|c| {
                c.name == "fmt" && c.line_start > imp.line_start && c.line_end <= imp.line_end
            })
            .expect("fmt inside the impl");
        assert_eq!(fmt.kind, ChunkKind::Method);
        assert!(
            imp.content.contains("fn fmt(") && imp.content.contains("{ … }"),
            "{}",
            imp.content
        );
        let lib = fixture("polyglot", "rust/src/lib.rs");
        assert!(
            !lib.chunks
                .iter()
                .any(|c| c.kind == ChunkKind::Module && c.name == "money"),
            "`mod money;` is a declaration, not a unit: {}",
            outline(&lib.chunks).join("\n")
        );
    }
}
