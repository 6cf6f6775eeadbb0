//! Java outlines: the package, imports (`static` and `.*` imports marked), classes, records,
//! interfaces, enums and annotation types — nested ones too, named `Outer.Inner` — with their
//! modifiers (`public`/`protected`/`private`, or `package` when none is written), annotations,
//! fields, constructors and methods, generic return types, varargs, and Javadoc.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline {
        doc: file_doc(root, src, |n| {
            matches!(n.kind(), "package_declaration" | "import_declaration")
        }),
        ..FileOutline::default()
    };
    for node in named_children(root) {
        match node.kind() {
            "package_declaration" => out.module = package_name(node, src),
            "import_declaration" => out.imports.push(import(node, src)),
            _ => declaration(node, src, None, &mut out),
        }
    }
    out.exports = out
        .classes
        .iter()
        .filter(|c| c.exported)
        .map(|c| (c.name.clone(), c.kind.clone()))
        .chain(
            out.types
                .iter()
                .filter(|t| t.exported)
                .map(|t| (t.name.clone(), t.kind.clone())),
        )
        .chain(
            out.enums
                .iter()
                .filter(|e| e.exported)
                .map(|e| (e.name.clone(), "enum".to_string())),
        )
        .map(|(name, kind)| Export {
            name,
            kind,
            default: false,
            re_export: false,
            source: None,
        })
        .collect();
    out
}

/// The name a `package` declaration gives (the outline's module, the binding's namespace).
pub(super) fn package_name(node: Node, src: &str) -> Option<String> {
    node.named_child(0)
        .filter(|n| !is_comment(*n))
        .map(|n| text(n, src).to_string())
}

/// An `import` declaration. The one reader of Java imports: the outline reads every one, the
/// chunker's name binding (`names.rs`) binds the names of those that are not static or wildcards.
pub(super) fn import(node: Node, src: &str) -> Import {
    let is_static = has_child(node, "static");
    let wildcard = has_child(node, "asterisk");
    let path = named_children(node)
        .into_iter()
        .find(|n| matches!(n.kind(), "scoped_identifier" | "identifier"))
        .map_or(String::new(), |n| text(n, src).to_string());
    let (source, imported) = if wildcard {
        (path, Vec::new())
    } else if is_static {
        // `import static a.b.C.member;` depends on class `a.b.C`.
        let (class, member) = path.rsplit_once('.').unwrap_or(("", &path));
        (
            class.to_string(),
            vec![ImportedName {
                name: member.to_string(),
                alias: None,
            }],
        )
    } else {
        (
            path.clone(),
            vec![ImportedName {
                name: last_segment(&path).to_string(),
                alias: None,
            }],
        )
    };
    Import {
        source,
        kind: ImportType::External,
        imported,
        default: false,
        namespace: wildcard,
        type_only: false,
        dynamic: false,
        statement: is_static.then(|| "static".into()),
        line: line(node),
    }
}

fn modifiers<'t>(node: Node<'t>) -> Option<Node<'t>> {
    child_of_kind(node, "modifiers")
}

/// `public`, `protected`, `private`, or `package` (no modifier); interface members are public.
fn access(node: Node, src: &str, in_interface: bool) -> String {
    let words = modifier_words(node, src);
    for word in ["public", "protected", "private"] {
        if words.iter().any(|w| w == word) {
            return word.into();
        }
    }
    if in_interface { "public" } else { "package" }.into()
}

