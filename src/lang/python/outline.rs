//! Python outlines: `import` / `from … import` (relative imports keep their dots; an import
//! inside a function or an `importlib.import_module("…")` call is dynamic), functions and
//! methods with type hints, defaults, `*args` / `**kwargs`, decorators, `async`, generators
//! (a `yield` in the body), classes with bases, `Enum` subclasses as enums, `Protocol` and
//! `TypedDict` classes as types, and module docstrings. Exports follow `__all__` when present,
//! otherwise every public (not `_`-prefixed) module-level name defined here.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline {
        doc: docstring(root, src),
        ..FileOutline::default()
    };
    let mut all: Option<Vec<String>> = None;
    for node in named_children(root) {
        let (decorators, def) = undecorate(node, src);
        match def.kind() {
            "function_definition" => out.functions.push(function(def, node, decorators, src)),
            "class_definition" => class(def, node, decorators, src, &mut out),
            "expression_statement" => {
                for assign in named_children(def) {
                    if assign.kind() != "assignment" {
                        continue;
                    }
                    let Some(left) = assign.child_by_field_name("left") else {
                        continue;
                    };
                    let name = text(left, src).to_string();
                    if left.kind() != "identifier" {
                        continue;
                    }
                    let type_name = assign.child_by_field_name("type").map(|t| one_line(t, src));
                    if name == "__all__" {
                        all = assign
                            .child_by_field_name("right")
                            .map(|r| string_items(r, src));
                        continue;
                    }
                    if type_name.as_deref() == Some("TypeAlias") {
                        out.types.push(TypeDefinition {
                            exported: !name.starts_with('_'),
                            name,
                            kind: "type".into(),
                            extends: Vec::new(),
                            members: Vec::new(),
                            definition: assign
                                .child_by_field_name("right")
                                .map(|r| one_line(r, src)),
                            location: location(def),
                            doc: None,
                        });
                        continue;
                    }
                    out.variables.push(Variable {
                        exported: !name.starts_with('_'),
                        kind: if is_upper(&name) {
                            "const"
                        } else {
                            "assignment"
                        }
                        .into(),
                        name,
                        type_name,
                        line: line(assign),
                    });
                }
            }
            "type_alias_statement" => {
                // Python 3.12 `type Alias = …`
                let name = def
                    .named_child(0)
                    .map_or(String::new(), |n| text(n, src).to_string());
                out.types.push(TypeDefinition {
                    exported: !name.starts_with('_'),
                    name,
                    kind: "type".into(),
                    extends: Vec::new(),
                    members: Vec::new(),
                    definition: def.named_child(1).map(|r| one_line(r, src)),
                    location: location(def),
                    doc: None,
                });
            }
            _ => {}
        }
    }
    imports(root, src, &mut out.imports);
    exports(&mut out, all);
    out
}

/// `@decorator` lines and the definition they decorate.
fn undecorate<'t>(node: Node<'t>, src: &str) -> (Vec<String>, Node<'t>) {
    if node.kind() != "decorated_definition" {
        return (Vec::new(), node);
    }
    let decorators = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .map(|d| collapse(text(d, src).trim_start_matches('@')))
        .collect();
    let def = node.child_by_field_name("definition").unwrap_or(node);
    (decorators, def)
}

/// The docstring of a module, class or function body: its first statement, when a string.
fn docstring(body: Node, src: &str) -> Option<String> {
    let first = named_children(body)
        .into_iter()
        .find(|n| n.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0).filter(|s| s.kind() == "string")?;
    let doc = clean_docstring(text(string, src));
    (!doc.is_empty()).then_some(doc)
}

fn function(def: Node, outer: Node, decorators: Vec<String>, src: &str) -> Function {
    let body = def.child_by_field_name("body");
    Function {
        name: name_of(def, src),
        exported: false, // decided by `exports`
        is_async: has_child(def, "async"),
        generator: body.is_some_and(has_yield),
        parameters: def
            .child_by_field_name("parameters")
            .map(|p| parameters(p, src, false))
            .unwrap_or_default(),
        return_type: def
            .child_by_field_name("return_type")
            .map(|t| type_text(t, src)),
        location: location(outer),
        decorators,
        doc: body.and_then(|b| docstring(b, src)),
        body: body.map(|b| body_excerpt(b, src)),
    }
}

