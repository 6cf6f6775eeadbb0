"""`code-intel call TOOL '{json}' --root DIR`: the same tools from the shell. Exit 0 with the
result as JSON on stdout, exit 1 with the error object; logs only ever on stderr."""

from __future__ import annotations

import json

import pytest
from conftest import CORE_TOOLS, run_cli

pytestmark = pytest.mark.anyio


def call(server_bin, root, tool, args=None, *extra, env=None):
    argv = ["call", tool] + ([json.dumps(args)] if args is not None else []) + ["--root", str(root), *extra]
    return run_cli(server_bin, *argv, env=env)


def single_json(stdout: str):
    """stdout must be exactly one JSON document: anything else (a log line) would break scripts."""
    assert stdout.strip(), "nothing on stdout"
    return json.loads(stdout)


# The same call through both front ends gives the same answer.
SAME_ANSWER = [
    ("python-service", "find_definitions", {"symbol": "AuthService.login"}),
    ("python-service", "find_references", {"symbol": "AuthService"}),
    ("laravel-shop", "get_symbols", {"path": "app/Services/CartService.php"}),
    ("laravel-shop", "analyze_structure", {"path": "app/Models"}),
    ("ts-app", "search_files", {"pattern": "usecart"}),
    ("ts-app", "get_function_at_line", {"file_path": "src/hooks/useCart.ts", "line": 20}),
    ("ts-app", "search_text", {"pattern": "useCallback", "context_after": 1}),
]


@pytest.mark.parametrize(("fixture", "tool", "args"), SAME_ANSWER, ids=[s[1] for s in SAME_ANSWER])
async def test_cli_and_mcp_give_the_same_answer(server_bin, open_client, fixture_root, fixture, tool, args):
    root = fixture_root(fixture)
    done = call(server_bin, root, tool, args)
    assert done.returncode == 0, done.stderr
    from_cli = single_json(done.stdout)
    async with open_client(root) as client:
        from_mcp = await client.ok(tool, args)
    from_cli.pop("elapsed_ms", None)
    from_mcp.pop("elapsed_ms", None)
    assert from_cli == from_mcp


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_symbols", {"path": "../etc/passwd"}, "OUTSIDE_WORKSPACE"),
        ("get_symbols", {"path": "src/missing.py"}, "FILE_NOT_FOUND"),
        ("search_text", {"pattern": "foo("}, "INVALID_PARAMETER"),
        ("find_definitions", {"symbol": ""}, "INVALID_SYMBOL"),
        ("find_definitions", {"symbol": "x", "bogus": True}, "INVALID_PARAMETER"),
        ("find_definitions", None, "INVALID_PARAMETER"),  # no arguments at all: `symbol` is required
        ("no_such_tool", {}, "UNKNOWN_TOOL"),
    ],
)
def test_cli_errors_exit_1_with_the_error_object(server_bin, fixture_root, tool, args, code):
    done = call(server_bin, fixture_root("python-service"), tool, args)
    assert done.returncode == 1, (done.stdout, done.stderr)
    out = single_json(done.stdout)
    assert set(out) == {"error"}
    assert out["error"]["code"] == code
    assert out["error"]["message"] and isinstance(out["error"]["details"], dict)


def test_cli_arguments_that_are_not_json(server_bin, fixture_root):
    done = run_cli(server_bin, "call", "find_definitions", "{symbol: AuthService", "--root",
                   str(fixture_root("python-service")))
    assert done.returncode == 1
    assert single_json(done.stdout)["error"]["code"] == "INVALID_PARAMETER"


def test_cli_pretty_output_is_the_same_json(server_bin, fixture_root):
    root = fixture_root("python-service")
    plain = call(server_bin, root, "find_definitions", {"symbol": "AuthService"})
    pretty = call(server_bin, root, "find_definitions", {"symbol": "AuthService"}, "--pretty")
    assert plain.returncode == pretty.returncode == 0
    assert len(plain.stdout.strip().splitlines()) == 1
    assert len(pretty.stdout.strip().splitlines()) > 5
    assert json.loads(plain.stdout) == json.loads(pretty.stdout)


def test_logs_never_reach_stdout(server_bin, make_project):
    # A broken config and a corrupt store both log warnings; at the most verbose level every
    # log line must still go to stderr, leaving stdout one clean JSON document.
    root = make_project(
        {
            "app.py": "def main():\n    pass\n",
            ".code-intel/config.json": "{ this is not json",
            ".code-intel/symbols.bin": b"\x00garbage\xff" * 10,
        }
    )
    env = {"CODE_INTEL_LOG": "trace"}
    done = call(server_bin, root, "find_definitions", {"symbol": "main"}, env=env)
    assert done.returncode == 0, done.stderr
    assert single_json(done.stdout)["definitions"][0]["file"] == "app.py"
    assert "config.json" in done.stderr, "the broken config is reported on stderr"
    failed = call(server_bin, root, "get_symbols", {"path": "nope.py"}, env=env)
    assert failed.returncode == 1
    assert single_json(failed.stdout)["error"]["code"] == "FILE_NOT_FOUND"


async def test_server_with_verbose_logs_keeps_stdout_for_the_protocol(open_client, make_project):
    root = make_project({"app.py": "def main():\n    pass\n", ".code-intel/config.json": "[1, 2"})
    async with open_client(root, env={"CODE_INTEL_LOG": "trace"}) as client:
        defs = await client.ok("find_definitions", {"symbol": "main"})
        await client.error("get_symbols", {"path": "missing.py"}, "FILE_NOT_FOUND")
        log = client.stderr()
    assert defs["total"] == 1
    assert "config.json" in log, "logs go to stderr"


def test_cli_bad_root_is_a_usage_error_not_a_tool_result(server_bin, tmp_path):
    done = run_cli(server_bin, "call", "search_files", '{"pattern": "x"}', "--root", str(tmp_path / "missing"))
    assert done.returncode not in (0, 1)
    assert done.stdout == ""
    assert "missing" in done.stderr


def test_cli_lists_tools_and_explains_itself(server_bin):
    tools = run_cli(server_bin, "tools")
    assert tools.returncode == 0
    listed = {line.split()[0] for line in tools.stdout.splitlines() if line.strip()}
    assert set(CORE_TOOLS) <= listed
    version = run_cli(server_bin, "--version")
    assert version.returncode == 0 and version.stdout.startswith("code-intel ")
    help_text = run_cli(server_bin, "--help")
    assert help_text.returncode == 0
    assert "serve" in help_text.stdout and "call" in help_text.stdout
