"""find_definitions and find_references through the MCP client, on the fixture projects.

Expected lines come from the fixture files (regexes in oracle.py), never from a previous run, so a
fixture edit moves the expectation with it and a server regression fails the test.
"""

from __future__ import annotations

import pytest
from oracle import PHP, PY, TS_JS, file_lines, grep, line_count, line_of, word_uses

pytestmark = pytest.mark.anyio

CONTAINERS = {"function", "method", "class", "interface", "trait", "enum", "struct"}
# A variable or constant holds the uses inside it when its value spans lines (a wrapped handler,
# `__all__`, a route table); on one line it is only a value.
VALUES = {"variable", "constant"}


def encloses(s: dict) -> bool:
    return s["kind"] in CONTAINERS or (s["kind"] in VALUES and s["end_line"] > s["line"])


# --- find_definitions ----------------------------------------------------------------------

# (fixture, symbol as asked, file, regex of the definition line, kind, qualified name, scope)
DEFINITIONS = [
    ("python-service", "AuthService", "src/orderly/auth/service.py", r"^class AuthService\b",
     "class", "AuthService", None),
    ("python-service", "AuthService.login", "src/orderly/auth/service.py", r"^    async def login\(",
     "method", "AuthService.login", "AuthService"),
    ("python-service", "hash_password", "src/orderly/auth/service.py", r"def hash_password\(",
     "method", "AuthService.hash_password", "AuthService"),
    ("laravel-shop", "App\\Models\\Product", "app/Models/Product.php", r"^class Product\b",
     "class", "App\\Models\\Product", "App\\Models"),
    ("laravel-shop", "CartService::add", "app/Services/CartService.php", r"public function add\(",
     "method", "App\\Services\\CartService::add", "App\\Services\\CartService"),
    ("laravel-shop", "PaymentGateway", "app/Contracts/PaymentGateway.php", r"^interface PaymentGateway\b",
     "interface", "App\\Contracts\\PaymentGateway", "App\\Contracts"),
    ("laravel-shop", "HasSlug", "app/Concerns/HasSlug.php", r"^trait HasSlug\b",
     "trait", "App\\Concerns\\HasSlug", "App\\Concerns"),
    ("laravel-shop", "OrderStatus", "app/Enums/OrderStatus.php", r"^enum OrderStatus\b",
     "enum", "App\\Enums\\OrderStatus", "App\\Enums"),
    ("ts-app", "useCart", "src/hooks/useCart.ts", r"^export function useCart\(",
     "function", "useCart", None),
    ("ts-app", "UseCartResult", "src/hooks/useCart.ts", r"^export interface UseCartResult\b",
     "interface", "UseCartResult", None),
    ("ts-app", "Product", "src/types/product.ts", r"^export interface Product\b",
     "interface", "Product", None),
]


@pytest.mark.parametrize(
    ("fixture", "symbol", "file", "line_re", "kind", "qualified", "scope"),
    DEFINITIONS,
    ids=[d[1] for d in DEFINITIONS],
)
async def test_find_definitions(open_client, fixture_root, fixture, symbol, file, line_re, kind, qualified, scope):
    root = fixture_root(fixture)
    line = line_of(root / file, line_re)
    async with open_client(root) as client:
        result = await client.ok("find_definitions", {"symbol": symbol})
    assert result["total"] >= 1
    found = [d for d in result["definitions"] if d["file"] == file and d["line"] == line]
    assert found, f"{symbol} not found at {file}:{line}; got {result['definitions']}"
    d = found[0]
    assert (d["kind"], d["qualified_name"], d["scope"]) == (kind, qualified, scope)
    assert d["name"] == qualified.replace("::", ".").replace("\\", ".").split(".")[-1]
    # The signature is the declaration as written (whitespace collapsed), starting where it does.
    source_line = file_lines(root / file)[line - 1].strip()
    assert d["signature"].split("(")[0] in source_line
    assert d["line"] <= d["end_line"] <= line_count(root / file)
    assert d["language"] == {"python-service": "python", "laravel-shop": "php"}.get(fixture, "typescript")


async def test_definition_spans_the_whole_body(open_client, fixture_root):
    root = fixture_root("python-service")
    service = root / "src/orderly/auth/service.py"
    async with open_client(root) as client:
        login = (await client.ok("find_definitions", {"symbol": "AuthService.login"}))["definitions"][0]
        cls = (await client.ok("find_definitions", {"symbol": "AuthService", "kind": "class"}))["definitions"][0]
    lines = file_lines(service)
    # login's last line is its return statement; the class runs to the last line of the file.
    assert lines[login["end_line"] - 1].strip().startswith("return LoginResult(")
    assert cls["end_line"] == line_count(service)
    assert cls["line"] < login["line"] < login["end_line"] < cls["end_line"]


