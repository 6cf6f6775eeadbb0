//! CSS and SCSS: rule sets, at-rules and Tailwind's `@theme` for the chunker; `@import`, `@use`
//! and `@forward` for the outline and the dependency graph (`imports.rs`, a text scan).

mod imports;

pub use imports::is_external;

use super::outline::Import;
use super::{Chunking, LanguageDef, ModuleSystem, Parsing};
use tree_sitter::Language as Grammar;

fn css() -> Grammar {
    tree_sitter_css::LANGUAGE.into()
}
fn scss() -> Grammar {
    tree_sitter_scss::language()
}

fn css_imports(text: &str) -> Vec<Import> {
    imports::imports(text, false)
}
fn scss_imports(text: &str) -> Vec<Import> {
    imports::imports(text, true)
}

pub const CSS: LanguageDef = LanguageDef {
    id: "css",
    name: "CSS",
    extensions: &["css"],
    parsing: Parsing::Grammar(css),
    tags: include_str!("css.scm"),
    member_separator: " ",
    chunking: Chunking::Css,
    modules: ModuleSystem::Stylesheets,
    scanned_imports: Some(css_imports),
    ..LanguageDef::DEFAULT
};

pub const SCSS: LanguageDef = LanguageDef {
    id: "scss",
    name: "SCSS",
    extensions: &["scss"],
    parsing: Parsing::Grammar(scss),
    tags: include_str!("scss.scm"),
    member_separator: " ",
    chunking: Chunking::Css,
    modules: ModuleSystem::Stylesheets,
    scanned_imports: Some(scss_imports),
    ..LanguageDef::DEFAULT
};
