//! Constructor dependency injection (seed 004 §1.14): the typed parameters of a constructor —
//! PHP `__construct` (promoted properties and plain typed parameters), Python `__init__`,
//! TypeScript `constructor`, Java constructors — resolved to full names through the file's
//! imports. They go to the class chunk as `injected_dependencies` and lead its
//! `related_symbols`, so "change order processing" reaches `OrderService` from
//! `OrderController`.

use crate::chunk::imports::Imports;
use crate::chunk::unit::Unit;
use crate::syntax::node_text;
use serde::Serialize;
use tree_sitter::Node;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Dependency {
    /// Resolved type (FQCN, dotted module path, `module#Name`).
    pub class: String,
    pub variable: String,
    /// PHP promoted property / TypeScript parameter property.
    pub promoted: bool,
}

/// Adds `injected_dependencies` to a class-like unit when its constructor takes typed
/// parameters that resolve to project or library types.
pub(crate) fn apply(lang: &str, unit: &mut Unit, text: &str, imports: &Imports) {
    let Some(class) = unit.node else { return };
    let deps = dependencies(lang, class, text, imports);
    if deps.is_empty() {
        return;
    }
    let classes: Vec<String> = deps.iter().map(|d| d.class.clone()).collect();
    // Injected types first: they are the strongest hint of what a class depends on.
    let mut related = classes;
    related.extend(std::mem::take(&mut unit.meta.related_symbols));
    unit.meta.related_symbols.clear();
    unit.meta.relate(related);
    unit.meta.set("injected_dependencies", deps);
}

pub(crate) fn dependencies(
    lang: &str,
    class: Node,
    text: &str,
    imports: &Imports,
) -> Vec<Dependency> {
    let Some(constructor) = constructor(lang, class, text) else {
        return Vec::new();
    };
    let Some(params) = constructor.child_by_field_name("parameters") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = params.walk();
    for param in params.named_children(&mut cursor) {
        let Some((ty, variable, promoted)) = parameter(lang, param, text) else {
            continue;
        };
        if let Some(class) = imports.resolve(&ty) {
            out.push(Dependency {
                class,
                variable,
                promoted,
            });
        }
    }
    out
}

fn constructor<'t>(lang: &str, class: Node<'t>, text: &str) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let members: Vec<Node<'t>> = body.named_children(&mut cursor).collect();
    members.into_iter().find_map(|member| {
        let member = if member.kind() == "decorated_definition" {
            member.child_by_field_name("definition")?
        } else {
            member
        };
        let name = member
            .child_by_field_name("name")
            .map(|n| node_text(n, text));
        let found = match lang {
            "php" => member.kind() == "method_declaration" && name == Some("__construct"),
            "python" => member.kind() == "function_definition" && name == Some("__init__"),
            "typescript" | "tsx" | "javascript" => {
                member.kind() == "method_definition" && name == Some("constructor")
            }
            "java" => member.kind() == "constructor_declaration",
            _ => false,
        };
        found.then_some(member)
    })
}

/// (type as written, variable, promoted) of one parameter, or `None` when untyped.
fn parameter(lang: &str, param: Node, text: &str) -> Option<(String, String, bool)> {
    match lang {
        "php" => {
            let promoted = param.kind() == "property_promotion_parameter";
            if !promoted && param.kind() != "simple_parameter" {
                return None;
            }
            let ty = class_type(param.child_by_field_name("type")?, text)?;
            let var = node_text(param.child_by_field_name("name")?, text).trim_start_matches('$');
            Some((ty, var.to_string(), promoted))
        }
        "python" => {
            if !matches!(param.kind(), "typed_parameter" | "typed_default_parameter") {
                return None;
            }
            let var = param
                .child_by_field_name("name")
                .or_else(|| param.named_child(0))
                .map(|n| node_text(n, text))?;
            let ty = python_type(node_text(param.child_by_field_name("type")?, text))?;
            Some((ty, var.to_string(), false))
        }
        "typescript" | "tsx" | "javascript" => {
            if !matches!(param.kind(), "required_parameter" | "optional_parameter") {
                return None;
            }
            let var = node_text(param.child_by_field_name("pattern")?, text);
            let annotation = param.child_by_field_name("type")?;
            let ty = annotation.named_child(0).filter(|t| {
                matches!(
                    t.kind(),
                    "type_identifier" | "nested_type_identifier" | "generic_type"
                )
            })?;
            let ty = node_text(ty, text)
                .split('<')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let mut c = param.walk();
            let promoted = param
                .children(&mut c)
                .any(|n| matches!(n.kind(), "accessibility_modifier" | "readonly"));
            Some((ty, var.to_string(), promoted))
        }
        "java" => {
            if param.kind() != "formal_parameter" {
                return None;
            }
            let ty = param.child_by_field_name("type")?;
            if !matches!(
                ty.kind(),
                "type_identifier" | "scoped_type_identifier" | "generic_type"
            ) {
                return None;
            }
            let ty = node_text(ty, text)
                .split('<')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let var = node_text(param.child_by_field_name("name")?, text);
            Some((ty, var.to_string(), false))
        }
        _ => None,
    }
}

