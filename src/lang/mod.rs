//! The languages: one home per language (or family sharing a grammar's conventions), and the
//! registry that lists them. Everything else derives from a language's [`LanguageDef`] row:
//! detection, file types for search, the tags query, the outline walker, error messages listing
//! what is supported. Outside this module no code names a language id (`tests/tidy.rs` checks).
//!
//! Adding a language is one directory `lang/<id>/` (its row, `tags.scm`, outline walker), one
//! line in [`LANGUAGES`] and, when it has a tree-sitter grammar, one grammar crate in
//! `Cargo.toml`.

pub mod blade;
pub mod css;
pub mod ecma;
pub mod go;
pub mod html;
pub mod java;
pub mod outline;
pub mod php;
pub mod python;
pub mod ruby;
pub mod rust;
pub mod vue;
pub mod walk;

use outline::{FileOutline, Import};

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
    /// How people write the language's name (`TypeScript`, `PHP`), for summaries.
    pub name: &'static str,
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
    /// The outline walker for trees this language's grammar parsed (`<id>/outline.rs`).
    pub outline: Option<fn(tree_sitter::Node, &str) -> FileOutline>,
    /// Imports found by scanning the text, for languages whose references no walker reads
    /// (Blade directives, CSS at-rules); they replace the walker's.
    pub scanned_imports: Option<fn(&str) -> Vec<Import>>,
    /// A file of this language is one component, its file's default export (Vue).
    pub component_file: bool,
}

impl LanguageDef {
    /// The values a row leaves unsaid: no grammar, no tags, no walker.
    pub const DEFAULT: LanguageDef = LanguageDef {
        id: "",
        name: "",
        extensions: &[],
        parsing: Parsing::Scanner,
        tags: "",
        member_separator: ".",
        definition_hint: None,
        chunking: Chunking::Code,
        outline: None,
        scanned_imports: None,
        component_file: false,
    };
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

/// Every supported language, one line per home. Keep sorted by id (a test checks).
pub static LANGUAGES: &[LanguageDef] = &[
    blade::BLADE,
    css::CSS,
    go::GO,
    html::HTML,
    java::JAVA,
    ecma::JAVASCRIPT,
    php::PHP,
    python::PYTHON,
    ruby::RUBY,
    rust::RUST,
    css::SCSS,
    ecma::TSX,
    ecma::TYPESCRIPT,
    vue::VUE,
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
