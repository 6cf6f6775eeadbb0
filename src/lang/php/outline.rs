//! PHP outlines: the namespace, `use` imports (grouped uses are split into one import per
//! class; `use function` / `use const` are marked), `require` / `include` of literal paths
//! (`__DIR__ . '/x.php'` becomes `./x.php`), classes with `extends` / `implements`, used traits,
//! visibility, `static` / `abstract`, promoted constructor properties, interfaces, traits,
//! backed enums and functions. Every top-level declaration is exported (PHP has no module
//! privacy); exports carry short names, and `module` holds the namespace for FQCNs.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline {
        doc: file_doc(root, src, |n| {
            matches!(
                n.kind(),
                "php_tag"
                    | "namespace_definition"
                    | "namespace_use_declaration"
                    | "declare_statement"
            )
        }),
        ..FileOutline::default()
    };
    statements(root, src, &mut out);
    includes(root, src, &mut out.imports);
    references(root, src, &mut out);
    out.imports.sort_by_key(|i| i.line);
    out
}

/// Names that are never a class of the project: relative scopes and the types PHP spells like
/// class names in type positions.
const NOT_CLASSES: &[&str] = &[
    "self", "static", "parent", "array", "bool", "callable", "false", "float", "int", "iterable",
    "mixed", "never", "null", "object", "string", "true", "void",
];

/// Classes the code names without a `use`: unqualified names (`new OrderService`,
/// `extends Controller`, `CartService $cart`, `Foo::class`) are looked up in the current
/// namespace, namespace-relative ones (`Sub\Thing`) below it, fully qualified ones
/// (`\App\Models\User`) as written. Each becomes one [`REFERENCE`] import at its first use;
/// whether it is a project class is for module resolution to say.
fn references(root: Node, src: &str, out: &mut FileOutline) {
    // Short names bound by `use` (aliases included) resolve through their import instead.
    let mut bound: Vec<String> = out
        .imports
        .iter()
        .filter(|i| i.statement.is_none())
        .flat_map(|i| &i.imported)
        .map(|n| n.alias.as_deref().unwrap_or(&n.name).to_ascii_lowercase())
        .collect();
    bound.extend(out.exports.iter().map(|e| e.name.to_ascii_lowercase()));
    let mut found: Vec<Import> = Vec::new();
    let mut namespace = String::new();
    for statement in named_children(root) {
        if statement.kind() == "namespace_definition" {
            namespace = statement
                .child_by_field_name("name")
                .map_or(String::new(), |n| text(n, src).to_string());
            match statement.child_by_field_name("body") {
                Some(body) => class_names(body, src, &namespace, &bound, &mut found),
                None => continue,
            }
        } else {
            class_names(statement, src, &namespace, &bound, &mut found);
        }
    }
    out.imports.extend(found);
}

fn class_names(node: Node, src: &str, namespace: &str, bound: &[String], out: &mut Vec<Import>) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        let mut names: Vec<Node> = Vec::new();
        match node.kind() {
            "named_type"
            | "base_clause"
            | "class_interface_clause"
            | "use_declaration"
            | "attribute"
            | "object_creation_expression" => names.extend(
                named_children(node)
                    .into_iter()
                    .filter(|c| matches!(c.kind(), "name" | "qualified_name")),
            ),
            "scoped_call_expression" | "scoped_property_access_expression" => {
                names.extend(node.child_by_field_name("scope"))
            }
            "class_constant_access_expression" => names.extend(node.named_child(0)),
            "binary_expression"
                if node
                    .child_by_field_name("operator")
                    .is_some_and(|o| o.kind() == "instanceof") =>
            {
                names.extend(node.child_by_field_name("right"))
            }
            _ => {}
        }
        for name in names {
            if let Some(fqcn) = class_name(text(name, src), namespace, bound)
                && !out.iter().any(|i| i.source.eq_ignore_ascii_case(&fqcn))
            {
                out.push(Import {
                    source: fqcn.clone(),
                    kind: ImportType::Internal,
                    imported: vec![ImportedName {
                        name: last_segment(&fqcn).to_string(),
                        alias: None,
                    }],
                    default: false,
                    namespace: false,
                    type_only: false,
                    dynamic: false,
                    statement: Some(REFERENCE.to_string()),
                    line: line(name),
                });
            }
        }
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
}

