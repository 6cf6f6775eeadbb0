//! Outlines of TypeScript, TSX and JavaScript (and the script blocks of Vue components): ES
//! imports and exports, CommonJS `require` / `module.exports`, dynamic `import()`, functions
//! (declarations and functions bound to `const`s), classes with access modifiers, interfaces,
//! type aliases and enums. The TypeScript and JavaScript grammars differ in a few node shapes
//! (`required_parameter` vs plain patterns, `extends_clause` vs a bare expression); both are read.

use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut x = Extractor {
        src,
        out: FileOutline::default(),
        local_exports: Vec::new(),
        seen_requires: Vec::new(),
    };
    x.out.doc = file_doc(root, src, |n| {
        matches!(n.kind(), "import_statement") || is_directive(n, src)
    });
    for node in named_children(root) {
        x.statement(node);
    }
    x.scan_calls(root);
    x.finish_exports();
    x.out
}

struct Extractor<'s> {
    src: &'s str,
    out: FileOutline,
    /// `export { local as exported }` without a source, resolved once every declaration is known.
    local_exports: Vec<(String, String, usize)>,
    /// Lines and sources of `require` calls already recorded as imports.
    seen_requires: Vec<(usize, String)>,
}

/// How a declaration is exported.
#[derive(Clone, Copy, Default)]
struct Exported {
    yes: bool,
    default: bool,
}

fn is_directive(node: Node, src: &str) -> bool {
    node.kind() == "expression_statement" && text(node, src).starts_with(['"', '\''])
}

impl<'s> Extractor<'s> {
    fn statement(&mut self, node: Node) {
        self.declaration(node, Exported::default(), node);
    }

    /// A top-level declaration; `outer` is the node whose span and doc comment it takes (the
    /// `export` statement around it, if any).
    fn declaration(&mut self, node: Node, exported: Exported, outer: Node) {
        match node.kind() {
            "import_statement" => self.out.imports.extend(import(node, self.src)),
            "export_statement" => self.export_statement(node),
            "function_declaration"
            | "generator_function_declaration"
            | "function_signature"
            | "function_expression"
            | "function"
            | "generator_function"
            | "arrow_function" => {
                let name = node
                    .child_by_field_name("name")
                    .map_or("default".to_string(), |n| text(n, self.src).to_string());
                if node.kind() == "function_signature"
                    && self.out.functions.iter().any(|f| f.name == name)
                {
                    return; // an overload signature of a function already listed
                }
                self.function(&name, node, exported, outer);
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                let name = node
                    .child_by_field_name("name")
                    .map_or("default".to_string(), |n| text(n, self.src).to_string());
                self.class(&name, node, exported, outer);
            }
            "interface_declaration" => self.interface(node, exported, outer),
            "type_alias_declaration" => self.type_alias(node, exported, outer),
            "enum_declaration" => self.enumeration(node, exported, outer),
            "lexical_declaration" | "variable_declaration" => self.variables(node, exported, outer),
            "ambient_declaration" => {
                // `declare function f(): void;`, `declare const x: T;`
                for child in named_children(node) {
                    self.declaration(child, exported, outer);
                }
            }
            "expression_statement" => self.commonjs(node),
            _ => {}
        }
    }

    fn export(&mut self, name: &str, kind: &str, default: bool) {
        self.out.exports.push(Export {
            name: name.to_string(),
            kind: kind.to_string(),
            default,
            re_export: false,
            source: None,
        });
    }

