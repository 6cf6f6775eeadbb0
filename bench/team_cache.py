#!/usr/bin/env python3
"""Vectors computed once: per machine, then per team. On one repository, in one run:

1. `code-intel index` on a fresh copy with an empty machine cache and no team cache (the cold
   figure);
2. `code-intel index --publish` on that copy: every text offered to a team cache on a real
   S3-compatible server on loopback (moto, authentication on), vectors from the machine cache;
3. a second copy of the same commit on the same machine (a second worktree): every vector from
   the machine cache;
4. that copy after a change to every tenth source file (a branch switch);
5. a third copy on a "fresh machine" (an empty machine cache) with the team cache, read with a
   read-only key: every vector from the team cache.

Prints wall time, chunks and the hits, misses and vectors computed of each step, then one JSON
object with everything.

    ~/.cache/code-intel/venv-e2e/bin/python bench/team_cache.py --bin target/debug/code-intel \\
        --repo /tmp/sf3k
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))
from s3server import BUCKET, S3  # noqa: E402
from worktree_cache import touch_every_tenth  # noqa: E402


def index(binary: Path, root: Path, env: dict, *extra: str) -> dict:
    started = time.monotonic()
    out = subprocess.run([str(binary), "index", "--root", str(root), "--json", *extra],
                         env={**os.environ, **env}, check=True, capture_output=True, text=True)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    summary["wall_s"] = time.monotonic() - started
    return summary


def line(step: str, s: dict) -> str:
    machine = s.get("vector_cache") or {}
    team = s.get("remote_cache") or {}
    text = (f"{step:38} {s['wall_s']:7.1f} s  {s['chunks']:6} chunks ({s['embedded']} embedded, "
            f"{s['head_only']} head only); machine cache {machine.get('hits', 0)} hits / "
            f"{machine.get('misses', 0)} misses")
    if team:
        asked = team["hits"] + team["misses"]
        rate = 100.0 * team["hits"] / asked if asked else 0.0
        text += f"; team cache {team['state']}, {team['hits']} hits / {team['misses']} misses ({rate:.0f}%)"
    computed = machine.get("written", 0) - team.get("hits", 0)
    text += f"; vectors computed {computed}"
    if s.get("published"):
        p = s["published"]
        text += f"; published {p['added']} of {p['offered']} ({p['present']} already there)"
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, required=True)
    ap.add_argument("--repo", type=Path, required=True)
    args = ap.parse_args()
    binary = args.bin.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        s3 = S3(tmp)
        try:
            uri = f"s3://{BUCKET}/{args.repo.name}"
            ignore = shutil.ignore_patterns(".code-intel")
            copies = {}
            for name in ("first", "second", "fresh"):
                copies[name] = tmp / name / args.repo.name
                shutil.copytree(args.repo, copies[name], symlinks=True, ignore=ignore)
            machine = {"CODE_INTEL_VECTOR_CACHE_DIR": str(tmp / "machine")}
            results = {}
            results["cold"] = index(binary, copies["first"], machine)
            print(line("first checkout (empty caches)", results["cold"]), flush=True)
            results["publish"] = index(binary, copies["first"], {**machine, **s3.env(s3.writer, uri)},
                                       "--publish")
            print(line("index --publish (CI)", results["publish"]), flush=True)
            results["second"] = index(binary, copies["second"], machine)
            print(line("second worktree (machine cache)", results["second"]), flush=True)
            touched = touch_every_tenth(copies["second"])
            results["switch"] = index(binary, copies["second"], machine)
            print(line(f"branch switch ({touched} files changed)", results["switch"]), flush=True)
            fresh = {"CODE_INTEL_VECTOR_CACHE_DIR": str(tmp / "fresh-machine"), **s3.env(s3.reader, uri)}
            results["fresh"] = index(binary, copies["fresh"], fresh)
            print(line("fresh machine (team cache)", results["fresh"]), flush=True)
            print(json.dumps({"repo": args.repo.name, "touched": touched, **results}))
        finally:
            s3.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
