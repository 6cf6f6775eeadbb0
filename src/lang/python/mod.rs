//! Python: modules, classes, functions and decorators; a name is private by its leading
//! underscore.

pub mod names;
pub mod outline;

use super::walk::{field_children, text};
use super::{LanguageDef, ModuleSystem, Parsing, TypedParameter};
use tree_sitter::{Language as Grammar, Node};

fn grammar() -> Grammar {
    tree_sitter_python::LANGUAGE.into()
}

pub const PYTHON: LanguageDef = LanguageDef {
    id: "python",
    name: "Python",
    extensions: &["py", "pyi", "pyw"],
    parsing: Parsing::Grammar(grammar),
    tags: include_str!("tags.scm"),
    exported: |_, name, _| !name.starts_with('_'),
    modules: ModuleSystem::PythonPackages,
    docstrings: true,
    indented_blocks: true,
    injected: Some(injected),
    names: Some(&names::RULES),
    outline: Some(outline::outline),
    ..LanguageDef::DEFAULT
};

/// `__init__`'s annotated parameters (decorated or not).
fn injected(class: Node, src: &str) -> Vec<TypedParameter> {
    let members = field_children(class, "body");
    let Some(init) = members.into_iter().find_map(|member| {
        let member = if member.kind() == "decorated_definition" {
            member.child_by_field_name("definition")?
        } else {
            member
        };
        (member.kind() == "function_definition"
            && member
                .child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "__init__"))
        .then_some(member)
    }) else {
        return Vec::new();
    };
    let parameters = field_children(init, "parameters");
    parameters
        .into_iter()
        .filter_map(|param| {
            if !matches!(param.kind(), "typed_parameter" | "typed_default_parameter") {
                return None;
            }
            let variable = param
                .child_by_field_name("name")
                .or_else(|| param.named_child(0))
                .map(|n| text(n, src))?;
            let type_name = plain_type(text(param.child_by_field_name("type")?, src))?;
            Some(TypedParameter {
                type_name,
                variable: variable.to_string(),
                promoted: false,
            })
        })
        .collect()
}

/// `Optional[EmailService]`, `EmailService | None`, `"EmailService"` → `EmailService`.
fn plain_type(raw: &str) -> Option<String> {
    let mut ty = raw.trim().trim_matches(['"', '\'']).to_string();
    if let Some(inner) = ty
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
    {
        ty = inner.trim().to_string();
    }
    if let Some((left, right)) = ty.split_once('|') {
        let (left, right) = (left.trim(), right.trim());
        ty = if left == "None" { right } else { left }.to_string();
    }
    (!ty.is_empty() && !ty.contains(['[', ' ', '|'])).then_some(ty)
}
