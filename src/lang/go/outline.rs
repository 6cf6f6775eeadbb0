//! Go outlines: the package, imports (a Go import binds a whole package: `namespace`, named by
//! its alias or last path segment; `_` imports bind nothing), functions, structs as classes with
//! their fields and the methods declared on them (receivers), embedded types as `uses`,
//! interfaces, type definitions and aliases, and `iota` constant blocks of a named type as
//! enums. Exported means capitalised, as the language says.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline::default();
    // The package doc is the comment directly above the package clause.
    if let Some(package) = named_children(root)
        .into_iter()
        .find(|n| n.kind() == "package_clause")
    {
        out.module = package_name(package, src);
        out.doc = doc_before(package, src, DocStyle::Line, &[]).filter(|d| !looks_like_license(d));
    }
    let mut methods: Vec<(String, Method)> = Vec::new();
    for node in named_children(root) {
        match node.kind() {
            "import_declaration" => imports(node, src, &mut out.imports),
            "function_declaration" => out.functions.push(function(node, src)),
            "method_declaration" => methods.push(method(node, src)),
            "type_declaration" => {
                for spec in named_children(node) {
                    type_spec(spec, node, src, &mut out);
                }
            }
            "const_declaration" | "var_declaration" => values(node, src, &mut out),
            _ => {}
        }
    }
    attach_methods(methods, &mut out.classes);
    out.exports = exports(&out);
    out
}

fn function(node: Node, src: &str) -> Function {
    let name = name_of(node, src);
    Function {
        exported: is_exported(&name),
        is_async: false,
        generator: false,
        parameters: node
            .child_by_field_name("parameters")
            .map(|p| parameters(p, src))
            .unwrap_or_default(),
        return_type: node.child_by_field_name("result").map(|r| one_line(r, src)),
        location: location(node),
        decorators: Vec::new(),
        doc: doc_before(node, src, DocStyle::Line, &[]),
        body: node
            .child_by_field_name("body")
            .map(|b| body_excerpt(b, src)),
        name,
    }
}

/// A method with the name of its receiver's type: a function with a receiver.
fn method(node: Node, src: &str) -> (String, Method) {
    let receiver = node
        .child_by_field_name("receiver")
        .map(|r| receiver_type(r, src))
        .unwrap_or_default();
    let function = function(node, src);
    let access = access(&function.name);
    (receiver, Method::of_function(function, access))
}

/// Methods join their receiver's struct; a receiver declared in another file of the package
/// gets a class entry of its own so its methods are not lost.
fn attach_methods(methods: Vec<(String, Method)>, classes: &mut Vec<Class>) {
    for (receiver, method) in methods {
        match classes.iter_mut().find(|c| c.name == receiver) {
            Some(class) => class.methods.push(method),
            None => classes.push(Class {
                exported: is_exported(&receiver),
                name: receiver,
                kind: "type".into(),
                is_abstract: false,
                extends: None,
                implements: Vec::new(),
                uses: Vec::new(),
                location: method.location.clone(),
                methods: vec![method],
                properties: Vec::new(),
                decorators: Vec::new(),
                doc: None,
            }),
        }
    }
}

/// What the package exports from this file: its capitalised functions, structs, types,
/// enums, constants and variables.
fn exports(out: &FileOutline) -> Vec<Export> {
    let mut exports = Vec::new();
    exports.extend(
        out.functions
            .iter()
            .filter(|f| f.exported)
            .map(|f| (f.name.clone(), "function")),
    );
    exports.extend(
        out.classes
            .iter()
            .filter(|c| c.exported && c.kind == "struct")
            .map(|c| (c.name.clone(), "struct")),
    );
    exports.extend(out.types.iter().filter(|t| t.exported).map(|t| {
        (
            t.name.clone(),
            if t.kind == "interface" {
                "interface"
            } else {
                "type"
            },
        )
    }));
    exports.extend(
        out.enums
            .iter()
            .filter(|e| e.exported)
            .map(|e| (e.name.clone(), "enum")),
    );
    exports.extend(out.variables.iter().filter(|v| v.exported).map(|v| {
        (
            v.name.clone(),
            if v.kind == "const" {
                "constant"
            } else {
                "variable"
            },
        )
    }));
    exports
        .into_iter()
        .map(|(name, kind)| Export {
            name,
            kind: kind.into(),
            default: false,
            re_export: false,
            source: None,
        })
        .collect()
}

