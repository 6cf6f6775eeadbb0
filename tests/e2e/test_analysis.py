"""The analysis tools over MCP: analyze_file, search_symbol, analyze_project,
get_dependencies and repo_pack, each called end to end through the official SDK (which also
validates every answer against the tool's output schema)."""

from __future__ import annotations

import pytest
from oracle import line_of

pytestmark = pytest.mark.anyio


async def test_analyze_file_reproduces_the_spec_example(open_client, fixture_root):
    root = fixture_root("api-spec")
    file = "src/services/UserService.ts"
    text = (root / file).read_text(encoding="utf-8")
    start = line_of(root / file, r"^function validateUser\(")
    async with open_client(root) as client:
        out = await client.ok("analyze_file", {"path": file})
        again = await client.ok("analyze_file", {"path": file})
        broken = await client.error("analyze_file", {"path": "src/missing.ts"}, "FILE_NOT_FOUND")
        await client.error("analyze_file", {"path": "../outside.ts"}, "OUTSIDE_WORKSPACE")
    assert out == again, "a cache hit answers exactly like the first call"
    assert (out["success"], out["partial"]) == (True, False)
    assert out["file"] == {"path": file, "size": len(text.encode()), "lines": text.count("\n")}
    assert out["exports"] == [{"name": "UserService", "type": "class", "default": False, "reExport": False}]
    assert out["imports"][0]["imported"] == [{"name": "User"}]
    assert out["imports"][0]["type"] == "internal"
    validate = out["functions"][0]
    assert validate["name"] == "validateUser" and validate["returnType"] == "boolean"
    assert validate["location"]["start"] == {"line": start, "column": 1}
    assert validate["parameters"] == [{"name": "user", "type": "User", "optional": False, "rest": False}]
    get_user = out["classes"][0]["methods"][0]
    assert (get_user["name"], get_user["async"], get_user["returnType"]) == ("getUser", True, "Promise<User | null>")
    assert broken["details"]["path"] == "src/missing.ts"


async def test_analyze_file_partial_results(open_client, fixture_root):
    root = fixture_root("broken")
    async with open_client(root) as client:
        for file in ("priceTable.ts", "inventory_report.py", "InvoiceMailer.php"):
            out = await client.ok("analyze_file", {"path": file})
            assert (out["success"], out["partial"]) == (False, True), file
            assert out["errors"][0]["code"] == "PARSE_ERROR"
            assert out["fallback"]["lines"] == (root / file).read_text(encoding="utf-8").count("\n")
            declared = out["functions"] + [m for c in out["classes"] for m in c["methods"]]
            assert len(declared) >= 2, f"{file}: the code around the broken function survives"


async def test_search_symbol_match_types_and_invalid_symbol(open_client, fixture_root):
    root = fixture_root("api-spec")
    async with open_client(root) as client:
        exact = await client.ok("search_symbol", {"symbol": "getUserById", "type": "function"})
        prefix = await client.ok("search_symbol", {"symbol": "User", "matchType": "prefix", "type": "class"})
        words = await client.ok("search_symbol", {"symbol": "get_user_by_id", "identifierWords": True})
        none = await client.ok("search_symbol", {"symbol": "NoSuchSymbolAnywhere"})
        await client.error("search_symbol", {"symbol": ""}, "INVALID_SYMBOL")
    hit = exact["results"][0]
    assert (hit["file"], hit["signature"], hit["exported"]) == (
        "src/utils/userHelper.ts", "getUserById(id: string): User | undefined", True)
    assert hit["line"] == line_of(root / hit["file"], r"export function getUserById\(")
    assert {r["symbol"] for r in prefix["results"]} >= {"UserService"}
    assert all(r["symbol"].startswith("User") for r in prefix["results"])
    assert [r["symbol"] for r in words["results"]] == ["getUserById"]
    assert none["results"] == [] and none["filesScanned"] > 0 and none["searchTime"] >= 0


async def test_analyze_project_and_its_errors(open_client, fixture_root):
    root = fixture_root("api-spec")
    async with open_client(root) as client:
        out = await client.ok("analyze_project", {"rootPath": "."})
        await client.error("analyze_project", {"rootPath": "nope"}, "INVALID_ROOT_PATH")
        await client.error("analyze_project", {"rootPath": ".", "includePatterns": ["**/*.rb"]}, "NO_FILES_FOUND")
    sources = [p for p in root.rglob("*") if p.suffix in {".ts", ".tsx", ".js"} and ".code-intel" not in p.parts]
    assert out["project"]["totalFiles"] == len(sources)
    assert out["project"]["totalLines"] == sum(p.read_text(encoding="utf-8").count("\n") for p in sources)
    assert "react" in out["dependencies"]["external"]
    assert out["statistics"]["totalClasses"] >= 2
    assert out["exports"]["src/services/UserService.ts"][0]["name"] == "UserService"
    assert [c["message"] for c in out["circularDependencies"]] == ["Circular dependency detected: A -> B -> C -> A"]


