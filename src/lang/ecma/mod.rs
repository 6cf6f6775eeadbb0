//! TypeScript, TSX and JavaScript: one family, one outline walker (`outline.rs`, which also walks
//! Vue scripts); imports, exports with their defaults and re-exports, classes, interfaces, enums.

pub mod names;
pub mod outline;

use super::walk::{field_children, has_child, text};
use super::{LanguageDef, ModuleSystem, Parsing, TypedParameter};
use tree_sitter::{Language as Grammar, Node};

fn typescript() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}
fn tsx() -> Grammar {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}
fn javascript() -> Grammar {
    tree_sitter_javascript::LANGUAGE.into()
}

pub const TYPESCRIPT: LanguageDef = LanguageDef {
    id: "typescript",
    name: "TypeScript",
    extensions: &["ts", "mts", "cts"],
    parsing: Parsing::Grammar(typescript),
    tags: concat!(include_str!("members.scm"), include_str!("typescript.scm")),
    exported,
    modules: ModuleSystem::EsModules,
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

pub const TSX: LanguageDef = LanguageDef {
    id: "tsx",
    name: "TSX",
    extensions: &["tsx"],
    parsing: Parsing::Grammar(tsx),
    tags: concat!(include_str!("members.scm"), include_str!("typescript.scm")),
    jsx: true,
    exported,
    modules: ModuleSystem::EsModules,
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

pub const JAVASCRIPT: LanguageDef = LanguageDef {
    id: "javascript",
    name: "JavaScript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    parsing: Parsing::Grammar(javascript),
    tags: concat!(include_str!("members.scm"), include_str!("javascript.scm")),
    jsx: true,
    exported,
    modules: ModuleSystem::EsModules,
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

/// `export function f`, `export class C`, and `export const f = …` (declarator → declaration →
/// export); members of an exported class are not themselves exports.
fn exported(node: Node, _name: &str, _src: &str) -> bool {
    let parent = node.parent();
    let is_export = |n: Option<Node>| n.is_some_and(|n| n.kind() == "export_statement");
    is_export(parent)
        || (node.kind() == "variable_declarator" && is_export(parent.and_then(|p| p.parent())))
}

/// `constructor`'s parameters annotated with a class type (generics dropped); `private` /
/// `readonly` parameters are also properties.
fn injected(class: Node, src: &str) -> Vec<TypedParameter> {
    let Some(constructor) = field_children(class, "body").into_iter().find(|m| {
        m.kind() == "method_definition"
            && m.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "constructor")
    }) else {
        return Vec::new();
    };
    let parameters = field_children(constructor, "parameters");
    parameters
        .into_iter()
        .filter_map(|param| {
            if !matches!(param.kind(), "required_parameter" | "optional_parameter") {
                return None;
            }
            let variable = text(param.child_by_field_name("pattern")?, src);
            let annotation = param.child_by_field_name("type")?;
            let ty = annotation.named_child(0).filter(|t| {
                matches!(
                    t.kind(),
                    "type_identifier" | "nested_type_identifier" | "generic_type"
                )
            })?;
            let type_name = text(ty, src).split('<').next().unwrap_or("").trim();
            Some(TypedParameter {
                type_name: type_name.to_string(),
                variable: variable.to_string(),
                promoted: has_child(param, "accessibility_modifier")
                    || has_child(param, "readonly"),
            })
        })
        .collect()
}