fn name_of(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn access(name: &str) -> &'static str {
    if is_exported(name) {
        "public"
    } else {
        "private"
    }
}

/// The name a `package` clause gives (the outline's module, the binding's namespace).
pub(super) fn package_name(node: Node, src: &str) -> Option<String> {
    node.named_child(0).map(|n| text(n, src).to_string())
}

/// The imports of an `import` declaration. The one reader of Go imports: the outline and the
/// chunker's name binding (`names.rs`) both read them here.
pub(super) fn imports(node: Node, src: &str, out: &mut Vec<Import>) {
    let mut specs = Vec::new();
    for child in named_children(node) {
        match child.kind() {
            "import_spec" => specs.push(child),
            "import_spec_list" => specs.extend(
                named_children(child)
                    .into_iter()
                    .filter(|s| s.kind() == "import_spec"),
            ),
            _ => {}
        }
    }
    for spec in specs {
        let Some(path) = spec.child_by_field_name("path") else {
            continue;
        };
        let source = unquote(text(path, src));
        let alias = spec
            .child_by_field_name("name")
            .map(|n| text(n, src).to_string());
        let imported = match alias.as_deref() {
            Some("_") => Vec::new(),
            _ => vec![ImportedName {
                name: last_segment(&source).to_string(),
                alias: alias.filter(|a| a != "."),
            }],
        };
        out.push(Import {
            // Standard-library paths have no dot in their first segment; `deps` decides the rest.
            kind: ImportType::External,
            namespace: !imported.is_empty(),
            imported,
            source,
            default: false,
            type_only: false,
            dynamic: false,
            statement: None,
            line: line(spec),
        });
    }
}

/// `(c *Cart)` → `Cart`; generic receivers lose their parameters.
fn receiver_type(receiver: Node, src: &str) -> String {
    let raw = named_children(receiver)
        .into_iter()
        .find(|p| p.kind() == "parameter_declaration")
        .and_then(|p| p.child_by_field_name("type"))
        .map_or(String::new(), |t| text(t, src).to_string());
    let raw = raw.trim_start_matches('*');
    raw.split('[').next().unwrap_or(raw).trim().to_string()
}

/// Parameters; `a, b int` gives two parameters of type `int`.
fn parameters(list: Node, src: &str) -> Vec<Parameter> {
    let mut out = Vec::new();
    for p in named_children(list) {
        let rest = p.kind() == "variadic_parameter_declaration";
        if !rest && p.kind() != "parameter_declaration" {
            continue;
        }
        let type_name = p.child_by_field_name("type").map(|t| one_line(t, src));
        let mut cursor = p.walk();
        let names: Vec<String> = p
            .children_by_field_name("name", &mut cursor)
            .map(|n| text(n, src).to_string())
            .collect();
        if names.is_empty() {
            out.push(Parameter {
                name: "_".into(),
                type_name: type_name.clone(),
                optional: false,
                rest,
                default: None,
            });
        }
        for name in names {
            out.push(Parameter {
                name,
                type_name: type_name.clone(),
                optional: false,
                rest,
                default: None,
            });
        }
    }
    out
}

fn type_spec(spec: Node, decl: Node, src: &str, out: &mut FileOutline) {
    let name = name_of(spec, src);
    let Some(ty) = spec.child_by_field_name("type") else {
        return;
    };
    // A lone spec takes the declaration's span and doc comment; grouped specs their own.
    let outer = if named_children(decl).len() == 1 {
        decl
    } else {
        spec
    };
    let doc = doc_before(outer, src, DocStyle::Line, &[]);
    let exported = is_exported(&name);
    match (spec.kind(), ty.kind()) {
        ("type_spec", "struct_type") => {
            let (properties, uses) = struct_fields(ty, src);
            out.classes.push(Class {
                name,
                kind: "struct".into(),
                exported,
                is_abstract: false,
                extends: None,
                implements: Vec::new(),
                uses,
                methods: Vec::new(),
                properties,
                location: location(outer),
                decorators: Vec::new(),
                doc,
            });
        }
        ("type_spec", "interface_type") => {
            let (members, extends) = interface_elements(ty, src);
            out.types.push(TypeDefinition {
                name,
                kind: "interface".into(),
                exported,
                extends,
                members,
                definition: None,
                location: location(outer),
                doc,
            });
        }
        _ => out.types.push(TypeDefinition {
            name,
            kind: "type".into(),
            exported,
            extends: Vec::new(),
            members: Vec::new(),
            definition: Some(one_line(ty, src)),
            location: location(outer),
            doc,
        }),
    }
}

