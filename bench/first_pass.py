#!/usr/bin/env python3
"""How long a large repository waits for meaning: `code-intel index` on a fresh copy with an
empty embedding cache (a fresh machine), its progress read line by line with a timestamp. Prints,
per binary, when the lexical index was done, when every chunk had a vector of some pass (the head
pass; for a binary without one, when every chunk had its whole vector), the rate of each pass and
the process's peak resident memory. `--limit` stops the run after that many seconds; a pass not
finished by then is extrapolated from its own rate and marked so.

    bench/first_pass.py --bin target/debug/code-intel [--bin OTHER] --repo /tmp/symfony --limit 900

Runs one binary at a time: the figures are for one indexer on the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# `embed heads: 5026/66562 ETA …` or `embed: 1520/66562 …` (the progress bar, one line per draw).
PROGRESS = re.compile(r"^(index|embed heads|embed): (\d+)/(\d+)")


def run(binary: Path, repo: Path, limit: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="first-pass-") as tmp:
        root = Path(tmp) / repo.name
        shutil.copytree(repo, root, ignore=shutil.ignore_patterns(".code-intel", ".git"))
        env = {**os.environ, "CODE_INTEL_VECTOR_CACHE_DIR": str(Path(tmp) / "vectors")}
        started = time.monotonic()
        proc = subprocess.Popen([str(binary), "index", "--root", str(root)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seen: dict[str, list[tuple[float, int, int]]] = {}
        buffer = b""
        os.set_blocking(proc.stderr.fileno(), False)
        while proc.poll() is None and time.monotonic() - started < limit:
            time.sleep(0.2)
            chunk = proc.stderr.read() or b""
            buffer += chunk
            *lines, buffer = re.split(rb"[\r\n]", buffer)
            now = time.monotonic() - started
            for line in lines:
                m = PROGRESS.match(line.decode("utf-8", "replace").strip())
                if m:
                    seen.setdefault(m[1], []).append((now, int(m[2]), int(m[3])))
        finished = proc.poll() is not None
        if not finished:
            proc.terminate()
            proc.wait()
        wall = time.monotonic() - started
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seen": seen, "finished": finished, "wall": wall, "peak_mb": peak_kb / 1024}


def pass_figures(points: list[tuple[float, int, int]]) -> tuple[float, float, float, bool]:
    """(start, end, rate, extrapolated) of one pass from its progress points."""
    start, _, total = points[0]
    end, done, total = points[-1]
    rate = done / max(end - start, 1e-9)
    if done >= total:
        return start, end, rate, False
    return start, start + total / max(rate, 1e-9), rate, True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, action="append", required=True)
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--limit", type=float, default=900.0, help="seconds before the run is stopped")
    args = ap.parse_args()
    for binary in args.bin:
        # Peak memory is per child: each binary gets a fresh interpreter so the figure is its own.
        if len(args.bin) > 1:
            subprocess.run([sys.executable, __file__, "--bin", str(binary), "--repo", str(args.repo),
                            "--limit", str(args.limit)], check=True)
            continue
        r = run(binary, args.repo, args.limit)
        print(f"{binary} on {args.repo.name}: ran {r['wall']:.0f} s"
              f"{'' if r['finished'] else ' (stopped at the limit)'}, peak RSS {r['peak_mb']:.0f} MB")
        if "index" in r["seen"]:
            print(f"  lexical index done at {r['seen']['index'][-1][0]:.0f} s")
        for phase, label in (("embed heads", "every chunk's head"), ("embed", "every chunk whole")):
            points = r["seen"].get(phase)
            if not points:
                continue
            start, end, rate, extrapolated = pass_figures(points)
            print(f"  {label}: {points[-1][2]} chunks at {rate:.1f}/s, "
                  f"{'would be ' if extrapolated else ''}done at {end:.0f} s ({end / 60:.1f} min)"
                  f"{' (extrapolated from its rate)' if extrapolated else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
