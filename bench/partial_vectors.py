#!/usr/bin/env python3
"""Ranking while the index is being embedded: NDCG@10 of the retrieval dev set's requests asked of
a fresh `code-intel serve` at fixed times after its start, next to the same requests answered
lexical-only (`lightweight_mode`), on the same checkouts in the same run.

For each repository, binary and moment: a fresh copy (no `.code-intel/`) and an empty embedding
cache (a fresh machine), one server started over MCP (the official Python SDK), every request of
`tests/eval/real/<name>.jsonl` asked once the given number of seconds has passed since the start,
with the index's coverage at that moment (embedded / chunks) and the p50/p95 latency of
`semantic_search` printed beside the score. `--lexical` adds the first binary in
`lightweight_mode`; `--full` adds it on a copy indexed to the last vector first (`code-intel
index`). Servers run one at a time: the figures are for one indexer on the machine.

    bench/partial_vectors.py --bin target/debug/code-intel [--bin OTHER] --after 10 --after 60 \\
        --after 300 --repos lemmy healthchecks miniflux [--lexical] [--full]

Needs the checkouts from tests/eval/fetch_repos.sh and the e2e venv (the `mcp` package).
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
sys.path.insert(0, str(REPO / "tests" / "eval"))
import run_eval  # noqa: E402


async def measure(binary: Path, root: Path, queries: list, after: float, lexical: bool,
                  env: dict, wait_for_model: bool = False) -> dict:
    if lexical:
        (root / ".code-intel").mkdir(exist_ok=True)
        (root / ".code-intel" / "config.json").write_text(json.dumps({"lightweight_mode": True}))
    params = StdioServerParameters(command=str(binary), args=["serve", "--root", str(root)],
                                   env={**os.environ, **env})
    started = time.monotonic()
    with open(root.parent / "server.stderr", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await asyncio.sleep(max(0.0, after - (time.monotonic() - started)))
                while wait_for_model and time.monotonic() - started < 300:
                    # Fully indexed: the requests are asked once the model has loaded.
                    probe = await session.call_tool(
                        "semantic_search", {"query": "warm up", "n_results": 1},
                        read_timeout_seconds=120)
                    if ((probe.structured_content or {}).get("index_status") or {}).get("model") == "ready":
                        break
                    await asyncio.sleep(1.0)
                scores, status, latencies = [], None, []
                for q in queries:
                    t = time.monotonic()
                    result = await session.call_tool(
                        "semantic_search", {"query": q.query, "collection": "forest", "n_results": 10},
                        read_timeout_seconds=120,
                    )
                    latencies.append((time.monotonic() - t) * 1000)
                    data = result.structured_content or {}
                    status = data.get("index_status", status)
                    ranked = run_eval.dedupe([r["file"] for r in data.get("results", [])])
                    scores.append(run_eval.ndcg_at(ranked, q.grades, 10))
    latencies.sort()
    return {
        "ndcg10": sum(scores) / len(scores),
        "chunks": (status or {}).get("chunks"),
        "embedded": (status or {}).get("embedded"),
        "p50_ms": latencies[len(latencies) // 2],
        "p95_ms": latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, action="append", required=True, help="binaries to compare")
    ap.add_argument("--after", type=float, action="append", default=None, help="seconds after start (repeatable)")
    ap.add_argument("--repos", nargs="+", required=True)
    ap.add_argument("--repos-dir", type=Path, default=Path(run_eval.DEFAULT_REPOS_DIR))
    ap.add_argument("--lexical", action="store_true", help="also the first binary in lightweight_mode")
    ap.add_argument("--full", action="store_true", help="also the first binary fully indexed")
    ap.add_argument("--only-full", action="store_true", help="only the fully indexed row")
    args = ap.parse_args()
    afters = args.after or [60.0]
    rows = []
    for name in args.repos:
        queries = run_eval.load_queries(REPO / "tests" / "eval" / "real" / f"{name}.jsonl")
        runs = [] if args.only_full else [(b, a, "partial") for b in args.bin for a in afters]
        if args.lexical:
            runs.insert(0, (args.bin[0], 0.0, "lexical"))
        if args.full:
            runs.append((args.bin[0], 0.0, "full"))
        for binary, after, kind in runs:
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / name
                shutil.copytree(args.repos_dir / name, root, symlinks=True,
                                ignore=shutil.ignore_patterns(".code-intel"))
                # A fresh machine: nothing embedded before, in this checkout or another.
                env = {"CODE_INTEL_VECTOR_CACHE_DIR": str(Path(tmp) / "vectors")}
                if kind == "full":
                    subprocess.run([str(binary), "index", "--root", str(root), "--json"],
                                   env={**os.environ, **env}, check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                r = asyncio.run(measure(binary, root, queries, after, kind == "lexical", env,
                                        wait_for_model=kind == "full"))
            label = {"lexical": "lexical-only", "full": "fully indexed"}.get(kind, str(binary))
            row = {"repo": name, "binary": label, "after_s": after, **r}
            rows.append(row)
            cover = f"{r['embedded']}/{r['chunks']}" if r["chunks"] else "-"
            print(f"{name:14} {label:40} after {after:5.0f} s  NDCG@10 {r['ndcg10']:.3f}  "
                  f"embedded {cover:>12}  p50 {r['p50_ms']:.0f} ms  p95 {r['p95_ms']:.0f} ms",
                  flush=True)
    print("\nmean over repositories")
    keys = sorted({(r["binary"], r["after_s"]) for r in rows}, key=lambda k: (k[0], k[1]))
    for label, after in keys:
        sel = [r for r in rows if r["binary"] == label and r["after_s"] == after]
        mean = sum(r["ndcg10"] for r in sel) / len(sel)
        p95 = max(r["p95_ms"] for r in sel)
        print(f"  {label:40} after {after:5.0f} s  NDCG@10 {mean:.3f}  worst p95 {p95:.0f} ms "
              f"({len(sel)} repos)")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
