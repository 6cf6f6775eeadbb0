//! PHP: namespaces, classes, traits, enums and functions; `use` statements and the classes a
//! file names without importing them.

pub mod outline;

use super::{LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_php::LANGUAGE_PHP.into()
}

pub const PHP: LanguageDef = LanguageDef {
    id: "php",
    name: "PHP",
    extensions: &["php", "phtml"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    member_separator: "::",
    // Declaration keywords (`define(` covers global constants).
    definition_hint: Some(r"\b(namespace|class|interface|trait|enum|function|const|define)\b"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