fn name_of(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

/// Parameters; `skip_receiver` drops a method's `self` / `cls`.
fn parameters(params: Node, src: &str, skip_receiver: bool) -> Vec<Parameter> {
    let mut out = Vec::new();
    for (i, p) in named_children(params).into_iter().enumerate() {
        let mut param = Parameter {
            name: String::new(),
            type_name: None,
            optional: false,
            rest: false,
            default: None,
        };
        match p.kind() {
            "identifier" => param.name = text(p, src).to_string(),
            "typed_parameter" => {
                let inner = p.named_child(0);
                match inner.map(|n| n.kind()) {
                    Some("list_splat_pattern") | Some("dictionary_splat_pattern") => {
                        param.rest = true;
                        param.name = inner.map_or(String::new(), |n| text(n, src).to_string());
                    }
                    _ => param.name = inner.map_or(String::new(), |n| text(n, src).to_string()),
                }
                param.type_name = p.child_by_field_name("type").map(|t| one_line(t, src));
            }
            "default_parameter" | "typed_default_parameter" => {
                param.name = name_of(p, src);
                param.type_name = p.child_by_field_name("type").map(|t| one_line(t, src));
                param.optional = true;
                param.default = p.child_by_field_name("value").map(|v| one_line(v, src));
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                param.rest = true;
                param.name = text(p, src).to_string();
            }
            _ => continue, // `*` and `/` separators, comments
        }
        if skip_receiver && i == 0 && (param.name == "self" || param.name == "cls") {
            continue;
        }
        out.push(param);
    }
    out
}

/// A `yield` in this function's own body (not in a nested function, lambda or class).
fn has_yield(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "yield" => return true,
            "function_definition" | "lambda" | "class_definition" => continue,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

fn class(def: Node, outer: Node, decorators: Vec<String>, src: &str, out: &mut FileOutline) {
    let name = name_of(def, src);
    let mut bases = Vec::new();
    let mut metaclass_abc = false;
    if let Some(args) = def.child_by_field_name("superclasses") {
        for arg in named_children(args) {
            match arg.kind() {
                "keyword_argument" => {
                    metaclass_abc |= text(arg, src).contains("ABCMeta");
                }
                "comment" => {}
                _ => bases.push(one_line(arg, src)),
            }
        }
    }
    let base_is = |names: &[&str]| {
        bases.iter().any(|b| {
            let last = b.rsplit('.').next().unwrap_or(b);
            let last = last.split('[').next().unwrap_or(last);
            names.contains(&last)
        })
    };
    let body = def.child_by_field_name("body");
    let doc = body.and_then(|b| docstring(b, src));
    let ClassBody {
        methods,
        properties,
        members,
    } = class_body(body, src);
    if base_is(&["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"]) {
        out.enums.push(EnumDefinition {
            name,
            exported: false,
            is_const: false,
            members,
            implements: bases,
            methods,
            location: location(outer),
            doc,
        });
        return;
    }
    if base_is(&["Protocol", "TypedDict"]) {
        let kind = if base_is(&["Protocol"]) {
            "interface"
        } else {
            "type"
        };
        let type_members = protocol_members(properties, methods);
        out.types.push(TypeDefinition {
            name,
            kind: kind.into(),
            exported: false,
            extends: bases
                .into_iter()
                .filter(|b| !b.starts_with("Protocol") && b != "TypedDict")
                .collect(),
            members: type_members,
            definition: None,
            location: location(outer),
            doc,
        });
        return;
    }
    let is_abstract = metaclass_abc || base_is(&["ABC"]) || methods.iter().any(|m| m.is_abstract);
    let mut bases = bases.into_iter();
    out.classes.push(Class {
        name,
        kind: "class".into(),
        exported: false,
        is_abstract,
        extends: bases.next(),
        implements: bases.collect(),
        uses: Vec::new(),
        methods,
        properties,
        location: location(outer),
        decorators,
        doc,
    });
}

/// What a class body declares: methods, and its class-level assignments both as properties and
/// (for an `Enum`) as members.
struct ClassBody {
    methods: Vec<Method>,
    properties: Vec<Property>,
    members: Vec<EnumMember>,
}

fn class_body(body: Option<Node>, src: &str) -> ClassBody {
    let mut found = ClassBody {
        methods: Vec::new(),
        properties: Vec::new(),
        members: Vec::new(),
    };
    for stmt in body.map(named_children).unwrap_or_default() {
        let (method_decorators, inner) = undecorate(stmt, src);
        match inner.kind() {
            "function_definition" => {
                found
                    .methods
                    .push(method(inner, stmt, method_decorators, src))
            }
            "expression_statement" => {
                for assign in named_children(inner)
                    .into_iter()
                    .filter(|a| a.kind() == "assignment")
                {
                    let Some(left) = assign
                        .child_by_field_name("left")
                        .filter(|l| l.kind() == "identifier")
                    else {
                        continue;
                    };
                    let name = text(left, src).to_string();
                    found.members.push(EnumMember {
                        name: name.clone(),
                        value: assign
                            .child_by_field_name("right")
                            .map(|r| one_line(r, src)),
                    });
                    found.properties.push(Property {
                        access_modifier: access(&name).into(),
                        type_name: assign.child_by_field_name("type").map(|t| one_line(t, src)),
                        name,
                        is_static: true,
                        readonly: false,
                        optional: assign.child_by_field_name("right").is_some(),
                        line: line(assign),
                    });
                }
            }
            _ => {}
        }
    }
    found
}

/// A `Protocol`'s or `TypedDict`'s annotated attributes and method signatures as members.
fn protocol_members(properties: Vec<Property>, methods: Vec<Method>) -> Vec<Member> {
    let mut members: Vec<Member> = properties
        .into_iter()
        .map(|p| Member::of_property(p, "property", false))
        .collect();
    members.extend(methods.into_iter().map(|m| {
        let signature = signature_of(&m);
        Member::of_method(m, signature, false)
    }));
    members
}

fn signature_of(m: &Method) -> String {
    let params: Vec<String> = m
        .parameters
        .iter()
        .map(|p| match &p.type_name {
            Some(t) => format!("{}: {t}", p.name),
            None => p.name.clone(),
        })
        .collect();
    match &m.return_type {
        Some(r) => format!("({}) -> {r}", params.join(", ")),
        None => format!("({})", params.join(", ")),
    }
}

fn method(def: Node, outer: Node, decorators: Vec<String>, src: &str) -> Method {
    let name = name_of(def, src);
    let has = |d: &str| {
        decorators
            .iter()
            .any(|x| x == d || x.ends_with(&format!(".{d}")))
    };
    let is_static = has("staticmethod") || has("classmethod");
    let kind = if name == "__init__" {
        "constructor"
    } else if has("property") || has("cached_property") {
        "getter"
    } else if decorators.iter().any(|d| d.ends_with(".setter")) {
        "setter"
    } else {
        "method"
    };
    let body = def.child_by_field_name("body");
    Method {
        access_modifier: access(&name).into(),
        kind: kind.into(),
        // Class methods count as static: they are called on the class, not an instance.
        is_static,
        is_abstract: has("abstractmethod"),
        is_async: has_child(def, "async"),
        generator: body.is_some_and(has_yield),
        parameters: def
            .child_by_field_name("parameters")
            .map(|p| parameters(p, src, !has("staticmethod")))
            .unwrap_or_default(),
        return_type: def
            .child_by_field_name("return_type")
            .map(|t| type_text(t, src)),
        location: location(outer),
        doc: body.and_then(|b| docstring(b, src)),
        body: body.map(|b| body_excerpt(b, src)),
        decorators,
        name,
    }
}

/// Python's naming conventions: `__x` private (name-mangled), `_x` protected, dunders public.
fn access(name: &str) -> &'static str {
    if name.starts_with("__") && !name.ends_with("__") {
        "private"
    } else if name.starts_with('_') && !name.starts_with("__") {
        "protected"
    } else {
        "public"
    }
}

fn is_upper(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Strings of a list or tuple literal (`__all__ = ["a", "b"]`).
fn string_items(node: Node, src: &str) -> Vec<String> {
    named_children(node)
        .into_iter()
        .filter(|n| n.kind() == "string")
        .map(|n| unquote(text(n, src)))
        .collect()
}

/// Every import statement in the file; those not at module level (inside a function) and
/// `importlib.import_module("…")` calls are dynamic, those under `if TYPE_CHECKING:` type-only.
fn imports(root: Node, src: &str, out: &mut Vec<Import>) {
    // (node, inside a function, inside `if TYPE_CHECKING:`)
    let mut stack = vec![(root, false, false)];
    while let Some((node, in_function, type_checking)) = stack.pop() {
        let start = out.len();
        let descend = import_node(node, src, in_function, out);
        for import in &mut out[start..] {
            import.type_only = type_checking;
        }
        if !descend {
            continue;
        }
        let inner = in_function || matches!(node.kind(), "function_definition" | "lambda");
        let checking = type_checking
            || (node.kind() == "if_statement"
                && node
                    .child_by_field_name("condition")
                    .is_some_and(|c| text(c, src).ends_with("TYPE_CHECKING")));
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, inner, checking)));
    }
    out.sort_by_key(|i| i.line);
}

