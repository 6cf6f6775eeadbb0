//! Rust name binding: `use` declarations (groups, `self`, aliases; globs bind nothing), then the
//! file's own top-level names in its module path (`src/ledger.rs` → `crate::ledger`). Types and
//! the type of an associated call (`Money::new(…)`) are the references.

use crate::lang::names::{
    Bindings, NameRules, Reference, Visit, resolve_path, split_alias, strip_ext,
};
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

fn statement(node: Node, text: &str, _file: &str, bindings: &mut Bindings) {
    if node.kind() != "use_declaration" {
        return;
    }
    let body = node_text(node, text)
        .trim_start_matches("pub")
        .trim_start()
        .trim_start_matches("use")
        .trim()
        .trim_end_matches(';');
    for (local, full) in use_paths(body) {
        bindings.add(&local, full);
    }
}

/// `std::collections::{HashMap, BTreeMap as B}` → `[(HashMap, std::collections::HashMap), …]`.
fn use_paths(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    match body.split_once('{') {
        Some((prefix, rest)) => {
            let prefix = prefix.trim().trim_end_matches("::");
            for item in rest.trim_end_matches('}').split(',') {
                let (path, alias) = split_alias(item);
                if path.is_empty() || path.contains('{') {
                    continue;
                }
                let full = if path == "self" {
                    prefix.to_string()
                } else {
                    format!("{prefix}::{path}")
                };
                let local = alias.unwrap_or_else(|| full.rsplit("::").next().unwrap_or(&full));
                out.push((local.to_string(), full.clone()));
            }
        }
        None => {
            let (path, alias) = split_alias(body);
            if !path.ends_with('*') {
                let local = alias.unwrap_or_else(|| path.rsplit("::").next().unwrap_or(path));
                out.push((local.to_string(), path.to_string()));
            }
        }
    }
    out
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
