"""Bad input the server must survive: every bad input gets its error code (or, for files that
are merely damaged, a useful partial answer), and the same server session keeps answering.

The bad files are generated here at test time: nothing binary or huge is committed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import CORE_TOOLS, Client

pytestmark = pytest.mark.anyio

SECRET = "TOPSECRET_OUTSIDE_THE_WORKSPACE"
NEEDLE = "NEEDLE_AT_THE_END_OF_THE_BUNDLE"
BIG_BYTES = 5 * 1024 * 1024

BROKEN = {
    # file: (source, line of the syntax error, symbols recovered around it)
    "src/broken.py": (
        "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Survivor:\n"
        "    def still_here(self):\n        return 2\n",
        4,
        {"ok", "Survivor", "still_here"},
    ),
    "src/Invoice.php": (
        "<?php\nnamespace App\\Broken;\n\nclass Invoice\n{\n    public function total(): int\n    {\n"
        "        return $this->amount +;\n    }\n\n    public function tax(): int\n    {\n"
        "        return 1;\n    }\n}\n",
        8,
        {"Invoice", "total", "tax"},
    ),
    "src/broken.ts": (
        "export function good(a: number): number {\n  return a * 2;\n}\n\n"
        "export function bad(a: number {\n  return a;\n}\n\nexport class Keeper {\n  keep(): void {}\n}\n",
        5,
        {"good", "Keeper", "keep"},
    ),
}


def minified_bundle() -> bytes:
    """A single-line 5 MB minified JavaScript file with a marker at its very end."""
    parts, size, i = [], 0, 0
    while size < BIG_BYTES:
        chunk = f"function f{i}(a,b){{return a+b*{i}}}var v{i}=f{i}(1,2);"
        parts.append(chunk)
        size += len(chunk)
        i += 1
    parts.append(f"var {NEEDLE}=1;")
    return "".join(parts).encode()


@pytest.fixture(scope="module")
def bad_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("bad")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f'def leaked_function():\n    return "{SECRET}"\n')
    root = base / "project"
    files: dict[str, str | bytes] = {
        "src/app.py": "def healthy():\n    return 1\n",
        "src/latin1.py": b"# caf\xe9 au lait\ndef latin_one():\n    return '\xe9t\xe9'\n",
        "src/blob.py": b"\x7fELF\x00\x00\x01\x02def hidden():\n    pass\n",
        "src/utf16.py": "def wide():\n    pass\n".encode("utf-16"),  # with a byte-order mark
        "src/bundle.min.js": minified_bundle(),
        **{path: source for path, (source, _, _) in BROKEN.items()},
    }
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    os.symlink(outside, root / "escape")  # a directory symlink leaving the root
    os.symlink(outside / "secret.py", root / "src" / "link.py")  # a file symlink leaving it
    os.symlink(root / "src" / "nowhere.py", root / "src" / "dangling.py")
    return root


async def still_answers(client: Client) -> None:
    """After an error, the same session still answers normal calls."""
    await client.assert_alive()
    symbols = await client.ok("get_symbols", {"path": "src/app.py"})
    assert [s["name"] for s in symbols["symbols"]] == ["healthy"]


# --- errors --------------------------------------------------------------------------------

def size_of(root: Path, rel: str) -> int:
    return (root / rel).stat().st_size


# (id, tool, arguments, code, check(details, message, root))
ERRORS = [
    # Missing files and directories.
    ("missing-file", "get_symbols", {"path": "src/missing.py"}, "FILE_NOT_FOUND",
     lambda d, m, r: d["path"] == "src/missing.py"),
    ("missing-dir", "search_text", {"pattern": "x", "path": "no/such/dir"}, "FILE_NOT_FOUND", None),
    ("missing-at-line", "get_function_at_line", {"file_path": "src/missing.py", "line": 1},
     "FILE_NOT_FOUND", None),
    ("missing-scope", "find_definitions", {"symbol": "healthy", "path": "lib"}, "FILE_NOT_FOUND", None),
    ("dangling-symlink", "get_symbols", {"path": "src/dangling.py"}, "FILE_NOT_FOUND", None),
    # Leaving the workspace: traversal, absolute paths, symlinks.
    ("dotdot", "get_symbols", {"path": "../outside/secret.py"}, "OUTSIDE_WORKSPACE",
     lambda d, m, r: d["path"] == "../outside/secret.py"),
    ("dotdot-inside", "analyze_structure", {"path": "src/../../outside/secret.py"}, "OUTSIDE_WORKSPACE", None),
    ("dotdot-nonexistent", "search_text", {"pattern": "x", "path": "../../../../etc"}, "OUTSIDE_WORKSPACE", None),
    ("absolute", "get_function_at_line", {"file_path": "/etc/passwd", "line": 1}, "OUTSIDE_WORKSPACE", None),
    ("absolute-outside-dir", "find_references", {"symbol": "x", "path": "/tmp"}, "OUTSIDE_WORKSPACE", None),
    ("symlink-dir", "get_symbols", {"path": "escape/secret.py"}, "OUTSIDE_WORKSPACE", None),
    ("symlink-dir-search", "search_text", {"pattern": "TOPSECRET", "path": "escape"}, "OUTSIDE_WORKSPACE", None),
    ("symlink-file", "get_function_at_line", {"file_path": "src/link.py", "line": 1}, "OUTSIDE_WORKSPACE", None),
    ("parent-of-root", "search_files", {"pattern": "*.py", "path": ".."}, "OUTSIDE_WORKSPACE", None),
    # A directory where a file is expected.
    ("dir-for-file", "get_function_at_line", {"file_path": "src", "line": 1}, "INVALID_PARAMETER",
     lambda d, m, r: "directory" in m and d["path"] == "src"),
    # Files that are not text.
    ("binary", "get_symbols", {"path": "src/blob.py"}, "ENCODING_ERROR",
     lambda d, m, r: d["file"] == "src/blob.py" and "binary" in d["reason"]),
    ("binary-structure", "analyze_structure", {"path": "src/blob.py"}, "ENCODING_ERROR", None),
    ("binary-at-line", "get_function_at_line", {"file_path": "src/blob.py", "line": 1}, "ENCODING_ERROR", None),
    ("utf16", "get_symbols", {"path": "src/utf16.py"}, "ENCODING_ERROR",
     lambda d, m, r: "UTF-16" in d["reason"]),
    # Too large to parse.
    ("huge-symbols", "get_symbols", {"path": "src/bundle.min.js"}, "FILE_TOO_LARGE",
     lambda d, m, r: d["size"] == size_of(r, "src/bundle.min.js") and d["limit"] < d["size"]),
    ("huge-structure", "analyze_structure", {"path": "src/bundle.min.js"}, "FILE_TOO_LARGE", None),
    ("huge-at-line", "get_function_at_line", {"file_path": "src/bundle.min.js", "line": 1}, "FILE_TOO_LARGE", None),
    # Symbols that are not names.
    ("empty-symbol", "find_definitions", {"symbol": ""}, "INVALID_SYMBOL", None),
    ("blank-symbol", "find_definitions", {"symbol": "   "}, "INVALID_SYMBOL", None),
    ("phrase-symbol", "find_definitions", {"symbol": "two words"}, "INVALID_SYMBOL", None),
    ("empty-symbol-refs", "find_references", {"symbol": ""}, "INVALID_SYMBOL", None),
    # Bad regular expressions and patterns: an error with the reason, never an empty result.
    ("invalid-regex", "search_text", {"pattern": "foo("}, "INVALID_PARAMETER",
     lambda d, m, r: "regular expression" in m and "unclosed group" in m and d["pattern"] == "foo("),
    ("invalid-regex-class", "search_text", {"pattern": "[a-"}, "INVALID_PARAMETER",
     lambda d, m, r: "regular expression" in m),
    ("empty-pattern", "search_text", {"pattern": ""}, "INVALID_PARAMETER", None),
    ("empty-file-pattern", "search_files", {"pattern": " "}, "INVALID_PARAMETER", None),
    # Lines outside the file.
    ("line-past-end", "get_function_at_line", {"file_path": "src/app.py", "line": 999}, "INVALID_PARAMETER",
     lambda d, m, r: d["line"] == 999 and d["lines"] == 2),
    ("line-zero", "get_function_at_line", {"file_path": "src/app.py", "line": 0}, "INVALID_PARAMETER", None),
    ("line-one-past", "get_function_at_line", {"file_path": "src/app.py", "line": 3}, "INVALID_PARAMETER", None),
    # Wrong types, missing and out-of-range arguments.
    ("missing-required", "find_definitions", {}, "INVALID_PARAMETER", lambda d, m, r: "symbol" in m),
    ("wrong-type", "find_definitions", {"symbol": 42}, "INVALID_PARAMETER", None),
    ("negative-line", "get_function_at_line", {"file_path": "src/app.py", "line": -1}, "INVALID_PARAMETER", None),
    ("string-line", "get_function_at_line", {"file_path": "src/app.py", "line": "ten"}, "INVALID_PARAMETER", None),
    ("zero-max", "search_text", {"pattern": "x", "max_results": 0}, "INVALID_PARAMETER",
     lambda d, m, r: d["parameter"] == "max_results"),
    ("huge-context", "search_text", {"pattern": "x", "context_after": 10_000}, "INVALID_PARAMETER", None),
    ("unknown-kind", "get_symbols", {"path": "src", "kinds": ["bogus"]}, "INVALID_PARAMETER",
     lambda d, m, r: "bogus" in m),
    ("unknown-language", "find_definitions", {"symbol": "x", "language": "klingon"}, "INVALID_PARAMETER",
     lambda d, m, r: "python" in d["supported_languages"]),
    ("nul-in-path", "get_symbols", {"path": "src/app.py\u0000.txt"}, "INVALID_PARAMETER", None),
    # Unknown tool name.
    ("unknown-tool", "no_such_tool", {"x": 1}, "UNKNOWN_TOOL",
     lambda d, m, r: set(CORE_TOOLS) <= set(d["available"])),
]


@pytest.mark.parametrize(("tool", "args", "code", "check"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
async def test_bad_input_gets_its_error_code_and_the_server_stays_up(
    open_client, bad_root, tool, args, code, check
):
    async with open_client(bad_root) as client:
        err = await client.error(tool, args, code)
        if check is not None:
            assert check(err["details"], err["message"], bad_root), err
        # Nothing from outside the workspace leaks into an error.
        assert SECRET not in json.dumps(err)
        await still_answers(client)


UNKNOWN_ARGUMENT_CALLS = {
    "search_text": {"pattern": "healthy"},
    "search_files": {"pattern": "app"},
    "find_definitions": {"symbol": "healthy"},
    "find_references": {"symbol": "healthy"},
    "get_symbols": {"path": "src/app.py"},
    "analyze_structure": {"path": "src/app.py"},
    "get_function_at_line": {"file_path": "src/app.py", "line": 1},
}


@pytest.mark.parametrize("tool", CORE_TOOLS)
async def test_unknown_arguments_are_named_in_the_error(open_client, bad_root, tool):
    valid = UNKNOWN_ARGUMENT_CALLS[tool]
    async with open_client(bad_root) as client:
        await client.ok(tool, valid)  # the same call without the typo works
        err = await client.error(tool, {**valid, "max_resluts": 5}, "INVALID_PARAMETER")
        assert "max_resluts" in err["message"]
        await still_answers(client)


async def test_one_session_survives_every_bad_input_in_a_row(open_client, bad_root):
    async with open_client(bad_root) as client:
        for _, tool, args, code, _ in ERRORS:
            await client.error(tool, args, code)
        await still_answers(client)
        assert "panicked" not in client.stderr()


async def test_nothing_outside_the_workspace_is_walked(open_client, bad_root):
    async with open_client(bad_root) as client:
        text = await client.ok("search_text", {"pattern": SECRET})
        defs = await client.ok("find_definitions", {"symbol": "leaked_function"})
        refs = await client.ok("find_references", {"symbol": "leaked_function"})
        files = await client.ok("search_files", {"pattern": "secret"})
        symbols = await client.ok("get_symbols", {"path": "."})
    assert text["total_matches"] == 0
    assert defs["total"] == 0 and refs["total"] == 0
    assert files["files"] == []
    assert SECRET not in json.dumps(symbols) and "leaked_function" not in json.dumps(symbols)


# --- damaged files that still answer --------------------------------------------------------


@pytest.mark.parametrize("file", sorted(BROKEN))
async def test_syntax_errors_give_partial_symbols(open_client, bad_root, file):
    _, error_line, recovered = BROKEN[file]
    async with open_client(bad_root) as client:
        symbols = await client.ok("get_symbols", {"path": file})
        structure = await client.ok("analyze_structure", {"path": file})
        last = max(
            (s for s in symbols["symbols"] if s["name"] in recovered and s["kind"] in ("method", "function")),
            key=lambda s: s["line"],
        )
        at_line = await client.ok("get_function_at_line", {"file_path": file, "line": last["line"]})
        await still_answers(client)
    assert symbols["partial"] is True
    assert symbols["errors"], "the syntax error is reported"
    assert all(e["code"] == "PARSE_ERROR" and e["file"] == file for e in symbols["errors"])
    assert error_line in {e["line"] for e in symbols["errors"]}
    assert recovered <= {s["name"] for s in symbols["symbols"]}
    assert structure["partial"] is True and structure["files"][0]["errors"]
    assert at_line["partial"] is True and at_line["name"] == last["name"]


async def test_invalid_utf8_is_read_lossily_and_flagged(open_client, bad_root):
    async with open_client(bad_root) as client:
        symbols = await client.ok("get_symbols", {"path": "src/latin1.py"})
        clean = await client.ok("get_symbols", {"path": "src/app.py"})
        structure = await client.ok("analyze_structure", {"path": "src/latin1.py"})
        at_line = await client.ok("get_function_at_line", {"file_path": "src/latin1.py", "line": 3})
        defs = await client.ok("find_definitions", {"symbol": "latin_one"})
        text = await client.ok("search_text", {"pattern": "au lait"})
    # README's text policy: invalid UTF-8 is decoded with U+FFFD, answered, and flagged.
    assert [s["name"] for s in symbols["symbols"]] == ["latin_one"]
    assert symbols.get("lossy_files") == ["src/latin1.py"]
    assert "lossy_files" not in clean
    assert structure["files"][0].get("lossy") is True
    assert at_line["name"] == "latin_one" and at_line.get("lossy") is True
    assert "\ufffd" in at_line["content"]
    assert [(d["file"], d["line"]) for d in defs["definitions"]] == [("src/latin1.py", 2)]
    assert [(m["file"], m["line"]) for m in text["matches"]] == [("src/latin1.py", 1)]
    assert "\ufffd" in text["matches"][0]["text"]


async def test_huge_minified_file_is_searched_but_not_parsed(open_client, bad_root):
    content = (bad_root / "src/bundle.min.js").read_bytes()
    assert len(content) > BIG_BYTES
    async with open_client(bad_root) as client:
        found = await client.ok("search_text", {"pattern": NEEDLE})
        listing = await client.ok("get_symbols", {"path": "src"})
        defs = await client.ok("find_definitions", {"symbol": "healthy"})
        await still_answers(client)
    assert [(m["file"], m["line"]) for m in found["matches"]] == [("src/bundle.min.js", 1)]
    assert found["matches"][0]["column"] == content.index(NEEDLE.encode()) + 1
    # A 5 MB line is not sent back whole.
    assert len(found["matches"][0]["text"]) < 64 * 1024
    skipped = {s["file"]: s["reason"] for s in listing["skipped"]}
    assert "src/bundle.min.js" in skipped and str(len(content)) in skipped["src/bundle.min.js"]
    assert {"src/blob.py", "src/utf16.py"} <= set(skipped)
    # The rest of the directory is still answered, with the broken files' partial symbols.
    names = {s["name"] for s in listing["symbols"]}
    assert {"healthy", "latin_one", "Survivor", "Invoice", "Keeper"} <= names
    assert listing["partial"] is True
    assert {s["file"] for s in listing["symbols"]}.isdisjoint(skipped)
    assert [d["file"] for d in defs["definitions"]] == ["src/app.py"]


async def test_time_limit_gives_timeout_and_the_server_stays_up(open_client, make_project):
    # A zero-second limit (from the project's config) makes every call overrun it.
    root = make_project({"a.py": "def a():\n    pass\n", ".code-intel/config.json": '{"tool_timeout_secs": 0}'})
    async with open_client(root) as client:
        for tool, args in [("search_text", {"pattern": "a"}), ("get_symbols", {"path": "a.py"})]:
            err = await client.error(tool, args, "TIMEOUT")
            assert err["details"]["limit_secs"] == 0
        listed = await client.session.list_tools()
        assert {t.name for t in listed.tools} >= set(CORE_TOOLS)
