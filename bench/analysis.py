#!/usr/bin/env python3
"""Latency of the analysis tools over MCP, process start excluded.

Why this exists: the analysis tools' targets (analyze_file <= 5/20/100 ms by file size and <= 1 ms on a
cache hit, search_symbol <= 100 ms on 1,000 files, analyze_project <= 3 s cold and <= 0.5 s
warm, get_dependencies <= 10 ms at depth 1 and <= 200 ms at depth 3) are per call inside a
running server, so this drives one `code-intel serve` over stdio with a minimal JSON-RPC client
(standard library only, like bench.py) and times each request/response round trip: from writing
the request to having read the last byte of the response. This client's own decoding of the
response (`json.loads`, about 0.45 ms for a 144 KB answer) is printed beside each row, not in it.

    bench/analysis.py /path/to/project [--bin target/release/code-intel] [--runs 20]
    bench/analysis.py /tmp/bench-repos/symfony --spec

`measure(binary, root, runs)` returns the rows for one project, so bench.py can add them as a
section. The project's `.code-intel/` outline and import stores are deleted first (cold means
"no store"); the symbol store is deleted too so search_symbol's first call is cold as well.

`--spec` gives the rows at the sizes the targets name: every row on a 1,000-file copy of the
project (its first 1,000 source files in path order, with its manifests, so module resolution
works as in the whole project), then search_symbol on the whole project (10k files for
Symfony). The copy is made under a temporary directory and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".py", ".php", ".go", ".java", ".rs", ".vue")
MANIFESTS = {"composer.json", "package.json", "tsconfig.json", "jsconfig.json", "go.mod", "Cargo.toml",
             "pyproject.toml", "setup.cfg"}
SKIP_DIRS = {".git", "node_modules", "vendor", "target", "dist", "build", ".code-intel", "__pycache__"}


class Server:
    """One `code-intel serve` process and a blocking JSON-RPC exchange over its stdio."""

    def __init__(self, binary: Path, root: Path, log: Path | None = None):
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log.open("w") if log else subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next_id = 0
        self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench-analysis", "version": "1"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        """The result of one request. Sets `received` (seconds from writing the request to
        having read the last byte of its response) and `decoded` (this client's `json.loads`
        of that response, which is not the server's time)."""
        self.next_id += 1
        started = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            read = time.perf_counter()
            if not line:
                raise RuntimeError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                self.received = read - started
                self.decoded = time.perf_counter() - read
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def call(self, tool: str, args: dict) -> tuple[float, dict]:
        """Seconds for one tools/call round trip (up to the response's last byte), and its
        structured result."""
        result = self.request("tools/call", {"name": tool, "arguments": args})
        if result.get("isError"):
            raise RuntimeError(f"{tool} {args}: {result.get('structuredContent')}")
        return self.received, result.get("structuredContent", {})

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def source_files(root: Path) -> list[tuple[str, int]]:
    """(relative path, line count) of the project's source files."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(SOURCE_EXTENSIONS):
                path = Path(dirpath) / name
                try:
                    lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
                except OSError:
                    continue
                out.append((str(path.relative_to(root)), lines))
    return sorted(out)


def closest(files: list[tuple[str, int]], lines: int) -> tuple[str, int] | None:
    candidates = [f for f in files if f[1] <= lines * 1.5]
    return min(candidates, key=lambda f: abs(f[1] - lines)) if candidates else None


def median_ms(server: Server, tool: str, args: dict, runs: int) -> tuple[float, float]:
    """Medians of the round trip and of the client's decode, in ms."""
    trips, decodes = [], []
    for _ in range(runs):
        trips.append(server.call(tool, args)[0])
        decodes.append(server.decoded)
    return statistics.median(trips) * 1000, statistics.median(decodes) * 1000


def measure(binary: Path, root: Path, runs: int = 20) -> list[dict]:
    """Rows of {label, ms, target_ms}: cold figures are single calls, warm ones medians."""
    state = root / ".code-intel"
    for name in ("outlines.json", "imports.bin", "symbols.bin"):
        (state / name).unlink(missing_ok=True)
    files = source_files(root)
    rows: list[dict] = []

    def row(label: str, ms: float | tuple[float, float], target: float | None) -> None:
        """`ms` is a single call's round trip (its decode taken from the server) or the medians
        `median_ms` returns."""
        trip, decode = ms if isinstance(ms, tuple) else (ms, server.decoded * 1000)
        rows.append({"label": label, "ms": trip, "decode_ms": decode, "target_ms": target})

    server = Server(binary, root)
    try:
        # One call on another file first: the server's one-time start-up work (grammars, the
        # stores' first load) is not a file's analysis.
        if files:
            server.call("analyze_file", {"path": files[0][0]})
        # analyze_file: a file's first call parses it, the next ones hit.
        for lines, target in ((100, 5), (1000, 20), (5000, 100)):
            picked = closest(files, lines)
            if picked is None:
                continue
            path, actual = picked
            first, _ = server.call("analyze_file", {"path": path})
            row(f"analyze_file {actual} lines, first call ({path})", first * 1000, target)
            row(f"analyze_file {actual} lines, cache hit", median_ms(server, "analyze_file", {"path": path}, runs), 1)

        cold, project = server.call("analyze_project", {"rootPath": "."})
        total = project["project"]["totalFiles"]
        row(f"analyze_project cold ({total} files)", cold * 1000, 3000)
        row(f"analyze_project warm ({total} files)", median_ms(server, "analyze_project", {"rootPath": "."}, max(3, runs // 4)), 500)

        # A symbol defined somewhere in the project, for an exact and a substring search.
        symbol = next((e["name"] for exports in project["exports"].values() for e in exports
                       if e["name"].isidentifier() and len(e["name"]) > 4), "main")
        first, answer = server.call("search_symbol", {"symbol": symbol})
        row(f"search_symbol exact, first call ({answer['filesScanned']} files)", first * 1000, None)
        row(f"search_symbol exact '{symbol}'", median_ms(server, "search_symbol", {"symbol": symbol}, runs), 100)
        row(f"search_symbol contains '{symbol[:4]}'", median_ms(
            server, "search_symbol", {"symbol": symbol[:4], "matchType": "contains"}, runs), 100)

        # The file with the most imports, for dependency lookups.
        busiest = max(files, key=lambda f: f[1])[0]
        best = 0
        for path, _ in files[:400]:
            _, out = server.call("get_dependencies", {"path": path})
            if len(out["imports"]) > best:
                best, busiest = len(out["imports"]), path
        row(f"get_dependencies depth 1 ({busiest}, {best} imports)",
            median_ms(server, "get_dependencies", {"path": busiest, "depth": 1}, runs), 10)
        row("get_dependencies depth 3", median_ms(server, "get_dependencies", {"path": busiest, "depth": 3}, runs), 200)
    finally:
        server.close()
    return rows


def subset(root: Path, count: int, into: Path) -> int:
    """Copies the first `count` source files of `root` (path order) and every manifest into
    `into`; returns the number of source files copied."""
    picked = [path for path, _ in source_files(root)[:count]]
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        picked.extend(str((Path(dirpath) / n).relative_to(root)) for n in filenames if n in MANIFESTS)
    for rel in picked:
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, into / rel)
    return min(count, len(source_files(root)))


def search_rows(binary: Path, root: Path, runs: int, target_ms: float) -> list[dict]:
    """search_symbol alone on a whole project: the first call (building the symbol index from no
    store) and warm exact / substring searches."""
    (root / ".code-intel" / "symbols.bin").unlink(missing_ok=True)
    files = len(source_files(root))
    rows: list[dict] = []
    server = Server(binary, root)
    try:
        first, answer = server.call("search_symbol", {"symbol": "Container"})
        rows.append({"label": f"search_symbol first call, no store ({answer['filesScanned']} files)",
                     "ms": first * 1000, "decode_ms": server.decoded * 1000, "target_ms": None})
        for label, args in ((f"search_symbol exact 'Container' ({files} files)", {"symbol": "Container"}),
                            (f"search_symbol contains 'Cont' ({files} files)",
                             {"symbol": "Cont", "matchType": "contains"})):
            trip, decode = median_ms(server, "search_symbol", args, runs)
            rows.append({"label": label, "ms": trip, "decode_ms": decode, "target_ms": target_ms})
    finally:
        server.close()
    return rows


def spec_rows(binary: Path, root: Path, runs: int) -> list[dict]:
    """Every row on a 1,000-file copy of `root`, then search_symbol on all of `root`."""
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        copied = subset(root, 1000, Path(tmp))
        rows = measure(binary, Path(tmp), runs)
        for r in rows:
            r["label"] = f"[{copied} files] {r['label']}"
    total = len(source_files(root))
    if total > 1000:
        rows += [dict(r, label=f"[{total} files] {r['label']}")
                 for r in search_rows(binary, root, runs, 300 if total >= 5000 else 100)]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "code-intel")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--spec", action="store_true",
                        help="rows at the targets' sizes: a 1,000-file copy, then search_symbol on everything")
    args = parser.parse_args()
    binary = args.bin if args.bin.is_file() else REPO / "target" / "debug" / "code-intel"
    print(f"binary: {binary}\nproject: {args.root.resolve()}\n")
    rows = spec_rows if args.spec else measure
    for r in rows(binary, args.root.resolve(), args.runs):
        target = r["target_ms"]
        mark = "" if target is None else ("ok" if r["ms"] <= target else "MISS")
        limit = "" if target is None else f"<= {target} ms"
        print(f"{r['label']:<90} {r['ms']:>9.2f} ms  {limit:<12} {mark:<4}  "
              f"(+{r['decode_ms']:.2f} ms client decode)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
