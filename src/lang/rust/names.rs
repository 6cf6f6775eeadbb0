//! Rust name binding: `use` declarations (groups, `self`, aliases; globs bind nothing), then the
//! file's own top-level names in its module path (`src/ledger.rs` → `crate::ledger`). Types and
//! the type of an associated call (`Money::new(…)`) are the references.

use crate::lang::names::{Bindings, NameRules, Reference, Visit, resolve_path, strip_ext};
use crate::lang::walk::text as node_text;
use tree_sitter::Node;

pub static RULES: NameRules = NameRules {
    module: |file| Some(module_of(file)),
    statement,
    resolve,
    opaque: |kind| {
        matches!(
            kind,
            "string_literal" | "raw_string_literal" | "line_comment" | "block_comment"
        )
    },
    statement_may_refer: None,
    reference,
};

/// Names that are the prelude's or the path syntax's, never the project's.
const BUILTIN_TYPES: &[&str] = &[
    "Self", "self", "crate", "super", "String", "Vec", "Option", "Result", "Box",
];

/// `src/ledger.rs` → `crate::ledger`; `lib.rs`, `main.rs` and `mod.rs` name their directory.
fn module_of(file: &str) -> String {
    let path = strip_ext(file);
    let mut parts: Vec<&str> = path.split('/').collect();
    if let Some(pos) = parts.iter().position(|p| *p == "src") {
        parts.drain(..=pos);
    }
    if matches!(parts.last(), Some(&"lib" | &"main" | &"mod")) {
        parts.pop();
    }
    std::iter::once("crate")
        .chain(parts)
        .collect::<Vec<_>>()
        .join("::")
}

/// Binds the names a `use` declaration brings in, from the outline's leaves of its use tree:
/// `use a::b::{C, D as E, self}` binds `C` to `a::b::C`, `E` to `a::b::D` and `b` to `a::b`.
fn statement(node: Node, text: &str, _file: &str, bindings: &mut Bindings) {
    if node.kind() != "use_declaration" {
        return;
    }
    let Some(argument) = node.child_by_field_name("argument") else {
        return;
    };
    let mut leaves = Vec::new();
    super::outline::use_leaves(argument, "", text, &mut leaves);
    for (module, name, alias) in leaves {
        let full = match name.as_str() {
            "*" => continue,
            "self" => module,
            _ if module.is_empty() => name,
            _ => format!("{module}::{name}"),
        };
        let local = alias.unwrap_or_else(|| full.rsplit("::").next().unwrap_or(&full).to_string());
        bindings.add(&local, full);
    }
}

fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    resolve_path(bindings, raw, "::", "::", BUILTIN_TYPES)
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    let take = match visit.kind {
        "type_identifier" => !matches!(
            visit.parent_kind(),
            "scoped_type_identifier"
                | "struct_item"
                | "enum_item"
                | "type_parameter"
                | "trait_item"
        ),
        "scoped_type_identifier" => true,
        "scoped_identifier" => visit.parent_kind() == "call_expression",
        _ => false,
    };
    if !take {
        return None;
    }
    let mut name = node_text(visit.node, text).trim();
    if visit.kind == "scoped_identifier" {
        // `Money::new(…)`: the type is the path without the function.
        name = name.rsplit_once("::").map_or(name, |(path, _)| path);
    }
    Some(Reference {
        name,
        whole: visit.kind == "scoped_type_identifier",
    })
}