    fn export_statement(&mut self, node: Node) {
        let src = self.src;
        let default = has_child(node, "default");
        let source = node
            .child_by_field_name("source")
            .map(|s| unquote(text(s, src)));
        if let Some(decl) = node.child_by_field_name("declaration") {
            self.declaration(decl, Exported { yes: true, default }, node);
            return;
        }
        if let Some(value) = node.child_by_field_name("value") {
            match value.kind() {
                "identifier" => {
                    self.local_exports.push((
                        text(value, src).to_string(),
                        "default".into(),
                        line(node),
                    ));
                }
                "function_expression"
                | "function"
                | "generator_function"
                | "arrow_function"
                | "class" => self.declaration(
                    value,
                    Exported {
                        yes: true,
                        default: true,
                    },
                    node,
                ),
                _ => self.export("default", "variable", true),
            }
            return;
        }
        if has_child(node, "=") {
            // TypeScript `export = Foo;`
            if let Some(id) = child_of_kind(node, "identifier") {
                self.local_exports
                    .push((text(id, src).to_string(), "default".into(), line(node)));
            }
            return;
        }
        let type_only = has_child(node, "type");
        let reexport_import = |x: &mut Self, imported: Vec<ImportedName>, namespace: bool| {
            if let Some(source) = &source {
                x.out.imports.push(Import {
                    source: source.clone(),
                    kind: guess_kind(source),
                    imported,
                    default: false,
                    namespace,
                    type_only,
                    dynamic: false,
                    statement: Some("export".into()),
                    line: line(node),
                });
            }
        };
        if let Some(clause) = child_of_kind(node, "export_clause") {
            let names = self.export_clause(clause, source.as_deref(), line(node));
            reexport_import(self, names, false);
        } else if let Some(ns) = child_of_kind(node, "namespace_export") {
            let name = child_of_kind(ns, "identifier")
                .map_or("*".to_string(), |n| text(n, src).to_string());
            self.out.exports.push(Export {
                name: name.clone(),
                kind: "namespace".into(),
                default: false,
                re_export: true,
                source: source.clone(),
            });
            reexport_import(self, vec![ImportedName { name, alias: None }], true);
        } else if has_child(node, "*") {
            self.out.exports.push(Export {
                name: "*".into(),
                kind: "module".into(),
                default: false,
                re_export: true,
                source: source.clone(),
            });
            reexport_import(self, Vec::new(), true);
        }
    }

    /// `export { a, b as c }` (local names, exported once the file's declarations are known) or
    /// `export { a } from "./m"` (re-exports); the names, for the re-export's import.
    fn export_clause(
        &mut self,
        clause: Node,
        source: Option<&str>,
        line: usize,
    ) -> Vec<ImportedName> {
        let src = self.src;
        let mut names = Vec::new();
        for spec in named_children(clause) {
            if spec.kind() != "export_specifier" {
                continue;
            }
            let ImportedName { name, alias } = specifier(spec, src);
            let exported = alias.clone().unwrap_or_else(|| name.clone());
            match source {
                Some(source) => self.out.exports.push(Export {
                    default: exported == "default",
                    name: exported,
                    kind: "unknown".into(),
                    re_export: true,
                    source: Some(source.to_string()),
                }),
                None => self.local_exports.push((name.clone(), exported, line)),
            }
            names.push(ImportedName { name, alias });
        }
        names
    }

    fn function(&mut self, name: &str, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let function = Function {
            name: name.to_string(),
            exported: exported.yes,
            is_async: has_child(node, "async"),
            generator: node.kind().starts_with("generator") || has_child(node, "*"),
            parameters: self.function_parameters(node),
            return_type: node
                .child_by_field_name("return_type")
                .map(|t| type_text(t, src)),
            location: location(outer),
            decorators: Vec::new(),
            doc: doc_before(outer, src, DocStyle::Block, &["decorator"]),
            body: node
                .child_by_field_name("body")
                .filter(|b| b.kind() == "statement_block")
                .map(|b| body_excerpt(b, src)),
        };
        if exported.yes {
            self.export(name, "function", exported.default);
        }
        self.out.functions.push(function);
    }

    /// The parameters of a function, a function expression or an arrow function.
    fn function_parameters(&self, node: Node) -> Vec<Parameter> {
        node.child_by_field_name("parameters")
            .map(|p| self.parameters(p).0)
            .or_else(|| {
                // `x => x * 2`: a single bare parameter.
                node.child_by_field_name("parameter").map(|p| {
                    vec![Parameter {
                        name: text(p, self.src).to_string(),
                        type_name: None,
                        optional: false,
                        rest: false,
                        default: None,
                    }]
                })
            })
            .unwrap_or_default()
    }

