#!/usr/bin/env python3
"""The machine's embedding cache at work: `code-intel index` on a fresh copy of a repository with
an empty cache (the cold figure), then on a second copy (a second worktree or clone of the same
commit), then on that copy after a change to every tenth source file (a branch switch). Prints
wall time, chunks and the cache's hits, misses and vectors added for each step.

    bench/worktree_cache.py --bin target/debug/code-intel --repo /tmp/eval-repos/lemmy
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMENT = {".py": "#", ".rb": "#", ".rs": "//", ".go": "//", ".js": "//", ".ts": "//",
           ".tsx": "//", ".jsx": "//", ".php": "//", ".java": "//", ".vue": None}


def index(binary: Path, root: Path, env: dict) -> dict:
    started = time.monotonic()
    out = subprocess.run([str(binary), "index", "--root", str(root), "--json"],
                         env={**os.environ, **env}, check=True, capture_output=True, text=True)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    summary["wall_s"] = time.monotonic() - started
    return summary


def touch_every_tenth(root: Path) -> int:
    files = sorted(p for p in root.rglob("*")
                   if p.is_file() and COMMENT.get(p.suffix) and ".code-intel" not in p.parts)
    touched = 0
    for i, path in enumerate(files):
        if i % 10 == 0:
            with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
                f.write(f"\n{COMMENT[path.suffix]} changed on another branch\n")
            touched += 1
    return touched


def line(step: str, s: dict) -> str:
    cache = s.get("vector_cache") or {}
    hits, misses = cache.get("hits", 0), cache.get("misses", 0)
    rate = 100.0 * hits / (hits + misses) if hits + misses else 0.0
    return (f"{step:34} {s['wall_s']:7.1f} s  {s['chunks']:6} chunks ({s['embedded']} embedded), "
            f"{s['added']} added / {s['modified']} modified files; cache hits {hits}, misses {misses} "
            f"({rate:.0f}% hit), vectors computed {cache.get('written', 0)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, required=True)
    ap.add_argument("--repo", type=Path, required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = {"CODE_INTEL_VECTOR_CACHE_DIR": str(tmp / "vectors")}
        ignore = shutil.ignore_patterns(".code-intel")
        first = tmp / "first"
        shutil.copytree(args.repo, first, symlinks=True, ignore=ignore)
        cold = index(args.bin, first, env)
        print(line("first checkout (empty cache)", cold), flush=True)
        second = tmp / "second"
        shutil.copytree(args.repo, second, symlinks=True, ignore=ignore)
        warm = index(args.bin, second, env)
        print(line("second worktree", warm), flush=True)
        touched = touch_every_tenth(second)
        switched = index(args.bin, second, env)
        print(line(f"branch switch ({touched} files changed)", switched), flush=True)
        print(json.dumps({"repo": args.repo.name, "cold": cold, "second": warm,
                          "switch": switched, "touched": touched}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
