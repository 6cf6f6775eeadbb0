//! Java: packages, classes, records, interfaces, enums and annotations.

pub mod outline;

use super::{LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_java::LANGUAGE.into()
}

pub const JAVA: LanguageDef = LanguageDef {
    id: "java",
    name: "Java",
    extensions: &["java"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