    /// Parameters, and for a constructor the parameter properties (`private readonly x: T`).
    fn parameters(&self, params: Node) -> (Vec<Parameter>, Vec<Property>) {
        let src = self.src;
        let mut out = Vec::new();
        let mut properties = Vec::new();
        for p in named_children(params) {
            let mut param = Parameter {
                name: String::new(),
                type_name: None,
                optional: false,
                rest: false,
                default: None,
            };
            let pattern = match p.kind() {
                "required_parameter" | "optional_parameter" => {
                    param.optional = p.kind() == "optional_parameter";
                    param.type_name = p.child_by_field_name("type").map(|t| type_text(t, src));
                    if let Some(value) = p.child_by_field_name("value") {
                        param.optional = true;
                        param.default = Some(one_line(value, src));
                    }
                    if let Some(modifier) = child_of_kind(p, "accessibility_modifier") {
                        let name = p
                            .child_by_field_name("pattern")
                            .map(|n| text(n, src).to_string())
                            .unwrap_or_default();
                        properties.push(Property {
                            name,
                            type_name: param.type_name.clone(),
                            access_modifier: text(modifier, src).to_string(),
                            is_static: false,
                            readonly: has_child(p, "readonly"),
                            optional: param.optional,
                            line: line(p),
                        });
                    } else if has_child(p, "readonly") {
                        let name = p
                            .child_by_field_name("pattern")
                            .map(|n| text(n, src).to_string())
                            .unwrap_or_default();
                        properties.push(Property {
                            name,
                            type_name: param.type_name.clone(),
                            access_modifier: "public".into(),
                            is_static: false,
                            readonly: true,
                            optional: param.optional,
                            line: line(p),
                        });
                    }
                    p.child_by_field_name("pattern")
                }
                "assignment_pattern" => {
                    param.optional = true;
                    param.default = p.child_by_field_name("right").map(|v| one_line(v, src));
                    p.child_by_field_name("left")
                }
                "comment" => continue,
                _ => Some(p),
            };
            let Some(pattern) = pattern else { continue };
            if pattern.kind() == "rest_pattern" {
                param.rest = true;
                param.name = named_children(pattern)
                    .first()
                    .map_or_else(String::new, |n| one_line(*n, src));
            } else {
                param.name = one_line(pattern, src);
            }
            out.push(param);
        }
        (out, properties)
    }

