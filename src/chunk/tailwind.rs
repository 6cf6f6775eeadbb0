//! Tailwind's project theme (seed 004 §1.9): "make the buttons our primary colour" needs the
//! project's colours, fonts and breakpoints, not Tailwind's defaults.
//!
//! - `tailwind.config.{js,cjs,mjs,ts}` (v3): the exported config object's `theme` (with
//!   `extend`), `plugins` and `content` become three `ui_config` chunks;
//! - CSS `@theme { --color-brand-500: … }` (v4) is read by [`css_theme`] for the CSS strategy.

use super::code::{line_start_if_indented, module_name};
use super::imports::Imports;
use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Metadata, Source};
use crate::lang::{self, Chunking, LanguageDef, ModuleSystem};
use crate::syntax::{self, node_text};
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;
use tree_sitter::Node;

/// Colours, fonts, breakpoints and the other theme scales, flattened (`brand-500`).
#[derive(Debug, Default, PartialEq)]
pub struct Theme {
    pub colors: BTreeMap<String, String>,
    pub fonts: BTreeMap<String, String>,
    pub screens: BTreeMap<String, String>,
    /// Other scales by name (`boxShadow`, `radius`, …).
    pub other: BTreeMap<String, BTreeMap<String, String>>,
    /// Keys under `theme.extend` (v3): these add to Tailwind's defaults instead of replacing.
    pub extends: Vec<String>,
}

impl Theme {
    pub fn apply(&self, meta: &mut Metadata) {
        if !self.colors.is_empty() {
            meta.set("colors", &self.colors);
        }
        if !self.fonts.is_empty() {
            meta.set("fonts", &self.fonts);
        }
        if !self.screens.is_empty() {
            meta.set("screens", &self.screens);
        }
        for (scale, values) in &self.other {
            meta.set(scale, values);
        }
        if !self.extends.is_empty() {
            meta.set("extends", &self.extends);
        }
    }
}

static THEME_VAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(--[\w-]+)\s*:\s*([^;]+);").expect("valid regex"));

/// Tailwind v4 theme namespaces made of two words.
const TWO_WORD_NAMESPACES: &[&str] = &["font-weight", "inset-shadow", "drop-shadow", "text-shadow"];

/// The theme variables of a CSS `@theme { … }` block.
pub fn css_theme(block: &str) -> Theme {
    let mut theme = Theme::default();
    for caps in THEME_VAR.captures_iter(block) {
        let var = caps[1].trim_start_matches("--");
        let value = caps[2].split_whitespace().collect::<Vec<_>>().join(" ");
        let namespace = TWO_WORD_NAMESPACES
            .iter()
            .find(|ns| var.starts_with(&format!("{ns}-")))
            .copied()
            .unwrap_or_else(|| var.split('-').next().unwrap_or(var));
        let name = var
            .strip_prefix(namespace)
            .map(|r| r.trim_start_matches('-'))
            .filter(|r| !r.is_empty())
            .unwrap_or("DEFAULT")
            .to_string();
        match namespace {
            "color" => {
                theme.colors.insert(name, value);
            }
            "font" => {
                theme.fonts.insert(name, value);
            }
            "breakpoint" => {
                theme.screens.insert(name, value);
            }
            other => {
                theme
                    .other
                    .entry(other.to_string())
                    .or_default()
                    .insert(name, value);
            }
        }
    }
    theme
}

/// The language of a Tailwind config file (`tailwind.config.{js,cjs,mjs,ts,mts,cts}`), or
/// `None` when the path is not one.
fn is_config(file_name: &str) -> Option<&'static LanguageDef> {
    let (stem, _) = file_name.rsplit_once('.')?;
    if stem != "tailwind.config" {
        return None;
    }
    lang::detect(file_name)
        .filter(|l| l.modules == ModuleSystem::EsModules && l.chunking == Chunking::Code)
}

