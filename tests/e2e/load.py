"""Load and faults over MCP: many concurrent tool calls while a forced sync runs and files change
under it, then the store compared with a clean index of the same files.

Used by the end-to-end test (`test_load.py`, a generated project) and by `bench/load.py` (a real
repository, figures printed). Every call must answer or fail with a code; the latencies and the
codes are what the run reports.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

# Source files a change may touch, by extension, and the line appended to change them.
APPENDED = {
    ".py": "\n# changed under the sync {n}\n",
    ".rs": "\n// changed under the sync {n}\n",
    ".go": "\n// changed under the sync {n}\n",
    ".php": "\n// changed under the sync {n}\n",
    ".ts": "\n// changed under the sync {n}\n",
    ".js": "\n// changed under the sync {n}\n",
    ".java": "\n// changed under the sync {n}\n",
    ".rb": "\n# changed under the sync {n}\n",
}


def generate_project(root: Path, modules: int) -> Path:
    """A Python project of `modules` files, each a class with methods that call each other and
    a neighbour module: enough definitions and references for every code tool."""
    for i in range(modules):
        package = root / "app" / f"pkg{i % 20}"
        package.mkdir(parents=True, exist_ok=True)
        other = (i + 1) % modules
        (package / f"module{i}.py").write_text(
            f'"""Module {i}: orders, invoices and shipments of region {i}."""\n\n'
            f"from app.pkg{other % 20}.module{other} import Service{other}\n\n\n"
            f"class Service{i}:\n"
            f'    """Handles the orders of region {i}."""\n\n'
            f"    def __init__(self, store):\n        self.store = store\n\n"
            f"    def create_order(self, customer, items):\n"
            f"        total = sum(item.price for item in items)\n"
            f"        return self.store.save(customer, items, total)\n\n"
            f"    def send_invoice(self, order):\n"
            f"        return Service{other}(self.store).ship(order)\n\n"
            f"    def ship(self, order):\n        return order.id\n",
            encoding="utf-8",
        )
    return root


@dataclass
class Report:
    calls: int = 0
    answered: int = 0
    errors: Counter = field(default_factory=Counter)
    # One message per tool and code, to tell what failed.
    messages: dict[str, str] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    by_tool: dict[str, list[float]] = field(default_factory=dict)
    files_changed: int = 0
    sync_seconds: float = 0.0
    chunks: int = 0
    clean_chunks: int = 0
    files: int = 0
    clean_files: int = 0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "answered": self.answered,
            "errors_by_code": dict(self.errors),
            "error_messages": self.messages,
            "p50_ms": round(self.percentile(50), 1),
            "p99_ms": round(self.percentile(99), 1),
            "max_ms": round(max(self.latencies_ms, default=0.0), 1),
            "by_tool_median_max_ms": {
                tool: [round(sorted(ms)[len(ms) // 2]), round(max(ms))] for tool, ms in sorted(self.by_tool.items())
            },
            "files_changed": self.files_changed,
            "chunks": self.chunks,
            "clean_chunks": self.clean_chunks,
            "files": self.files,
            "clean_files": self.clean_files,
        }


def calls_for(root: Path, count: int, seed: int = 7) -> list[tuple[str, dict]]:
    """`count` tool calls of every kind, on names and files of the project."""
    rng = random.Random(seed)
    sources = sorted(p for p in root.rglob("*") if p.suffix in APPENDED and p.is_file() and ".code-intel" not in p.parts)
    names = ["Service1", "create_order", "send_invoice", "ship", "main", "handler", "User", "save"]
    kinds: list[tuple[str, dict]] = []
    for i in range(count):
        file = sources[rng.randrange(len(sources))].relative_to(root).as_posix()
        name = rng.choice(names)
        kinds.append(
            [
                ("find_definitions", {"symbol": name}),
                ("find_references", {"symbol": name}),
                ("search_text", {"pattern": name}),
                ("get_symbols", {"path": file}),
                ("semantic_search", {"query": "send the invoice of an order"}),
                ("analyze_file", {"path": file}),
                ("search_files", {"pattern": "*.py", "max_results": 10}),
                ("get_session_status", {}),
                ("search_symbol", {"symbol": name}),
                ("get_function_at_line", {"file_path": file, "line": 10}),
            ][i % 10]
        )
    return kinds


def change_files(root: Path, count: int, stop: threading.Event, seed: int = 11) -> int:
    """Appends a line to `count` source files, a few at a time, as a `git checkout` would."""
    rng = random.Random(seed)
    sources = sorted(p for p in root.rglob("*") if p.suffix in APPENDED and p.is_file() and ".code-intel" not in p.parts)
    chosen = rng.sample(sources, min(count, len(sources)))
    for n, path in enumerate(chosen):
        if stop.is_set():
            return n
        with path.open("a", encoding="utf-8") as f:
            f.write(APPENDED[path.suffix].format(n=n))
        if n % 50 == 49:
            time.sleep(0.01)
    return len(chosen)


async def timed_call(session: ClientSession, tool: str, args: dict, report: Report, timeout: float) -> None:
    started = time.monotonic()
    report.calls += 1
    result = await session.call_tool(tool, args, read_timeout_seconds=timeout)
    elapsed = (time.monotonic() - started) * 1000
    report.latencies_ms.append(elapsed)
    report.by_tool.setdefault(tool, []).append(elapsed)
    data = result.structured_content or {}
    if result.is_error:
        code = (data.get("error") or {}).get("code")
        assert isinstance(code, str) and code, f"{tool}: an error without a code: {result}"
        report.errors[code] += 1
        report.messages.setdefault(f"{tool} {code}", (data.get("error") or {}).get("message", ""))
    else:
        report.answered += 1


def clean_index(binary: Path, source: Path, dest: Path, env: dict) -> dict:
    """`code-intel index` of a copy of `source` in lightweight mode (chunks only: what the store
    holds does not depend on the vectors)."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".code-intel"))
    (dest / ".code-intel").mkdir()
    (dest / ".code-intel" / "config.json").write_text(json.dumps({"lightweight_mode": True}))
    done = subprocess.run(
        [str(binary), "index", "--root", str(dest), "--json"], capture_output=True, text=True, env=env, timeout=1800
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


async def run_load(
    binary: Path, root: Path, work: Path, calls: int = 100, changes: int = 1000, env: dict | None = None
) -> Report:
    """The load run on the project at `root` (changed in place); `work` holds logs and the clean copy."""
    env = {**os.environ, **(env or {})}
    report = Report()
    params = StdioServerParameters(command=str(binary), args=["serve", "--root", str(root)], env=env)
    with open(work / "load-server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                planned = calls_for(root, calls)
                stop = threading.Event()
                changer = asyncio.to_thread(change_files, root, changes, stop)
                started = time.monotonic()
                sync = timed_call(session, "sync_index", {"force": True}, report, 600)
                load = [timed_call(session, tool, args, report, 300) for tool, args in planned]
                results = await asyncio.gather(sync, changer, *load)
                report.files_changed = results[1]
                report.sync_seconds = time.monotonic() - started
                # Settle: sync until nothing changes any more (a sync that returned early goes on
                # in the background; the next waits for the lock and then sees the rest).
                for _ in range(60):
                    out = await session.call_tool("sync_index", {"target": "forest"}, read_timeout_seconds=600)
                    data = out.structured_content or {}
                    assert not out.is_error, data
                    forest = data.get("forest") or {}
                    if data.get("background") is None and not (
                        forest.get("added") or forest.get("modified") or forest.get("deleted")
                    ):
                        report.chunks = forest.get("chunks", 0) or 0
                        report.files = forest.get("files", 0) or 0
                        break
                    await asyncio.sleep(1)
                status = await session.call_tool("semantic_search", {"query": "order", "n_results": 1})
                report.chunks = (status.structured_content or {})["index_status"]["chunks"]
    clean = clean_index(binary, root, work / "clean" / root.name, env)
    report.clean_chunks = clean["chunks"]
    report.clean_files = clean["files"]
    log = (work / "load-server.stderr").read_text(errors="replace")
    assert "panicked" not in log, log[-3000:]
    return report


async def disconnect_mid_call(binary: Path, root: Path, work: Path, env: dict | None = None) -> str:
    """Starts a forced sync and leaves without waiting for its answer; returns the server's log."""
    env = {**os.environ, **(env or {})}
    params = StdioServerParameters(command=str(binary), args=["serve", "--root", str(root)], env=env)
    path = work / "disconnect-server.stderr"
    with open(path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pending = asyncio.ensure_future(
                    session.call_tool("sync_index", {"force": True}, read_timeout_seconds=600)
                )
                await asyncio.sleep(1.0)
                pending.cancel()
    return path.read_text(errors="replace")