/// Records the import `node` makes, if any; returns whether to look inside it. The one reader
/// of Python imports: the outline walks it over the file, the chunker's name binding
/// (`names.rs`) over the top-level statements.
pub(super) fn import_node(node: Node, src: &str, in_function: bool, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "import_statement" => {
            for name in named_children(node) {
                let (module, alias) = match name.kind() {
                    "aliased_import" => (
                        name.child_by_field_name("name")
                            .map_or(String::new(), |n| text(n, src).to_string()),
                        name.child_by_field_name("alias")
                            .map(|n| text(n, src).to_string()),
                    ),
                    "dotted_name" => (text(name, src).to_string(), None),
                    _ => continue,
                };
                out.push(Import {
                    kind: guess_kind(&module),
                    imported: vec![ImportedName {
                        name: module.clone(),
                        alias,
                    }],
                    source: module,
                    default: false,
                    namespace: true,
                    type_only: false,
                    dynamic: in_function,
                    statement: None,
                    line: line(node),
                });
            }
            false
        }
        "import_from_statement" => {
            let module = node
                .child_by_field_name("module_name")
                .map_or(String::new(), |m| collapse(text(m, src)).replace(' ', ""));
            let mut imported = Vec::new();
            let mut wildcard = false;
            let mut cursor = node.walk();
            for (i, child) in node.children(&mut cursor).enumerate() {
                if node.field_name_for_child(i as u32) == Some("module_name") {
                    continue;
                }
                match child.kind() {
                    "dotted_name" => imported.push(ImportedName {
                        name: text(child, src).to_string(),
                        alias: None,
                    }),
                    "aliased_import" => imported.push(ImportedName {
                        name: child
                            .child_by_field_name("name")
                            .map_or(String::new(), |n| text(n, src).to_string()),
                        alias: child
                            .child_by_field_name("alias")
                            .map(|n| text(n, src).to_string()),
                    }),
                    "wildcard_import" => wildcard = true,
                    _ => {}
                }
            }
            out.push(Import {
                kind: guess_kind(&module),
                source: module,
                imported,
                default: false,
                namespace: wildcard,
                type_only: false,
                dynamic: in_function,
                statement: None,
                line: line(node),
            });
            false
        }
        "call" => {
            let function = node
                .child_by_field_name("function")
                .map(|f| text(f, src))
                .unwrap_or("");
            if matches!(
                function,
                "importlib.import_module" | "import_module" | "__import__"
            ) && let Some(arg) = node
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .filter(|a| a.kind() == "string")
            {
                let module = unquote(text(arg, src));
                out.push(Import {
                    kind: guess_kind(&module),
                    imported: Vec::new(),
                    source: module,
                    default: false,
                    namespace: true,
                    type_only: false,
                    dynamic: true,
                    statement: None,
                    line: line(node),
                });
            }
            true
        }
        _ => true,
    }
}

