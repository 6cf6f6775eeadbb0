//! `analyze_file` on the fixtures: seed 002's example reproduced field by field, every
//! language, partial results, error codes, and the fingerprint cache.

use crate::tools::test_support::{fixture_copy, project, run};
use serde_json::{Value, json};
use std::sync::Arc;

/// 1-based line of the first line containing `needle` (an oracle computed from the file, so the
/// checks follow edits of the fixture).
fn line_of(root: &std::path::Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in {file}"))
        + 1
}

fn analyze(ctx: &crate::tools::Context, args: Value) -> Value {
    run(ctx, "analyze_file", args).unwrap()
}

#[test]
fn reproduces_the_spec_example_field_by_field() {
    let (dir, ctx) = fixture_copy("api-spec");
    let file = "src/services/UserService.ts";
    let out = analyze(&ctx, json!({"path": file}));
    let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
    assert_eq!(out["success"], true);
    assert_eq!(out["partial"], false);
    assert_eq!(
        out["file"],
        json!({"path": file, "size": text.len(), "lines": text.lines().count()})
    );
    assert!(
        out["summary"].as_str().unwrap().starts_with(
            "User service that handles user authentication and management operations."
        ),
        "{}",
        out["summary"]
    );
    assert_eq!(
        out["exports"],
        json!([{"name": "UserService", "type": "class", "default": false, "reExport": false}])
    );
    assert_eq!(
        out["imports"][0],
        json!({
            "source": "../types/User", "type": "internal", "imported": [{"name": "User"}],
            "default": false, "namespace": false, "typeOnly": false, "dynamic": false,
            "line": line_of(dir.path(), file, "from '../types/User'")
        })
    );
    let start = line_of(dir.path(), file, "function validateUser(");
    assert_eq!(
        out["functions"][0],
        json!({
            "name": "validateUser", "exported": false, "async": false, "generator": false,
            "parameters": [{"name": "user", "type": "User", "optional": false, "rest": false}],
            "returnType": "boolean",
            "location": {"file": file, "start": {"line": start, "column": 1},
                         "end": {"line": start + 5, "column": 2}}
        })
    );
    let class = &out["classes"][0];
    assert_eq!(
        (
            &class["name"],
            &class["exported"],
            &class["abstract"],
            &class["extends"],
            &class["implements"]
        ),
        (
            &json!("UserService"),
            &json!(true),
            &json!(false),
            &Value::Null,
            &json!([])
        )
    );
    let start = line_of(dir.path(), file, "async getUser(");
    assert_eq!(
        class["methods"][0],
        json!({
            "name": "getUser", "kind": "method", "accessModifier": "public", "static": false,
            "abstract": false, "async": true, "generator": false,
            "parameters": [{"name": "id", "type": "string", "optional": false, "rest": false}],
            "returnType": "Promise<User | null>",
            "location": {"file": file, "start": {"line": start, "column": 3},
                         "end": {"line": start + 5, "column": 4}}
        })
    );
    let hash = class["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "hashPassword")
        .unwrap();
    assert_eq!(
        (&hash["accessModifier"], &hash["static"]),
        (&json!("private"), &json!(true))
    );
    assert_eq!((&out["types"], &out["enums"]), (&json!([]), &json!([])));
    assert!(out.get("errors").is_none() && out.get("fallback").is_none());
    // Concise mode: signatures only.
    assert!(class["methods"][1].get("doc").is_none());
    assert!(class["methods"][1].get("body").is_none());
}

#[test]
fn detailed_mode_and_include_sections() {
    let (_dir, ctx) = fixture_copy("api-spec");
    let file = "src/services/UserService.ts";
    let detailed = analyze(&ctx, json!({"path": file, "mode": "detailed"}));
    let find_by_email = &detailed["classes"][0]["methods"][1];
    assert_eq!(find_by_email["name"], "findByEmail");
    assert!(
        find_by_email["doc"]
            .as_str()
            .unwrap()
            .starts_with("Finds a user by e-mail address.")
    );
    assert!(
        find_by_email["body"]
            .as_str()
            .unwrap()
            .contains("normalizedEmail")
    );
    let types_only = analyze(
        &ctx,
        json!({"path": "src/types/User.ts", "include": ["types"]}),
    );
    let names: Vec<&str> = types_only["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"User") && names.contains(&"UserRole"),
        "{names:?}"
    );
    assert_eq!(
        (
            &types_only["imports"],
            &types_only["exports"],
            &types_only["functions"]
        ),
        (&json!([]), &json!([]), &json!([]))
    );
    let user = types_only["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "User")
        .unwrap();
    assert_eq!(user["kind"], "interface");
    let password = user["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "passwordHash")
        .unwrap();
    assert_eq!(
        (&password["type"], &password["optional"]),
        (&json!("string"), &json!(true))
    );
    // `docs` asked for explicitly brings doc comments in concise mode too.
    let docs = analyze(
        &ctx,
        json!({"path": "src/utils/userHelper.ts", "include": ["structure", "docs"]}),
    );
    assert!(
        docs["functions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f.get("body").is_none())
    );
    let err = run(
        &ctx,
        "analyze_file",
        json!({"path": file, "include": ["everything"]}),
    )
    .unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_PARAMETER");
}

#[test]
fn every_language_of_the_fixtures() {
    let (dir, ctx) = fixture_copy("laravel-shop");
    let file = "app/Services/CheckoutService.php";
    let out = analyze(&ctx, json!({"path": file}));
    assert_eq!(out["module"], "App\\Services");
    assert_eq!(out["language"], "php");
    let class = &out["classes"][0];
    assert_eq!(class["name"], "CheckoutService");
    let ctor = &class["methods"][0];
    assert_eq!(
        (&ctor["name"], &ctor["kind"], &ctor["parameters"][3]["type"]),
        (
            &json!("__construct"),
            &json!("constructor"),
            &json!("PaymentGateway")
        )
    );
    let promoted: Vec<&str> = class["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        promoted,
        ["cart", "pricing", "inventory", "gateway", "orders"]
    );
    let place = class["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "placeOrder")
        .unwrap();
    assert_eq!(place["returnType"], "Order");
    assert_eq!(
        place["location"]["start"]["line"],
        line_of(dir.path(), file, "function placeOrder(")
    );
    let notes = place["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "notes")
        .unwrap();
    assert_eq!(
        (&notes["type"], &notes["optional"], &notes["default"]),
        (&json!("?string"), &json!(true), &json!("null"))
    );
    let imports = out["imports"].as_array().unwrap();
    let kind_of = |source: &str| {
        imports
            .iter()
            .find(|i| i["source"] == source)
            .unwrap_or_else(|| panic!("{source}"))["type"]
            .clone()
    };
    // PSR-4 `App\` is the project; Illuminate is a dependency.
    assert_eq!(kind_of("App\\Contracts\\PaymentGateway"), "internal");
    assert_eq!(kind_of("Illuminate\\Support\\Facades\\DB"), "external");

    let (dir, ctx) = fixture_copy("python-service");
    let file = "src/orderly/auth/service.py";
    let out = analyze(&ctx, json!({"path": file}));
    let auth = out["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "AuthService")
        .unwrap();
    let login = auth["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "login")
        .unwrap();
    assert_eq!(login["async"], true);
    assert_eq!(login["returnType"], "LoginResult");
    assert_eq!(
        login["location"]["start"]["line"],
        line_of(dir.path(), file, "async def login(")
    );
    let params: Vec<&str> = login["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["email", "password", "client_ip"]);
    let issue = auth["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "_issue_token")
        .unwrap();
    assert_eq!(issue["accessModifier"], "protected");
    let relative = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "..db.repository")
        .unwrap();
    assert_eq!(
        (&relative["type"], &relative["imported"]),
        (&json!("internal"), &json!([{"name": "UserRepository"}]))
    );

    let (dir, ctx) = fixture_copy("polyglot");
    let go = analyze(&ctx, json!({"path": "go/internal/quote/quote.go"}));
    assert_eq!(go["module"], "quote");
    let quoter = go["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Quoter")
        .unwrap();
    let cheapest = quoter["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "Cheapest")
        .unwrap();
    assert_eq!(cheapest["returnType"], "(Offer, error)");
    assert_eq!(
        cheapest["location"]["start"]["line"],
        line_of(
            dir.path(),
            "go/internal/quote/quote.go",
            "func (q *Quoter) Cheapest("
        )
    );
    let rates = go["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "github.com/northwind/shipping/internal/rates")
        .unwrap();
    assert_eq!(rates["type"], "internal"); // under go.mod's module path

    let java = analyze(
        &ctx,
        json!({"path": "java/src/main/java/com/example/inventory/InventoryService.java"}),
    );
    assert_eq!(java["module"], "com.example.inventory");
    let service = &java["classes"][0];
    assert_eq!(
        (&service["name"], &service["exported"]),
        (&json!("InventoryService"), &json!(true))
    );
    let reserve = service["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "reserveAll")
        .unwrap();
    assert_eq!(
        (&reserve["returnType"], &reserve["parameters"][0]["type"]),
        (&json!("void"), &json!("Map<String, Integer>"))
    );

    let rust = analyze(&ctx, json!({"path": "rust/src/lib.rs"}));
    let mods: Vec<(&str, &str)> = rust["imports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["statement"] == "mod")
        .map(|i| (i["source"].as_str().unwrap(), i["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        mods,
        [
            ("ledger", "internal"),
            ("money", "internal"),
            ("report", "internal")
        ]
    );
    assert!(
        rust["exports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "Money" && e["reExport"] == true)
    );

    let vue = analyze(&ctx, json!({"path": "src/components/CartBadge.vue"}));
    assert_eq!(vue["language"], "vue");
    assert!(
        vue["imports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["source"] == "../stores/cart" && i["type"] == "internal")
    );
    assert!(
        vue["exports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "component" && e["default"] == true)
    );
}

#[test]
fn tsconfig_aliases_make_imports_internal() {
    let (_dir, ctx) = fixture_copy("ts-app");
    let out = analyze(&ctx, json!({"path": "src/services/authService.ts"}));
    let alias = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["source"] == "@/types")
        .unwrap();
    assert_eq!(alias["type"], "internal");
    assert_eq!(alias["typeOnly"], true);
}

#[test]
fn syntax_errors_give_partial_results_with_fallback() {
    let (dir, ctx) = project(&[(
        "priceTable.ts",
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/broken/priceTable.ts"),
        )
        .unwrap(),
    )]);
    let out = analyze(&ctx, json!({"path": "priceTable.ts"}));
    let text = std::fs::read_to_string(dir.path().join("priceTable.ts")).unwrap();
    assert_eq!(
        (&out["success"], &out["partial"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(
        out["fallback"],
        json!({"size": text.len(), "lines": text.lines().count()})
    );
    let error = &out["errors"][0];
    assert_eq!(
        (&error["code"], &error["severity"]),
        (&json!("PARSE_ERROR"), &json!("error"))
    );
    assert_eq!(error["location"]["file"], "priceTable.ts");
    let functions: Vec<&str> = out["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    // The functions before and after the broken one survive.
    assert!(functions.contains(&"lineTotal"), "{functions:?}");
    assert!(functions.contains(&"formatYen"), "{functions:?}");
    assert!(
        out["types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "PriceRow")
    );
}

#[test]
fn error_codes() {
    let (dir, ctx) = project(&[("a.ts", "export const a = 1;\n"), ("bin.ts", "")]);
    std::fs::write(dir.path().join("bin.ts"), b"\x00\x01\x02binary").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "plain text\n").unwrap();
    let code = |args: Value| {
        run(&ctx, "analyze_file", args)
            .unwrap_err()
            .code
            .as_str()
            .to_string()
    };
    assert_eq!(code(json!({"path": "missing.ts"})), "FILE_NOT_FOUND");
    assert_eq!(code(json!({"path": "../etc/passwd"})), "OUTSIDE_WORKSPACE");
    assert_eq!(code(json!({"path": "bin.ts"})), "ENCODING_ERROR");
    assert_eq!(code(json!({"path": "notes.txt"})), "INVALID_PARAMETER");
    assert_eq!(code(json!({"path": "."})), "INVALID_PARAMETER");
    assert_eq!(
        code(json!({"path": "a.ts", "mode": "verbose"})),
        "INVALID_PARAMETER"
    );
    assert_eq!(code(json!({})), "INVALID_PARAMETER");
}

#[test]
fn repeated_calls_on_an_unchanged_file_never_reparse() {
    let (dir, ctx) = project(&[("svc.py", "def one():\n    pass\n")]);
    analyze(&ctx, json!({"path": "svc.py"}));
    let first = ctx.outlines.snapshot().files["svc.py"].outline.clone();
    let again = analyze(&ctx, json!({"path": "svc.py"}));
    assert_eq!(again["functions"][0]["name"], "one");
    assert!(Arc::ptr_eq(
        &first,
        &ctx.outlines.snapshot().files["svc.py"].outline
    ));
    std::fs::write(dir.path().join("svc.py"), "def second():\n    pass\n").unwrap();
    let edited = analyze(&ctx, json!({"path": "svc.py"}));
    assert_eq!(edited["functions"][0]["name"], "second");
}
