//! `get_dependencies`: module resolution per language on the fixtures (tsconfig paths, PSR-4,
//! classmap, Python src layout, Go modules, Java packages, Rust modules), nested depth, reverse
//! lookup, cycle detection, error codes, and the incremental graph.

use crate::tools::test_support::{fixture_copy, project, run};
use serde_json::{Value, json};

fn deps(ctx: &crate::tools::Context, args: Value) -> Value {
    run(ctx, "get_dependencies", args).unwrap()
}

/// `source → resolvedPath` (or `-` when unresolved) and type, per import.
fn resolved(out: &Value) -> Vec<(String, String, String)> {
    out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["source"].as_str().unwrap().to_string(),
                i["type"].as_str().unwrap().to_string(),
                i["resolvedPath"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

fn triple(source: &str, kind: &str, path: &str) -> (String, String, String) {
    (source.into(), kind.into(), path.into())
}

#[test]
fn detects_the_three_module_cycle_of_ts_app() {
    let (_dir, ctx) = fixture_copy("ts-app");
    let out = deps(&ctx, json!({"path": "src/utils/cycle/a.ts", "depth": 3}));
    let cycle = [
        "src/utils/cycle/a.ts",
        "src/utils/cycle/b.ts",
        "src/utils/cycle/c.ts",
        "src/utils/cycle/a.ts",
    ];
    assert_eq!(
        out["circularDependencies"],
        json!([{"cycle": cycle, "message": "Circular dependency detected: a -> b -> c -> a"}])
    );
    assert_eq!(out["warnings"][0]["code"], "CIRCULAR_DEPENDENCY");
    assert_eq!(out["depth"], 3);
    // a -> b -> c -> a, the last edge marked instead of followed.
    let b = &out["imports"][0];
    assert_eq!(b["resolvedPath"], cycle[1]);
    let c = &b["dependencies"][0];
    assert_eq!(c["resolvedPath"], cycle[2]);
    let back = &c["dependencies"][0];
    assert_eq!(
        (&back["resolvedPath"], &back["circular"]),
        (&json!(cycle[0]), &json!(true))
    );
    assert!(back.get("dependencies").is_none());
    // Every file of the cycle reports it, starting from itself.
    let from_b = deps(&ctx, json!({"path": "src/utils/cycle/b.ts"}));
    assert_eq!(
        from_b["circularDependencies"][0]["message"],
        "Circular dependency detected: b -> c -> a -> b"
    );
    let outside = deps(&ctx, json!({"path": "src/services/api.ts"}));
    assert_eq!(outside["circularDependencies"], json!([]));
    assert!(outside.get("warnings").is_none());
}

#[test]
fn spec_cycle_message_ignores_type_only_imports() {
    let (_dir, ctx) = fixture_copy("api-spec");
    let out = deps(&ctx, json!({"path": "src/services/A.ts", "depth": 3}));
    assert_eq!(
        out["circularDependencies"][0],
        json!({
            "cycle": ["src/services/A.ts", "src/services/B.ts", "src/services/C.ts", "src/services/A.ts"],
            "message": "Circular dependency detected: A -> B -> C -> A"
        })
    );
    // B's `import type { Job } from './A'` is still a dependency of B.
    let b = deps(&ctx, json!({"path": "src/services/B.ts"}));
    assert!(
        resolved(&b).contains(&triple("./A", "internal", "src/services/A.ts")),
        "{:?}",
        resolved(&b)
    );
}

#[test]
fn tsconfig_paths_relative_imports_and_dependents() {
    let (_dir, ctx) = fixture_copy("ts-app");
    let out = deps(&ctx, json!({"path": "src/services/authService.ts"}));
    assert_eq!(
        resolved(&out),
        [
            triple("@/types", "internal", "src/types/index.ts"),
            triple("@/types", "internal", "src/types/index.ts"),
            triple("./api", "internal", "src/services/api.ts"),
        ]
    );
    assert_eq!(
        out["imports"][0]["imported"],
        json!(["AuthSession", "Credentials", "User"])
    );
    assert!(
        out["dependents"]
            .as_array()
            .unwrap()
            .contains(&json!("src/hooks/useAuth.ts"))
    );
    // Depth 2: the index re-exports its modules.
    let nested = deps(
        &ctx,
        json!({"path": "src/services/authService.ts", "depth": 2}),
    );
    let index = &nested["imports"][0]["dependencies"];
    let sources: Vec<&str> = index
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["./product", "./user"]);
    assert!(
        index[0].get("dependencies").is_none(),
        "depth 2 stops there"
    );
    // The second import of the same file is not expanded twice.
    assert_eq!(nested["imports"][1]["alreadyListed"], true);
}

#[test]
fn php_psr4_classmap_and_includes() {
    let (_dir, ctx) = fixture_copy("laravel-shop");
    let out = deps(&ctx, json!({"path": "app/Services/CheckoutService.php"}));
    let list = resolved(&out);
    assert!(list.contains(&triple(
        "App\\Contracts\\PaymentGateway",
        "internal",
        "app/Contracts/PaymentGateway.php"
    )));
    assert!(list.contains(&triple(
        "App\\Repositories\\OrderRepository",
        "internal",
        "app/Repositories/OrderRepository.php"
    )));
    let db = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "Illuminate\\Support\\Facades\\DB")
        .unwrap();
    assert_eq!(
        (&db["type"], &db["package"]),
        (&json!("external"), &json!("Illuminate\\Support"))
    );
    let dependents = out["dependents"].as_array().unwrap();
    assert!(dependents.contains(&json!("app/Http/Controllers/CheckoutController.php")));
    // A `use` of a namespace resolves to the files of its directory.
    let resource = deps(
        &ctx,
        json!({"path": "app/Filament/Resources/ProductResource.php"}),
    );
    let pages = resource["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "App\\Filament\\Resources\\ProductResource\\Pages")
        .unwrap();
    assert_eq!(
        pages["resolvedPath"],
        "app/Filament/Resources/ProductResource/Pages"
    );
    assert!(!pages["resolvedFiles"].as_array().unwrap().is_empty());

    let (_dir, ctx) = project(&[
        (
            "composer.json",
            r#"{"autoload": {"psr-4": {"Shop\\": "src/"}, "classmap": ["legacy"]}}"#,
        ),
        (
            "src/Orders/Checkout.php",
            "<?php\nnamespace Shop\\Orders;\n\nuse LegacySkuMap;\nuse Shop\\Missing\\Thing;\n\nrequire_once __DIR__ . '/../helpers.php';\nrequire __DIR__ . '/../../vendor/autoload.php';\n\nclass Checkout {}\n",
        ),
        ("src/helpers.php", "<?php\nfunction money() {}\n"),
        ("legacy/skus.php", "<?php\nfinal class LegacySkuMap {}\n"),
    ]);
    let out = deps(&ctx, json!({"path": "src/Orders/Checkout.php"}));
    assert_eq!(
        resolved(&out),
        [
            triple("LegacySkuMap", "internal", "legacy/skus.php"),
            triple("Shop\\Missing\\Thing", "internal", "-"),
            triple("./../helpers.php", "internal", "src/helpers.php"),
            triple("./../../vendor/autoload.php", "external", "-"),
        ]
    );
}

#[test]
fn python_src_layout_and_relative_imports() {
    let (_dir, ctx) = fixture_copy("python-service");
    let out = deps(&ctx, json!({"path": "src/orderly/auth/service.py"}));
    let list = resolved(&out);
    assert!(list.contains(&triple(
        "..db.repository",
        "internal",
        "src/orderly/db/repository.py"
    )));
    assert!(list.contains(&triple(".tokens", "internal", "src/orderly/auth/tokens.py")));
    assert!(list.contains(&triple("hashlib", "external", "-")));
    let tests = deps(&ctx, json!({"path": "tests/test_auth.py"}));
    assert!(resolved(&tests).contains(&triple(
        "orderly.auth.service",
        "internal",
        "src/orderly/auth/service.py"
    )));
    assert!(
        out["dependents"]
            .as_array()
            .unwrap()
            .contains(&json!("tests/test_auth.py"))
    );
}

#[test]
fn go_java_rust_and_vue() {
    let (_dir, ctx) = fixture_copy("polyglot");
    let main = deps(&ctx, json!({"path": "go/cmd/quote/main.go"}));
    let list = resolved(&main);
    assert!(list.contains(&triple(
        "github.com/northwind/shipping/internal/quote",
        "internal",
        "go/internal/quote/quote.go"
    )));
    assert!(list.contains(&triple("fmt", "external", "-")));

    let report = deps(&ctx, json!({"path": "rust/src/report.rs"}));
    assert!(resolved(&report).contains(&triple("crate::ledger", "internal", "rust/src/ledger.rs")));
    let lib = deps(&ctx, json!({"path": "rust/src/lib.rs"}));
    assert!(resolved(&lib).contains(&triple("money", "internal", "rust/src/money.rs")));

    let vue = deps(&ctx, json!({"path": "src/components/CartBadge.vue"}));
    assert!(resolved(&vue).contains(&triple("../stores/cart", "internal", "src/stores/cart.ts")));

    let (_dir, ctx) = project(&[
        (
            "src/main/java/com/shop/app/App.java",
            "package com.shop.app;\n\nimport com.shop.model.Item;\nimport com.shop.model.*;\nimport static com.shop.model.Item.of;\nimport java.util.List;\n\npublic class App {}\n",
        ),
        (
            "src/main/java/com/shop/model/Item.java",
            "package com.shop.model;\n\npublic class Item {}\n",
        ),
        (
            "src/main/java/com/shop/model/Stock.java",
            "package com.shop.model;\n\npublic class Stock {}\n",
        ),
    ]);
    let app = deps(&ctx, json!({"path": "src/main/java/com/shop/app/App.java"}));
    let item = "src/main/java/com/shop/model/Item.java";
    assert_eq!(
        resolved(&app),
        [
            triple("com.shop.model.Item", "internal", item),
            triple("com.shop.model", "internal", "src/main/java/com/shop/model"),
            triple("com.shop.model.Item", "internal", item),
            triple("java.util.List", "external", "-"),
        ]
    );
    assert_eq!(
        app["imports"][1]["resolvedFiles"],
        json!([item, "src/main/java/com/shop/model/Stock.java"])
    );
}

#[test]
fn depth_limits_and_errors() {
    let (_dir, ctx) = project(&[
        ("a.ts", "import { b } from './b';\nexport const a = b;\n"),
        ("b.ts", "import { c } from './c';\nexport const b = c;\n"),
        ("c.ts", "export const c = 1;\n"),
    ]);
    let unlimited = deps(&ctx, json!({"path": "a.ts", "depth": 0}));
    assert_eq!(
        unlimited["imports"][0]["dependencies"][0]["resolvedPath"],
        "c.ts"
    );
    let one = deps(&ctx, json!({"path": "a.ts"}));
    assert_eq!(one["depth"], 1);
    assert!(one["imports"][0].get("dependencies").is_none());
    let code = |args: Value| {
        run(&ctx, "get_dependencies", args)
            .unwrap_err()
            .code
            .as_str()
            .to_string()
    };
    assert_eq!(
        code(json!({"path": "a.ts", "depth": 21})),
        "DEPTH_LIMIT_EXCEEDED"
    );
    assert_eq!(
        code(json!({"path": "a.ts", "depth": -1})),
        "INVALID_PARAMETER"
    );
    assert_eq!(code(json!({"path": "nope.ts"})), "FILE_NOT_FOUND");
    assert_eq!(code(json!({"path": "/etc/hosts"})), "OUTSIDE_WORKSPACE");
}

#[test]
fn the_graph_is_updated_incrementally() {
    let (dir, ctx) = project(&[
        ("a.ts", "export const a = 1;\n"),
        ("b.ts", "export const b = 2;\n"),
    ]);
    assert_eq!(deps(&ctx, json!({"path": "a.ts"}))["dependents"], json!([]));
    let (snapshot, _) = ctx.outlines.refresh(&ctx.ws, ctx.ws.root()).unwrap();
    assert_eq!(ctx.graph.graph(&snapshot).1.resolved, 0, "nothing changed");
    std::fs::write(
        dir.path().join("b.ts"),
        "import { a } from './a';\nexport const b = a + 1;\n",
    )
    .unwrap();
    let (snapshot, _) = ctx.outlines.refresh(&ctx.ws, ctx.ws.root()).unwrap();
    let (graph, stats) = ctx.graph.graph(&snapshot);
    assert_eq!((stats.resolved, stats.rebuilt), (1, false));
    assert_eq!(graph.dependents["a.ts"], ["b.ts"]);
    assert_eq!(
        deps(&ctx, json!({"path": "a.ts"}))["dependents"],
        json!(["b.ts"])
    );
    // A second process starts from the stored graph.
    let again = crate::tools::Context::open(dir.path()).unwrap();
    let (snapshot, stats) = again.outlines.refresh(&again.ws, again.ws.root()).unwrap();
    assert_eq!(stats.parsed, 0);
    assert_eq!(again.graph.graph(&snapshot).1.resolved, 0);
}

#[test]
fn blade_views_link_to_layouts_partials_components_and_livewire() {
    let (_dir, ctx) = fixture_copy("laravel-shop");
    let show = deps(
        &ctx,
        json!({"path": "resources/views/checkout/index.blade.php"}),
    );
    let list = resolved(&show);
    assert!(list.contains(&triple(
        "layouts.app",
        "internal",
        "resources/views/layouts/app.blade.php"
    )));
    assert!(list.contains(&triple(
        "checkout.partials.totals",
        "internal",
        "resources/views/checkout/partials/totals.blade.php"
    )));
    // The layout lists the views that extend it.
    let layout = deps(
        &ctx,
        json!({"path": "resources/views/layouts/app.blade.php"}),
    );
    let dependents = layout["dependents"].as_array().unwrap();
    for view in [
        "products/index",
        "checkout/index",
        "cart/index",
        "orders/show",
    ] {
        assert!(
            dependents.contains(&json!(format!("resources/views/{view}.blade.php"))),
            "{view} extends the layout: {dependents:?}"
        );
    }
    // `<x-navbar />` and `@livewire('cart-counter')`: the view first, then the class.
    let imports = layout["imports"].as_array().unwrap();
    let navbar = imports.iter().find(|i| i["source"] == "x-navbar").unwrap();
    assert_eq!(
        (&navbar["resolvedPath"], &navbar["resolvedFiles"]),
        (
            &json!("resources/views/components/navbar.blade.php"),
            &json!([
                "resources/views/components/navbar.blade.php",
                "app/View/Components/Navbar.php"
            ])
        )
    );
    let livewire = imports
        .iter()
        .find(|i| i["source"] == "cart-counter")
        .unwrap();
    assert_eq!(
        livewire["resolvedFiles"],
        json!([
            "resources/views/livewire/cart-counter.blade.php",
            "app/Livewire/CartCounter.php"
        ])
    );
    let class = deps(&ctx, json!({"path": "app/View/Components/ProductCard.php"}));
    assert!(
        class["dependents"]
            .as_array()
            .unwrap()
            .contains(&json!("resources/views/products/index.blade.php"))
    );

    let (_dir, ctx) = project(&[
        (
            "resources/views/dashboard.blade.php",
            concat!(
                "@extends('layouts.admin')\n",
                "@includeIf('partials.banner', ['tone' => 'info'])\n",
                "@includeWhen($user->isAdmin(), 'partials.admin-menu')\n",
                "@includeFirst(['custom.sidebar', 'partials.sidebar'])\n",
                "@each('orders.row', $orders, 'order', 'orders.empty')\n",
                "@component('alert') Saved. @endcomponent\n",
                "<x-forms.input name=\"email\" />\n",
                "<x-mail::message>Hi</x-mail::message>\n",
                "<x-slot:footer>…</x-slot>\n",
                "@include('pagination::tailwind')\n",
                "@include('partials.missing')\n",
            ),
        ),
        (
            "resources/views/layouts/admin.blade.php",
            "@yield('content')\n",
        ),
        ("resources/views/partials/banner.blade.php", "<div></div>\n"),
        (
            "resources/views/partials/admin-menu.blade.php",
            "<nav></nav>\n",
        ),
        (
            "resources/views/partials/sidebar.blade.php",
            "<aside></aside>\n",
        ),
        ("resources/views/orders/row.blade.php", "<tr></tr>\n"),
        (
            "resources/views/alert.blade.php",
            "<div>{{ $slot }}</div>\n",
        ),
        (
            "resources/views/components/forms/input/index.blade.php",
            "<input {{ $attributes }}>\n",
        ),
        (
            "resources/views/vendor/pagination/tailwind.blade.php",
            "<nav></nav>\n",
        ),
    ]);
    let out = deps(&ctx, json!({"path": "resources/views/dashboard.blade.php"}));
    assert_eq!(
        resolved(&out),
        [
            triple(
                "layouts.admin",
                "internal",
                "resources/views/layouts/admin.blade.php"
            ),
            triple(
                "partials.banner",
                "internal",
                "resources/views/partials/banner.blade.php"
            ),
            triple(
                "partials.admin-menu",
                "internal",
                "resources/views/partials/admin-menu.blade.php"
            ),
            triple("custom.sidebar", "internal", "-"),
            triple(
                "partials.sidebar",
                "internal",
                "resources/views/partials/sidebar.blade.php"
            ),
            triple(
                "orders.row",
                "internal",
                "resources/views/orders/row.blade.php"
            ),
            triple("alert", "internal", "resources/views/alert.blade.php"),
            triple(
                "x-forms.input",
                "internal",
                "resources/views/components/forms/input/index.blade.php"
            ),
            triple("x-mail::message", "external", "-"),
            // A package view the project publishes an override of.
            triple(
                "pagination::tailwind",
                "internal",
                "resources/views/vendor/pagination/tailwind.blade.php"
            ),
            triple("partials.missing", "internal", "-"),
        ]
    );
    let mail = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "x-mail::message")
        .unwrap();
    assert_eq!(mail["package"], "mail");
}

