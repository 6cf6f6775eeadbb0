//! Python name binding: `import a.b [as c]` and `from .x import y [as z]` (relative imports
//! resolved against the file's own module), then the file's own top-level names. A name is a
//! reference where it is an annotation, a base class, a decorator or the function of a call.

use crate::lang::names::{Bindings, NameRules, Reference, Visit, resolve_path, strip_ext};
use crate::lang::walk::text as node_text;
use tree_sitter::Node;

pub static RULES: NameRules = NameRules {
    module: |file| Some(module_of(file)),
    statement,
    resolve,
    opaque: |kind| matches!(kind, "comment" | "integer" | "float"),
    statement_may_refer: None,
    reference,
};

/// Annotations that are not project types.
const BUILTIN_TYPES: &[&str] = &[
    "str",
    "int",
    "float",
    "bool",
    "bytes",
    "dict",
    "list",
    "set",
    "tuple",
    "frozenset",
    "object",
    "None",
    "Any",
    "Optional",
    "Union",
    "List",
    "Dict",
    "Set",
    "Tuple",
    "Callable",
    "Iterable",
    "Iterator",
    "Sequence",
    "Mapping",
    "Type",
    "self",
    "cls",
    "type",
];

/// `src/orderly/auth/service.py` → `orderly.auth.service` (a leading `src/` or `lib/` is the
/// layout, not the package).
pub fn module_of(file: &str) -> String {
    let path = strip_ext(file);
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 1 && matches!(parts[0], "src" | "lib") {
        parts.remove(0);
    }
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    parts.join(".")
}

/// `from ..db import x` inside `orderly/auth/service.py` → `orderly.db`.
fn resolve_relative(module: &str, file: &str) -> String {
    let dots = module.len() - module.trim_start_matches('.').len();
    if dots == 0 {
        return module.to_string();
    }
    let rest = &module[dots..];
    let current = module_of(file);
    let mut parts: Vec<&str> = current.split('.').filter(|p| !p.is_empty()).collect();
    // The module itself is not a package (unless it is an `__init__`).
    if !file.ends_with("__init__.py") {
        parts.pop();
    }
    for _ in 1..dots {
        parts.pop();
    }
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

/// Binds the names a top-level import statement brings in, read by the outline's reader.
fn statement(node: Node, text: &str, file: &str, bindings: &mut Bindings) {
    let mut imports = Vec::new();
    super::outline::import_node(node, text, false, &mut imports);
    for import in imports.iter().filter(|i| !i.dynamic) {
        if import.namespace {
            // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`; `from x import *`
            // (no names) binds nothing.
            for name in &import.imported {
                match &name.alias {
                    Some(alias) => bindings.add(alias, name.name.clone()),
                    None => {
                        let local = name.name.split('.').next().unwrap_or(&name.name);
                        bindings.add(local, local.to_string());
                    }
                }
            }
            continue;
        }
        let module = resolve_relative(&import.source, file);
        for name in &import.imported {
            let full = if module.is_empty() {
                name.name.clone()
            } else {
                format!("{module}.{}", name.name)
            };
            bindings.add(name.alias.as_deref().unwrap_or(&name.name), full);
        }
    }
}

fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    resolve_path(bindings, raw, ".", ".", BUILTIN_TYPES)
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    let take = matches!(visit.kind, "identifier" | "attribute")
        && (matches!(
            visit.parent_kind(),
            "type" | "generic_type" | "argument_list"
        ) && (visit.parent_kind() != "argument_list"
            || visit.grandparent_kind() == "class_definition")
            || (visit.parent_kind() == "call" && visit.is_parent_field("function"))
            || visit.parent_kind() == "decorator");
    take.then(|| Reference {
        name: node_text(visit.node, text).trim(),
        whole: false,
    })
}
