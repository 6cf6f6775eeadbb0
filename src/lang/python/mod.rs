//! Python: modules, classes, functions and decorators; a name is private by its leading
//! underscore.

pub mod outline;

use super::{LanguageDef, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_python::LANGUAGE.into()
}

pub const PYTHON: LanguageDef = LanguageDef {
    id: "python",
    name: "Python",
    extensions: &["py", "pyi", "pyw"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
