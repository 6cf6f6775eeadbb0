//! Rust outlines: `mod x;` declarations and `use` trees (flattened into one import per module
//! path; `pub use` is also a re-export), functions with `async` / `const` / `unsafe`, structs as
//! classes with their fields and the methods of every `impl` block for them (trait impls add to
//! `implements`), enums with variants and impl methods, traits as types with their method
//! signatures, type aliases, consts and statics, and `///` / `//!` docs. Exported means `pub`.
//! Inline modules (`mod tests { … }`) are not descended into.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

const ATTRIBUTES: &[&str] = &["attribute_item"];

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline {
        doc: inner_doc(root, src),
        ..FileOutline::default()
    };
    let mut impls: Vec<Node> = Vec::new();
    for node in named_children(root) {
        match node.kind() {
            "mod_item" if node.child_by_field_name("body").is_none() => {
                let name = name_of(node, src);
                if is_pub(node, src) {
                    export(&mut out, &name, "module", false, None);
                }
                out.imports.push(Import {
                    source: name.clone(),
                    kind: ImportType::Internal,
                    imported: vec![ImportedName { name, alias: None }],
                    default: false,
                    namespace: true,
                    type_only: false,
                    dynamic: false,
                    statement: Some("mod".into()),
                    line: line(node),
                });
            }
            "use_declaration" => use_declaration(node, src, &mut out),
            "function_item" | "function_signature_item" => {
                let exported = is_pub(node, src);
                let f = function(node, src, exported);
                if exported {
                    export(&mut out, &f.name, "function", false, None);
                }
                out.functions.push(f);
            }
            "struct_item" | "union_item" => struct_item(node, src, &mut out),
            "enum_item" => enum_item(node, src, &mut out),
            "trait_item" => trait_item(node, src, &mut out),
            "type_item" => {
                let name = name_of(node, src);
                let exported = is_pub(node, src);
                if exported {
                    export(&mut out, &name, "type", false, None);
                }
                out.types.push(TypeDefinition {
                    name,
                    kind: "type".into(),
                    exported,
                    extends: Vec::new(),
                    members: Vec::new(),
                    definition: node.child_by_field_name("type").map(|t| one_line(t, src)),
                    location: location(node),
                    doc: doc_before(node, src, DocStyle::RustDoc, ATTRIBUTES),
                });
            }
            "const_item" | "static_item" => {
                let name = name_of(node, src);
                let exported = is_pub(node, src);
                if exported {
                    export(&mut out, &name, "constant", false, None);
                }
                out.variables.push(Variable {
                    name,
                    kind: if node.kind() == "const_item" {
                        "const"
                    } else {
                        "static"
                    }
                    .into(),
                    type_name: node.child_by_field_name("type").map(|t| one_line(t, src)),
                    exported,
                    line: line(node),
                });
            }
            "impl_item" => impls.push(node),
            _ => {}
        }
    }
    for node in impls {
        impl_item(node, src, &mut out);
    }
    out
}