/// The fully qualified class a name written in `namespace` refers to, unless a `use` binds it
/// or it is not a class.
fn class_name(written: &str, namespace: &str, bound: &[String]) -> Option<String> {
    if let Some(absolute) = written.strip_prefix('\\') {
        return Some(absolute.to_string());
    }
    let written = written.strip_prefix("namespace\\").unwrap_or(written);
    let first = written
        .split('\\')
        .next()
        .unwrap_or(written)
        .to_ascii_lowercase();
    if written.is_empty()
        || bound.contains(&first)
        || NOT_CLASSES.contains(&first.as_str())
        || !written.starts_with(|c: char| c.is_alphabetic() || c == '_')
    {
        return None;
    }
    Some(if namespace.is_empty() {
        written.to_string()
    } else {
        format!("{namespace}\\{written}")
    })
}

fn statements(parent: Node, src: &str, out: &mut FileOutline) {
    for node in named_children(parent) {
        match node.kind() {
            "namespace_definition" => {
                out.module = node
                    .child_by_field_name("name")
                    .map(|n| text(n, src).to_string());
                if let Some(body) = node.child_by_field_name("body") {
                    statements(body, src, out);
                }
            }
            "namespace_use_declaration" => uses(node, src, &mut out.imports),
            "class_declaration" | "trait_declaration" => {
                let class = class(node, src);
                export(
                    out,
                    &class.name,
                    if class.kind == "trait" {
                        "trait"
                    } else {
                        "class"
                    },
                );
                out.classes.push(class);
            }
            "interface_declaration" => {
                let def = interface(node, src);
                export(out, &def.name, "interface");
                out.types.push(def);
            }
            "enum_declaration" => {
                let def = enumeration(node, src);
                export(out, &def.name, "enum");
                out.enums.push(def);
            }
            "function_definition" => {
                let f = Function {
                    name: name_of(node, src),
                    exported: true,
                    is_async: false,
                    generator: node.child_by_field_name("body").is_some_and(has_yield),
                    parameters: node
                        .child_by_field_name("parameters")
                        .map(|p| parameters(p, src).0)
                        .unwrap_or_default(),
                    return_type: node
                        .child_by_field_name("return_type")
                        .map(|t| one_line(t, src)),
                    location: location(node),
                    decorators: attributes(node, src),
                    doc: doc_before(node, src, DocStyle::Block, &[]),
                    body: node
                        .child_by_field_name("body")
                        .map(|b| body_excerpt(b, src)),
                };
                export(out, &f.name, "function");
                out.functions.push(f);
            }
            "const_declaration" => {
                for element in named_children(node)
                    .into_iter()
                    .filter(|e| e.kind() == "const_element")
                {
                    let name = element
                        .named_child(0)
                        .map_or(String::new(), |n| text(n, src).to_string());
                    export(out, &name, "constant");
                    out.variables.push(Variable {
                        name,
                        kind: "const".into(),
                        type_name: None,
                        exported: true,
                        line: line(element),
                    });
                }
            }
            "compound_statement" => statements(node, src, out),
            _ => {}
        }
    }
}

fn export(out: &mut FileOutline, name: &str, kind: &str) {
    out.exports.push(Export {
        name: name.to_string(),
        kind: kind.to_string(),
        default: false,
        re_export: false,
        source: None,
    });
}

