#!/usr/bin/env python3
"""Load and faults over MCP on a real repository: concurrent tool calls of every kind while a
forced sync runs and files change under it; prints the calls, errors by code, p50/p99 latency
during the sync (per tool too) and the store's chunks against a clean index of the same files.

    bench/load.py --bin target/debug/code-intel --repo /tmp/eval-repos/healthchecks \
        [--calls 100] [--changes 1000]

The repository is copied first (the run changes files); the copy's machine embedding cache is
the user's own, as a developer's server would have it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))
from load import run_load  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, required=True)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--changes", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="code-intel-load-") as tmp:
        work = Path(tmp)
        root = work / args.repo.name
        shutil.copytree(args.repo, root, symlinks=True, ignore=shutil.ignore_patterns(".code-intel", ".git"))
        report = asyncio.run(run_load(args.bin.resolve(), root, work, args.calls, args.changes))
    figures = report.as_dict()
    print(json.dumps(figures, indent=2))
    same = (report.chunks, report.files) == (report.clean_chunks, report.clean_files)
    print(f"store against a clean index: {'same' if same else 'DIFFERENT'} "
          f"({report.chunks} / {report.clean_chunks} chunks, {report.files} / {report.clean_files} files)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