fn name_of(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

fn is_pub(node: Node, src: &str) -> bool {
    child_of_kind(node, "visibility_modifier").is_some_and(|v| text(v, src).starts_with("pub"))
}

fn export(out: &mut FileOutline, name: &str, kind: &str, re_export: bool, source: Option<String>) {
    out.exports.push(Export {
        name: name.to_string(),
        kind: kind.to_string(),
        default: false,
        re_export,
        source,
    });
}

/// `//!` comments at the top of the file describe the module.
fn inner_doc(root: Node, src: &str) -> Option<String> {
    let lines: Vec<&str> = named_children(root)
        .into_iter()
        .take_while(|n| is_comment(*n))
        .map(|n| text(n, src))
        .filter(|t| t.starts_with("//!") || t.starts_with("/*!"))
        .collect();
    let doc = clean_comment(&lines.join("\n"));
    (!doc.is_empty()).then_some(doc)
}

/// Flattens a use tree into (module path, name, alias) leaves; a wildcard has name `*`. The one
/// reader of Rust `use` trees: the outline groups the leaves into imports, the chunker's name
/// binding (`names.rs`) binds them.
pub(super) fn use_leaves(
    node: Node,
    prefix: &str,
    src: &str,
    out: &mut Vec<(String, String, Option<String>)>,
) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    match node.kind() {
        "scoped_identifier" => {
            let path = node
                .child_by_field_name("path")
                .map_or(String::new(), |p| text(p, src).to_string());
            out.push((join(prefix, &path), name_of(node, src), None));
        }
        "identifier" | "crate" | "self" | "super" | "metavariable" => {
            out.push((prefix.to_string(), text(node, src).to_string(), None))
        }
        "use_as_clause" => {
            let alias = node
                .child_by_field_name("alias")
                .map(|a| text(a, src).to_string());
            if let Some(path) = node.child_by_field_name("path") {
                let mut inner = Vec::new();
                use_leaves(path, prefix, src, &mut inner);
                for (module, name, _) in inner {
                    out.push((module, name, alias.clone()));
                }
            }
        }
        "use_wildcard" => {
            let path = node
                .named_child(0)
                .map_or(String::new(), |p| text(p, src).to_string());
            out.push((join(prefix, &path), "*".into(), None));
        }
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map_or(String::new(), |p| text(p, src).to_string());
            let inner_prefix = join(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_leaves(list, &inner_prefix, src, out);
            }
        }
        "use_list" => {
            for item in named_children(node) {
                use_leaves(item, prefix, src, out);
            }
        }
        _ => {}
    }
}

fn use_declaration(node: Node, src: &str, out: &mut FileOutline) {
    let Some(argument) = node.child_by_field_name("argument") else {
        return;
    };
    let mut leaves = Vec::new();
    use_leaves(argument, "", src, &mut leaves);
    let public = is_pub(node, src);
    // One import per module path, in first-seen order.
    let mut grouped: Vec<(String, Vec<ImportedName>, bool)> = Vec::new();
    for (module, name, alias) in leaves {
        // `use serde;` / `use crate::money;`: the module itself is imported.
        let (module, name) = if module.is_empty() {
            (name.clone(), name)
        } else {
            (module, name)
        };
        if public && name != "*" {
            let shown = alias.clone().unwrap_or_else(|| name.clone());
            export(out, &shown, "unknown", true, Some(module.clone()));
        }
        let entry = match grouped.iter_mut().find(|(m, _, _)| *m == module) {
            Some(entry) => entry,
            None => {
                grouped.push((module.clone(), Vec::new(), false));
                grouped.last_mut().expect("just pushed")
            }
        };
        if name == "*" {
            entry.2 = true;
        } else if name != "self" {
            entry.1.push(ImportedName { name, alias });
        } else {
            entry.2 = true;
        }
    }
    for (module, imported, wildcard) in grouped {
        let first = module.split("::").next().unwrap_or("");
        out.imports.push(Import {
            kind: if matches!(first, "crate" | "self" | "super") {
                ImportType::Internal
            } else {
                ImportType::External
            },
            namespace: wildcard || imported.iter().any(|i| i.name == module),
            imported,
            source: module,
            default: false,
            type_only: false,
            dynamic: false,
            statement: public.then(|| "pub use".into()),
            line: line(node),
        });
    }
}

fn function(node: Node, src: &str, exported: bool) -> Function {
    let modifiers = child_of_kind(node, "function_modifiers")
        .map(|m| text(m, src).to_string())
        .unwrap_or_default();
    Function {
        name: name_of(node, src),
        exported,
        is_async: modifiers.contains("async"),
        generator: false,
        parameters: node
            .child_by_field_name("parameters")
            .map(|p| parameters(p, src))
            .unwrap_or_default(),
        return_type: node
            .child_by_field_name("return_type")
            .map(|t| one_line(t, src)),
        location: location(node),
        decorators: attributes(node, src),
        doc: doc_before(node, src, DocStyle::RustDoc, ATTRIBUTES),
        body: node
            .child_by_field_name("body")
            .map(|b| body_excerpt(b, src)),
    }
}

