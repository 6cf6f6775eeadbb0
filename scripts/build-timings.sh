#!/usr/bin/env bash
# Where a cold build's minutes go: builds what scripts/setup.sh builds (`--bins --tests`) into an
# empty target directory with cargo's --timings, then prints wall and CPU time, the most
# expensive crates, time per dependency family and the critical path (scripts/build/timings.py).
#
# Usage: scripts/build-timings.sh [DIR]   build in DIR (default: a fresh temporary directory,
#                                         removed afterwards; cargo's HTML report is kept in
#                                         target/build-timings/)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="${1:-}"
cleanup=""
if [[ -z "$dir" ]]; then
  dir="$(mktemp -d)"
  cleanup="$dir"
fi
if [[ -n "$(ls -A "$dir" 2>/dev/null)" ]]; then
  echo "build-timings: $dir is not empty; a cold build needs an empty directory" >&2
  exit 1
fi
python3 scripts/build/timings.py --target-dir "$dir" -- --locked --bins --tests
mkdir -p target/build-timings
cp "$dir/cargo-timings/cargo-timing.html" "target/build-timings/cargo-timing-$(date +%Y%m%dT%H%M%S).html"
[[ -n "$cleanup" ]] && rm -rf "$cleanup"
exit 0
