//! Java: packages, classes, records, interfaces, enums and annotations.

pub mod names;
pub mod outline;

use super::walk::{child_of_kind, field_children, text};
use super::{LanguageDef, ModuleSystem, Parsing, TypedParameter};
use tree_sitter::{Language as Grammar, Node};

fn grammar() -> Grammar {
    tree_sitter_java::LANGUAGE.into()
}

pub const JAVA: LanguageDef = LanguageDef {
    id: "java",
    name: "Java",
    extensions: &["java"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    exported: |node, _, src| {
        child_of_kind(node, "modifiers").is_some_and(|m| text(m, src).contains("public"))
    },
    package_scoped: true,
    modules: ModuleSystem::JavaPackages,
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

/// The first constructor's parameters whose type names a class (generics dropped).
fn injected(class: Node, src: &str) -> Vec<TypedParameter> {
    let Some(constructor) = field_children(class, "body")
        .into_iter()
        .find(|m| m.kind() == "constructor_declaration")
    else {
        return Vec::new();
    };
    let parameters = field_children(constructor, "parameters");
    parameters
        .into_iter()
        .filter_map(|param| {
            if param.kind() != "formal_parameter" {
                return None;
            }
            let ty = param.child_by_field_name("type")?;
            if !matches!(
                ty.kind(),
                "type_identifier" | "scoped_type_identifier" | "generic_type"
            ) {
                return None;
            }
            let type_name = text(ty, src).split('<').next().unwrap_or("").trim();
            Some(TypedParameter {
                type_name: type_name.to_string(),
                variable: text(param.child_by_field_name("name")?, src).to_string(),
                promoted: false,
            })
        })
        .collect()
}