    fn class(&mut self, name: &str, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let mut class = Class {
            name: name.to_string(),
            kind: "class".into(),
            exported: exported.yes,
            is_abstract: node.kind() == "abstract_class_declaration" || has_child(node, "abstract"),
            extends: None,
            implements: Vec::new(),
            uses: Vec::new(),
            methods: Vec::new(),
            properties: Vec::new(),
            location: location(outer),
            decorators: Vec::new(),
            doc: doc_before(outer, src, DocStyle::Block, &["decorator"]),
        };
        for child in named_children(node) {
            match child.kind() {
                "decorator" => class.decorators.push(decorator(child, src)),
                "class_heritage" => {
                    for clause in named_children(child) {
                        match clause.kind() {
                            "extends_clause" => {
                                let text = collapse(text(clause, src));
                                class.extends =
                                    Some(text.trim_start_matches("extends").trim().to_string());
                            }
                            "implements_clause" => {
                                class.implements.extend(
                                    named_children(clause).iter().map(|t| one_line(*t, src)),
                                );
                            }
                            // JavaScript: `class A extends B` has the expression directly.
                            _ => class.extends = Some(one_line(clause, src)),
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            let mut pending_decorators = Vec::new();
            for member in named_children(body) {
                match member.kind() {
                    "decorator" => pending_decorators.push(decorator(member, src)),
                    "method_definition" | "method_signature" | "abstract_method_signature" => {
                        let (method, params_props) = self.method(member, class.is_abstract);
                        let mut method = method;
                        method.decorators.append(&mut pending_decorators);
                        class.properties.extend(params_props);
                        class.methods.push(method);
                    }
                    "public_field_definition" | "field_definition" => {
                        match function_value(member) {
                            // `increment = () => {…}`: a method, as callers use it.
                            Some(value) => {
                                let mut method = self.function_field(member, value);
                                method.decorators.append(&mut pending_decorators);
                                class.methods.push(method);
                            }
                            None => {
                                pending_decorators.clear();
                                class.properties.push(self.field(member));
                            }
                        }
                    }
                    _ => pending_decorators.clear(),
                }
            }
        }
        if exported.yes {
            self.export(name, "class", exported.default);
        }
        self.out.classes.push(class);
    }

    fn method(&self, node: Node, class_abstract: bool) -> (Method, Vec<Property>) {
        let name_node = node.child_by_field_name("name");
        let (parameters, properties) = node
            .child_by_field_name("parameters")
            .map(|p| self.parameters(p))
            .unwrap_or_default();
        let mut method = self.member_method(node, name_node, node, parameters);
        method.kind = if method.name == "constructor" {
            "constructor"
        } else if has_child(node, "get") {
            "getter"
        } else if has_child(node, "set") {
            "setter"
        } else {
            "method"
        }
        .into();
        method.is_abstract = node.kind() == "abstract_method_signature"
            || (class_abstract && has_child(node, "abstract"));
        let properties = if method.kind == "constructor" {
            properties
        } else {
            Vec::new()
        };
        (method, properties)
    }

    /// A class field whose value is a function (`value`), as the method it is.
    fn function_field(&self, field: Node, value: Node) -> Method {
        let parameters = self.function_parameters(value);
        self.member_method(field, field_name(field), value, parameters)
    }

    /// A method as its declaration `decl` says it (name, access, `static`, decorators, doc,
    /// place) and the function `func` it defines (the same node for a method definition, the
    /// value for a field holding a function): a plain method, not abstract.
    fn member_method(
        &self,
        decl: Node,
        name_node: Option<Node>,
        func: Node,
        parameters: Vec<Parameter>,
    ) -> Method {
        let src = self.src;
        let private_name = name_node.is_some_and(|n| n.kind() == "private_property_identifier");
        Method {
            name: name_node.map_or(String::new(), |n| text(n, src).to_string()),
            kind: "method".into(),
            access_modifier: access(decl, src, private_name),
            is_static: has_child(decl, "static"),
            is_abstract: false,
            is_async: has_child(func, "async"),
            generator: func.kind().starts_with("generator") || has_child(func, "*"),
            parameters,
            return_type: func
                .child_by_field_name("return_type")
                .map(|t| type_text(t, src)),
            location: location(decl),
            decorators: named_children(decl)
                .into_iter()
                .filter(|c| c.kind() == "decorator")
                .map(|d| decorator(d, src))
                .collect(),
            doc: doc_before(decl, src, DocStyle::Block, &["decorator"]),
            body: func
                .child_by_field_name("body")
                .filter(|b| b.kind() == "statement_block")
                .map(|b| body_excerpt(b, src)),
        }
    }

    fn field(&self, node: Node) -> Property {
        let src = self.src;
        let name_node = field_name(node);
        let private_name = name_node.is_some_and(|n| n.kind() == "private_property_identifier");
        Property {
            name: name_node.map_or(String::new(), |n| text(n, src).to_string()),
            type_name: node.child_by_field_name("type").map(|t| type_text(t, src)),
            access_modifier: access(node, src, private_name),
            is_static: has_child(node, "static"),
            readonly: has_child(node, "readonly"),
            optional: has_child(node, "?"),
            line: line(node),
        }
    }

    fn interface(&mut self, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let name = node
            .child_by_field_name("name")
            .map_or(String::new(), |n| text(n, src).to_string());
        let extends = child_of_kind(node, "extends_type_clause")
            .map(|c| {
                named_children(c)
                    .iter()
                    .map(|t| one_line(*t, src))
                    .collect()
            })
            .unwrap_or_default();
        let members = node
            .child_by_field_name("body")
            .map(|b| self.members(b))
            .unwrap_or_default();
        if exported.yes {
            self.export(&name, "interface", exported.default);
        }
        self.out.types.push(TypeDefinition {
            name,
            kind: "interface".into(),
            exported: exported.yes,
            extends,
            members,
            definition: None,
            location: location(outer),
            doc: doc_before(outer, src, DocStyle::Block, &[]),
        });
    }

    /// Members of an interface body or an object type literal.
    fn members(&self, body: Node) -> Vec<Member> {
        let src = self.src;
        let mut out = Vec::new();
        for m in named_children(body) {
            let name = m
                .child_by_field_name("name")
                .map(|n| text(n, src).to_string());
            match (m.kind(), name) {
                ("property_signature", Some(name)) => out.push(Member {
                    name,
                    kind: "property".into(),
                    type_name: m.child_by_field_name("type").map(|t| type_text(t, src)),
                    optional: has_child(m, "?"),
                    readonly: has_child(m, "readonly"),
                    line: line(m),
                }),
                ("method_signature", Some(name)) => {
                    let params = m
                        .child_by_field_name("parameters")
                        .map_or("()".to_string(), |p| one_line(p, src));
                    let ret = m
                        .child_by_field_name("return_type")
                        .map(|t| format!(": {}", type_text(t, src)))
                        .unwrap_or_default();
                    out.push(Member {
                        name,
                        kind: "method".into(),
                        type_name: Some(format!("{params}{ret}")),
                        optional: has_child(m, "?"),
                        readonly: false,
                        line: line(m),
                    });
                }
                _ => {}
            }
        }
        out
    }

    fn type_alias(&mut self, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let name = node
            .child_by_field_name("name")
            .map_or(String::new(), |n| text(n, src).to_string());
        let value = node.child_by_field_name("value");
        if exported.yes {
            self.export(&name, "type", exported.default);
        }
        self.out.types.push(TypeDefinition {
            name,
            kind: "type".into(),
            exported: exported.yes,
            extends: Vec::new(),
            members: value
                .filter(|v| v.kind() == "object_type")
                .map(|v| self.members(v))
                .unwrap_or_default(),
            definition: value.map(|v| one_line(v, src)),
            location: location(outer),
            doc: doc_before(outer, src, DocStyle::Block, &[]),
        });
    }

    fn enumeration(&mut self, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let name = node
            .child_by_field_name("name")
            .map_or(String::new(), |n| text(n, src).to_string());
        let mut members = Vec::new();
        if let Some(body) = node.child_by_field_name("body") {
            for m in named_children(body) {
                match m.kind() {
                    "enum_assignment" => members.push(EnumMember {
                        name: m
                            .child_by_field_name("name")
                            .map_or(String::new(), |n| text(n, src).to_string()),
                        value: m.child_by_field_name("value").map(|v| one_line(v, src)),
                    }),
                    "property_identifier" | "string" => members.push(EnumMember {
                        name: unquote(text(m, src)),
                        value: None,
                    }),
                    _ => {}
                }
            }
        }
        if exported.yes {
            self.export(&name, "enum", exported.default);
        }
        self.out.enums.push(EnumDefinition {
            name,
            exported: exported.yes,
            is_const: has_child(node, "const"),
            members,
            implements: Vec::new(),
            methods: Vec::new(),
            location: location(outer),
            doc: doc_before(outer, src, DocStyle::Block, &[]),
        });
    }

    fn variables(&mut self, node: Node, exported: Exported, outer: Node) {
        let src = self.src;
        let kind = node
            .child_by_field_name("kind")
            .map_or("var".to_string(), |k| text(k, src).to_string());
        let declarators: Vec<Node> = named_children(node)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
            .collect();
        let single = declarators.len() == 1;
        for d in declarators {
            let Some(name_node) = d.child_by_field_name("name") else {
                continue;
            };
            let name = text(name_node, src).to_string();
            let span = if single { outer } else { d };
            match d.child_by_field_name("value") {
                Some(v) if is_function_expression(v) => self.function(&name, v, exported, span),
                Some(v) if v.kind() == "class" => self.class(&name, v, exported, span),
                Some(v) if require_source(v, src).is_some() => {
                    let source = require_source(v, src).unwrap_or_default();
                    let (imported, namespace) = binding_names(name_node, src);
                    self.seen_requires.push((line(v), source.clone()));
                    self.out.imports.push(Import {
                        kind: guess_kind(&source),
                        source,
                        imported,
                        default: false,
                        namespace,
                        type_only: false,
                        dynamic: false,
                        statement: Some("require".into()),
                        line: line(v),
                    });
                }
                _ => {
                    if exported.yes {
                        self.export(&name, "variable", exported.default);
                    }
                    self.out.variables.push(Variable {
                        name,
                        kind: kind.clone(),
                        type_name: d.child_by_field_name("type").map(|t| type_text(t, src)),
                        exported: exported.yes,
                        line: line(d),
                    });
                }
            }
        }
    }

    /// `module.exports = …`, `module.exports.x = …`, `exports.x = …`.
    fn commonjs(&mut self, node: Node) {
        let src = self.src;
        let Some(assign) = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "assignment_expression")
        else {
            return;
        };
        let (Some(left), Some(right)) = (
            assign.child_by_field_name("left"),
            assign.child_by_field_name("right"),
        ) else {
            return;
        };
        let target = collapse(text(left, src));
        if target == "module.exports" {
            match right.kind() {
                "object" => {
                    for prop in named_children(right) {
                        let name = match prop.kind() {
                            "shorthand_property_identifier" => text(prop, src).to_string(),
                            "pair" | "method_definition" => prop
                                .child_by_field_name("key")
                                .or_else(|| prop.child_by_field_name("name"))
                                .map_or(String::new(), |k| text(k, src).to_string()),
                            _ => continue,
                        };
                        self.local_exports.push((name.clone(), name, line(prop)));
                    }
                }
                "identifier" => self.local_exports.push((
                    text(right, src).to_string(),
                    "default".into(),
                    line(node),
                )),
                "function_expression" | "arrow_function" | "class" | "function" => self
                    .declaration(
                        right,
                        Exported {
                            yes: true,
                            default: true,
                        },
                        node,
                    ),
                _ => self.export("default", "variable", true),
            }
        } else if let Some(name) = target
            .strip_prefix("module.exports.")
            .or_else(|| target.strip_prefix("exports."))
        {
            let exported = Exported {
                yes: true,
                default: false,
            };
            match right.kind() {
                "function_expression" | "arrow_function" | "function" => {
                    self.function(name, right, exported, node)
                }
                "class" => self.class(name, right, exported, node),
                "identifier" => self.local_exports.push((
                    text(right, src).to_string(),
                    name.to_string(),
                    line(node),
                )),
                _ => self.export(name, "variable", false),
            }
        }
    }

    /// Dynamic `import('…')` anywhere, and `require('…')` not already seen at the top level.
    fn scan_calls(&mut self, root: Node) {
        let src = self.src;
        // (node, inside a function)
        let mut stack = vec![(root, false)];
        while let Some((node, in_function)) = stack.pop() {
            if node.kind() == "call_expression"
                && let Some(function) = node.child_by_field_name("function")
            {
                let first_string = node
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0))
                    .filter(|a| a.kind() == "string")
                    .map(|a| unquote(text(a, src)));
                match (function.kind(), first_string) {
                    ("import", Some(source)) => self.out.imports.push(Import {
                        kind: guess_kind(&source),
                        source,
                        imported: Vec::new(),
                        default: false,
                        namespace: true,
                        type_only: false,
                        dynamic: true,
                        statement: None,
                        line: line(node),
                    }),
                    ("identifier", Some(source)) if text(function, src) == "require" => {
                        let key = (line(node), source.clone());
                        if !self.seen_requires.contains(&key) {
                            self.seen_requires.push(key);
                            self.out.imports.push(Import {
                                kind: guess_kind(&source),
                                source,
                                imported: Vec::new(),
                                default: false,
                                namespace: true,
                                type_only: false,
                                dynamic: in_function,
                                statement: Some("require".into()),
                                line: line(node),
                            });
                        }
                    }
                    _ => {}
                }
            }
            let inner = in_function
                || matches!(
                    node.kind(),
                    "function_declaration"
                        | "function_expression"
                        | "function"
                        | "arrow_function"
                        | "method_definition"
                        | "generator_function_declaration"
                        | "generator_function"
                );
            let mut cursor = node.walk();
            let kids: Vec<Node> = node.named_children(&mut cursor).collect();
            stack.extend(kids.into_iter().rev().map(|k| (k, inner)));
        }
        self.out.imports.sort_by_key(|i| i.line);
    }

    /// Resolves `export { a as b }` and CommonJS exports against the declarations.
    fn finish_exports(&mut self) {
        let locals = std::mem::take(&mut self.local_exports);
        for (local, exported_name, _) in locals {
            let kind = self.mark_exported(&local);
            let default = exported_name == "default";
            self.out.exports.push(Export {
                name: if default && kind != "unknown" {
                    local.clone()
                } else {
                    exported_name
                },
                kind: kind.to_string(),
                default,
                re_export: false,
                source: None,
            });
        }
        // `export function f` plus `module.exports = { f }` name the same export once.
        let mut seen: Vec<(String, bool, bool)> = Vec::new();
        self.out.exports.retain(|e| {
            let key = (e.name.clone(), e.default, e.re_export);
            let fresh = !seen.contains(&key);
            seen.push(key);
            fresh
        });
    }

    /// Marks a local declaration exported and returns its kind (`unknown` for an import or an
    /// undeclared name).
    fn mark_exported(&mut self, name: &str) -> &'static str {
        let o = &mut self.out;
        if let Some(f) = o.functions.iter_mut().find(|f| f.name == name) {
            f.exported = true;
            return "function";
        }
        if let Some(c) = o.classes.iter_mut().find(|c| c.name == name) {
            c.exported = true;
            return "class";
        }
        if let Some(t) = o.types.iter_mut().find(|t| t.name == name) {
            t.exported = true;
            return if t.kind == "interface" {
                "interface"
            } else {
                "type"
            };
        }
        if let Some(e) = o.enums.iter_mut().find(|e| e.name == name) {
            e.exported = true;
            return "enum";
        }
        if let Some(v) = o.variables.iter_mut().find(|v| v.name == name) {
            v.exported = true;
            return "variable";
        }
        "unknown"
    }
}

