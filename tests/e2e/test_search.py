"""search_text and search_files through the MCP client, checked against the files on disk."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from oracle import PHP, PY, TS_JS, file_lines, grep, line_of, source_files

pytestmark = pytest.mark.anyio


def hits(result: dict) -> dict[tuple[str, int], int]:
    return {(m["file"], m["line"]): m["column"] for m in result["matches"]}


# --- search_text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "pattern", "flags", "exts", "under"),
    [
        # Regex with alternation and a word boundary, limited to a directory.
        ({"pattern": r"async def (login|logout)\b", "path": "src/orderly"},
         r"async def (login|logout)\b", 0, PY, "src/orderly"),
        # Smart case: all lower case means case-insensitive ...
        ({"pattern": "login", "file_type": "py"}, "login", re.I, PY, ""),
        # ... an upper-case letter makes it case-sensitive ...
        ({"pattern": "Login", "file_type": "py"}, "Login", 0, PY, ""),
        # ... and case_sensitive overrides smart case.
        ({"pattern": "login", "file_type": "py", "case_sensitive": True}, "login", 0, PY, ""),
        # Whole words only (still smart case: `User` matches, `users` and `get_user` do not).
        ({"pattern": "user", "file_type": "python", "word": True}, r"\buser\b", re.I, PY, ""),
        # Literal text with regex metacharacters.
        ({"pattern": "Depends(get_auth_service)", "fixed_strings": True},
         re.escape("Depends(get_auth_service)"), 0, PY, ""),
    ],
    ids=["regex-in-dir", "smart-case-lower", "smart-case-upper", "case-sensitive", "word", "literal"],
)
async def test_search_text_matches_what_is_in_the_files(
    open_client, fixture_root, args, pattern, flags, exts, under
):
    root = fixture_root("python-service")
    expected = grep(root, pattern, exts, flags, under=under)
    assert expected, "the oracle found nothing; the test would prove nothing"
    async with open_client(root) as client:
        result = await client.ok("search_text", {**args, "max_results": 5000})
    assert hits(result) == expected
    assert result["total_matches"] == len(expected)
    assert result["files_with_matches"] == len({f for f, _ in expected})
    assert result["truncated"] is False
    for match in result["matches"]:
        line = file_lines(root / match["file"])[match["line"] - 1]
        assert match["text"].strip() == line.strip()


async def test_search_text_regex_metacharacters_are_not_literal(open_client, fixture_root):
    # The same text as a regex is a group, so it finds nothing: proof that fixed_strings matters.
    async with open_client(fixture_root("python-service")) as client:
        result = await client.ok("search_text", {"pattern": "Depends(get_auth_service)"})
    assert result["total_matches"] == 0 and result["matches"] == []


async def test_search_text_context_lines(open_client, fixture_root):
    root = fixture_root("python-service")
    service = root / "src/orderly/auth/service.py"
    line = line_of(service, r"^class AuthService\b")
    lines = file_lines(service)
    async with open_client(root) as client:
        result = await client.ok(
            "search_text",
            {"pattern": r"^class AuthService\b", "context_before": 2, "context_after": 3},
        )
    assert result["total_matches"] == 1
    match = result["matches"][0]
    assert (match["file"], match["line"], match["column"]) == ("src/orderly/auth/service.py", line, 1)
    assert match.get("before", []) == lines[line - 3 : line - 1]
    assert match.get("after", []) == lines[line : line + 3]


async def test_search_text_truncates_but_counts_everything(open_client, fixture_root):
    root = fixture_root("python-service")
    expected = grep(root, r"self\.", PY)
    assert len(expected) > 3
    async with open_client(root) as client:
        result = await client.ok("search_text", {"pattern": r"self\.", "file_type": "py", "max_results": 3})
    assert len(result["matches"]) == 3
    assert result["truncated"] is True
    assert result["total_matches"] == len(expected)
    assert set(hits(result)) <= set(expected)


async def test_search_text_globs_and_file_types(open_client, fixture_root):
    root = fixture_root("python-service")
    expected = {k: v for k, v in grep(root, "AuthService", PY).items() if not k[0].startswith("tests/")}
    in_tests = [k for k in grep(root, "AuthService", PY) if k[0].startswith("tests/")]
    assert expected and in_tests, "fixture must use AuthService inside and outside tests/"
    async with open_client(root) as client:
        result = await client.ok(
            "search_text", {"pattern": "AuthService", "glob": ["*.py", "!tests/**"], "max_results": 500}
        )
        assert hits(result) == expected
        # file_type restricts to a language: the README mentions the project, .py files too.
        md = await client.ok("search_text", {"pattern": "orderly", "file_type": "md", "max_results": 500})
    md_files = {m["file"] for m in md["matches"]}
    assert "README.md" in md_files, "README.md mentions orderly"
    assert all(f.endswith(".md") for f in md_files)
    assert md["total_matches"] == len(grep(root, "orderly", (".md",), re.I))


async def test_search_text_on_one_file(open_client, fixture_root):
    root = fixture_root("ts-app")
    expected = grep(root, "useCallback", TS_JS, under="src/hooks")
    expected = {k: v for k, v in expected.items() if k[0] == "src/hooks/useCart.ts"}
    async with open_client(root) as client:
        result = await client.ok("search_text", {"pattern": "useCallback", "path": "src/hooks/useCart.ts"})
    assert hits(result) == expected
    assert result["files_searched"] == 1


async def test_search_text_respects_ignore_rules(open_client, make_project):
    root = make_project(
        {
            ".gitignore": "generated/\n",
            "src/app.py": "MARKER = 1\n",
            "generated/out.py": "MARKER = 2\n",
            "node_modules/lib/index.js": "MARKER = 3\n",
            ".hidden/secret.py": "MARKER = 4\n",
            "assets/blob.bin": b"MARKER\x00\x00\x01",
        }
    )
    async with open_client(root) as client:
        result = await client.ok("search_text", {"pattern": "MARKER"})
        files = await client.ok("search_files", {"pattern": "out.py"})
    # A .gitignore is honoured even without a .git directory, like ripgrep in a project root.
    assert {m["file"] for m in result["matches"]} == {"src/app.py"}
    assert files["files"] == []


# --- search_files --------------------------------------------------------------------------


async def test_search_files_fuzzy_name(open_client, fixture_root):
    root = fixture_root("ts-app")
    async with open_client(root) as client:
        result = await client.ok("search_files", {"pattern": "usecart"})
    best = result["files"][0]
    assert best["path"] == "src/hooks/useCart.ts"
    assert best["language"] == "typescript"
    assert best["size"] == (root / best["path"]).stat().st_size


async def test_search_files_glob(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    expected = {f for f in source_files(root, PHP) if f.endswith(".blade.php")}
    assert len(expected) > 5
    async with open_client(root) as client:
        result = await client.ok("search_files", {"pattern": "**/*.blade.php", "max_results": 2000})
    assert {f["path"] for f in result["files"]} == expected
    assert result["total"] == len(expected)
    # `.blade.php` is detected before `.php`.
    assert {f["language"] for f in result["files"]} == {"blade"}
    for f in result["files"]:
        assert f["size"] == (root / f["path"]).stat().st_size


async def test_search_files_in_a_directory(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    expected = {f"app/Models/{f}" for f in source_files(root / "app/Models", PHP)}
    async with open_client(root) as client:
        result = await client.ok("search_files", {"pattern": "*.php", "path": "app/Models", "max_results": 500})
    assert {f["path"] for f in result["files"]} == expected
    assert {f["language"] for f in result["files"]} == {"php"}


async def test_search_files_ranks_exact_names_first(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    async with open_client(root) as client:
        result = await client.ok("search_files", {"pattern": "Product.php"})
        limited = await client.ok("search_files", {"pattern": "product", "max_results": 2})
    paths = [f["path"] for f in result["files"]]
    assert paths[0] == "app/Models/Product.php"
    assert len(paths) > 1, "other files contain 'Product' in their names"
    scores = [f["score"] for f in result["files"]]
    assert scores == sorted(scores, reverse=True)
    assert limited["truncated"] is True and len(limited["files"]) == 2
    assert limited["total"] > 2


async def test_search_files_glob_within_a_directory(open_client, fixture_root):
    root = fixture_root("ts-app")
    expected = set(source_files(root / "src", (".tsx",)))
    async with open_client(root) as client:
        result = await client.ok("search_files", {"pattern": "*.tsx", "path": "src", "max_results": 500})
    assert {Path(f["path"]).relative_to("src").as_posix() for f in result["files"]} == expected
    assert {f["language"] for f in result["files"]} == {"tsx"}