/// A PHP parameter type that names a class: `Foo`, `?Foo`, `\App\Foo` (not `int`, not unions).
fn class_type(ty: Node, text: &str) -> Option<String> {
    match ty.kind() {
        "named_type" => Some(node_text(ty, text).to_string()),
        "optional_type" => ty.named_child(0).and_then(|inner| class_type(inner, text)),
        _ => None,
    }
}

/// `Optional[EmailService]`, `EmailService | None`, `"EmailService"` → `EmailService`.
fn python_type(raw: &str) -> Option<String> {
    let mut ty = raw.trim().trim_matches(['"', '\'']).to_string();
    if let Some(inner) = ty
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
    {
        ty = inner.trim().to_string();
    }
    if let Some((left, right)) = ty.split_once('|') {
        let (left, right) = (left.trim(), right.trim());
        ty = if left == "None" { right } else { left }.to_string();
    }
    (!ty.is_empty() && !ty.contains(['[', ' ', '|'])).then_some(ty)
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{chunk, field, find, fixture};
    use serde_json::json;

    #[test]
    fn php_promoted_and_plain_parameters_resolve_through_use_statements() {
        let result = fixture(
            "laravel-shop",
            "app/Http/Controllers/CheckoutController.php",
        );
        let controller = find(&result.chunks, ChunkKind::Class, "CheckoutController");
        assert_eq!(field(controller, "role"), "controller");
        assert_eq!(
            field(controller, "injected_dependencies"),
            &json!([
                {"class": "App\\Services\\CartService", "variable": "cart", "promoted": true},
                {"class": "App\\Services\\CheckoutService", "variable": "checkout", "promoted": true},
                {"class": "App\\Services\\PricingService", "variable": "pricing", "promoted": true},
                {"class": "App\\Repositories\\OrderRepository", "variable": "orders", "promoted": true}
            ])
        );
        assert_eq!(
            controller.metadata.related_symbols[..4],
            [
                "App\\Services\\CartService",
                "App\\Services\\CheckoutService",
                "App\\Services\\PricingService",
                "App\\Repositories\\OrderRepository"
            ]
        );
        let plain = chunk(
            "app/Jobs/Sync.php",
            "<?php\nnamespace App\\Jobs;\nuse App\\Services\\Feed as FeedClient;\nclass Sync {\n    public function __construct(FeedClient $feed, ?Clock $clock = null, int $tries = 3) {}\n}\n",
        );
        let class = find(&plain.chunks, ChunkKind::Class, "Sync");
        assert_eq!(
            field(class, "injected_dependencies"),
            &json!([
                {"class": "App\\Services\\Feed", "variable": "feed", "promoted": false},
                {"class": "App\\Jobs\\Clock", "variable": "clock", "promoted": false}
            ])
        );
    }

    #[test]
    fn typescript_parameter_properties() {
        let result = chunk(
            "src/services/orders.ts",
            "import { ApiClient } from './api';\nimport type { Clock } from '../clock';\nexport class Orders {\n  constructor(private readonly api: ApiClient, clock?: Clock, retries: number = 3) {}\n}\n",
        );
        let class = find(&result.chunks, ChunkKind::Class, "Orders");
        assert_eq!(
            field(class, "injected_dependencies"),
            &json!([
                {"class": "src/services/api#ApiClient", "variable": "api", "promoted": true},
                {"class": "src/clock#Clock", "variable": "clock", "promoted": false}
            ])
        );
    }
}