#[test]
fn stylesheets_resolve_partials_index_files_and_packages() {
    let (_dir, ctx) = fixture_copy("polyglot");
    let out = deps(&ctx, json!({"path": "web/styles/main.scss", "depth": 2}));
    let list = resolved(&out);
    assert!(list.contains(&triple("sass:math", "external", "-")));
    assert!(list.contains(&triple(
        "components",
        "internal",
        "web/styles/components/_index.scss"
    )));
    assert!(list.contains(&triple("print", "internal", "web/styles/_print.scss")));
    let index = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "components")
        .unwrap();
    assert_eq!(
        resolved(&json!({"imports": index["dependencies"]})),
        [
            triple("badge", "internal", "web/styles/components/_badge.scss"),
            triple("notice", "internal", "web/styles/components/_notice.scss"),
        ]
    );
    let badge = deps(&ctx, json!({"path": "web/styles/components/_badge.scss"}));
    assert_eq!(
        badge["dependents"],
        json!(["web/styles/components/_index.scss"])
    );

    let (_dir, ctx) = project(&[
        (
            "src/styles/app.css",
            concat!(
                "/* @import 'commented-out.css'; */\n",
                "@import url(\"./base.css\") screen;\n",
                "@import '../theme/colors.css';\n",
                "@import 'https://cdn.example.com/reset.css';\n",
                "@import '~bootstrap/dist/css/bootstrap.css';\n",
                "@import './missing.css';\n",
            ),
        ),
        ("src/styles/base.css", "body { margin: 0; }\n"),
        ("src/theme/colors.css", ":root { --brand: #2f63ea; }\n"),
        (
            "src/styles/site.scss",
            "@use 'sass:math';\n@use 'abstracts' as a;\n@import 'layout/grid', 'bootstrap/scss/bootstrap';\n",
        ),
        ("src/styles/abstracts/_index.scss", "@forward 'mixins';\n"),
        ("src/styles/abstracts/_mixins.scss", "@mixin x {}\n"),
        ("src/styles/layout/_grid.scss", ".row {}\n"),
    ]);
    let css = deps(&ctx, json!({"path": "src/styles/app.css"}));
    assert_eq!(
        resolved(&css),
        [
            triple("./base.css", "internal", "src/styles/base.css"),
            triple("../theme/colors.css", "internal", "src/theme/colors.css"),
            triple("https://cdn.example.com/reset.css", "external", "-"),
            triple("~bootstrap/dist/css/bootstrap.css", "external", "-"),
            triple("./missing.css", "internal", "-"),
        ]
    );
    assert_eq!(css["imports"][3]["package"], "bootstrap");
    let scss = deps(&ctx, json!({"path": "src/styles/site.scss"}));
    assert_eq!(
        resolved(&scss),
        [
            triple("sass:math", "external", "-"),
            triple("abstracts", "internal", "src/styles/abstracts/_index.scss"),
            triple("layout/grid", "internal", "src/styles/layout/_grid.scss"),
            triple("bootstrap/scss/bootstrap", "external", "-"),
        ]
    );
}

