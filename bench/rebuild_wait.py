#!/usr/bin/env python3
"""How long `semantic_search` takes while `sync_index {force: true}` rebuilds the store: a server
on an indexed copy of a repository, a forced sync started, then searches one after another until
the sync answers. Prints each search's latency, whether it said it covers only part of the files
(`note`, `index_status.syncing`), and the sync's own time, per binary.

    bench/rebuild_wait.py --bin OLD --bin NEW --repo /tmp/symfony

The copy is indexed first with `lightweight_mode` (no model: the rebuild's lexical phase is what
a search could wait for). One server at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

QUERY = {"query": "where is the request routed to a controller", "n_results": 5}


async def measure(binary: Path, root: Path, log: Path) -> dict:
    params = StdioServerParameters(command=str(binary), args=["serve", "--root", str(root)])
    searches = []
    with open(log, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("semantic_search", QUERY)
                started = time.monotonic()
                sync = asyncio.create_task(
                    session.call_tool("sync_index", {"force": True}, read_timeout_seconds=1800)
                )
                await asyncio.sleep(1)
                while not sync.done():
                    t = time.monotonic()
                    out = await session.call_tool("semantic_search", QUERY, read_timeout_seconds=600)
                    data = out.structured_content or {}
                    searches.append({
                        "at_s": round(t - started, 1),
                        "ms": round((time.monotonic() - t) * 1000),
                        "results": len(data.get("results") or []),
                        "partial": bool(data.get("note")),
                        "syncing": (data.get("index_status") or {}).get("syncing"),
                    })
                sync_out = await sync
                assert not sync_out.is_error, sync_out
                sync_seconds = time.monotonic() - started
    ms = [s["ms"] for s in searches]
    return {
        "sync_s": round(sync_seconds, 1),
        "searches": len(ms),
        "median_ms": round(statistics.median(ms)) if ms else None,
        "max_ms": max(ms) if ms else None,
        "partial": sum(s["partial"] for s in searches),
        "each": searches,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, action="append", required=True)
    parser.add_argument("--repo", type=Path, required=True)
    args = parser.parse_args()
    for binary in args.bin:
        with tempfile.TemporaryDirectory(prefix="rebuild-wait-") as tmp:
            root = Path(tmp) / args.repo.name
            shutil.copytree(args.repo, root, symlinks=True, ignore=shutil.ignore_patterns(".code-intel", ".git"))
            (root / ".code-intel").mkdir()
            (root / ".code-intel" / "config.json").write_text(json.dumps({"lightweight_mode": True}))
            subprocess.run([str(binary), "index", "--root", str(root), "--json"], check=True,
                           capture_output=True, timeout=1800)
            figures = asyncio.run(measure(binary.resolve(), root, Path(tmp) / "server.log"))
        each = figures.pop("each")
        print(f"{binary}: {json.dumps(figures)}")
        for s in each:
            print(f"  {json.dumps(s)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