/// Syntactic guess: relative and absolute paths stay in the project.
fn guess_kind(source: &str) -> ImportType {
    if source.starts_with('.') || source.starts_with('/') {
        ImportType::Internal
    } else {
        ImportType::External
    }
}

/// `require('x')` (possibly awaited or followed by `.member`) → `x`.
fn require_source(value: Node, src: &str) -> Option<String> {
    let call = match value.kind() {
        "call_expression" => value,
        "member_expression" => value
            .child_by_field_name("object")
            .filter(|o| o.kind() == "call_expression")?,
        _ => return None,
    };
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" || text(function, src) != "require" {
        return None;
    }
    let arg = call.child_by_field_name("arguments")?.named_child(0)?;
    (arg.kind() == "string").then(|| unquote(text(arg, src)))
}

/// Names bound by `const x = require(…)` (namespace) or `const { a, b: c } = require(…)`.
fn binding_names(pattern: Node, src: &str) -> (Vec<ImportedName>, bool) {
    match pattern.kind() {
        "object_pattern" => {
            let mut names = Vec::new();
            for p in named_children(pattern) {
                match p.kind() {
                    "shorthand_property_identifier_pattern" => names.push(ImportedName {
                        name: text(p, src).to_string(),
                        alias: None,
                    }),
                    "pair_pattern" => names.push(ImportedName {
                        name: p
                            .child_by_field_name("key")
                            .map_or(String::new(), |k| text(k, src).to_string()),
                        alias: p
                            .child_by_field_name("value")
                            .map(|v| text(v, src).to_string()),
                    }),
                    _ => {}
                }
            }
            (names, false)
        }
        _ => (
            vec![ImportedName {
                name: text(pattern, src).to_string(),
                alias: None,
            }],
            true,
        ),
    }
}

