#!/usr/bin/env python3
"""Two indexers at once: the wall time of `code-intel index` on a project alone, then on two
copies of it started together, and the latency of `find_definitions` asked of a third server
(over MCP, the official Python SDK) every 200 ms while both run.

Each indexer runs with the machine's embedding cache off (`CODE_INTEL_VECTOR_CACHE_MB=0`), so
both really embed every chunk: the figure is how the two share the cores, not what the cache
saves. A fair share of two cores is 2x the lone time.

    bench/concurrent_indexers.py --bin target/debug/code-intel [--project fixtures/laravel-shop]
        [--symbol SYMBOL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
NO_CACHE = {"CODE_INTEL_VECTOR_CACHE_MB": "0"}


def index_cmd(binary: Path, root: Path) -> list[str]:
    return [str(binary), "index", "--root", str(root), "--json"]


def fresh_copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".code-intel"))
    return dest


def timed_index(binary: Path, root: Path) -> float:
    started = time.monotonic()
    subprocess.run(index_cmd(binary, root), env={**os.environ, **NO_CACHE}, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


async def probe_during(binary: Path, served: Path, symbol: str, roots: list[Path]) -> dict:
    # The probed server answers from symbols only (lightweight): it embeds nothing itself.
    (served / ".code-intel").mkdir(exist_ok=True)
    (served / ".code-intel" / "config.json").write_text(json.dumps({"lightweight_mode": True}))
    params = StdioServerParameters(command=str(binary), args=["serve", "--root", str(served)],
                                   env={**os.environ, **NO_CACHE})
    with open(served.parent / "probe.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                # Warm: the first call builds the symbol index.
                await session.call_tool("find_definitions", {"symbol": symbol})
                started = time.monotonic()
                procs = [subprocess.Popen(index_cmd(binary, r), env={**os.environ, **NO_CACHE},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                         for r in roots]
                ends: dict[int, float] = {}
                latencies = []
                while len(ends) < len(procs):
                    t = time.monotonic()
                    result = await session.call_tool("find_definitions", {"symbol": symbol})
                    latencies.append((time.monotonic() - t) * 1000)
                    assert not result.is_error, result
                    for i, p in enumerate(procs):
                        if i not in ends and p.poll() is not None:
                            ends[i] = time.monotonic() - started
                            assert p.returncode == 0, f"indexer {i} exited {p.returncode}"
                    await asyncio.sleep(0.2)
    latencies.sort()
    return {
        "walls": [ends[i] for i in range(len(procs))],
        "calls": len(latencies),
        "p50_ms": latencies[len(latencies) // 2],
        "p95_ms": latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))],
        "max_ms": latencies[-1],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, required=True)
    ap.add_argument("--project", type=Path, default=REPO / "fixtures" / "laravel-shop")
    ap.add_argument("--symbol", default="OrderController")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        alone = timed_index(args.bin, fresh_copy(args.project, tmp / "alone"))
        a = fresh_copy(args.project, tmp / "a")
        b = fresh_copy(args.project, tmp / "b")
        served = fresh_copy(args.project, tmp / "served")
        r = asyncio.run(probe_during(args.bin, served, args.symbol, [a, b]))
    print(f"{args.project.name}: alone {alone:.1f} s; two at once {r['walls'][0]:.1f} s and "
          f"{r['walls'][1]:.1f} s ({max(r['walls']) / alone:.2f}x the lone time; a fair share is 2x)")
    print(f"find_definitions during both: {r['calls']} calls, p50 {r['p50_ms']:.0f} ms, "
          f"p95 {r['p95_ms']:.0f} ms, max {r['max_ms']:.0f} ms")
    print(json.dumps({"project": args.project.name, "alone_s": alone, **r}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
