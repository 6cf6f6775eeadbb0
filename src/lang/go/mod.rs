//! Go: packages, functions, methods with their receivers, structs and interfaces; a name is
//! exported by its capital letter.

pub mod names;
pub mod outline;

use super::{LanguageDef, ModuleSystem, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_go::LANGUAGE.into()
}

pub const GO: LanguageDef = LanguageDef {
    id: "go",
    name: "Go",
    extensions: &["go"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    exported: |_, name, _| name.chars().next().is_some_and(char::is_uppercase),
    modules: ModuleSystem::GoPackages,
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
