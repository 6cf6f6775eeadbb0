"""Shared fixtures of the end-to-end suite: a real MCP client (the official Python SDK) driving
`code-intel serve` over stdio, the way Claude Code or any other MCP client does.

Tool-specific test files only need three things from here:

* ``open_client(root)`` - an async context manager that spawns a server on ``root``, runs the MCP
  handshake and yields a :class:`Client`; on exit it checks the server's stderr for panics;
* ``Client.call(tool, args)`` - returns ``(is_error, json)`` after checking what every tool result
  must satisfy (structured content equal to the JSON text, seed 002's error shape);
* ``fixture_root(name)`` / ``make_project(files)`` - a private copy of a project under
  ``fixtures/``, or a temporary project written at test time (bad files are never committed).

Oracles that recompute an expected answer from the files themselves live in ``oracle.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"

# The core code tools. Later tools (analysis, semantic search, sessions) are checked against the
# generic contract in test_protocol.py without being listed here.
CORE_TOOLS = (
    "search_text",
    "search_files",
    "find_definitions",
    "find_references",
    "get_symbols",
    "analyze_structure",
    "get_function_at_line",
)

# A hung server fails the test instead of hanging the suite.
CALL_TIMEOUT_SECS = 60

# What a server must never print, even for a panic that dispatch turned into an error result.
PANIC_MARKERS = ("panicked at", "RUST_BACKTRACE")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def server_bin() -> Path:
    """The code-intel binary: $CODE_INTEL_BIN, else target/debug/code-intel (built if missing)."""
    override = os.environ.get("CODE_INTEL_BIN")
    if override:
        path = Path(override).resolve()
        assert path.is_file(), f"CODE_INTEL_BIN={override} does not exist"
        return path
    path = REPO / "target" / "debug" / "code-intel"
    if not path.is_file():
        subprocess.run(["cargo", "build"], cwd=REPO, check=True)
    assert path.is_file(), f"cargo build did not produce {path}"
    return path


def _copy_project(src: Path, dest: Path) -> Path:
    # A private copy: the server writes .code-intel/ into the project, and tests that edit files
    # must not touch the repository. An existing index in the source tree is left behind so every
    # copy starts cold.
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".code-intel"))
    return dest


@pytest.fixture(scope="session")
def fixture_root(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Read-only copy of ``fixtures/<name>``, shared by the whole run (do not edit it)."""
    copies: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in copies:
            src = FIXTURES / name
            if not src.is_dir():
                pytest.skip(f"fixture project {name} is not present")
            copies[name] = _copy_project(src, tmp_path_factory.mktemp("fixture") / name)
        return copies[name]

    return get