/// Attributes directly above an item (`#[derive(Debug)]`, `#[test]`).
fn attributes(node: Node, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut sibling = node.prev_named_sibling();
    while let Some(attr) = sibling.filter(|s| s.kind() == "attribute_item" || is_comment(*s)) {
        if attr.kind() == "attribute_item"
            && let Some(inner) = attr.named_child(0)
        {
            out.push(inner);
        }
        sibling = attr.prev_named_sibling();
    }
    out.reverse();
    out.into_iter().map(|n| collapse(text(n, src))).collect()
}

fn parameters(params: Node, src: &str) -> Vec<Parameter> {
    let mut out = Vec::new();
    for p in named_children(params) {
        match p.kind() {
            "parameter" => out.push(Parameter {
                name: p
                    .child_by_field_name("pattern")
                    .map_or(String::new(), |n| one_line(n, src)),
                type_name: p.child_by_field_name("type").map(|t| one_line(t, src)),
                optional: false,
                rest: false,
                default: None,
            }),
            "variadic_parameter" => out.push(Parameter {
                name: "...".into(),
                type_name: None,
                optional: false,
                rest: true,
                default: None,
            }),
            // `self`, `&self`, `&mut self`: the receiver is not an argument.
            _ => {}
        }
    }
    out
}

fn struct_item(node: Node, src: &str, out: &mut FileOutline) {
    let name = name_of(node, src);
    let exported = is_pub(node, src);
    let mut properties = Vec::new();
    if let Some(body) = node.child_by_field_name("body") {
        let mut index = 0;
        for field in named_children(body) {
            match field.kind() {
                "field_declaration" => properties.push(Property {
                    name: name_of(field, src),
                    type_name: field.child_by_field_name("type").map(|t| one_line(t, src)),
                    access_modifier: if is_pub(field, src) {
                        "public"
                    } else {
                        "private"
                    }
                    .into(),
                    is_static: false,
                    readonly: false,
                    optional: false,
                    line: line(field),
                }),
                // Tuple struct fields are named by position.
                kind if kind != "visibility_modifier" && !is_comment(field) => {
                    properties.push(Property {
                        name: index.to_string(),
                        type_name: Some(one_line(field, src)),
                        access_modifier: "private".into(),
                        is_static: false,
                        readonly: false,
                        optional: false,
                        line: line(field),
                    });
                    index += 1;
                }
                _ => {}
            }
        }
    }
    if exported {
        export(out, &name, "struct", false, None);
    }
    out.classes.push(Class {
        name,
        kind: "struct".into(),
        exported,
        is_abstract: false,
        extends: None,
        implements: Vec::new(),
        uses: Vec::new(),
        methods: Vec::new(),
        properties,
        location: location(node),
        decorators: Vec::new(),
        doc: doc_before(node, src, DocStyle::RustDoc, ATTRIBUTES),
    });
}

fn enum_item(node: Node, src: &str, out: &mut FileOutline) {
    let name = name_of(node, src);
    let exported = is_pub(node, src);
    let members = node
        .child_by_field_name("body")
        .map(|b| {
            named_children(b)
                .into_iter()
                .filter(|v| v.kind() == "enum_variant")
                .map(|v| EnumMember {
                    name: name_of(v, src),
                    value: v
                        .child_by_field_name("body")
                        .or_else(|| v.child_by_field_name("value"))
                        .map(|b| one_line(b, src)),
                })
                .collect()
        })
        .unwrap_or_default();
    if exported {
        export(out, &name, "enum", false, None);
    }
    out.enums.push(EnumDefinition {
        name,
        exported,
        is_const: false,
        members,
        implements: Vec::new(),
        methods: Vec::new(),
        location: location(node),
        doc: doc_before(node, src, DocStyle::RustDoc, ATTRIBUTES),
    });
}

