//! PHP: namespaces, classes, traits, enums and functions; `use` statements and the classes a
//! file names without importing them.

pub mod names;
pub mod outline;

use super::walk::{child_of_kind, field_children, text};
use super::{Framework, LanguageDef, ModuleSystem, Parsing, TypedParameter};
use tree_sitter::{Language as Grammar, Node};

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
    // `define(` covers global constants.
    declaration_keywords: &[
        "namespace",
        "class",
        "interface",
        "trait",
        "enum",
        "function",
        "const",
        "define",
    ],
    exported,
    namespace_separator: Some("\\"),
    package_scoped: true,
    modules: ModuleSystem::PhpNamespaces,
    frameworks: &[Framework::Laravel],
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

/// Members without a visibility modifier are public.
fn exported(node: Node, _name: &str, src: &str) -> bool {
    child_of_kind(node, "visibility_modifier").is_none_or(|v| text(v, src) == "public")
}

/// `__construct`'s typed parameters, promoted properties included.
fn injected(class: Node, src: &str) -> Vec<TypedParameter> {
    let Some(constructor) = field_children(class, "body").into_iter().find(|m| {
        m.kind() == "method_declaration"
            && m.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "__construct")
    }) else {
        return Vec::new();
    };
    let parameters = field_children(constructor, "parameters");
    parameters
        .into_iter()
        .filter_map(|param| {
            let promoted = param.kind() == "property_promotion_parameter";
            if !promoted && param.kind() != "simple_parameter" {
                return None;
            }
            let type_name = class_type(param.child_by_field_name("type")?, src)?;
            let variable = text(param.child_by_field_name("name")?, src).trim_start_matches('$');
            Some(TypedParameter {
                type_name,
                variable: variable.to_string(),
                promoted,
            })
        })
        .collect()
}

/// A parameter type that names a class: `Foo`, `?Foo`, `\App\Foo` (not `int`, not unions).
fn class_type(ty: Node, src: &str) -> Option<String> {
    match ty.kind() {
        "named_type" => Some(text(ty, src).to_string()),
        "optional_type" => ty.named_child(0).and_then(|inner| class_type(inner, src)),
        _ => None,
    }
}
