//! Laravel and Filament conventions on top of the PHP code units (seed 004 §1.6, §1.12–1.14).
//!
//! Each enrichment is detected from what the code *is* — the base class resolved through `use`
//! statements, a `Schema::create` call — and the file's place in the project, never from a
//! class name alone: [`migration`] turns `Schema::create/table` into `table_schema` units,
//! [`eloquent`] adds relations, fillable, casts and translatable fields to models, [`filament`]
//! types resources, forms, tables, infolists and actions and links them, [`di`] resolves
//! constructor injection (PHP, and Python/TypeScript/Java where visible).

pub mod di;
pub mod eloquent;
pub mod filament;
pub mod migration;

use super::imports::Imports;
use super::unit::Unit;
use super::{ChunkKind, Source};
use crate::syntax::node_text;
use tree_sitter::Node;

/// Applies every Laravel enrichment to the flat unit list of one PHP file.
pub(crate) fn enrich<'t>(
    source: &Source,
    root: Node<'t>,
    imports: &Imports,
    units: &mut Vec<Unit<'t>>,
) {
    migration::enrich(source, root, imports, units);
    eloquent::enrich(source, imports, units);
    filament::enrich(source, imports, units);
    for unit in units.iter_mut() {
        if unit.kind == ChunkKind::Class
            && !unit.meta.fields.contains_key("role")
            && let Some(base) = unit.node.and_then(|n| base_class(n, source.text, imports))
            && (base == "Illuminate\\Routing\\Controller"
                || base.ends_with("\\Http\\Controllers\\Controller"))
        {
            unit.meta.set("role", "controller");
        }
    }
}

/// The resolved parent class of a class declaration.
pub(crate) fn base_class(class: Node, text: &str, imports: &Imports) -> Option<String> {
    let mut cursor = class.walk();
    let base = class
        .named_children(&mut cursor)
        .find(|c| c.kind() == "base_clause")?;
    let mut inner = base.walk();
    let name = base
        .named_children(&mut inner)
        .find(|c| matches!(c.kind(), "name" | "qualified_name"))?;
    imports.resolve(node_text(name, text))
}

/// Resolved names of the traits a class uses (`use HasFactory, HasTranslations;`).
pub(crate) fn class_traits(class: Node, text: &str, imports: &Imports) -> Vec<String> {
    let mut out = Vec::new();
    let Some(body) = class.child_by_field_name("body") else {
        return out;
    };
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.kind() != "use_declaration" {
            continue;
        }
        let mut inner = member.walk();
        for name in member.named_children(&mut inner) {
            if matches!(name.kind(), "name" | "qualified_name")
                && let Some(full) = imports.resolve(node_text(name, text))
            {
                out.push(full);
            }
        }
    }
    out
}

/// The initial value of a class property (`protected $fillable = [...]`,
/// `protected static ?string $model = Product::class`).
pub(crate) fn property_value<'t>(class: Node<'t>, name: &str, text: &str) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.kind() != "property_declaration" {
            continue;
        }
        let mut inner = member.walk();
        for element in member.named_children(&mut inner) {
            if element.kind() != "property_element" {
                continue;
            }
            let matches = element
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text).trim_start_matches('$') == name);
            if matches {
                return element.child_by_field_name("default_value");
            }
        }
    }
    None
}

/// The methods declared directly in a class body, by name.
pub(crate) fn class_method<'t>(class: Node<'t>, name: &str, text: &str) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    body.named_children(&mut cursor).find(|m| {
        m.kind() == "method_declaration"
            && m.child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name)
    })
}

/// A literal as data: strings unquoted, `X::class` resolved, anything else as source text.
pub(crate) fn literal(node: Node, text: &str, imports: &Imports) -> String {
    let node = if node.kind() == "argument" {
        node.named_child(0).unwrap_or(node)
    } else {
        node
    };
    match node.kind() {
        "string" | "encapsed_string" => {
            let raw = node_text(node, text);
            raw.get(1..raw.len().saturating_sub(1))
                .unwrap_or(raw)
                .to_string()
        }
        "class_constant_access_expression" => {
            let src = node_text(node, text);
            match src.strip_suffix("::class") {
                Some(class) => imports.resolve(class).unwrap_or_else(|| class.to_string()),
                None => src.to_string(),
            }
        }
        _ => node_text(node, text).to_string(),
    }
}

/// The string value of a literal node, `None` when it is not a plain string.
pub(crate) fn string_value(node: Node, text: &str) -> Option<String> {
    let node = if node.kind() == "argument" {
        node.named_child(0)?
    } else {
        node
    };
    matches!(node.kind(), "string" | "encapsed_string").then(|| {
        let raw = node_text(node, text);
        raw.get(1..raw.len().saturating_sub(1))
            .unwrap_or(raw)
            .to_string()
    })
}

/// The elements of a PHP array literal as `(key, value)` pairs.
pub(crate) fn array_items(
    array: Node,
    text: &str,
    imports: &Imports,
) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    if array.kind() != "array_creation_expression" {
        return out;
    }
    let mut cursor = array.walk();
    for element in array.named_children(&mut cursor) {
        if element.kind() != "array_element_initializer" {
            continue;
        }
        let mut inner = element.walk();
        let parts: Vec<Node> = element.named_children(&mut inner).collect();
        match parts.as_slice() {
            [value] => out.push((None, literal(*value, text, imports))),
            [key, value] => out.push((
                Some(literal(*key, text, imports)),
                literal(*value, text, imports),
            )),
            _ => {}
        }
    }
    out
}

/// The arguments of a call, as argument nodes.
pub(crate) fn call_args<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|a| a.kind() == "argument")
        .collect()
}

/// The first array literal returned by a method (`return [...]`), for `casts()`-style methods.
pub(crate) fn returned_array(method: Node) -> Option<Node> {
    let body = method.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let ret = body
        .named_children(&mut cursor)
        .find(|s| s.kind() == "return_statement")?;
    let value = ret.named_child(0)?;
    (value.kind() == "array_creation_expression").then_some(value)
}

/// Every descendant of `node` of one of `kinds`, in source order.
pub(crate) fn descendants<'t>(node: Node<'t>, kinds: &[&str]) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if kinds.contains(&n.kind()) {
            out.push(n);
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// The short name of a fully qualified class.
pub(crate) fn short_name(fqcn: &str) -> &str {
    fqcn.rsplit('\\').next().unwrap_or(fqcn)
}

/// Index of the units that are methods inside the class unit at `class_index`.
pub(crate) fn methods_of(units: &[Unit], class_index: usize) -> Vec<usize> {
    let class = &units[class_index].range;
    units
        .iter()
        .enumerate()
        .filter(|(i, u)| {
            *i != class_index
                && u.kind.is_callable_kind()
                && class.start <= u.range.start
                && u.range.end <= class.end
        })
        .map(|(i, _)| i)
        .collect()
}