/// A struct's named fields as properties, and its embedded types (what it `uses`).
fn struct_fields(ty: Node, src: &str) -> (Vec<Property>, Vec<String>) {
    let mut properties = Vec::new();
    let mut uses = Vec::new();
    let fields = named_children(ty)
        .into_iter()
        .find(|c| c.kind() == "field_declaration_list");
    for field in fields.map(named_children).unwrap_or_default() {
        if field.kind() != "field_declaration" {
            continue;
        }
        let type_name = field.child_by_field_name("type").map(|t| one_line(t, src));
        let mut cursor = field.walk();
        let names: Vec<String> = field
            .children_by_field_name("name", &mut cursor)
            .map(|n| text(n, src).to_string())
            .collect();
        if names.is_empty() {
            uses.extend(type_name.map(|t| t.trim_start_matches('*').to_string()));
            continue;
        }
        for name in names {
            properties.push(Property {
                access_modifier: access(&name).into(),
                name,
                type_name: type_name.clone(),
                is_static: false,
                readonly: false,
                optional: false,
                line: line(field),
            });
        }
    }
    (properties, uses)
}

/// An interface's method signatures as members, and the interfaces it embeds.
fn interface_elements(ty: Node, src: &str) -> (Vec<Member>, Vec<String>) {
    let mut members = Vec::new();
    let mut extends = Vec::new();
    for elem in named_children(ty) {
        match elem.kind() {
            "method_elem" => {
                let params = elem
                    .child_by_field_name("parameters")
                    .map_or("()".into(), |p| one_line(p, src));
                let result = elem
                    .child_by_field_name("result")
                    .map(|r| format!(" {}", one_line(r, src)))
                    .unwrap_or_default();
                members.push(Member {
                    name: name_of(elem, src),
                    kind: "method".into(),
                    type_name: Some(format!("{params}{result}")),
                    optional: false,
                    readonly: false,
                    line: line(elem),
                });
            }
            "type_elem" => extends.push(one_line(elem, src)),
            _ => {}
        }
    }
    (members, extends)
}

/// `const`/`var` declarations; a `const` block whose first spec has a named type and `iota`
/// is that type's enumeration.
fn values(node: Node, src: &str, out: &mut FileOutline) {
    let kind = if node.kind() == "const_declaration" {
        "const"
    } else {
        "var"
    };
    let specs: Vec<Node> = named_children(node)
        .into_iter()
        .filter(|s| matches!(s.kind(), "const_spec" | "var_spec"))
        .collect();
    let first_type = specs
        .first()
        .and_then(|s| s.child_by_field_name("type"))
        .map(|t| text(t, src).to_string());
    let iota = specs
        .first()
        .and_then(|s| s.child_by_field_name("value"))
        .is_some_and(|v| text(v, src).contains("iota"));
    if kind == "const"
        && iota
        && let Some(type_name) = first_type
    {
        let mut members = Vec::new();
        for spec in &specs {
            let mut cursor = spec.walk();
            for name in spec.children_by_field_name("name", &mut cursor) {
                members.push(EnumMember {
                    name: text(name, src).to_string(),
                    value: spec.child_by_field_name("value").map(|v| one_line(v, src)),
                });
            }
        }
        out.enums.push(EnumDefinition {
            exported: is_exported(&type_name),
            name: type_name,
            is_const: true,
            members,
            implements: Vec::new(),
            methods: Vec::new(),
            location: location(node),
            doc: doc_before(node, src, DocStyle::Line, &[]),
        });
        return;
    }
    for spec in specs {
        let type_name = spec.child_by_field_name("type").map(|t| one_line(t, src));
        let mut cursor = spec.walk();
        for name in spec.children_by_field_name("name", &mut cursor) {
            let name = text(name, src).to_string();
            if name == "_" {
                continue;
            }
            out.variables.push(Variable {
                exported: is_exported(&name),
                name,
                kind: kind.into(),
                type_name: type_name.clone(),
                line: line(spec),
            });
        }
    }
}
