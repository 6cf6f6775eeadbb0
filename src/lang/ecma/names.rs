//! TypeScript and JavaScript name binding: `import` clauses (default, namespace, named with
//! aliases) bind `module#name`, relative modules becoming workspace paths; the file's own
//! top-level names are `file#name`. Types, `new`, `extends`, JSX elements and called functions
//! are the references.

use crate::lang::names::{Bindings, NameRules, Reference, Visit, resolve_path, strip_ext};
use crate::lang::walk::text as node_text;
use tree_sitter::Node;

pub static RULES: NameRules = NameRules {
    module: |file| Some(strip_ext(file).to_string()),
    statement,
    resolve,
    opaque: |kind| matches!(kind, "string" | "comment" | "number" | "regex"),
    statement_may_refer: None,
    reference,
};

/// Names that are never project symbols.
const BUILTIN_TYPES: &[&str] = &[
    "string",
    "number",
    "boolean",
    "any",
    "unknown",
    "never",
    "void",
    "object",
    "undefined",
    "null",
    "Promise",
    "Array",
    "Record",
    "Partial",
    "Readonly",
    "Pick",
    "Omit",
    "Map",
    "Set",
    "Date",
    "Error",
    "RegExp",
    "JSX",
    "React",
];

/// Binds the names an `import` statement brings in, read by the outline's reader: the default
/// import to `<module>#default`, a namespace import to `<module>#*`, a named one to
/// `<module>#<name>`.
fn statement(node: Node, text: &str, file: &str, bindings: &mut Bindings) {
    if node.kind() != "import_statement" {
        return;
    }
    let Some(import) = super::outline::import(node, text) else {
        return;
    };
    let module = resolve_module(&import.source, file);
    // The reader lists the default import first, then the namespace or the named ones.
    let mut names = import.imported.iter();
    if import.default
        && let Some(default) = names.next()
    {
        bindings.add(&default.name, format!("{module}#default"));
    }
    if import.namespace {
        if let Some(namespace) = names.next() {
            bindings.add(&namespace.name, format!("{module}#*"));
        }
        return;
    }
    for name in names {
        let local = name.alias.as_deref().unwrap_or(&name.name);
        bindings.add(local, format!("{module}#{}", name.name));
    }
}

/// Relative specifiers become workspace paths without extension; packages stay as written.
fn resolve_module(spec: &str, file: &str) -> String {
    if !spec.starts_with('.') {
        return spec.to_string();
    }
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for segment in spec.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    strip_ext(&parts.join("/")).to_string()
}

fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    resolve_path(bindings, raw, ".", "#", BUILTIN_TYPES)
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    let take = match visit.kind {
        "type_identifier" => visit.parent_kind() != "type_parameter",
        "nested_type_identifier" => true,
        "identifier" | "member_expression" => {
            matches!(
                visit.parent_kind(),
                "new_expression"
                    | "extends_clause"
                    | "jsx_opening_element"
                    | "jsx_self_closing_element"
            ) || (visit.parent_kind() == "call_expression" && visit.is_parent_field("function"))
        }
        _ => false,
    };
    take.then(|| Reference {
        name: node_text(visit.node, text).trim(),
        whole: visit.kind == "nested_type_identifier",
    })
}