async def test_find_definitions_bare_name_finds_every_definition(open_client, fixture_root):
    root = fixture_root("python-service")
    expected = set(grep(root, r"^\s*(async\s+)?def login\(", PY))
    assert len(expected) >= 2, "login is both a route function and an AuthService method"
    async with open_client(root) as client:
        result = await client.ok("find_definitions", {"symbol": "login"})
        in_routes = await client.ok("find_definitions", {"symbol": "login", "path": "src/orderly/api"})
    assert {(d["file"], d["line"]) for d in result["definitions"]} == expected
    assert {d["kind"] for d in result["definitions"]} == {"function", "method"}
    assert {d["file"] for d in in_routes["definitions"]} == {"src/orderly/api/routes/auth.py"}


async def test_find_definitions_language_kind_and_substring(open_client, fixture_root):
    root = fixture_root("ts-app")
    async with open_client(root) as client:
        loose = await client.ok("find_definitions", {"symbol": "cart", "exact_match": False, "max_results": 1000})
        functions = await client.ok(
            "find_definitions", {"symbol": "cart", "exact_match": False, "kind": "function", "max_results": 1000}
        )
        tsx_only = await client.ok(
            "find_definitions", {"symbol": "cart", "exact_match": False, "language": "tsx", "max_results": 1000}
        )
        exact_wrong_case = await client.ok("find_definitions", {"symbol": "usecart"})
    names = {d["name"] for d in loose["definitions"]}
    assert {"useCart", "CartDrawer"} <= names
    assert all("cart" in n.lower() for n in names)
    assert loose["total"] == len(loose["definitions"])
    assert functions["definitions"] and {d["kind"] for d in functions["definitions"]} == {"function"}
    assert tsx_only["definitions"] and {d["file"][-4:] for d in tsx_only["definitions"]} == {".tsx"}
    assert exact_wrong_case["total"] == 0, "exact_match is case-sensitive"


# --- find_references -----------------------------------------------------------------------

REFERENCES = [
    ("python-service", "AuthService", PY),
    ("python-service", "User", PY),
    ("python-service", "login", PY),
    ("laravel-shop", "CartService", PHP),
    ("laravel-shop", "OrderStatus", PHP),
    ("ts-app", "useCart", TS_JS),
    ("ts-app", "Product", TS_JS),
]


@pytest.mark.parametrize(("fixture", "symbol", "exts"), REFERENCES, ids=[f"{r[0]}:{r[1]}" for r in REFERENCES])
async def test_find_references_are_the_identifier_uses_minus_definitions(
    open_client, fixture_root, fixture, symbol, exts
):
    root = fixture_root(fixture)
    uses = word_uses(root, symbol, exts)
    async with open_client(root) as client:
        refs = await client.ok("find_references", {"symbol": symbol, "max_results": 5000})
        defs = await client.ok("find_definitions", {"symbol": symbol, "max_results": 1000})
        symbols_by_file: dict[str, list[dict]] = {}
        for file in sorted({r["file"] for r in refs["references"]}):
            listed = await client.ok("get_symbols", {"path": file})
            symbols_by_file[file] = listed["symbols"]
    definition_sites = {(d["file"], d["line"]) for d in defs["definitions"]}
    assert definition_sites, f"{symbol} has a definition in {fixture}"
    got = {(r["file"], r["line"]): r["column"] for r in refs["references"]}
    # Every whole-identifier use (same columns), and nothing else: no longer names, no definitions.
    assert got == {k: v for k, v in uses.items() if k not in definition_sites}
    assert not set(got) & definition_sites
    assert refs["definitions_excluded"] == len(definition_sites & set(uses))
    assert refs["total"] == len(got) and refs["truncated"] is False
    for r in refs["references"]:
        assert r["text"] == file_lines(root / r["file"])[r["line"] - 1].strip()
        # The enclosing name is the innermost definition holding code around the use, per
        # get_symbols.
        around = [
            s for s in symbols_by_file[r["file"]]
            if encloses(s) and s["line"] <= r["line"] <= s["end_line"]
        ]
        if not around:
            assert "enclosing" not in r, r
            continue
        tightest = min(s["end_line"] - s["line"] for s in around)
        allowed = {s["qualified_name"] for s in around if s["end_line"] - s["line"] == tightest}
        assert r.get("enclosing") in allowed, (r, allowed)
        assert r["enclosing_kind"] in CONTAINERS | VALUES


