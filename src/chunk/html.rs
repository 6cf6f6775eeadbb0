//! HTML (seed 004 §1.2): the addressable parts of a page — semantic elements (`<nav>`,
//! `<main>`, `<form>` …), elements with an `id`, and custom elements (`<x-product-card>`,
//! `<cart-badge>`) — as `element` chunks named `tag#id`. Nested ones are their own chunks and
//! appear in their parent as `<tag …>…</tag>`. Blade views reuse [`element_units`] for the parts
//! of a layout outside `@section` blocks.

use super::code::{line_start_if_indented, module_name};
use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Source};
use crate::lang::LanguageDef;
use crate::syntax::{self, node_text};
use std::ops::Range;
use tree_sitter::Node;

/// Elements that are meaningful on their own.
const SEMANTIC: &[&str] = &[
    "section", "article", "nav", "header", "footer", "main", "form", "aside", "dialog", "template",
];

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
    let units = element_units(source, root, &[]);
    let mut module = Unit::new(
        ChunkKind::Module,
        module_name(source.file),
        0..source.text.len(),
    )
    .key("module")
    .node(root);
    if let Some(title) = first_element(root, "title", source.text) {
        module.meta.set("title", title);
    }
    module.meta.set(
        "elements",
        units.iter().map(|u| u.name.clone()).collect::<Vec<_>>(),
    );
    module.nest(units);
    (emitter.emit(&module, lang.id), errors)
}

/// Element units under `root`, leaving out elements that overlap `excluded` ranges (a Blade
/// section already covers them).
pub(crate) fn element_units<'t>(
    source: &Source,
    root: Node<'t>,
    excluded: &[Range<usize>],
) -> Vec<Unit<'t>> {
    let text = source.text;
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            stack.push(child);
        }
        if node.kind() != "element" {
            continue;
        }
        let overlaps = excluded
            .iter()
            .any(|r| r.start < node.end_byte() && node.start_byte() < r.end);
        if overlaps {
            continue;
        }
        let Some(tag) = node
            .named_child(0)
            .filter(|t| matches!(t.kind(), "start_tag" | "self_closing_tag"))
        else {
            continue;
        };
        let Some(tag_name) =
            child_of_kind(tag, "tag_name").map(|n| node_text(n, text).to_ascii_lowercase())
        else {
            continue;
        };
        let id = attribute(tag, "id", text);
        let custom = tag_name.contains('-') || tag_name.contains(':');
        if !(SEMANTIC.contains(&tag_name.as_str()) || id.is_some() || custom)
            || tag_name.starts_with("x-slot")
        {
            continue;
        }
        let name = match &id {
            Some(id) => format!("{tag_name}#{id}"),
            None => tag_name.clone(),
        };
        let end_tag = child_of_kind(node, "end_tag");
        let elide = match end_tag {
            Some(end) if end.start_byte() > tag.end_byte() => Elide::Body {
                lead: None,
                body: tag.end_byte()..end.start_byte(),
                stub: "…".into(),
            },
            _ => Elide::Keep,
        };
        let header = node_text(tag, text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut unit = Unit::new(
            ChunkKind::Element,
            name.clone(),
            line_start_if_indented(source, node.start_byte())..node.end_byte(),
        )
        .key(name)
        .node(node)
        .elide(elide)
        .header(header.chars().take(200).collect::<String>());
        // Elements with an id are addressed by it: never folded into a merged chunk.
        unit.mergeable = id.is_none();
        unit.meta.set("tag", &tag_name);
        if let Some(id) = id {
            unit.meta.set("id", id);
        }
        if let Some(class) = attribute(tag, "class", text) {
            unit.meta.set(
                "classes",
                class
                    .split_whitespace()
                    .take(20)
                    .map(str::to_string)
                    .collect::<Vec<_>>(),
            );
        }
        if tag_name == "form" {
            for attr in ["action", "method"] {
                if let Some(value) = attribute(tag, attr, text) {
                    unit.meta.set(attr, value);
                }
            }
        }
        out.push(unit);
    }
    out
}

fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}

/// An attribute's value, unquoted.
fn attribute(tag: Node, name: &str, text: &str) -> Option<String> {
    let mut cursor = tag.walk();
    for attr in tag.named_children(&mut cursor) {
        if attr.kind() != "attribute" {
            continue;
        }
        let attr_name = child_of_kind(attr, "attribute_name").map(|n| node_text(n, text))?;
        if attr_name.eq_ignore_ascii_case(name) {
            let value = attr
                .named_child(1)
                .map(|v| node_text(v, text).trim_matches(['"', '\'']).to_string());
            return value;
        }
    }
    None
}

/// The text of the first `<tag>` element (the page title).
fn first_element(root: Node, tag: &str, text: &str) -> Option<String> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "element"
            && let Some(start) = node.named_child(0)
            && child_of_kind(start, "tag_name")
                .is_some_and(|n| node_text(n, text).eq_ignore_ascii_case(tag))
        {
            let text_node = child_of_kind(node, "text")?;
            return Some(node_text(text_node, text).trim().to_string());
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, outline};

    #[test]
    fn semantic_elements_ids_and_nesting() {
        let result = fixture("polyglot", "web/index.html");
        let names: Vec<String> = outline(&result.chunks);
        assert_eq!(names[0], "module web/index @1-68");
        let module = &result.chunks[0];
        assert_eq!(field(module, "title"), "Shipping rates | Northwind Goods");
        let main = find(&result.chunks, ChunkKind::Element, "main#shipping");
        assert_eq!((main.line_start, main.line_end), (21, 52));
        // Nested elements are their own chunks and appear in their parent as a stub.
        assert!(
            main.content
                .contains("<section id=\"rates\" class=\"card\">…</section>"),
            "{}",
            main.content
        );
        let rates = find(&result.chunks, ChunkKind::Element, "section#rates");
        assert!(rates.content.contains("Shipping rates"));
        find(&result.chunks, ChunkKind::Element, "form#estimate-form");
        find(&result.chunks, ChunkKind::Element, "nav");
        assert_eq!(field(rates, "classes")[0], "card");
    }
}
