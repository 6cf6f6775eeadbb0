//! Rust: modules, structs, enums, traits and their `impl` blocks; `use` and `mod` items.

pub mod outline;

use super::{LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_rust::LANGUAGE.into()
}

pub const RUST: LanguageDef = LanguageDef {
    id: "rust",
    name: "Rust",
    extensions: &["rs"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    member_separator: "::",
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
