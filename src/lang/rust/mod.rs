//! Rust: modules, structs, enums, traits and their `impl` blocks; `use` and `mod` items.

pub mod names;
pub mod outline;

use super::walk::has_child;
use super::{LanguageDef, ModuleSystem, Parsing};
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
    exported: |node, _, _| has_child(node, "visibility_modifier"),
    modules: ModuleSystem::RustModules,
    impl_blocks: true,
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
