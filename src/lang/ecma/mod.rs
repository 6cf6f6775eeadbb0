//! TypeScript, TSX and JavaScript: one family, one outline walker (`outline.rs`, which also walks
//! Vue scripts); imports, exports with their defaults and re-exports, classes, interfaces, enums.

pub mod outline;

use super::{LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn typescript() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}
fn tsx() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}
fn javascript() -> Grammar {
    tree_sitter_javascript::LANGUAGE.into()
}

pub const TYPESCRIPT: LanguageDef = LanguageDef {
    id: "typescript",
    name: "TypeScript",
    extensions: &["ts", "mts", "cts"],
    parsing: Parsing::Grammar(typescript),
    tags: include_str!("typescript.scm"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

pub const TSX: LanguageDef = LanguageDef {
    id: "tsx",
    name: "TSX",
    extensions: &["tsx"],
    parsing: Parsing::Grammar(tsx),
    tags: include_str!("typescript.scm"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

pub const JAVASCRIPT: LanguageDef = LanguageDef {
    id: "javascript",
    name: "JavaScript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    parsing: Parsing::Grammar(javascript),
    tags: include_str!("javascript.scm"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
