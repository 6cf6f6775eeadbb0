//! Constructor dependency injection (seed 004 §1.14): the typed parameters of a constructor —
//! PHP `__construct` (promoted properties and plain typed parameters), Python `__init__`,
//! TypeScript `constructor`, Java constructors, as each language's home reads them
//! (`LanguageDef::injected`) — resolved to full names through the file's imports. They go to the class chunk as `injected_dependencies` and lead its
//! `related_symbols`, so "change order processing" reaches `OrderService` from
//! `OrderController`.

use crate::chunk::imports::Imports;
use crate::chunk::unit::Unit;
use crate::lang::LanguageDef;
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
pub(crate) fn apply(lang: &LanguageDef, unit: &mut Unit, text: &str, imports: &Imports) {
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

/// The constructor's typed parameters (the language's home reads them) whose types resolve
/// through the file's imports.
fn dependencies(lang: &LanguageDef, class: Node, text: &str, imports: &Imports) -> Vec<Dependency> {
    let Some(injected) = lang.injected else {
        return Vec::new();
    };
    injected(class, text)
        .into_iter()
        .filter_map(|param| {
            Some(Dependency {
                class: imports.resolve(&param.type_name)?,
                variable: param.variable,
                promoted: param.promoted,
            })
        })
        .collect()
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