fn guess_kind(module: &str) -> ImportType {
    if module.starts_with('.') {
        ImportType::Internal
    } else {
        ImportType::External
    }
}

/// Marks what the module exports: the names in `__all__`, or every public top-level name.
fn exports(out: &mut FileOutline, all: Option<Vec<String>>) {
    let public = |name: &str| match &all {
        Some(all) => all.iter().any(|a| a == name),
        None => !name.starts_with('_'),
    };
    let mut exports = Vec::new();
    for f in &mut out.functions {
        f.exported = public(&f.name);
        if f.exported {
            exports.push((f.name.clone(), "function"));
        }
    }
    for c in &mut out.classes {
        c.exported = public(&c.name);
        if c.exported {
            exports.push((c.name.clone(), "class"));
        }
    }
    for t in &mut out.types {
        t.exported = public(&t.name);
        if t.exported {
            exports.push((
                t.name.clone(),
                if t.kind == "interface" {
                    "interface"
                } else {
                    "type"
                },
            ));
        }
    }
    for e in &mut out.enums {
        e.exported = public(&e.name);
        if e.exported {
            exports.push((e.name.clone(), "enum"));
        }
    }
    for v in &mut out.variables {
        v.exported = public(&v.name);
        if v.exported {
            exports.push((
                v.name.clone(),
                if v.kind == "const" {
                    "constant"
                } else {
                    "variable"
                },
            ));
        }
    }
    // Names listed in `__all__` but defined elsewhere (re-exported imports).
    if let Some(all) = &all {
        for name in all {
            if !exports.iter().any(|(n, _)| n == name) {
                out.exports.push(Export {
                    name: name.clone(),
                    kind: "unknown".into(),
                    default: false,
                    re_export: true,
                    source: out
                        .imports
                        .iter()
                        .find(|i| {
                            i.imported
                                .iter()
                                .any(|n| n.alias.as_deref().unwrap_or(&n.name) == name)
                        })
                        .map(|i| i.source.clone()),
                });
            }
        }
    }
    let mut listed: Vec<Export> = exports
        .into_iter()
        .map(|(name, kind)| Export {
            name,
            kind: kind.into(),
            default: false,
            re_export: false,
            source: None,
        })
        .collect();
    listed.append(&mut out.exports);
    out.exports = listed;
}
