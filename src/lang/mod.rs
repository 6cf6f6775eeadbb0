//! The language registry: one table row per language, and everything else derives from it
//! (detection, file types for search, tags queries, error messages listing what is supported).
//!
//! Adding a language is one row in [`LANGUAGES`], one `queries/<id>/tags.scm` and, when the
//! language has a tree-sitter grammar, one grammar crate in `Cargo.toml`.

pub mod blade;

use tree_sitter::Language as Grammar;

/// How a language is parsed.
#[derive(Clone, Copy)]
pub enum Parsing {
    /// A tree-sitter grammar parses the whole file.
    Grammar(fn() -> Grammar),
    /// A host grammar finds embedded regions that another registry language parses
    /// (Vue single-file components: `<script>` blocks are TypeScript or JavaScript).
    Embedded {
        host: fn() -> Grammar,
        embed: Embedding,
    },
    /// No grammar: the `syntax` module scans the text itself (Blade directives).
    Scanner,
}

/// The embedded-region conventions the `syntax` module knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedding {
    /// `<script>` / `<script setup>` blocks; `lang="ts"` selects TypeScript.
    VueScript,
}

/// How the chunker (`crate::chunk`) cuts files of a language into units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunking {
    /// Definitions from the tags query: functions, classes, methods … plus a module summary.
    Code,
    /// Rule sets, `@media`, `@keyframes`, Tailwind v4 `@theme`.
    Css,
    /// Semantic elements, elements with ids, custom elements.
    Html,
    /// Blade directive blocks, components, routes, Livewire.
    Blade,
    /// Vue SFC: template, script definitions, style.
    Vue,
}

pub struct LanguageDef {
    /// Stable identifier used in results and the `language` / `file_type` parameters.
    pub id: &'static str,
    /// Extensions without the dot; compound ones such as `blade.php` win over `php` because
    /// detection takes the longest matching suffix.
    pub extensions: &'static [&'static str],
    pub parsing: Parsing,
    /// Definitions query: `@definition.<kind>` on the node, `@name` on its name, `@container`
    /// for scope-only nodes (Rust `impl`), `@scope` for an explicit scope name (Go receivers).
    pub tags: &'static str,
    /// Separator between a scope and a member in qualified names.
    pub member_separator: &'static str,
    /// A regex that every file defining a symbol must match (its declaration keywords). Files
    /// that do not match are known to define nothing and are not parsed: PHP projects ship
    /// thousands of `<?php return [...];` data files.
    pub definition_hint: Option<&'static str>,
    /// The chunking strategy.
    pub chunking: Chunking,
}

impl std::fmt::Debug for LanguageDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

impl PartialEq for LanguageDef {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

fn php() -> Grammar {
    tree_sitter_php::LANGUAGE_PHP.into()
}
fn python() -> Grammar {
    tree_sitter_python::LANGUAGE.into()
}
fn typescript() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}
fn tsx() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}
fn javascript() -> Grammar {
    tree_sitter_javascript::LANGUAGE.into()
}
fn go() -> Grammar {
    tree_sitter_go::LANGUAGE.into()
}
fn java() -> Grammar {
    tree_sitter_java::LANGUAGE.into()
}
fn rust() -> Grammar {
    tree_sitter_rust::LANGUAGE.into()
}
fn css() -> Grammar {
    tree_sitter_css::LANGUAGE.into()
}
fn scss() -> Grammar {
    tree_sitter_scss::language()
}
fn html() -> Grammar {
    tree_sitter_html::LANGUAGE.into()
}
fn vue() -> Grammar {
    tree_sitter_vue_next::LANGUAGE.into()
}

/// PHP declaration keywords (`define(` covers global constants).
const PHP_HINT: Option<&str> =
    Some(r"\b(namespace|class|interface|trait|enum|function|const|define)\b");

