//! Ruby: classes, modules, methods (`def self.x` included) and constants; `require` and
//! `require_relative` as imports; `include` / `extend` as mixins; `private` sections.

pub mod outline;

use super::{LanguageDef, ModuleSystem, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_ruby::LANGUAGE.into()
}

pub const RUBY: LanguageDef = LanguageDef {
    id: "ruby",
    name: "Ruby",
    extensions: &["rb", "rake", "gemspec"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    // `Admin::UsersController`, and its methods as `Admin::UsersController::index`.
    member_separator: "::",
    modules: ModuleSystem::LoadPath { roots: &["lib"] },
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};