async def test_find_references_names_the_enclosing_function(open_client, fixture_root):
    root = fixture_root("python-service")
    route = "src/orderly/api/routes/auth.py"
    param_line = line_of(root / route, r"auth: AuthService = Depends")
    hash_line = line_of(root / "src/orderly/auth/service.py", r"rounds = iterations or AuthService\.")
    async with open_client(root) as client:
        refs = await client.ok("find_references", {"symbol": "AuthService"})
    by_site = {(r["file"], r["line"]): r for r in refs["references"]}
    assert by_site[(route, param_line)]["enclosing"] == "login"
    assert by_site[(route, param_line)]["enclosing_kind"] == "function"
    hashed = by_site[("src/orderly/auth/service.py", hash_line)]
    assert (hashed["enclosing"], hashed["enclosing_kind"]) == ("AuthService.hash_password", "method")


async def test_find_references_php_methods_and_limits(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    uses = word_uses(root, "CartService", PHP)
    async with open_client(root) as client:
        refs = await client.ok("find_references", {"symbol": "App\\Services\\CartService"})
        limited = await client.ok("find_references", {"symbol": "CartService", "max_results": 2})
        scoped = await client.ok("find_references", {"symbol": "CartService", "path": "app/Livewire"})
    mount = next(r for r in refs["references"] if r["file"] == "app/Livewire/CartCounter.php" and "mount(" in r["text"])
    assert mount["enclosing"] == "App\\Livewire\\CartCounter::mount"
    assert refs["total"] == len(uses) - 1  # the FQCN searches for its last part; the class line is left out
    assert limited["truncated"] is True and len(limited["references"]) == 2
    assert limited["total"] == refs["total"]
    assert scoped["references"] and {r["file"] for r in scoped["references"]} == {"app/Livewire/CartCounter.php"}


async def test_find_references_ignores_longer_names_and_other_case(open_client, make_project):
    root = make_project(
        {
            "auth.py": "class Token:\n    pass\n",
            "use.py": (
                "from auth import Token\n"
                "TokenFactory = None\n"
                "token = 1\n"
                "def make():\n"
                "    return Token()\n"
                "MyToken = Token\n"
            ),
        }
    )
    async with open_client(root) as client:
        refs = await client.ok("find_references", {"symbol": "Token"})
    assert [(r["file"], r["line"]) for r in sorted(refs["references"], key=lambda r: (r["file"], r["line"]))] == [
        ("use.py", 1),
        ("use.py", 5),
        ("use.py", 6),
    ]
    assert refs["definitions_excluded"] == 1
    assert next(r for r in refs["references"] if r["line"] == 5)["enclosing"] == "make"


# A tRPC router: each procedure is a property of the object passed to `router(...)`, its value a
# builder's call that takes the handler. An agent names them `polls.make`; the code tools find
# them there, and `$.ajax({ success: ... })`'s callback stays no definition.
async def test_find_definitions_of_a_routers_procedures(open_client, make_project):
    root = make_project(
        {
            "src/routers/polls.ts": (
                "import { router, publicProcedure } from '../trpc';\n"
                "\n"
                "export const polls = router({\n"
                "  make: publicProcedure.input(schema).mutation(async ({ ctx, input }) => {\n"
                "    return ctx.db.poll.create({ data: input });\n"
                "  }),\n"
                "  list: publicProcedure.query(async ({ ctx }) => ctx.db.poll.findMany()),\n"
                "  limit: 3,\n"
                "});\n"
            ),
            "src/legacy.js": "$.ajax({ url: '/x', success: function (data) { render(data); } });\n",
        }
    )
    async with open_client(root) as client:
        make = await client.ok("find_definitions", {"symbol": "polls.make"})
        listed = await client.ok("find_definitions", {"symbol": "list"})
        limit = await client.ok("find_definitions", {"symbol": "polls.limit"})
        success = await client.ok("find_definitions", {"symbol": "success"})
    [found] = make["definitions"]
    assert (found["file"], found["line"], found["scope"]) == ("src/routers/polls.ts", 4, "polls"), found
    assert [(d["file"], d["line"]) for d in listed["definitions"]] == [("src/routers/polls.ts", 7)], listed
    assert limit["definitions"] == [], limit
    assert success["definitions"] == [], success
