//! Vue single-file components: the `<script>`'s definitions as code chunks (the script is parsed
//! in place, so lines are the file's), the `<template>` and each `<style>` as their own chunks,
//! and a `vue_component` chunk with the script's top level (imports, props, refs) and an outline
//! of the blocks.

use super::code::{CodeUnits, line_start_if_indented, module_name};
use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Source};
use crate::lang::LanguageDef;
use crate::syntax::{self, node_text};
use regex::Regex;
use std::sync::LazyLock;
use tree_sitter::Node;

/// Component tags in a template: PascalCase or kebab-case with a dash.
static COMPONENT_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<([A-Z][A-Za-z0-9]*|[a-z][a-z0-9]*-[a-z0-9-]+)[\s/>]").expect("valid regex")
});
static SELECTOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*([^{}@/\n][^{}\n]*?)\s*\{").expect("valid regex"));

pub(crate) fn chunk(
    source: &Source,
    lang: &'static LanguageDef,
    emitter: &Emitter,
) -> (Vec<Chunk>, usize) {
    let text = source.text;
    let (parsed, host) = syntax::parse_with_host(lang, text);
    let errors = parsed.errors.len();
    let mut units: Vec<Unit> = Vec::new();
    let mut root = Unit::new(
        ChunkKind::VueComponent,
        component_name(source.file),
        0..text.len(),
    )
    .key("component");
    if let Some(tree) = &parsed.tree {
        let code = CodeUnits::build(source, parsed.code_lang, tree.root_node());
        root.meta.imports = code.imports.list().to_vec();
        root.meta.set("script_lang", parsed.code_lang.id);
        units.extend(code.units);
    }
    if let Some(host) = &host {
        let mut cursor = host.root_node().walk();
        for block in host.root_node().named_children(&mut cursor) {
            match block.kind() {
                "template_element" => {
                    if let Some(unit) = block_unit(source, block, ChunkKind::Template, "template") {
                        let inner = &text[unit.range.clone()];
                        let mut components: Vec<String> = Vec::new();
                        for caps in COMPONENT_TAG.captures_iter(inner) {
                            let tag = caps[1].to_string();
                            if tag != "template" && !components.contains(&tag) {
                                components.push(tag);
                            }
                        }
                        let mut unit = unit;
                        if !components.is_empty() {
                            unit.meta.set("components", &components);
                            root.meta.set("components", components);
                        }
                        units.push(unit);
                    }
                }
                "style_element" => {
                    let start = block.named_child(0).map_or("", |t| node_text(t, text));
                    let name = if start.contains("scoped") {
                        "style scoped"
                    } else {
                        "style"
                    };
                    if let Some(mut unit) = block_unit(source, block, ChunkKind::Style, name) {
                        let inner = &text[unit.range.clone()];
                        let selectors: Vec<String> = SELECTOR
                            .captures_iter(inner)
                            .map(|c| c[1].split_whitespace().collect::<Vec<_>>().join(" "))
                            .filter(|s| !s.starts_with('<'))
                            .collect();
                        unit.meta.set("selectors", selectors);
                        unit.meta.set("scoped", start.contains("scoped"));
                        units.push(unit);
                    }
                }
                "script_element" => {
                    let start = block.named_child(0).map_or("", |t| node_text(t, text));
                    root.meta.set("script_setup", start.contains("setup"));
                }
                _ => {}
            }
        }
    }
    root.meta.set("file_module", module_name(source.file));
    root.nest(units);
    (emitter.emit(&root, lang.id), errors)
}

/// A `<template>` or `<style>` block; its body is elided from the component summary.
fn block_unit<'t>(
    source: &Source,
    block: Node<'t>,
    kind: ChunkKind,
    name: &str,
) -> Option<Unit<'t>> {
    let mut cursor = block.walk();
    let children: Vec<Node> = block.named_children(&mut cursor).collect();
    let start_tag = children.first().filter(|c| c.kind() == "start_tag")?;
    let end_tag = children.last().filter(|c| c.kind() == "end_tag")?;
    let header = node_text(*start_tag, source.text).to_string();
    Some(
        Unit::new(
            kind,
            name,
            line_start_if_indented(source, block.start_byte())..block.end_byte(),
        )
        .key(name)
        .node(block)
        .elide(Elide::Body {
            lead: None,
            body: start_tag.end_byte()..end_tag.start_byte(),
            stub: "…".into(),
        })
        .header(header),
    )
}

/// `src/components/CartBadge.vue` → `CartBadge`.
fn component_name(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.strip_suffix(".vue").unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, strings};

    #[test]
    fn script_template_and_style_blocks() {
        let result = fixture("polyglot", "src/components/CartBadge.vue");
        let component = find(&result.chunks, ChunkKind::VueComponent, "CartBadge");
        assert_eq!((component.line_start, component.line_end), (1, 85));
        assert_eq!(field(component, "script_lang"), "typescript");
        assert_eq!(field(component, "script_setup"), true);
        assert_eq!(
            component.metadata.imports,
            [
                "vue#computed",
                "vue#ref",
                "vue#watch",
                "src/stores/cart#useCartStore"
            ]
        );
        assert!(
            component.content.contains("<template>…</template>"),
            "{}",
            component.content
        );
        assert!(component.content.contains("const cart = useCartStore();"));
        let props = find(&result.chunks, ChunkKind::Interface, "Props");
        assert_eq!((props.line_start, props.line_end), (5, 8));
        let template = find(&result.chunks, ChunkKind::Template, "template");
        assert_eq!((template.line_start, template.line_end), (41, 52));
        let style = find(&result.chunks, ChunkKind::Style, "style scoped");
        assert_eq!(style.line_start, 54);
        assert!(strings(style, "selectors").contains(&".cart-badge".to_string()));
    }
}