/// Every supported language. Keep sorted by id (a test checks).
pub static LANGUAGES: &[LanguageDef] = &[
    LanguageDef {
        id: "blade",
        extensions: &["blade.php"],
        parsing: Parsing::Scanner,
        tags: "",
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Blade,
    },
    LanguageDef {
        id: "css",
        extensions: &["css"],
        parsing: Parsing::Grammar(css),
        tags: include_str!("queries/css/tags.scm"),
        member_separator: " ",
        definition_hint: None,
        chunking: Chunking::Css,
    },
    LanguageDef {
        id: "go",
        extensions: &["go"],
        parsing: Parsing::Grammar(go),
        tags: include_str!("queries/go/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "html",
        extensions: &["html", "htm"],
        parsing: Parsing::Grammar(html),
        tags: include_str!("queries/html/tags.scm"),
        member_separator: " ",
        definition_hint: None,
        chunking: Chunking::Html,
    },
    LanguageDef {
        id: "java",
        extensions: &["java"],
        parsing: Parsing::Grammar(java),
        tags: include_str!("queries/java/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        parsing: Parsing::Grammar(javascript),
        tags: include_str!("queries/javascript/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "php",
        extensions: &["php", "phtml"],
        parsing: Parsing::Grammar(php),
        tags: include_str!("queries/php/tags.scm"),
        member_separator: "::",
        definition_hint: PHP_HINT,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "python",
        extensions: &["py", "pyi", "pyw"],
        parsing: Parsing::Grammar(python),
        tags: include_str!("queries/python/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "rust",
        extensions: &["rs"],
        parsing: Parsing::Grammar(rust),
        tags: include_str!("queries/rust/tags.scm"),
        member_separator: "::",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "scss",
        extensions: &["scss"],
        parsing: Parsing::Grammar(scss),
        tags: include_str!("queries/scss/tags.scm"),
        member_separator: " ",
        definition_hint: None,
        chunking: Chunking::Css,
    },
    LanguageDef {
        id: "tsx",
        extensions: &["tsx"],
        parsing: Parsing::Grammar(tsx),
        tags: include_str!("queries/typescript/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "typescript",
        extensions: &["ts", "mts", "cts"],
        parsing: Parsing::Grammar(typescript),
        tags: include_str!("queries/typescript/tags.scm"),
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
    },
    LanguageDef {
        id: "vue",
        extensions: &["vue"],
        parsing: Parsing::Embedded {
            host: vue,
            embed: Embedding::VueScript,
        },
        tags: "",
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Vue,
    },
];

/// The language of a file, by the longest matching extension (`.blade.php` before `.php`).
pub fn detect(path: &str) -> Option<&'static LanguageDef> {
    let file_name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let mut best: Option<(&'static LanguageDef, usize)> = None;
    for lang in LANGUAGES {
        for ext in lang.extensions {
            let matches = file_name.len() > ext.len() + 1
                && file_name.ends_with(ext)
                && file_name.as_bytes()[file_name.len() - ext.len() - 1] == b'.';
            if matches && best.is_none_or(|(_, len)| ext.len() > len) {
                best = Some((lang, ext.len()));
            }
        }
    }
    best.map(|(lang, _)| lang)
}

/// A language by its id (`python`, `php`, …).
pub fn by_id(id: &str) -> Option<&'static LanguageDef> {
    LANGUAGES
        .iter()
        .find(|lang| lang.id.eq_ignore_ascii_case(id))
}

/// The ids of all languages, for error messages and schemas.
pub fn ids() -> Vec<&'static str> {
    LANGUAGES.iter().map(|lang| lang.id).collect()
}

/// The language that parses a Vue `<script>` block.
pub fn vue_script_language(lang_attr: Option<&str>) -> &'static LanguageDef {
    match lang_attr {
        Some("ts") | Some("typescript") => by_id("typescript"),
        Some("tsx") => by_id("tsx"),
        _ => by_id("javascript"),
    }
    .expect("registry has typescript, tsx and javascript")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_ids_unique() {
        let ids = ids();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn detection_prefers_the_longest_extension() {
        assert_eq!(
            detect("resources/views/shop/index.blade.php").unwrap().id,
            "blade"
        );
        assert_eq!(detect("app/Models/Product.php").unwrap().id, "php");
        assert_eq!(detect("src/App.tsx").unwrap().id, "tsx");
        assert_eq!(detect("src/main.TS").unwrap().id, "typescript");
        assert_eq!(detect("a/b.vue").unwrap().id, "vue");
        assert!(detect("README.md").is_none());
        assert!(detect(".php").is_none());
    }
}
