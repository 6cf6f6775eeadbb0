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
pub mod names;
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

/// How the chunker (`crate::chunk`) cuts files of a language into units; the strategy names a
/// chunk's `strategy` field.
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

impl Chunking {
    /// The strategy's name in chunk metadata; code files are cut by the AST.
    pub fn name(self) -> &'static str {
        match self {
            Chunking::Code => "code",
            Chunking::Css => "css",
            Chunking::Html => "html",
            Chunking::Blade => "blade",
            Chunking::Vue => "vue",
        }
    }
}

/// How a language's imports name other code; `deps` resolves each convention to files and
/// `chunk` turns a file's imports into full names by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleSystem {
    /// No imports between files.
    None,
    /// ES modules and CommonJS: relative paths, `tsconfig` paths, packages.
    EsModules,
    /// Dotted modules and packages, relative imports with leading dots.
    PythonPackages,
    /// Namespaces mapped to directories (PSR-4), `use` statements.
    PhpNamespaces,
    /// Import paths under the module path of `go.mod`.
    GoPackages,
    /// Packages mapped to source roots, `import` of classes.
    JavaPackages,
    /// `mod` files and `crate::` / `self::` / `super::` paths.
    RustModules,
    /// Blade's dotted view names, components and Livewire classes.
    BladeViews,
    /// `@import` / `@use` / `@forward` of stylesheets and partials.
    Stylesheets,
    /// Files required by path: relative to the requiring file (`require_relative`) or to a
    /// load path (`require`), with the language's first extension added (Ruby).
    LoadPath {
        /// Directories searched for a non-relative require, in order.
        roots: &'static [&'static str],
    },
}

/// Framework conventions the chunker recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framework {
    /// Routes, controllers, models, Livewire and service providers.
    Laravel,
}

/// A constructor parameter with a type, as written: the type, the variable, and whether it is
/// also a property (PHP's promoted properties, TypeScript's parameter properties).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypedParameter {
    pub type_name: String,
    pub variable: String,
    pub promoted: bool,
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
    /// Keywords that introduce every definition, when the language has such (PHP). A file
    /// without any of them defines nothing and is not parsed, and a statement without any is not
    /// walked: PHP projects ship thousands of `<?php return [...];` data files.
    pub declaration_keywords: &'static [&'static str],
    /// Whether a definition is visible outside its file, by the language's rule: (definition
    /// node, name, file text).
    pub exported: fn(tree_sitter::Node, &str, &str) -> bool,
    /// The separator between a namespace and what it contains, when it differs from
    /// `member_separator` (PHP's `App\Models\User`, whose members are `User::save`).
    pub namespace_separator: Option<&'static str>,
    /// A file adds its classes to a package or namespace rather than exporting names to its
    /// importers (PHP, Java): the package is stated with each chunk, what files declare is what
    /// fully qualified names resolve against, and the "exports" are just its public classes.
    pub package_scoped: bool,
    /// How imports name other files, and how those names resolve.
    pub modules: ModuleSystem,
    /// How the names a file uses bind to full names, and which nodes refer to other code.
    pub names: Option<&'static names::NameRules>,
    /// A definition's doc is the string that opens its body (Python docstrings).
    pub docstrings: bool,
    /// Blocks are delimited by indentation, not brackets (Python).
    pub indented_blocks: bool,
    /// Methods live in separate `impl` blocks, which are chunks of their own (Rust).
    pub impl_blocks: bool,
    /// Functions may return JSX, which makes a capitalised one a component.
    pub jsx: bool,
    /// The framework conventions the chunker looks for in files of this language.
    pub frameworks: &'static [Framework],
    /// The typed parameters of a class's constructor, for dependency injection (seed 004
    /// §1.14); `None` when the language has no constructor injection.
    pub injected: Option<fn(tree_sitter::Node, &str) -> Vec<TypedParameter>>,
    /// The chunking strategy.
    pub chunking: Chunking,
    /// How a summary calls a file of this language, when not by the language's name.
    pub file_noun: Option<&'static str>,
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
        declaration_keywords: &[],
        exported: |_, _, _| true,
        namespace_separator: None,
        package_scoped: false,
        modules: ModuleSystem::None,
        names: None,
        docstrings: false,
        indented_blocks: false,
        impl_blocks: false,
        jsx: false,
        frameworks: &[],
        injected: None,
        chunking: Chunking::Code,
        file_noun: None,
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

/// A stamp of what the registry knows: ids, extensions and tags queries. Persisted caches carry
/// it with the tool's version, so a build that learns a language or changes a query rebuilds
/// them rather than trusting files written without it.
pub fn fingerprint() -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for lang in LANGUAGES {
        for part in [lang.id, lang.tags]
            .into_iter()
            .chain(lang.extensions.iter().copied())
        {
            hasher.update(part.as_bytes());
            hasher.update(&[0]);
        }
    }
    hasher.finalize()
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
