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

/// Everything is visible except the methods under a bare `private` / `protected` in their class
/// body (until a bare `public`), those wrapped in `private def …`, and those named by a later
/// `private :name`.
fn exported(node: Node, name: &str, src: &str) -> bool {
    if !matches!(node.kind(), "method" | "singleton_method") {
        return true;
    }
    let parent = node.parent();
    if parent.is_some_and(|p| p.kind() == "argument_list") {
        let call = parent.and_then(|p| p.parent());
        let method = call.and_then(|c| c.child_by_field_name("method"));
        return !method.is_some_and(|m| matches!(text(m, src), "private" | "protected"));
    }
    let mut later = node.next_named_sibling();
    while let Some(s) = later {
        let hides = s.kind() == "call"
            && s.child_by_field_name("method")
                .is_some_and(|m| matches!(text(m, src), "private" | "protected"))
            && s.child_by_field_name("arguments").is_some_and(|a| {
                let mut cursor = a.walk();
                a.named_children(&mut cursor)
                    .any(|arg| text(arg, src).trim_start_matches(':') == name)
            });
        if hides {
            return false;
        }
        later = s.next_named_sibling();
    }
    let mut sibling = node.prev_named_sibling();
    while let Some(s) = sibling {
        if s.kind() == "identifier" {
            match text(s, src) {
                "private" | "protected" => return false,
                "public" => return true,
                _ => {}
            }
        }
        sibling = s.prev_named_sibling();
    }
    true
}

#[cfg(test)]
mod tests;
