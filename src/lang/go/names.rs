//! Go name binding: the `package` clause and `import` specs (named or by the path's last
//! element; `_` and `.` imports bind nothing). `pkg.Name` resolves through the imports, a bare
//! name to the file's package when the file defines it. Types are the references.

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
            "interpreted_string_literal" | "raw_string_literal" | "comment" | "int_literal"
        )
    },
    statement_may_refer: None,
    reference,
};

fn statement(node: Node, text: &str, _file: &str, bindings: &mut Bindings) {
    match node.kind() {
        "package_clause" => bindings.namespace = super::outline::package_name(node, text),
        "import_declaration" => {
            let mut imports = Vec::new();
            super::outline::imports(node, text, &mut imports);
            // A blank import (`_`) binds no name; a package binds its alias or last segment.
            for import in &imports {
                for name in &import.imported {
                    let local = name.alias.as_deref().unwrap_or(&name.name);
                    bindings.add(local, import.source.clone());
                }
            }
        }
        _ => {}
    }
}

fn resolve(bindings: &Bindings, raw: &str) -> Option<String> {
    if let Some((pkg, name)) = raw.split_once('.') {
        return bindings.map.get(pkg).map(|path| format!("{path}.{name}"));
    }
    if bindings.locals.contains(raw) {
        return Some(match &bindings.namespace {
            Some(pkg) => format!("{pkg}.{raw}"),
            None => raw.to_string(),
        });
    }
    None
}

fn reference<'t>(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>> {
    let take = match visit.kind {
        "qualified_type" => true,
        "type_identifier" => {
            visit.parent_kind() != "qualified_type" && visit.parent_kind() != "type_spec"
        }
        _ => false,
    };
    take.then(|| Reference {
        name: node_text(visit.node, text).trim(),
        whole: visit.kind == "qualified_type",
    })
}