/// Chunks a Tailwind config file; `None` when the file is not one (by name *and* content).
pub(crate) fn chunk_config(
    source: &Source,
    emitter: &Emitter,
) -> Option<(&'static str, Vec<Chunk>)> {
    let lang = is_config(source.file_name())?;
    let parsed = syntax::parse(lang, source.text);
    let tree = parsed.tree.as_ref()?;
    let root = tree.root_node();
    let text = source.text;
    let config = config_object(root, text)?;
    let imports = Imports::read(lang, root, text, source.file, &[]);
    let mut module = Unit::new(ChunkKind::Module, module_name(source.file), 0..text.len())
        .key("module")
        .node(root);
    let mut units = Vec::new();
    let mut keys = Vec::new();
    for (key, value, pair) in pairs(config, text) {
        keys.push(key.clone());
        let range = line_start_if_indented(source, pair.start_byte())
            ..with_trailing_comma(text, pair.end_byte());
        let unit = |name: &str| {
            Unit::new(ChunkKind::UiConfig, name, range.clone())
                .key(format!("tailwind:{key}"))
                .node(value)
                .elide(Elide::Whole {
                    stub: format!("{key}: …, // ui_config chunk"),
                })
                .header(format!("{key}: {{"))
        };
        match key.as_str() {
            "theme" => {
                let mut u = unit("tailwind_theme");
                config_theme(value, text).apply(&mut u.meta);
                units.push(u);
            }
            "plugins" => {
                let mut u = unit("tailwind_plugins");
                u.meta.set("plugins", plugin_names(value, text, &imports));
                units.push(u);
            }
            "content" => {
                let mut u = unit("tailwind_content_paths");
                let array = if value.kind() == "object" {
                    pairs(value, text)
                        .into_iter()
                        .find(|(k, _, _)| k == "files")
                        .map(|(_, v, _)| v)
                } else {
                    Some(value)
                };
                let patterns = array.map(|a| strings(a, text)).unwrap_or_default();
                u.meta.set("scan_patterns", patterns);
                units.push(u);
            }
            "darkMode" | "prefix" | "important" | "separator" => {
                module.meta.set(
                    &snake(&key),
                    collapse(node_text(value, text)).trim_matches(['\'', '"']),
                );
            }
            _ => {}
        }
    }
    module.meta.set("config_keys", keys);
    module.meta.imports = imports.list().to_vec();
    module.nest(units);
    Some((lang.id, emitter.emit(&module, lang.id)))
}

/// The exported configuration: the outermost object with a `content`, `theme` or `plugins` key
/// (`export default {…}`, `module.exports = {…}`, `defineConfig({…})`, `{…} satisfies Config`).
fn config_object<'t>(root: Node<'t>, text: &str) -> Option<Node<'t>> {
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(node) = queue.pop_front() {
        if node.kind() == "object"
            && pairs(node, text)
                .iter()
                .any(|(k, _, _)| matches!(k.as_str(), "content" | "theme" | "plugins"))
        {
            return Some(node);
        }
        let mut cursor = node.walk();
        queue.extend(node.named_children(&mut cursor));
    }
    None
}

/// `key: value` pairs of an object literal, keys unquoted.
fn pairs<'t>(object: Node<'t>, text: &str) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = object.walk();
    for pair in object.named_children(&mut cursor) {
        if pair.kind() != "pair" {
            continue;
        }
        let (Some(key), Some(value)) = (
            pair.child_by_field_name("key"),
            pair.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = node_text(key, text)
            .trim_matches(['\'', '"', '`'])
            .to_string();
        out.push((key, value, pair));
    }
    out
}

fn config_theme(theme: Node, text: &str) -> Theme {
    let mut out = Theme::default();
    if theme.kind() != "object" {
        return out;
    }
    let mut scales: Vec<(String, Node)> = Vec::new();
    for (key, value, _) in pairs(theme, text) {
        if key == "extend" && value.kind() == "object" {
            for (inner, v, _) in pairs(value, text) {
                out.extends.push(inner.clone());
                scales.push((inner, v));
            }
        } else {
            scales.push((key, value));
        }
    }
    for (scale, value) in scales {
        let mut flat = BTreeMap::new();
        flatten(value, "", text, &mut flat);
        let target = match scale.as_str() {
            "colors" => &mut out.colors,
            "fontFamily" => &mut out.fonts,
            "screens" => &mut out.screens,
            other => out.other.entry(other.to_string()).or_default(),
        };
        target.extend(flat);
    }
    out
}

/// `brand: { 50: '#…', DEFAULT: '#…' }` → `brand-50`, `brand`.
fn flatten(value: Node, prefix: &str, text: &str, out: &mut BTreeMap<String, String>) {
    match value.kind() {
        "object" => {
            for (key, v, _) in pairs(value, text) {
                let name = match (prefix.is_empty(), key == "DEFAULT") {
                    (true, _) => key,
                    (false, true) => prefix.to_string(),
                    (false, false) => format!("{prefix}-{key}"),
                };
                flatten(v, &name, text, out);
            }
        }
        _ if !prefix.is_empty() => {
            let rendered = match value.kind() {
                "array" => strings_or_text(value, text).join(", "),
                _ => literal(value, text),
            };
            out.insert(prefix.to_string(), rendered);
        }
        _ => {}
    }
}

fn literal(node: Node, text: &str) -> String {
    let raw = collapse(node_text(node, text));
    match node.kind() {
        "string" | "template_string" => raw.trim_matches(['\'', '"', '`']).to_string(),
        _ => raw,
    }
}

/// Elements of an array literal: strings unquoted, anything else as written.
fn strings_or_text(array: Node, text: &str) -> Vec<String> {
    let mut cursor = array.walk();
    array
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .map(|n| literal(n, text))
        .collect()
}

