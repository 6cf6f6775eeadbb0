//! CSS and SCSS: rule sets, `@media`/`@supports` blocks, `@keyframes`, other block at-rules
//! (`@layer`, `@font-face`, SCSS `@mixin`), and Tailwind v4's `@theme` as a `ui_config` chunk
//! with its colors, fonts and breakpoints (seed 004 §1.3, §1.9). Rules record their selectors,
//! the custom properties they use and their `@apply` classes, so "the primary button's colour"
//! finds `.btn-primary` and the `--color-brand-*` tokens it reads.

use super::code::{error_units, leading, line_start_if_indented, module_name};
use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Source, tailwind};
use crate::lang::LanguageDef;
use crate::syntax::{self, node_text};
use regex::Regex;
use std::sync::LazyLock;
use tree_sitter::Node;

static VAR_USE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"var\(\s*(--[\w-]+)").expect("valid regex"));
static APPLY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@apply\s+([^;]+);").expect("valid regex"));

/// Longest selector kept as a chunk name.
const MAX_NAME_CHARS: usize = 100;

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
    let mut units = Vec::new();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        if let Some(unit) = rule_unit(source, node) {
            units.push(unit);
        }
    }
    error_units(source, root, &mut units);
    let mut module = Unit::new(
        ChunkKind::Module,
        module_name(source.file),
        0..source.text.len(),
    )
    .key("module")
    .node(root);
    module.meta.set(
        "selectors",
        units
            .iter()
            .filter(|u| u.kind == ChunkKind::CssRule)
            .map(|u| u.name.clone())
            .collect::<Vec<_>>(),
    );
    module.nest(units);
    (emitter.emit(&module, lang.id), errors)
}

/// One top-level (or nested, for `@media` parts) CSS construct as a unit.
pub(crate) fn rule_unit<'t>(source: &Source, node: Node<'t>) -> Option<Unit<'t>> {
    let text = source.text;
    let (kind, name) = match node.kind() {
        "rule_set" => {
            let selectors = node
                .named_child(0)
                .filter(|c| c.kind() == "selectors")
                .map_or("", |s| node_text(s, text));
            (ChunkKind::CssRule, collapse(selectors))
        }
        "media_statement" | "supports_statement" => (ChunkKind::CssMedia, prelude(node, text)),
        "keyframes_statement" => {
            let mut cursor = node.walk();
            let name = node
                .named_children(&mut cursor)
                .find(|c| c.kind() == "keyframes_name")
                .map_or_else(|| prelude(node, text), |n| node_text(n, text).to_string());
            (ChunkKind::CssKeyframes, name)
        }
        "mixin_statement" | "function_statement" => {
            let name = node
                .child_by_field_name("name")
                .map_or_else(|| prelude(node, text), |n| node_text(n, text).to_string());
            let at = if node.kind() == "mixin_statement" {
                "@mixin"
            } else {
                "@function"
            };
            (ChunkKind::CssRule, format!("{at} {name}"))
        }
        "at_rule" => {
            let block = block_of(node)?;
            let _ = block;
            let name = prelude(node, text);
            if name.trim() == "@theme" || name.starts_with("@theme ") {
                (ChunkKind::UiConfig, "tailwind_theme".to_string())
            } else {
                (ChunkKind::CssRule, name)
            }
        }
        _ => return None,
    };
    let lead = leading(node);
    let lead_start = lead.first().map_or(node.start_byte(), |n| n.start_byte());
    let range = line_start_if_indented(source, lead_start)..node.end_byte();
    let body_text = &text[node.start_byte()..node.end_byte()];
    let name: String = name.chars().take(MAX_NAME_CHARS).collect();
    let key = match kind {
        ChunkKind::CssMedia => format!("{name} {{{}}}", first_inner_selector(node, text)),
        _ => name.clone(),
    };
    let mut unit = Unit::new(kind, name.clone(), range)
        .key(key)
        .node(node)
        // The module keeps only what is outside rules (imports, `@tailwind`, variables).
        .elide(Elide::Whole {
            stub: String::new(),
        })
        .header(format!("{} {{", prelude(node, text)));
    if matches!(kind, ChunkKind::CssRule) {
        unit.mergeable = true;
        if node.kind() == "rule_set" {
            unit.meta.set(
                "selectors",
                name.split(',')
                    .map(|s| s.trim().to_string())
                    .collect::<Vec<_>>(),
            );
        }
    }
    if kind == ChunkKind::UiConfig {
        let theme = tailwind::css_theme(body_text);
        theme.apply(&mut unit.meta);
        unit.meta.set("source", "css @theme");
    }
    let vars: Vec<String> = unique(VAR_USE.captures_iter(body_text).map(|c| c[1].to_string()));
    if !vars.is_empty() {
        unit.meta.set("variables_used", vars);
    }
    let applied: Vec<String> = unique(APPLY.captures_iter(body_text).flat_map(|c| {
        c[1].split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    }));
    if !applied.is_empty() {
        unit.meta.set("apply", applied);
    }
    if let Some(doc) = lead
        .iter()
        .filter(|n| n.kind().contains("comment"))
        .map(|n| node_text(*n, text))
        .reduce(|a, _| a)
    {
        unit.meta.docstring = super::code::clean_comment(doc);
    }
    Some(unit)
}

