//! Ruby outlines: `require` / `require_relative` / `load` calls as imports (dynamic when made
//! inside a method), classes with their superclass, mixins (`include`, `extend`, `prepend`),
//! `attr_*` properties and methods, modules (kind `module`), top-level methods and constants, and
//! `#` doc comments. Classes and modules nested in a module are listed under their full name
//! (`Admin::UsersController`), since that is how Ruby code names them. Methods after a bare
//! `private` / `protected` (or wrapped in `private def …`) carry that access; `def self.x` and the
//! methods of `class << self` are static. Ruby has no export statement: every class, module,
//! constant and top-level method of a loaded file is visible, so each is exported.

use super::visibility;
use crate::lang::outline::*;
use crate::lang::walk::*;
use tree_sitter::Node;

/// The calls that load another file.
const LOADS: &[&str] = &["require", "require_relative", "load", "autoload"];

/// The calls that mix a module into a class.
const MIXINS: &[&str] = &["include", "extend", "prepend"];

pub fn outline(root: Node, src: &str) -> FileOutline {
    let mut out = FileOutline {
        doc: file_doc(root, src, |n| {
            load_call(n, src).is_some() || (is_comment(n) && is_magic(text(n, src)))
        }),
        ..FileOutline::default()
    };
    imports(root, src, false, &mut out.imports);
    body(root, "", src, &mut out);
    out
}

/// The statements of a program, module or class body that define things visible from outside.
fn body(node: Node, prefix: &str, src: &str, out: &mut FileOutline) {
    for child in named_children(node) {
        match child.kind() {
            "class" | "module" => class(child, prefix, src, out),
            "method" if prefix.is_empty() => out.functions.push(function(child, src)),
            "assignment" if prefix.is_empty() => {
                if let Some(left) = child
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "constant")
                {
                    out.variables.push(Variable {
                        name: text(left, src).to_string(),
                        kind: "const".into(),
                        type_name: None,
                        exported: true,
                        line: line(child),
                    });
                }
            }
            _ => {}
        }
    }
}

/// A class or module, then the classes and modules nested in it.
fn class(node: Node, prefix: &str, src: &str, out: &mut FileOutline) {
    let Some(name_node) = node.child_by_field_name("name") else {
        return;
    };
    let name = format!("{prefix}{}", text(name_node, src));
    let mut class = Class {
        name: name.clone(),
        kind: node.kind().to_string(),
        exported: true,
        is_abstract: false,
        extends: node
            .child_by_field_name("superclass")
            .and_then(|s| s.named_child(0))
            .map(|s| one_line(s, src)),
        implements: Vec::new(),
        uses: Vec::new(),
        methods: Vec::new(),
        properties: Vec::new(),
        location: location(node),
        decorators: Vec::new(),
        doc: doc_before(node, src, DocStyle::Hash, &[]),
    };
    if let Some(body_node) = node.child_by_field_name("body") {
        members(body_node, src, false, &mut class);
        out.classes.push(class);
        body(body_node, &format!("{name}::"), src, out);
    } else {
        out.classes.push(class);
    }
}

/// Methods, properties and mixins of a class body; `singleton` for `class << self`.
fn members(body_node: Node, src: &str, singleton: bool, class: &mut Class) {
    for child in named_children(body_node) {
        match child.kind() {
            "method" | "singleton_method" => class.methods.push(method(child, singleton, src)),
            "singleton_class" => {
                if let Some(inner) = child.child_by_field_name("body") {
                    members(inner, src, true, class);
                }
            }
            "call" => call_member(child, src, singleton, class),
            "assignment" => {
                if let Some(left) = child
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "constant")
                {
                    class.properties.push(Property {
                        name: text(left, src).to_string(),
                        type_name: None,
                        access_modifier: "public".into(),
                        is_static: true,
                        readonly: true,
                        optional: false,
                        line: line(child),
                    });
                }
            }
            _ => {}
        }
    }
}

/// A call in a class body: a mixin, an `attr_*` declaration, or `private def …`.
fn call_member(call: Node, src: &str, singleton: bool, class: &mut Class) {
    if call.child_by_field_name("receiver").is_some() {
        return;
    }
    let Some(name) = call.child_by_field_name("method").map(|m| text(m, src)) else {
        return;
    };
    let arguments: Vec<Node> = call
        .child_by_field_name("arguments")
        .map(named_children)
        .unwrap_or_default();
    if MIXINS.contains(&name) {
        class
            .uses
            .extend(arguments.iter().map(|a| one_line(*a, src)));
    } else if let Some(kind) = name.strip_prefix("attr_") {
        for argument in arguments {
            let Some(property) = symbol_name(argument, src) else {
                continue;
            };
            class.properties.push(Property {
                name: property,
                type_name: None,
                access_modifier: visibility(call, src).to_string(),
                is_static: singleton,
                readonly: kind == "reader",
                optional: false,
                line: line(call),
            });
        }
    } else {
        // `private def helper … end` (and other calls that wrap a definition).
        for argument in arguments {
            if matches!(argument.kind(), "method" | "singleton_method") {
                class.methods.push(method(argument, singleton, src));
            }
        }
    }
}

