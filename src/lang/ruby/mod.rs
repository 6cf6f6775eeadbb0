//! Ruby: classes, modules, methods (`def self.x` included) and constants; `require` and
//! `require_relative` as imports; `include` / `extend` as mixins; `private` sections.

pub mod outline;

use super::walk::text;
use super::{LanguageDef, ModuleSystem, Parsing};
use tree_sitter::{Language as Grammar, Node};

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
    exported,
    modules: ModuleSystem::LoadPath { roots: &["lib"] },
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

/// A method is exported unless its visibility is private or protected.
fn exported(node: Node, _name: &str, src: &str) -> bool {
    !matches!(node.kind(), "method" | "singleton_method") || visibility(node, src) == "public"
}

/// A definition's visibility by Ruby's rules, the one reading the symbols and the outline share:
/// the call that wraps it (`private def x … end`), a later `private :x` naming it, or the last
/// bare `private` / `protected` / `public` above it in its body; public otherwise.
pub(crate) fn visibility(node: Node, src: &str) -> &'static str {
    let wrapper = node
        .parent()
        .filter(|p| p.kind() == "argument_list")
        .and_then(|p| p.parent());
    if let Some(word) = wrapper.and_then(|call| access_call(call, src)) {
        return word;
    }
    let statement = wrapper.unwrap_or(node);
    if let Some(name) = node
        .child_by_field_name("name")
        .filter(|_| matches!(node.kind(), "method" | "singleton_method"))
        .map(|n| text(n, src))
    {
        let mut later = statement.next_named_sibling();
        while let Some(s) = later {
            if let Some(word) = access_call(s, src) {
                let names_it = s.child_by_field_name("arguments").is_some_and(|a| {
                    let mut cursor = a.walk();
                    a.named_children(&mut cursor)
                        .any(|arg| text(arg, src).trim_start_matches(':') == name)
                });
                if names_it {
                    return word;
                }
            }
            later = s.next_named_sibling();
        }
    }
    let mut earlier = statement.prev_named_sibling();
    while let Some(s) = earlier {
        if s.kind() == "identifier"
            && let Some(word) = access_word(text(s, src))
        {
            return word;
        }
        earlier = s.prev_named_sibling();
    }
    "public"
}

/// The visibility a call such as `private :a` or `private def …` gives, if it is one.
fn access_call(node: Node, src: &str) -> Option<&'static str> {
    if node.kind() != "call" || node.child_by_field_name("receiver").is_some() {
        return None;
    }
    access_word(text(node.child_by_field_name("method")?, src))
}

fn access_word(word: &str) -> Option<&'static str> {
    match word {
        "private" | "private_class_method" => Some("private"),
        "protected" => Some("protected"),
        "public" => Some("public"),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
