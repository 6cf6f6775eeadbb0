"""get_symbols, analyze_structure and get_function_at_line through the MCP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle import PHP, all_lines_of, file_lines, line_count, line_of, source_files

pytestmark = pytest.mark.anyio

PHP_METHOD = r"^\s*(?:(?:public|protected|private|static|final|abstract)\s+)*function (\w+)\("


# --- get_symbols ---------------------------------------------------------------------------


async def test_get_symbols_of_a_file_with_kind_filter(open_client, fixture_root):
    root = fixture_root("ts-app")
    file = "src/hooks/useCart.ts"
    interface_line = line_of(root / file, r"^export interface UseCartResult\b")
    members = [m.group(1) for _, m in all_lines_of(root / file, r"^  (\w+)\??:")]
    assert members, "UseCartResult lists its members one per line"
    async with open_client(root) as client:
        everything = await client.ok("get_symbols", {"path": file})
        functions = await client.ok("get_symbols", {"path": file, "kinds": ["function"]})
        several = await client.ok("get_symbols", {"path": file, "kinds": ["function", "interface"]})
    assert [s["name"] for s in functions["symbols"]] == ["useCart"]
    assert {s["name"] for s in several["symbols"]} == {"useCart", "UseCartResult"}
    assert everything["files"] == 1 and everything["partial"] is False
    interface = next(s for s in everything["symbols"] if s["name"] == "UseCartResult")
    assert (interface["kind"], interface["line"], interface["exported"]) == ("interface", interface_line, True)
    properties = [s for s in everything["symbols"] if s["scope"] == "UseCartResult"]
    assert [s["name"] for s in properties] == members
    assert all(s["kind"] == "property" and s["qualified_name"] == f"UseCartResult.{s['name']}" for s in properties)
    lines = [s["line"] for s in everything["symbols"]]
    assert lines == sorted(lines), "symbols come in line order"
    assert everything["total"] == len(everything["symbols"])


async def test_get_symbols_of_a_directory_every_model_is_a_class(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    models = source_files(root / "app/Models", PHP)
    assert len(models) >= 5
    async with open_client(root) as client:
        result = await client.ok("get_symbols", {"path": "app/Models", "kinds": ["class"]})
        limited = await client.ok("get_symbols", {"path": "app/Models", "max_results": 3})
    classes = {s["qualified_name"]: s for s in result["symbols"]}
    # Laravel convention: app/Models/Foo.php declares App\Models\Foo.
    for model in models:
        stem = Path(model).stem
        fqcn = f"App\\Models\\{stem}"
        assert fqcn in classes, f"{fqcn} missing from {sorted(classes)}"
        cls = classes[fqcn]
        assert cls["file"] == f"app/Models/{model}"
        assert cls["line"] == line_of(root / cls["file"], rf"^(final |abstract )?class {stem}\b")
        assert cls["scope"] == "App\\Models"
    assert result["files"] == len(models)
    assert {s["kind"] for s in result["symbols"]} == {"class"}
    assert limited["truncated"] is True and len(limited["symbols"]) == 3 and limited["total"] > 3


# --- analyze_structure ---------------------------------------------------------------------


def walk(nodes: list[dict], parent: dict | None = None):
    for node in nodes:
        yield node, parent
        yield from walk(node.get("children", []), node)


async def test_analyze_structure_nests_methods_in_classes(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    file = "app/Services/CartService.php"
    methods = [m.group(1) for _, m in all_lines_of(root / file, PHP_METHOD)]
    assert "add" in methods
    async with open_client(root) as client:
        result = await client.ok("analyze_structure", {"path": file})
    assert result["total_files"] == 1 and result["truncated"] is False and result["partial"] is False
    structure = result["files"][0]
    assert (structure["file"], structure["language"]) == (file, "php")
    nodes = list(walk(structure["symbols"]))
    cls = next(n for n, _ in nodes if n["name"] == "CartService")
    assert cls["kind"] == "class"
    assert [c["name"] for c in cls["children"] if c["kind"] == "method"] == methods
    for node, parent in nodes:
        assert node["line"] <= node["end_line"]
        if parent is not None:  # a child lies inside its parent
            assert parent["line"] <= node["line"] and node["end_line"] <= parent["end_line"], (parent, node)
    add = next(c for c in cls["children"] if c["name"] == "add")
    assert add["line"] == line_of(root / file, r"public function add\(")
    assert file_lines(root / file)[add["end_line"] - 1].strip() == "}"


async def test_analyze_structure_python_module(open_client, fixture_root):
    root = fixture_root("python-service")
    file = "src/orderly/auth/service.py"
    top_level = [m.group(2) for _, m in all_lines_of(root / file, r"^(class|def|async def) (\w+)")]
    methods = [m.group(2) for _, m in all_lines_of(root / file, r"^    (async def|def) (\w+)\(")]
    async with open_client(root) as client:
        result = await client.ok("analyze_structure", {"path": file})
    symbols = result["files"][0]["symbols"]
    assert [n["name"] for n in symbols if n["kind"] in ("class", "function")] == top_level
    nested_methods = [c["name"] for n in symbols for c in n.get("children", []) if c["kind"] == "method"]
    assert nested_methods == methods
    auth = next(n for n in symbols if n["name"] == "AuthService")
    assert {"login", "logout", "verify_token"} <= {c["name"] for c in auth["children"]}


async def test_analyze_structure_of_a_directory(open_client, fixture_root):
    root = fixture_root("ts-app")
    expected = [f"src/hooks/{f}" for f in source_files(root / "src/hooks", (".ts", ".tsx"))]
    async with open_client(root) as client:
        result = await client.ok("analyze_structure", {"path": "src/hooks"})
        limited = await client.ok("analyze_structure", {"path": "src", "max_files": 2})
        whole = await client.ok("analyze_structure", {"path": "src", "max_files": 2000})
    assert [f["file"] for f in result["files"]] == sorted(expected)
    assert result["total_files"] == len(expected)
    assert all(f["symbols"] for f in result["files"]), "every hook file defines something"
    assert limited["truncated"] is True and len(limited["files"]) == 2
    assert limited["total_files"] == whole["total_files"] == len(whole["files"])
    assert [f["file"] for f in limited["files"]] == [f["file"] for f in whole["files"]][:2]
    assert set(source_files(root / "src", (".ts", ".tsx"))) <= {f["file"][len("src/"):] for f in whole["files"]}


# --- get_function_at_line ------------------------------------------------------------------

# (fixture, file, regex of the function's first line, offset of the asked line into the body,
#  name, kind, qualified name)
FUNCTIONS = [
    ("python-service", "src/orderly/auth/service.py", r"^    async def login\(", 5,
     "login", "method", "AuthService.login"),
    ("python-service", "src/orderly/api/routes/auth.py", r"^async def login\(", 7,
     "login", "function", "login"),
    ("laravel-shop", "app/Services/CartService.php", r"public function add\(", 3,
     "add", "method", "App\\Services\\CartService::add"),
    ("ts-app", "src/services/authService.ts", r"^export async function logout\(", 4,
     "logout", "function", "logout"),
]


@pytest.mark.parametrize(
    ("fixture", "file", "start_re", "offset", "name", "kind", "qualified"),
    FUNCTIONS,
    ids=[f[6] for f in FUNCTIONS],
)
async def test_get_function_at_line(open_client, fixture_root, fixture, file, start_re, offset, name, kind, qualified):
    root = fixture_root(fixture)
    start = line_of(root / file, start_re)
    async with open_client(root) as client:
        result = await client.ok("get_function_at_line", {"file_path": file, "line": start + offset})
        at_start = await client.ok("get_function_at_line", {"file_path": file, "line": start})
    assert (result["name"], result["kind"], result["qualified_name"]) == (name, kind, qualified)
    assert result["file"] == file and result["start_line"] == start
    assert start + offset <= result["end_line"]
    lines = file_lines(root / file)
    assert result["content"] == "\n".join(lines[start - 1 : result["end_line"]])
    assert result["partial"] is False
    assert at_start["qualified_name"] == qualified and at_start["end_line"] == result["end_line"]
    assert result["signature"].split("(")[0] in lines[start - 1]


async def test_get_function_at_line_innermost_and_outside(open_client, make_project):
    root = make_project(
        {
            "svc.py": (
                "import os\n"                      # 1
                "\n"                               # 2
                "class Outer:\n"                   # 3
                "    def method(self):\n"          # 4
                "        def helper():\n"          # 5
                "            return os.sep\n"      # 6
                "        return helper()\n"        # 7
                "\n"                               # 8
                "LIMIT = 3\n"                      # 9
            )
        }
    )
    async with open_client(root) as client:
        inner = await client.ok("get_function_at_line", {"file_path": "svc.py", "line": 6})
        outer = await client.ok("get_function_at_line", {"file_path": "svc.py", "line": 7})
        err = await client.error("get_function_at_line", {"file_path": "svc.py", "line": 9}, "NO_ENCLOSING_FUNCTION")
    assert (inner["name"], inner["qualified_name"], inner["start_line"], inner["end_line"]) == (
        "helper", "Outer.method.helper", 5, 6)
    assert (outer["name"], outer["scope"], outer["start_line"], outer["end_line"]) == ("method", "Outer", 4, 7)
    assert err["details"]["line"] == 9 and "previous_function" in err["details"]
    assert line_count(root / "svc.py") == 9
