//! Go: packages, functions, methods with their receivers, structs and interfaces; a name is
//! exported by its capital letter.

pub mod outline;

use super::{LanguageDef, Parsing};
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
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