fn modifier_words(node: Node, src: &str) -> Vec<String> {
    modifiers(node)
        .map(|m| {
            children(m)
                .into_iter()
                .filter(|c| !c.kind().contains("annotation"))
                .map(|c| text(c, src).to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn annotations(node: Node, src: &str) -> Vec<String> {
    modifiers(node)
        .map(|m| {
            named_children(m)
                .into_iter()
                .filter(|c| c.kind().contains("annotation"))
                .map(|a| collapse(text(a, src).trim_start_matches('@')))
                .collect()
        })
        .unwrap_or_default()
}

fn name_of(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

/// Javadoc sits above the modifiers (annotations are inside them).
fn javadoc(node: Node, src: &str) -> Option<String> {
    doc_before(node, src, DocStyle::Block, &[])
}

fn declaration(node: Node, src: &str, outer: Option<&str>, out: &mut FileOutline) {
    let kind = node.kind();
    if !matches!(
        kind,
        "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "annotation_type_declaration"
    ) {
        return;
    }
    let simple = name_of(node, src);
    let name = match outer {
        Some(outer) => format!("{outer}.{simple}"),
        None => simple,
    };
    let words = modifier_words(node, src);
    let exported = words.iter().any(|w| w == "public");
    let in_interface = matches!(
        kind,
        "interface_declaration" | "annotation_type_declaration"
    );
    let Body {
        methods,
        mut properties,
        enum_members,
    } = body(node, src, &name, in_interface, out);
    let doc = javadoc(node, src);
    match kind {
        "interface_declaration" | "annotation_type_declaration" => {
            out.types.push(TypeDefinition {
                name,
                kind: if kind == "interface_declaration" {
                    "interface"
                } else {
                    "annotation"
                }
                .into(),
                exported,
                extends: type_list(child_of_kind(node, "extends_interfaces"), src),
                members: interface_members(properties, methods),
                definition: None,
                location: location(node),
                doc,
            });
        }
        "enum_declaration" => out.enums.push(EnumDefinition {
            name,
            exported,
            is_const: false,
            members: enum_members,
            implements: type_list(node.child_by_field_name("interfaces"), src),
            methods,
            location: location(node),
            doc,
        }),
        _ => {
            if kind == "record_declaration" {
                properties.extend(record_components(node, src));
            }
            out.classes.push(Class {
                name,
                kind: if kind == "record_declaration" {
                    "record"
                } else {
                    "class"
                }
                .into(),
                exported,
                is_abstract: words.iter().any(|w| w == "abstract"),
                extends: node
                    .child_by_field_name("superclass")
                    .and_then(|s| s.named_child(0))
                    .map(|t| one_line(t, src)),
                implements: type_list(node.child_by_field_name("interfaces"), src),
                uses: Vec::new(),
                methods,
                properties,
                location: location(node),
                decorators: annotations(node, src),
                doc,
            });
        }
    }
}

/// What a type's body declares; nested types go straight to `out`, under `name`.
struct Body {
    methods: Vec<Method>,
    properties: Vec<Property>,
    enum_members: Vec<EnumMember>,
}

fn body(node: Node, src: &str, name: &str, in_interface: bool, out: &mut FileOutline) -> Body {
    let mut found = Body {
        methods: Vec::new(),
        properties: Vec::new(),
        enum_members: Vec::new(),
    };
    let members = node
        .child_by_field_name("body")
        .map(named_children)
        .unwrap_or_default();
    for member in members {
        match member.kind() {
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => {
                found.methods.push(method(member, src, in_interface))
            }
            "field_declaration" | "constant_declaration" => {
                found.properties.extend(fields(member, src, in_interface))
            }
            "enum_constant" => found.enum_members.push(EnumMember {
                name: name_of(member, src),
                value: member
                    .child_by_field_name("arguments")
                    .map(|a| one_line(a, src)),
            }),
            "enum_body_declarations" => {
                for inner in named_children(member) {
                    match inner.kind() {
                        "method_declaration" | "constructor_declaration" => {
                            found.methods.push(method(inner, src, false))
                        }
                        _ => declaration(inner, src, Some(name), out),
                    }
                }
            }
            _ => declaration(member, src, Some(name), out),
        }
    }
    found
}

/// One property per declarator of a field (`int a, b;`); interface fields are constants.
fn fields(member: Node, src: &str, in_interface: bool) -> Vec<Property> {
    let type_name = member.child_by_field_name("type").map(|t| one_line(t, src));
    let words = modifier_words(member, src);
    let mut cursor = member.walk();
    member
        .children_by_field_name("declarator", &mut cursor)
        .map(|d| Property {
            name: name_of(d, src),
            type_name: type_name.clone(),
            access_modifier: access(member, src, in_interface),
            is_static: in_interface || words.iter().any(|w| w == "static"),
            readonly: in_interface || words.iter().any(|w| w == "final"),
            optional: false,
            line: line(member),
        })
        .collect()
}

/// A record's components, which are its private final fields.
fn record_components(node: Node, src: &str) -> Vec<Property> {
    let Some(params) = node.child_by_field_name("parameters") else {
        return Vec::new();
    };
    named_children(params)
        .into_iter()
        .map(|p| Property {
            name: name_of(p, src),
            type_name: p.child_by_field_name("type").map(|t| one_line(t, src)),
            access_modifier: "private".into(),
            is_static: false,
            readonly: true,
            optional: false,
            line: line(p),
        })
        .collect()
}

/// An interface's constants and method signatures as members.
fn interface_members(properties: Vec<Property>, methods: Vec<Method>) -> Vec<Member> {
    let mut members: Vec<Member> = properties
        .into_iter()
        .map(|p| Member::of_property(p, "constant", true))
        .collect();
    members.extend(methods.into_iter().map(|m| {
        let params: Vec<String> = m
            .parameters
            .iter()
            .map(|p| format!("{} {}", p.type_name.as_deref().unwrap_or("?"), p.name))
            .collect();
        let signature = format!(
            "{} ({})",
            m.return_type.as_deref().unwrap_or("void"),
            params.join(", ")
        );
        let optional = !m.is_abstract;
        Member::of_method(m, signature, optional)
    }));
    members
}

/// The types of an `extends` / `implements` clause.
fn type_list(clause: Option<Node>, src: &str) -> Vec<String> {
    clause
        .map(|c| {
            named_children(c)
                .into_iter()
                .flat_map(|l| {
                    if l.kind() == "type_list" {
                        named_children(l)
                    } else {
                        vec![l]
                    }
                })
                .map(|t| one_line(t, src))
                .collect()
        })
        .unwrap_or_default()
}

fn method(node: Node, src: &str, in_interface: bool) -> Method {
    let words = modifier_words(node, src);
    let has = |w: &str| words.iter().any(|x| x == w);
    let body = node.child_by_field_name("body");
    Method {
        name: name_of(node, src),
        kind: if node.kind() == "method_declaration" {
            "method"
        } else {
            "constructor"
        }
        .into(),
        access_modifier: access(node, src, in_interface),
        is_static: has("static"),
        is_abstract: has("abstract") || (in_interface && body.is_none() && !has("static")),
        is_async: false,
        generator: false,
        parameters: node
            .child_by_field_name("parameters")
            .map(|p| parameters(p, src))
            .unwrap_or_default(),
        return_type: node.child_by_field_name("type").map(|t| one_line(t, src)),
        location: location(node),
        decorators: annotations(node, src),
        doc: javadoc(node, src),
        body: body.map(|b| body_excerpt(b, src)),
    }
}

fn parameters(params: Node, src: &str) -> Vec<Parameter> {
    let mut out = Vec::new();
    for p in named_children(params) {
        match p.kind() {
            "formal_parameter" | "receiver_parameter" => out.push(Parameter {
                name: name_of(p, src),
                type_name: p.child_by_field_name("type").map(|t| one_line(t, src)),
                optional: false,
                rest: false,
                default: None,
            }),
            "spread_parameter" => {
                let declarator = child_of_kind(p, "variable_declarator");
                let type_name = named_children(p)
                    .into_iter()
                    .find(|c| c.kind() != "variable_declarator" && c.kind() != "modifiers")
                    .map(|t| one_line(t, src));
                out.push(Parameter {
                    name: declarator.map_or(String::new(), |d| name_of(d, src)),
                    type_name,
                    optional: false,
                    rest: true,
                    default: None,
                });
            }
            _ => {}
        }
    }
    out
}