/// `:name` or `"name"` as a plain name.
fn symbol_name(node: Node, src: &str) -> Option<String> {
    let raw = text(node, src);
    let name = match node.kind() {
        "simple_symbol" => raw.trim_start_matches(':'),
        "string" => raw.trim_matches(|c| c == '"' || c == '\''),
        _ => return None,
    };
    (!name.is_empty()).then(|| name.to_string())
}

fn function(node: Node, src: &str) -> Function {
    Function {
        name: method_name(node, src),
        exported: true,
        is_async: false,
        generator: false,
        parameters: parameters(node, src),
        return_type: None,
        location: location(node),
        decorators: Vec::new(),
        doc: doc_before(node, src, DocStyle::Hash, &[]),
        body: node
            .child_by_field_name("body")
            .map(|b| body_excerpt(b, src)),
    }
}

fn method(node: Node, singleton: bool, src: &str) -> Method {
    let name = method_name(node, src);
    let is_static = singleton || node.kind() == "singleton_method";
    Method {
        kind: if name == "initialize" && !is_static {
            "constructor"
        } else {
            "method"
        }
        .into(),
        // `initialize` is private in Ruby, but it is how the class is constructed.
        access_modifier: if name == "initialize" {
            "public"
        } else {
            visibility(node, src)
        }
        .into(),
        name,
        is_static,
        is_abstract: false,
        is_async: false,
        generator: false,
        parameters: parameters(node, src),
        return_type: None,
        location: location(node),
        decorators: Vec::new(),
        doc: doc_before(node, src, DocStyle::Hash, &[]),
        body: node
            .child_by_field_name("body")
            .map(|b| body_excerpt(b, src)),
    }
}

fn method_name(node: Node, src: &str) -> String {
    node.child_by_field_name("name")
        .map_or(String::new(), |n| text(n, src).to_string())
}

fn parameters(node: Node, src: &str) -> Vec<Parameter> {
    let Some(list) = node.child_by_field_name("parameters") else {
        return Vec::new();
    };
    named_children(list)
        .into_iter()
        .filter_map(|p| {
            let named = |n: Node| {
                n.child_by_field_name("name")
                    .map(|name| text(name, src).to_string())
            };
            let value = p.child_by_field_name("value").map(|v| one_line(v, src));
            let (name, optional, rest) = match p.kind() {
                "identifier" => (text(p, src).to_string(), false, false),
                "optional_parameter" => (named(p)?, true, false),
                "keyword_parameter" => (format!("{}:", named(p)?), value.is_some(), false),
                "splat_parameter" => (format!("*{}", named(p).unwrap_or_default()), true, true),
                "hash_splat_parameter" => {
                    (format!("**{}", named(p).unwrap_or_default()), true, true)
                }
                "block_parameter" => (format!("&{}", named(p).unwrap_or_default()), true, false),
                "forward_parameter" => ("...".to_string(), true, true),
                _ => return None,
            };
            Some(Parameter {
                name,
                type_name: None,
                optional,
                rest,
                default: value,
            })
        })
        .collect()
}

/// The file a statement loads, when it is `require "x"` and the like: (call name, path).
fn load_call<'s>(node: Node, src: &'s str) -> Option<(&'s str, String)> {
    if node.kind() != "call" || node.child_by_field_name("receiver").is_some() {
        return None;
    }
    let name = text(node.child_by_field_name("method")?, src);
    if !LOADS.contains(&name) {
        return None;
    }
    let arguments = named_children(node.child_by_field_name("arguments")?);
    // `autoload :Name, "path"` names the constant first.
    let path = arguments.iter().rev().find(|a| a.kind() == "string")?;
    let content = named_children(*path);
    if content.iter().any(|c| c.kind() == "interpolation") {
        return None;
    }
    Some((name, unquote(text(*path, src))))
}

/// Every load call under `node`; those inside a method body are dynamic.
fn imports(node: Node, src: &str, in_method: bool, out: &mut Vec<Import>) {
    if let Some((name, source)) = load_call(node, src) {
        out.push(Import {
            kind: if name == "require_relative" || source.starts_with('.') {
                ImportType::Internal
            } else {
                ImportType::External
            },
            source,
            imported: Vec::new(),
            default: false,
            namespace: true,
            type_only: false,
            dynamic: in_method,
            statement: Some(name.to_string()),
            line: line(node),
        });
        return;
    }
    let in_method = in_method || matches!(node.kind(), "method" | "singleton_method");
    for child in named_children(node) {
        imports(child, src, in_method, out);
    }
}