#[test]
fn php_classes_of_the_same_namespace_need_no_use() {
    let (_dir, ctx) = fixture_copy("laravel-shop");
    let out = deps(&ctx, json!({"path": "app/Services/CheckoutService.php"}));
    let list = resolved(&out);
    for (class, file) in [
        ("CartService", "app/Services/CartService.php"),
        ("PricingService", "app/Services/PricingService.php"),
        ("InventoryService", "app/Services/InventoryService.php"),
    ] {
        assert!(
            list.contains(&triple(
                &format!("App\\Services\\{class}"),
                "internal",
                file
            )),
            "{class}: {list:?}"
        );
    }
    // `DomainException` is imported by `use`; a built-in is never a same-namespace class.
    assert!(
        !list
            .iter()
            .any(|(s, _, _)| s == "App\\Services\\DomainException")
    );
    let base = deps(&ctx, json!({"path": "app/Http/Controllers/Controller.php"}));
    let dependents = base["dependents"].as_array().unwrap();
    assert!(dependents.contains(&json!("app/Http/Controllers/CartController.php")));

    let (_dir, ctx) = project(&[
        (
            "composer.json",
            r#"{"autoload": {"psr-4": {"Shop\\": "src/"}}}"#,
        ),
        (
            "src/Orders/Checkout.php",
            concat!(
                "<?php\nnamespace Shop\\Orders;\n\nuse Shop\\Billing\\Invoice as Bill;\n\n",
                "#[Audited]\n",
                "final class Checkout extends BaseFlow implements Step\n{\n",
                "    use Retries;\n\n",
                "    public function run(Cart $cart, ?Bill $bill): Receipt|false\n    {\n",
                "        $x = new Exception('no');\n",
                "        $y = new \\Shop\\Billing\\Ledger();\n",
                "        $z = Rules\\Discount::apply($cart);\n",
                "        if ($cart instanceof Cart) { return new Receipt(); }\n",
                "        return Receipt::class === self::class ? false : static::make();\n",
                "    }\n}\n",
            ),
        ),
        (
            "src/Orders/BaseFlow.php",
            "<?php\nnamespace Shop\\Orders;\nabstract class BaseFlow {}\n",
        ),
        (
            "src/Orders/Step.php",
            "<?php\nnamespace Shop\\Orders;\ninterface Step {}\n",
        ),
        (
            "src/Orders/Retries.php",
            "<?php\nnamespace Shop\\Orders;\ntrait Retries {}\n",
        ),
        (
            "src/Orders/Cart.php",
            "<?php\nnamespace Shop\\Orders;\nclass Cart {}\n",
        ),
        (
            "src/Orders/Receipt.php",
            "<?php\nnamespace Shop\\Orders;\nclass Receipt {}\n",
        ),
        (
            "src/Orders/Rules/Discount.php",
            "<?php\nnamespace Shop\\Orders\\Rules;\nclass Discount {}\n",
        ),
        (
            "src/Billing/Invoice.php",
            "<?php\nnamespace Shop\\Billing;\nclass Invoice {}\n",
        ),
        (
            "src/Billing/Ledger.php",
            "<?php\nnamespace Shop\\Billing;\nclass Ledger {}\n",
        ),
    ]);
    let out = deps(&ctx, json!({"path": "src/Orders/Checkout.php"}));
    let mut list = resolved(&out);
    list.sort();
    assert_eq!(
        list,
        [
            triple(
                "Shop\\Billing\\Invoice",
                "internal",
                "src/Billing/Invoice.php"
            ),
            triple(
                "Shop\\Billing\\Ledger",
                "internal",
                "src/Billing/Ledger.php"
            ),
            triple(
                "Shop\\Orders\\BaseFlow",
                "internal",
                "src/Orders/BaseFlow.php"
            ),
            triple("Shop\\Orders\\Cart", "internal", "src/Orders/Cart.php"),
            triple(
                "Shop\\Orders\\Receipt",
                "internal",
                "src/Orders/Receipt.php"
            ),
            triple(
                "Shop\\Orders\\Retries",
                "internal",
                "src/Orders/Retries.php"
            ),
            triple(
                "Shop\\Orders\\Rules\\Discount",
                "internal",
                "src/Orders/Rules/Discount.php"
            ),
            triple("Shop\\Orders\\Step", "internal", "src/Orders/Step.php"),
        ]
    );
    let cart = deps(&ctx, json!({"path": "src/Orders/Cart.php"}));
    assert_eq!(cart["dependents"], json!(["src/Orders/Checkout.php"]));
    // analyze_file lists the same resolved classes, and no unresolved ones (`Exception`, `Audited`).
    let file = run(
        &ctx,
        "analyze_file",
        json!({"path": "src/Orders/Checkout.php"}),
    )
    .unwrap();
    let sources: Vec<&str> = file["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources.len(), 8, "{sources:?}");
    assert!(
        !sources
            .iter()
            .any(|s| s.ends_with("Exception") || s.ends_with("Audited"))
    );
}