fn name_of(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

/// `use A\B\C as D;`, `use A\B\{C, D as E};`, `use function A\f;`. The one reader of PHP
/// `use` imports: the outline and the chunker's name binding (`names.rs`) both read them here.
pub(super) fn uses(node: Node, src: &str, out: &mut Vec<Import>) {
    let statement_kind = children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "function" | "const"))
        .map(|c| format!("use {}", c.kind()));
    let group_prefix = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "namespace_name")
        .map(|p| text(p, src).trim_matches('\\').to_string());
    let mut push = |name: String, alias: Option<String>, clause_kind: Option<String>, at: Node| {
        let full = match &group_prefix {
            Some(prefix) => format!("{prefix}\\{}", name.trim_start_matches('\\')),
            None => name.trim_start_matches('\\').to_string(),
        };
        let short = last_segment(&full).to_string();
        out.push(Import {
            source: full,
            kind: ImportType::External,
            imported: vec![ImportedName { name: short, alias }],
            default: false,
            namespace: false,
            type_only: false,
            dynamic: false,
            statement: clause_kind.or_else(|| statement_kind.clone()),
            line: line(at),
        });
    };
    let mut clauses = Vec::new();
    for child in named_children(node) {
        match child.kind() {
            "namespace_use_clause" => clauses.push(child),
            "namespace_use_group" => clauses.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "namespace_use_clause"),
            ),
            _ => {}
        }
    }
    for clause in clauses {
        let alias = clause
            .child_by_field_name("alias")
            .map(|a| text(a, src).to_string());
        let name = named_children(clause)
            .into_iter()
            .find(|c| matches!(c.kind(), "qualified_name" | "name" | "namespace_name"))
            .map_or(String::new(), |n| text(n, src).to_string());
        let clause_kind = children(clause)
            .into_iter()
            .find(|c| matches!(c.kind(), "function" | "const"))
            .map(|c| format!("use {}", c.kind()));
        if !name.is_empty() {
            push(name, alias, clause_kind, clause);
        }
    }
}

/// `require`/`include` (and `_once`) of a literal path, or `__DIR__ . '/path'`.
fn includes(root: Node, src: &str, out: &mut Vec<Import>) {
    let mut stack = vec![(root, false)];
    while let Some((node, in_function)) = stack.pop() {
        let kind = node.kind();
        if matches!(
            kind,
            "require_expression"
                | "require_once_expression"
                | "include_expression"
                | "include_once_expression"
        ) && let Some(path) = node.named_child(0).and_then(|arg| include_path(arg, src))
        {
            out.push(Import {
                kind: ImportType::Internal,
                imported: Vec::new(),
                source: path,
                default: false,
                namespace: true,
                type_only: false,
                dynamic: in_function,
                statement: Some(kind.trim_end_matches("_expression").replace('_', " ")),
                line: line(node),
            });
            continue;
        }
        let inner = in_function
            || matches!(
                kind,
                "function_definition" | "method_declaration" | "anonymous_function"
            );
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, inner)));
    }
}