fn decorator(node: Node, src: &str) -> String {
    collapse(text(node, src).trim_start_matches('@'))
}

/// `public` unless an accessibility modifier or a `#private` name says otherwise.
fn access(node: Node, src: &str, private_name: bool) -> String {
    if private_name {
        return "private".into();
    }
    child_of_kind(node, "accessibility_modifier")
        .map_or("public".into(), |m| text(m, src).to_string())
}

/// An `import` statement; `None` without a source. The one reader of ECMAScript imports: the
/// outline reads every one, the chunker's name binding (`names.rs`) binds their names.
pub(super) fn import(node: Node, src: &str) -> Option<Import> {
    let type_only = has_child(node, "type");
    let mut import = Import {
        source: String::new(),
        kind: ImportType::External,
        imported: Vec::new(),
        default: false,
        namespace: false,
        type_only,
        dynamic: false,
        statement: None,
        line: line(node),
    };
    if let Some(source) = node.child_by_field_name("source") {
        import.source = unquote(text(source, src));
    }
    let mut typed_specifiers = 0;
    for child in named_children(node) {
        match child.kind() {
            "import_clause" => {
                for part in named_children(child) {
                    match part.kind() {
                        "identifier" => {
                            import.default = true;
                            import.imported.push(ImportedName {
                                name: text(part, src).to_string(),
                                alias: None,
                            });
                        }
                        "namespace_import" => {
                            import.namespace = true;
                            if let Some(id) = child_of_kind(part, "identifier") {
                                import.imported.push(ImportedName {
                                    name: text(id, src).to_string(),
                                    alias: None,
                                });
                            }
                        }
                        "named_imports" => {
                            for spec in named_children(part) {
                                if spec.kind() != "import_specifier" {
                                    continue;
                                }
                                typed_specifiers += usize::from(has_child(spec, "type"));
                                import.imported.push(specifier(spec, src));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_require_clause" => {
                // TypeScript `import fs = require('fs')`.
                if let Some(id) = child_of_kind(child, "identifier") {
                    import.imported.push(ImportedName {
                        name: text(id, src).to_string(),
                        alias: None,
                    });
                    import.namespace = true;
                }
                if let Some(s) = child_of_kind(child, "string") {
                    import.source = unquote(text(s, src));
                }
                import.statement = Some("require".into());
            }
            _ => {}
        }
    }
    // `import { type A, type B } from …` is as erased as `import type { A, B }`.
    if typed_specifiers > 0
        && typed_specifiers == import.imported.len()
        && !import.default
        && !import.namespace
    {
        import.type_only = true;
    }
    if import.source.is_empty() {
        return None;
    }
    import.kind = guess_kind(&import.source);
    Some(import)
}

/// The name and alias of an import or export specifier (`a as b`).
fn specifier(spec: Node, src: &str) -> ImportedName {
    ImportedName {
        name: spec
            .child_by_field_name("name")
            .map(|n| text(n, src).to_string())
            .unwrap_or_default(),
        alias: spec
            .child_by_field_name("alias")
            .map(|n| text(n, src).to_string()),
    }
}

/// A class field's value when it is a function (`increment = () => {…}`).
fn function_value(field: Node) -> Option<Node> {
    field
        .child_by_field_name("value")
        .filter(|v| is_function_expression(*v))
}

/// Whether a value is a function written in place: an arrow function or a function expression
/// (`function` in older grammars), a generator's included.
fn is_function_expression(node: Node) -> bool {
    matches!(
        node.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// A class field's name node (`name` in TypeScript, `property` in JavaScript).
fn field_name(field: Node) -> Option<Node> {
    field
        .child_by_field_name("name")
        .or_else(|| field.child_by_field_name("property"))
}