async def test_get_dependencies_cycle_aliases_and_psr4(open_client, fixture_root):
    async with open_client(fixture_root("ts-app")) as client:
        cycle = await client.ok("get_dependencies", {"path": "src/utils/cycle/a.ts", "depth": 3})
        alias = await client.ok("get_dependencies", {"path": "src/services/authService.ts"})
        await client.error("get_dependencies", {"path": "src/utils/cycle/a.ts", "depth": 99}, "DEPTH_LIMIT_EXCEEDED")
    assert cycle["circularDependencies"][0]["cycle"] == [
        "src/utils/cycle/a.ts", "src/utils/cycle/b.ts", "src/utils/cycle/c.ts", "src/utils/cycle/a.ts"]
    assert cycle["warnings"][0]["code"] == "CIRCULAR_DEPENDENCY"
    assert alias["imports"][0]["source"] == "@/types"
    assert alias["imports"][0]["resolvedPath"] == "src/types/index.ts"
    async with open_client(fixture_root("laravel-shop")) as client:
        php = await client.ok("get_dependencies", {"path": "app/Services/CheckoutService.php"})
    gateway = next(i for i in php["imports"] if i["source"] == "App\\Contracts\\PaymentGateway")
    assert (gateway["type"], gateway["resolvedPath"]) == ("internal", "app/Contracts/PaymentGateway.php")
    assert "app/Http/Controllers/CheckoutController.php" in php["dependents"]


async def test_get_dependencies_blade_stylesheets_and_same_namespace_php(open_client, fixture_root):
    shop = fixture_root("laravel-shop")
    extending = sorted(
        str(p.relative_to(shop)) for p in (shop / "resources/views").rglob("*.blade.php")
        if "@extends('layouts.app')" in p.read_text(encoding="utf-8"))
    async with open_client(shop) as client:
        layout = await client.ok("get_dependencies", {"path": "resources/views/layouts/app.blade.php"})
        checkout = await client.ok("get_dependencies", {"path": "resources/views/checkout/index.blade.php"})
        service = await client.ok("get_dependencies", {"path": "app/Services/CheckoutService.php"})
        described = await client.ok("analyze_file", {"path": "resources/views/checkout/index.blade.php"})
    # Every view that extends the layout, and only those, depends on it.
    assert extending and layout["dependents"] == extending
    navbar = next(i for i in layout["imports"] if i["source"] == "x-navbar")
    assert navbar["resolvedFiles"] == [
        "resources/views/components/navbar.blade.php", "app/View/Components/Navbar.php"]
    partial = next(i for i in checkout["imports"] if i["source"] == "checkout.partials.totals")
    assert (partial["type"], partial["resolvedPath"]) == (
        "internal", "resources/views/checkout/partials/totals.blade.php")
    assert {"source": "layouts.app", "type": "internal", "statement": "extends"}.items() <= next(
        i for i in described["imports"] if i["source"] == "layouts.app").items()
    pricing = next(i for i in service["imports"] if i["source"] == "App\\Services\\PricingService")
    assert (pricing["type"], pricing["resolvedPath"]) == ("internal", "app/Services/PricingService.php")

    async with open_client(fixture_root("polyglot")) as client:
        styles = await client.ok("get_dependencies", {"path": "web/styles/main.scss", "depth": 2})
    by_source = {i["source"]: i for i in styles["imports"]}
    assert by_source["sass:math"]["type"] == "external"
    assert by_source["print"]["resolvedPath"] == "web/styles/_print.scss"
    components = by_source["components"]
    assert components["resolvedPath"] == "web/styles/components/_index.scss"
    assert [d["resolvedPath"] for d in components["dependencies"]] == [
        "web/styles/components/_badge.scss", "web/styles/components/_notice.scss"]


async def test_repo_pack_budget_and_masking(open_client, make_project):
    root = make_project({
        "src/app.py": 'API_KEY = "sk-live-0123456789abcdefghijkl"\n\ndef main():\n    """Runs."""\n    return 1\n',
        "src/big.py": "VALUE = 1\n" * 3000,
    })
    async with open_client(root) as client:
        out = await client.ok("repo_pack", {"include": ["src/**"], "style": "xml", "compress": True})
        err = await client.error("repo_pack", {"max_tokens": 500}, "TOKEN_BUDGET_EXCEEDED")
    assert out["file_count"] == 2 and out["total_tokens"] > sum(f["tokens"] for f in out["files"])
    assert "sk-live-0123456789abcdefghijkl" not in out["content"]
    assert '<file path="src/app.py">' in out["content"]
    assert err["details"]["largest_files"][0]["path"] == "src/big.py"