fn block_of(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| c.kind() == "block")
}

/// The text before a block (`@media (max-width: 640px)`), on one line.
fn prelude(node: Node, text: &str) -> String {
    let end = block_of(node).map_or(node.end_byte(), |b| b.start_byte());
    collapse(&text[node.start_byte()..end])
}

/// The first selector inside an at-rule: distinguishes two `@media (max-width: 640px)` blocks
/// without using their position.
fn first_inner_selector(node: Node, text: &str) -> String {
    let Some(block) = block_of(node) else {
        return String::new();
    };
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .find(|c| c.kind() == "rule_set")
        .and_then(|r| r.named_child(0))
        .map(|s| collapse(node_text(s, text)))
        .unwrap_or_default()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{chunk, field, find, fixture, outline, strings};
    use serde_json::json;

    #[test]
    fn rules_media_keyframes_and_the_v4_theme() {
        let result = fixture("laravel-shop", "resources/css/app.css");
        let theme = find(&result.chunks, ChunkKind::UiConfig, "tailwind_theme");
        assert_eq!((theme.line_start, theme.line_end), (5, 18));
        assert_eq!(field(theme, "colors")["brand-500"], "#2f63ea");
        assert_eq!(field(theme, "colors")["accent"], "#f59e0b");
        assert_eq!(
            field(theme, "fonts")["display"],
            "\"Lexend Deca\", ui-sans-serif, system-ui"
        );
        assert_eq!(field(theme, "radius")["card"], "0.75rem");
        assert!(
            theme
                .metadata
                .docstring
                .as_deref()
                .unwrap()
                .starts_with("Design tokens.")
        );

        let button = find(&result.chunks, ChunkKind::CssRule, ".btn-primary");
        assert_eq!(
            strings(button, "apply")[..2],
            ["inline-flex", "items-center"]
        );
        // Two tiny adjacent rules are merged; each keeps its facts as a member.
        let states = find(
            &result.chunks,
            ChunkKind::CssRule,
            ".btn-primary:hover, .btn-primary:focus-visible, .btn-primary:disabled",
        );
        assert_eq!((states.line_start, states.line_end), (33, 41));
        let hover = &field(states, "members")[0];
        assert_eq!(
            hover["selectors"],
            json!([".btn-primary:hover", ".btn-primary:focus-visible"])
        );
        assert_eq!(hover["variables_used"], json!(["--color-brand-500"]));
        find(&result.chunks, ChunkKind::CssKeyframes, "pulse-soft");
        let media = find(
            &result.chunks,
            ChunkKind::CssMedia,
            "@media (max-width: 640px)",
        );
        assert_eq!((media.line_start, media.line_end), (96, 104));
        // The module keeps what is outside rules.
        let module = find(&result.chunks, ChunkKind::Module, "resources/css/app");
        assert!(
            module.content.starts_with("@tailwind base;"),
            "{}",
            module.content
        );
        assert!(!module.content.contains("btn-primary"));
    }

    #[test]
    fn tiny_adjacent_rules_merge_and_media_blocks_split_at_rules() {
        let mut text = String::from(
            ".a { color: red; }\n.b { color: blue; }\n\n@media (min-width: 640px) {\n",
        );
        for i in 0..80 {
            text.push_str(&format!("  .grid-{i} {{ display: grid; grid-template-columns: repeat({i}, minmax(0, 1fr)); }}\n"));
        }
        text.push_str("}\n");
        let result = chunk("site.css", &text);
        find(&result.chunks, ChunkKind::CssRule, ".a, .b");
        let parts: Vec<_> = result
            .chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::CssMedia)
            .collect();
        assert!(parts.len() > 1, "{}", outline(&result.chunks).join("\n"));
        assert!(
            parts[1]
                .content
                .starts_with("@media (min-width: 640px) { …\n  .grid-"),
            "{}",
            parts[1].content
        );
        assert_eq!(field(parts[1], "part")["count"], json!(parts.len()));
    }
}