fn trait_item(node: Node, src: &str, out: &mut FileOutline) {
    let name = name_of(node, src);
    let exported = is_pub(node, src);
    let mut members = Vec::new();
    for item in node
        .child_by_field_name("body")
        .map(named_children)
        .unwrap_or_default()
    {
        match item.kind() {
            "function_signature_item" | "function_item" => {
                let params = item
                    .child_by_field_name("parameters")
                    .map_or("()".into(), |p| one_line(p, src));
                let ret = item
                    .child_by_field_name("return_type")
                    .map(|r| format!(" -> {}", one_line(r, src)))
                    .unwrap_or_default();
                members.push(Member {
                    name: name_of(item, src),
                    kind: "method".into(),
                    type_name: Some(format!("{params}{ret}")),
                    // A method with a default body need not be implemented.
                    optional: item.kind() == "function_item",
                    readonly: false,
                    line: line(item),
                });
            }
            "associated_type" => members.push(Member {
                name: name_of(item, src),
                kind: "type".into(),
                type_name: None,
                optional: false,
                readonly: false,
                line: line(item),
            }),
            "const_item" => members.push(Member {
                name: name_of(item, src),
                kind: "constant".into(),
                type_name: item.child_by_field_name("type").map(|t| one_line(t, src)),
                optional: false,
                readonly: true,
                line: line(item),
            }),
            _ => {}
        }
    }
    if exported {
        export(out, &name, "trait", false, None);
    }
    out.types.push(TypeDefinition {
        name,
        kind: "trait".into(),
        exported,
        extends: node
            .child_by_field_name("bounds")
            .map(|b| {
                named_children(b)
                    .iter()
                    .map(|t| one_line(*t, src))
                    .collect()
            })
            .unwrap_or_default(),
        members,
        definition: None,
        location: location(node),
        doc: doc_before(node, src, DocStyle::RustDoc, ATTRIBUTES),
    });
}

/// Methods of an `impl` join the struct or enum they are for; a type declared elsewhere gets a
/// class entry of its own.
fn impl_item(node: Node, src: &str, out: &mut FileOutline) {
    let type_name = node
        .child_by_field_name("type")
        .map(|t| {
            let t = text(t, src);
            t.split('<').next().unwrap_or(t).trim().to_string()
        })
        .unwrap_or_default();
    let trait_name = node.child_by_field_name("trait").map(|t| one_line(t, src));
    let mut methods = Vec::new();
    for item in node
        .child_by_field_name("body")
        .map(named_children)
        .unwrap_or_default()
    {
        if item.kind() != "function_item" {
            continue;
        }
        let f = function(item, src, false);
        let has_receiver = item.child_by_field_name("parameters").is_some_and(|p| {
            named_children(p)
                .iter()
                .any(|c| c.kind() == "self_parameter")
        });
        let public = is_pub(item, src) || trait_name.is_some();
        methods.push(Method {
            kind: if f.name == "new" && !has_receiver {
                "constructor"
            } else {
                "method"
            }
            .into(),
            access_modifier: if public { "public" } else { "private" }.into(),
            is_static: !has_receiver,
            is_abstract: false,
            is_async: f.is_async,
            generator: false,
            parameters: f.parameters,
            return_type: f.return_type,
            location: f.location,
            decorators: f.decorators,
            doc: f.doc,
            body: f.body,
            name: f.name,
        });
    }
    if let Some(e) = out.enums.iter_mut().find(|e| e.name == type_name) {
        e.implements.extend(trait_name);
        e.methods.extend(methods);
        return;
    }
    match out.classes.iter_mut().find(|c| c.name == type_name) {
        Some(class) => {
            class.implements.extend(trait_name);
            class.methods.extend(methods);
        }
        None => out.classes.push(Class {
            name: type_name,
            kind: "impl".into(),
            exported: false,
            is_abstract: false,
            extends: None,
            implements: trait_name.into_iter().collect(),
            uses: Vec::new(),
            methods,
            properties: Vec::new(),
            location: location(node),
            decorators: Vec::new(),
            doc: None,
        }),
    }
}
