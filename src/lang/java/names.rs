//! Java name binding: the `package` declaration and single-type imports (static and on-demand
//! imports bind no class name), then the current package; `java.lang` types and type
//! parameters are not the project's. Type names are the references.

use crate::lang::names::{Bindings, NameRules, Reference, Visit};
use crate::lang::walk::text as node_text;
use tree_sitter::Node;

pub static RULES: NameRules = NameRules {
    module: |_| None,
    statement,
    resolve,
    opaque: |kind| {
        matches!(
            kind,
            "string_literal"
                | "line_comment"
                | "block_comment"
                | "decimal_integer_literal"
                | "character_literal"
        )
    },
    statement_may_refer: None,
    reference,
};

/// `java.lang` types used without an import.
const LANG_TYPES: &[&str] = &[
    "String",
    "Object",
    "Integer",
    "Long",
    "Double",
    "Float",
    "Short",
    "Byte",
    "Character",
    "Boolean",
    "Number",
    "Void",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "IllegalArgumentException",
    "IllegalStateException",
    "Override",
    "Math",
    "System",
    "StringBuilder",
    "Iterable",
    "Comparable",
    "Runnable",
    "Class",
    "Enum",
    "Record",
    "Deprecated",
    "FunctionalInterface",
    "SuppressWarnings",
    "Thread",
    "UnsupportedOperationException",
    "NullPointerException",
    "IndexOutOfBoundsException",
];

fn statement(node: Node, text: &str, _file: &str, bindings: &mut Bindings) {
    match node.kind() {
        "package_declaration" => bindings.namespace = super::outline::package_name(node, text),
        "import_declaration" => {
            let import = super::outline::import(node, text);
            // A static import names a member, a wildcard no name; neither binds a type.
            if import.statement.is_none() && !import.namespace {
                for name in &import.imported {
                    bindings.add(&name.name, import.source.clone());
                }
            }
        }
        _ => {}
    }
}

fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    if LANG_TYPES.contains(&raw) || raw.len() == 1 {
        return None;
    }
    let first = raw.split('.').next().unwrap_or(raw);
    if let Some(full) = bindings.map.get(first) {
        return Some(format!("{full}{}", &raw[first.len()..]));
    }
    if raw.contains('.') {
        return Some(raw.to_string());
    }
    Some(match &bindings.namespace {
        Some(pkg) => format!("{pkg}.{raw}"),
        None => raw.to_string(),
    })
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    matches!(visit.kind, "type_identifier" | "scoped_type_identifier").then(|| Reference {
        name: node_text(visit.node, text).trim(),
        whole: visit.kind == "scoped_type_identifier",
    })
}
