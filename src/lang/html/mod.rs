//! HTML: semantic elements, elements with ids and custom elements; no outline.

use super::{Chunking, LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_html::LANGUAGE.into()
}

pub const HTML: LanguageDef = LanguageDef {
    id: "html",
    name: "HTML",
    extensions: &["html", "htm"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    member_separator: " ",
    chunking: Chunking::Html,
    ..LanguageDef::DEFAULT
};