fn strings(array: Node, text: &str) -> Vec<String> {
    let mut cursor = array.walk();
    array
        .named_children(&mut cursor)
        .filter(|n| matches!(n.kind(), "string" | "template_string"))
        .map(|n| literal(n, text))
        .collect()
}

/// `[forms, require('@tailwindcss/typography'), plugin(function …)]` → package names.
fn plugin_names(array: Node, text: &str, imports: &Imports) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = array.walk();
    for element in array.named_children(&mut cursor) {
        let callee = if element.kind() == "call_expression" {
            element.child_by_field_name("function")
        } else {
            Some(element)
        };
        let Some(callee) = callee else { continue };
        let name = node_text(callee, text);
        let resolved = if name == "require" {
            element
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .map(|a| literal(a, text))
        } else {
            imports
                .resolve(name)
                .map(|full| full.trim_end_matches("#default").to_string())
                .or_else(|| Some(name.to_string()))
        };
        if let Some(resolved) = resolved {
            out.push(resolved);
        }
    }
    out
}

/// A pair's range including the `,` that follows it on its line, so the comma is not left
/// alone in the parent.
fn with_trailing_comma(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[spaces..].starts_with(',') {
        end + spaces + 1
    } else {
        end
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn snake(key: &str) -> String {
    let mut out = String::new();
    for ch in key.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_theme_variables_by_namespace() {
        let theme = css_theme(
            "@theme {\n  --color-brand-500: #2f63ea;\n  --font-display: \"Lexend Deca\", sans-serif;\n  --font-weight-bold: 700;\n  --breakpoint-xs: 420px;\n  --radius-card: 0.75rem;\n}",
        );
        assert_eq!(theme.colors["brand-500"], "#2f63ea");
        assert_eq!(theme.fonts["display"], "\"Lexend Deca\", sans-serif");
        assert_eq!(theme.screens["xs"], "420px");
        assert_eq!(theme.other["radius"]["card"], "0.75rem");
        assert_eq!(theme.other["font-weight"]["bold"], "700");
    }
}

#[cfg(test)]
mod fixture_tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{chunk, field, find, fixture, strings};

    #[test]
    fn config_theme_plugins_and_content_paths() {
        let result = fixture("laravel-shop", "tailwind.config.js");
        assert_eq!(result.strategy, "tailwind");
        let theme = find(&result.chunks, ChunkKind::UiConfig, "tailwind_theme");
        assert_eq!((theme.line_start, theme.line_end), (17, 47));
        assert_eq!(field(theme, "colors")["brand-500"], "#2f63ea");
        assert_eq!(field(theme, "colors")["accent"], "#f59e0b");
        assert_eq!(field(theme, "screens")["xs"], "420px");
        assert_eq!(
            field(theme, "fonts")["sans"],
            "Inter var, ...defaultTheme.fontFamily.sans"
        );
        assert_eq!(
            strings(theme, "extends"),
            ["colors", "fontFamily", "screens", "boxShadow"]
        );
        let plugins = find(&result.chunks, ChunkKind::UiConfig, "tailwind_plugins");
        assert_eq!(
            strings(plugins, "plugins"),
            ["@tailwindcss/forms", "@tailwindcss/typography"]
        );
        let content = find(
            &result.chunks,
            ChunkKind::UiConfig,
            "tailwind_content_paths",
        );
        assert_eq!(
            strings(content, "scan_patterns")[0],
            "./resources/views/**/*.blade.php"
        );
        let module = find(&result.chunks, ChunkKind::Module, "tailwind.config");
        assert_eq!(field(module, "dark_mode"), "class");
    }

    #[test]
    fn typescript_configs_and_require_plugins() {
        let result = chunk(
            "tailwind.config.ts",
            "import type { Config } from 'tailwindcss'\n\nexport default {\n  content: ['./src/**/*.{ts,tsx}'],\n  theme: { colors: { primary: { DEFAULT: '#3B82F6', dark: '#1e40af' } } },\n  plugins: [require('@tailwindcss/forms')],\n} satisfies Config\n",
        );
        assert_eq!(result.language, "typescript");
        let theme = find(&result.chunks, ChunkKind::UiConfig, "tailwind_theme");
        assert_eq!(field(theme, "colors")["primary"], "#3B82F6");
        assert_eq!(field(theme, "colors")["primary-dark"], "#1e40af");
        let plugins = find(&result.chunks, ChunkKind::UiConfig, "tailwind_plugins");
        assert_eq!(strings(plugins, "plugins"), ["@tailwindcss/forms"]);
        // Any other file named like a config but without one is ordinary code.
        assert_eq!(
            chunk("src/tailwind.ts", "export const x = 1;\n").strategy,
            "code"
        );
    }
}