@pytest.fixture
def fresh_fixture(tmp_path: Path) -> Callable[[str], Path]:
    """A copy of ``fixtures/<name>`` owned by one test, which may edit it."""
    count = 0

    def get(name: str) -> Path:
        nonlocal count
        count += 1
        return _copy_project(FIXTURES / name, tmp_path / f"copy{count}" / name)

    return get


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Writes ``{relative path: text or bytes}`` into a new temporary project and returns its root."""
    count = 0

    def make(files: dict[str, str | bytes]) -> Path:
        nonlocal count
        count += 1
        root = tmp_path / f"project{count}"
        root.mkdir()
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return make


def check_result(tool: str, result: Any) -> tuple[bool, dict]:
    """What every tools/call answer must satisfy; returns ``(is_error, structured content)``."""
    assert result.structured_content is not None, f"{tool}: no structuredContent in {result}"
    data = result.structured_content
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    assert texts, f"{tool}: no text content for older clients"
    assert any(json.loads(t) == data for t in texts), (
        f"{tool}: the JSON text content differs from structuredContent"
    )
    is_error = bool(result.is_error)
    if is_error:
        assert set(data) == {"error"}, f"{tool}: error result has extra keys {sorted(data)}"
        err = data["error"]
        assert isinstance(err.get("code"), str) and err["code"].isupper(), err
        assert isinstance(err.get("message"), str) and err["message"].strip(), err
        assert isinstance(err.get("details"), dict), err
        # INTERNAL means a bug (a caught panic); no test expects one.
        assert err["code"] != "INTERNAL", f"{tool}: internal error {err}"
    else:
        # A success never carries seed 002's error object (a string `error` field is data, as in
        # check_write_target's {allowed: false, error: "why"}).
        assert not isinstance(data.get("error"), dict), f"{tool}: success result carries an error: {data}"
    return is_error, data


class Client:
    """One initialized MCP session with a running ``code-intel serve``."""

    def __init__(self, session: ClientSession, root: Path, stderr_path: Path):
        self.session = session
        self.root = root
        self.stderr_path = stderr_path

    async def call(
        self, tool: str, args: dict | None = None, timeout: float = CALL_TIMEOUT_SECS
    ) -> tuple[bool, dict]:
        """Calls a tool; returns ``(is_error, json)``. The SDK itself validates successful results
        against the tool's output schema and raises if they do not conform."""
        result = await self.session.call_tool(
            tool, args if args is not None else {}, read_timeout_seconds=timeout
        )
        return check_result(tool, result)

    async def ok(self, tool: str, args: dict | None = None) -> dict:
        is_error, data = await self.call(tool, args)
        assert not is_error, f"{tool}({args}) failed: {data}"
        return data

    async def error(self, tool: str, args: dict | None, code: str) -> dict:
        """Calls a tool that must fail with ``code``; returns the ``error`` object."""
        is_error, data = await self.call(tool, args)
        assert is_error, f"{tool}({args}) should fail with {code}, got {json.dumps(data)[:500]}"
        assert data["error"]["code"] == code, f"{tool}({args}): {data['error']}"
        return data["error"]

    async def assert_alive(self) -> None:
        """The same session still answers a normal call (the server stayed up)."""
        data = await self.ok("search_files", {"pattern": "*", "max_results": 1})
        assert data["total"] >= 1

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def open_client(server_bin: Path, tmp_path: Path):
    """``async with open_client(root, env={...}) as client:`` - a server process per use.

    ``wrap`` is a command the server's command line is appended to (it must exec it); it runs in
    the server's session and process group, which the client ends with the server."""
    count = 0

    @asynccontextmanager
    async def open_(
        root: Path, env: dict[str, str] | None = None, wrap: list[str] | None = None
    ) -> AsyncIterator[Client]:
        nonlocal count
        count += 1
        stderr_path = tmp_path / f"server{count}.stderr"
        command = [*(wrap or []), str(server_bin), "serve", "--root", str(root)]
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        with stderr_path.open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield Client(session, root, stderr_path)
        log = stderr_path.read_text(encoding="utf-8", errors="replace")
        for marker in PANIC_MARKERS:
            assert marker not in log, f"server stderr shows a panic:\n{log[-3000:]}"

    return open_


async def wait_for_index(client: "Client", stage: str, timeout: float = 240) -> dict:
    """Waits until the server's semantic index reaches ``stage`` and returns its status.

    - ``"stored"``: the first sync has stored the chunks and built the full-text index, and the
      chunks are not all embedded yet: the judge's field ranks by the project's words. A
      project's first minutes look like this, while its chunks are embedded.
    - ``"embedded"``: the model is loaded and every chunk has its vector: the field ranks by
      meaning too.
    """
    assert stage in ("stored", "embedded"), stage
    deadline = time.monotonic() + timeout
    while True:
        status = (await client.ok("semantic_search", {"query": "status", "collection": "forest"}))[
            "index_status"
        ]
        assert status["model"] in ("ready", "loading"), status
        if stage == "stored" and status["last_sync"] is not None and status["chunks"]:
            # Embedding a fixture takes tens of seconds on these machines; the sync, a second.
            assert status["embedded"] < status["chunks"], f"embedded before it was seen stored: {status}"
            return status
        if stage == "embedded" and status["model"] == "ready" and status["chunks"] and (
            status["embedded"] == status["chunks"]
        ):
            return status
        assert time.monotonic() < deadline, f"the index did not reach {stage}: {status}"
        await asyncio.sleep(0.2 if stage == "stored" else 1)


def run_cli(server_bin: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60):
    """Runs the binary with ``args``; returns the CompletedProcess (text mode)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(server_bin), *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )
