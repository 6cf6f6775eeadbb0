#!/usr/bin/env python3
"""Where a build's minutes go: runs `cargo build --timings` and summarises cargo's report.

Prints the wall and CPU time of the build, the most expensive units (crate + what was built:
lib, build script, test...), the time per dependency family, and the critical path: the chain of
units, each waiting for the one before, that set the build's length on this machine.

Usage: scripts/build/timings.py [--target-dir DIR] [--report HTML] [--top N] [-- CARGO ARGS]
  --report HTML   only summarise an existing cargo-timing.html (no build)
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time


def run_build(target_dir, cargo_args):
    env = dict(os.environ, CARGO_TARGET_DIR=target_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(["cargo", "build", "--timings", *cargo_args], env=env)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"build-timings: cargo build failed with exit code {proc.returncode}")
    return wall, cpu, os.path.join(target_dir, "cargo-timings", "cargo-timing.html")


def load_units(report):
    text = open(report, encoding="utf-8").read()
    match = re.search(r"const UNIT_DATA = (\[.*?\]);\s*\n", text, re.S)
    if not match:
        sys.exit(f"build-timings: no UNIT_DATA in {report} (cargo's report format changed?)")
    return json.loads(match.group(1))


def label(unit):
    target = unit.get("target", "").strip()
    return f"{unit['name']} {unit['version']}{target}"


FAMILIES = [
    ("lance / lancedb", re.compile(r"^(lance|lancedb)")),
    ("datafusion", re.compile(r"^datafusion")),
    ("arrow", re.compile(r"^arrow")),
    ("code-intel", re.compile(r"^code-intel$")),
    ("tree-sitter grammars", re.compile(r"^tree-sitter")),
    ("tokenizers / onnx", re.compile(r"^(tokenizers|ort|fastembed|tiktoken|ndarray)")),
    ("tokio / network", re.compile(r"^(tokio|hyper|h2|reqwest|rustls|ring|object_store|tower|aws)")),
    ("text search / walk", re.compile(r"^(regex|grep|ignore|globset|aho-corasick|memchr|bstr)")),
]


def family(name):
    for fam, pattern in FAMILIES:
        if pattern.search(name):
            return fam
    return "other"


def critical_path(units):
    """Walks back from the unit that finished last through the unit whose end unblocked it."""
    by_index = {u["i"]: u for u in units}
    unblocker = {}
    for u in units:
        for j in u.get("unblocked_units", []) + u.get("unblocked_rmeta_units", []):
            # The latest finisher among a unit's prerequisites is what it waited for.
            end = u["start"] + u["duration"]
            if j not in unblocker or end > unblocker[j][0]:
                unblocker[j] = (end, u["i"])
    last = max(units, key=lambda u: u["start"] + u["duration"])
    chain = [last]
    while chain[-1]["i"] in unblocker:
        chain.append(by_index[unblocker[chain[-1]["i"]][1]])
    return list(reversed(chain))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target-dir")
    ap.add_argument("--report")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("cargo_args", nargs="*")
    args = ap.parse_args()

    wall = cpu = None
    report = args.report
    if report is None:
        if not args.target_dir:
            sys.exit("build-timings: give --target-dir (an empty directory for a cold build) or --report")
        wall, cpu, report = run_build(args.target_dir, args.cargo_args or ["--locked", "--bins", "--tests"])
    units = load_units(report)
    total_unit = sum(u["duration"] for u in units)
    span = max(u["start"] + u["duration"] for u in units)

    print(f"units built: {len(units)}")
    if wall is not None:
        print(f"wall: {wall / 60:.1f} min ({wall:.0f} s)   CPU (user+sys): {cpu / 60:.1f} min   "
              f"parallelism: {cpu / wall:.2f}")
    print(f"sum of unit times: {total_unit / 60:.1f} min   span of the report: {span / 60:.1f} min")
    print()
    print(f"{args.top} most expensive units (seconds):")
    for u in sorted(units, key=lambda u: -u["duration"])[: args.top]:
        print(f"  {u['duration']:7.1f}  {label(u)}")
    print()
    print("time per family (sum of unit seconds):")
    fams = {}
    for u in units:
        fams.setdefault(family(u["name"]), [0.0, 0])
        fams[family(u["name"])][0] += u["duration"]
        fams[family(u["name"])][1] += 1
    for fam, (secs, n) in sorted(fams.items(), key=lambda kv: -kv[1][0]):
        print(f"  {secs:7.1f}  {fam} ({n} units)")
    print()
    chain = critical_path(units)
    print(f"critical path ({len(chain)} units, ends at {span:.0f} s):")
    for u in chain:
        print(f"  {u['start']:7.1f} +{u['duration']:6.1f}  {label(u)}")


if __name__ == "__main__":
    main()
