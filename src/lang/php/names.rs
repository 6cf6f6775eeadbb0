//! PHP name binding: `namespace` and `use` statements (groups and aliases; `use function` and
//! `use const` bind no class), then lookup through the imports and the current namespace. A
//! name is a reference where it is a type, is instantiated, extended, implemented, used as a
//! trait, called statically or tested with `instanceof`.

use crate::lang::names::{Bindings, NameRules, Reference, Visit};
use crate::lang::walk::text as node_text;
use std::sync::LazyLock;
use tree_sitter::Node;

pub static RULES: NameRules = NameRules {
    module: |_| None,
    statement,
    resolve,
    opaque: |kind| {
        matches!(
            kind,
            "variable_name" | "string" | "comment" | "integer" | "float" | "boolean" | "null"
        )
    },
    statement_may_refer: Some(may_refer),
    reference,
};

/// Names that are not classes.
const BUILTIN_TYPES: &[&str] = &[
    "self", "static", "parent", "string", "int", "float", "bool", "array", "mixed", "void", "null",
    "callable", "iterable", "object", "never", "false", "true", "integer", "double", "boolean",
];

fn statement(node: Node, text: &str, _file: &str, bindings: &mut Bindings) {
    match node.kind() {
        "namespace_definition" => {
            if let Some(name) = node.child_by_field_name("name") {
                bindings.namespace = Some(node_text(name, text).to_string());
            }
            // `namespace X { … }` blocks nest their statements.
            if let Some(body) = node.child_by_field_name("body") {
                let mut cursor = body.walk();
                for child in body.named_children(&mut cursor) {
                    statement(child, text, "", bindings);
                }
            }
        }
        "namespace_use_declaration" => {
            let mut imports = Vec::new();
            super::outline::uses(node, text, &mut imports);
            // `use function` / `use const` name no class.
            for import in imports.iter().filter(|i| i.statement.is_none()) {
                for name in &import.imported {
                    let local = name.alias.as_deref().unwrap_or(&name.name);
                    bindings.add(local, import.source.clone());
                }
            }
        }
        _ => {}
    }
}

/// Imports first, then the current namespace; `\Absolute` names stand as written.
fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    if let Some(absolute) = raw.strip_prefix('\\') {
        return Some(absolute.to_string());
    }
    if BUILTIN_TYPES.contains(&raw.to_ascii_lowercase().as_str()) {
        return None;
    }
    let (first, rest) = match raw.split_once('\\') {
        Some((f, r)) => (f, Some(r)),
        None => (raw, None),
    };
    if let Some(full) = bindings.map.get(first) {
        return Some(match rest {
            Some(rest) => format!("{full}\\{rest}"),
            None => full.clone(),
        });
    }
    Some(match &bindings.namespace {
        Some(ns) => format!("{ns}\\{raw}"),
        None => raw.to_string(),
    })
}

/// Whether a statement's text can hold a reference at all. Inside a function body, every rule
/// of [`reference`] needs one of these in the text: `new` (instantiation, anonymous classes),
/// `::` (static calls and constants), `instanceof`, `\` (qualified names), `catch`, `function`
/// or `fn` (closure parameter and return types). Most statements have none, and a byte search
/// is far cheaper than stepping through their nodes; a false alarm (`renew`, a string) only
/// costs the walk.
fn may_refer(node: Node, text: &str) -> bool {
    use memchr::memmem::Finder;
    static NEEDLES: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| {
        ["::", "new", "instanceof", "catch", "fn", "function"]
            .into_iter()
            .map(Finder::new)
            .collect()
    });
    let code = &text.as_bytes()[node.start_byte()..node.end_byte()];
    memchr::memchr(b'\\', code).is_some() || NEEDLES.iter().any(|n| n.find(code).is_some())
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    let take = match visit.kind {
        "named_type" | "qualified_name" => true,
        "name" => match visit.parent_kind() {
            "base_clause"
            | "class_interface_clause"
            | "object_creation_expression"
            | "use_declaration" => true,
            "scoped_call_expression" | "class_constant_access_expression" => {
                visit.parent.and_then(|p| p.named_child(0)).map(|n| n.id()) == Some(visit.node.id())
            }
            "binary_expression" => visit
                .parent
                .and_then(|p| p.child_by_field_name("operator"))
                .is_some_and(|op| op.kind() == "instanceof"),
            _ => false,
        },
        _ => false,
    };
    take.then(|| Reference {
        name: node_text(visit.node, text).trim().trim_start_matches('?'),
        whole: matches!(visit.kind, "named_type" | "qualified_name"),
    })
}