fn include_path(arg: Node, src: &str) -> Option<String> {
    let arg = if arg.kind() == "parenthesized_expression" {
        arg.named_child(0)?
    } else {
        arg
    };
    match arg.kind() {
        "string" | "encapsed_string" => {
            let path = unquote(text(arg, src));
            if path.starts_with('/') || path.starts_with('.') {
                Some(path)
            } else {
                Some(format!("./{path}"))
            }
        }
        "binary_expression" => {
            let left = arg.child_by_field_name("left")?;
            let right = arg.child_by_field_name("right")?;
            let is_dir = matches!(text(left, src), "__DIR__" | "dirname(__FILE__)");
            if is_dir && matches!(right.kind(), "string" | "encapsed_string") {
                let rest = unquote(text(right, src));
                Some(format!(
                    ".{}",
                    if rest.starts_with('/') {
                        rest
                    } else {
                        format!("/{rest}")
                    }
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn has_yield(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "yield_expression" => return true,
            "function_definition"
            | "anonymous_function"
            | "arrow_function"
            | "class_declaration" => {
                continue;
            }
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

/// `#[Attribute]` groups on a declaration.
fn attributes(node: Node, src: &str) -> Vec<String> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "attribute_list")
        .flat_map(|list| {
            named_children(list)
                .into_iter()
                .flat_map(named_children)
                .filter(|a| a.kind() == "attribute")
                .map(|a| collapse(text(a, src)))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn class(node: Node, src: &str) -> Class {
    let mut class = Class {
        name: name_of(node, src),
        kind: if node.kind() == "trait_declaration" {
            "trait"
        } else {
            "class"
        }
        .into(),
        exported: true,
        is_abstract: has_child(node, "abstract_modifier"),
        extends: child_of_kind(node, "base_clause")
            .and_then(|b| b.named_child(0))
            .map(|n| text(n, src).to_string()),
        implements: child_of_kind(node, "class_interface_clause")
            .map(|c| {
                named_children(c)
                    .iter()
                    .map(|n| text(*n, src).to_string())
                    .collect()
            })
            .unwrap_or_default(),
        uses: Vec::new(),
        methods: Vec::new(),
        properties: Vec::new(),
        location: location(node),
        decorators: attributes(node, src),
        doc: doc_before(node, src, DocStyle::Block, &[]),
    };
    if let Some(body) = node.child_by_field_name("body") {
        members(
            body,
            src,
            &mut class.methods,
            &mut class.properties,
            &mut class.uses,
        );
    }
    class
}

fn members(
    body: Node,
    src: &str,
    methods: &mut Vec<Method>,
    properties: &mut Vec<Property>,
    uses: &mut Vec<String>,
) {
    for member in named_children(body) {
        match member.kind() {
            "use_declaration" => uses.extend(
                named_children(member)
                    .into_iter()
                    .filter(|n| matches!(n.kind(), "name" | "qualified_name"))
                    .map(|n| text(n, src).to_string()),
            ),
            "method_declaration" => {
                let (method, promoted) = method(member, src);
                properties.extend(promoted);
                methods.push(method);
            }
            "property_declaration" => {
                let access = visibility(member, src);
                let type_name = member.child_by_field_name("type").map(|t| one_line(t, src));
                for element in named_children(member)
                    .into_iter()
                    .filter(|e| e.kind() == "property_element")
                {
                    properties.push(Property {
                        name: element
                            .child_by_field_name("name")
                            .map_or(String::new(), |n| {
                                text(n, src).trim_start_matches('$').to_string()
                            }),
                        type_name: type_name.clone(),
                        access_modifier: access.clone(),
                        is_static: has_child(member, "static_modifier"),
                        readonly: has_child(member, "readonly_modifier"),
                        optional: false,
                        line: line(element),
                    });
                }
            }
            "const_declaration" => {
                let access = visibility(member, src);
                for element in named_children(member)
                    .into_iter()
                    .filter(|e| e.kind() == "const_element")
                {
                    properties.push(Property {
                        name: element
                            .named_child(0)
                            .map_or(String::new(), |n| text(n, src).to_string()),
                        type_name: None,
                        access_modifier: access.clone(),
                        is_static: true,
                        readonly: true,
                        optional: false,
                        line: line(element),
                    });
                }
            }
            _ => {}
        }
    }
}

fn visibility(node: Node, src: &str) -> String {
    child_of_kind(node, "visibility_modifier").map_or("public".into(), |v| text(v, src).to_string())
}

/// A method, and the properties its promoted constructor parameters declare.
fn method(node: Node, src: &str) -> (Method, Vec<Property>) {
    let name = name_of(node, src);
    let (parameters, promoted) = node
        .child_by_field_name("parameters")
        .map(|p| parameters(p, src))
        .unwrap_or_default();
    let body = node.child_by_field_name("body");
    let method = Method {
        kind: if name == "__construct" {
            "constructor"
        } else {
            "method"
        }
        .into(),
        access_modifier: visibility(node, src),
        is_static: has_child(node, "static_modifier"),
        is_abstract: has_child(node, "abstract_modifier") || body.is_none(),
        is_async: false,
        generator: body.is_some_and(has_yield),
        parameters,
        return_type: node
            .child_by_field_name("return_type")
            .map(|t| one_line(t, src)),
        location: location(node),
        decorators: attributes(node, src),
        doc: doc_before(node, src, DocStyle::Block, &[]),
        body: body.map(|b| body_excerpt(b, src)),
        name,
    };
    (method, promoted)
}

fn parameters(params: Node, src: &str) -> (Vec<Parameter>, Vec<Property>) {
    let mut out = Vec::new();
    let mut promoted = Vec::new();
    for p in named_children(params) {
        if !matches!(
            p.kind(),
            "simple_parameter" | "variadic_parameter" | "property_promotion_parameter"
        ) {
            continue;
        }
        let name = p.child_by_field_name("name").map_or(String::new(), |n| {
            text(n, src).trim_start_matches('$').to_string()
        });
        let type_name = p.child_by_field_name("type").map(|t| one_line(t, src));
        let default = p
            .child_by_field_name("default_value")
            .map(|v| one_line(v, src));
        if p.kind() == "property_promotion_parameter" {
            promoted.push(Property {
                name: name.clone(),
                type_name: type_name.clone(),
                access_modifier: p
                    .child_by_field_name("visibility")
                    .map_or("public".into(), |v| text(v, src).to_string()),
                is_static: false,
                readonly: p.child_by_field_name("readonly").is_some()
                    || has_child(p, "readonly_modifier"),
                optional: default.is_some(),
                line: line(p),
            });
        }
        out.push(Parameter {
            name,
            type_name,
            optional: default.is_some(),
            rest: p.kind() == "variadic_parameter",
            default,
        });
    }
    (out, promoted)
}

fn interface(node: Node, src: &str) -> TypeDefinition {
    let mut methods = Vec::new();
    let mut properties = Vec::new();
    let mut uses = Vec::new();
    if let Some(body) = node.child_by_field_name("body") {
        members(body, src, &mut methods, &mut properties, &mut uses);
    }
    let mut members_out: Vec<Member> = properties
        .into_iter()
        .map(|p| Member::of_property(p, "constant", true))
        .collect();
    members_out.extend(methods.into_iter().map(|m| {
        let params: Vec<String> = m
            .parameters
            .iter()
            .map(|p| match &p.type_name {
                Some(t) => format!("{t} ${}", p.name),
                None => format!("${}", p.name),
            })
            .collect();
        let signature = match &m.return_type {
            Some(r) => format!("({}): {r}", params.join(", ")),
            None => format!("({})", params.join(", ")),
        };
        Member::of_method(m, signature, false)
    }));
    TypeDefinition {
        name: name_of(node, src),
        kind: "interface".into(),
        exported: true,
        extends: child_of_kind(node, "base_clause")
            .map(|c| {
                named_children(c)
                    .iter()
                    .map(|n| text(*n, src).to_string())
                    .collect()
            })
            .unwrap_or_default(),
        members: members_out,
        definition: None,
        location: location(node),
        doc: doc_before(node, src, DocStyle::Block, &[]),
    }
}

fn enumeration(node: Node, src: &str) -> EnumDefinition {
    let mut methods = Vec::new();
    let mut properties = Vec::new();
    let mut uses = Vec::new();
    let mut members_out = Vec::new();
    if let Some(body) = node.child_by_field_name("body") {
        for case in named_children(body)
            .into_iter()
            .filter(|c| c.kind() == "enum_case")
        {
            members_out.push(EnumMember {
                name: name_of(case, src),
                value: case.child_by_field_name("value").map(|v| one_line(v, src)),
            });
        }
        members(body, src, &mut methods, &mut properties, &mut uses);
    }
    EnumDefinition {
        name: name_of(node, src),
        exported: true,
        is_const: false,
        members: members_out,
        implements: child_of_kind(node, "class_interface_clause")
            .map(|c| {
                named_children(c)
                    .iter()
                    .map(|n| text(*n, src).to_string())
                    .collect()
            })
            .unwrap_or_default(),
        methods,
        location: location(node),
        doc: doc_before(node, src, DocStyle::Block, &[]),
    }
}
