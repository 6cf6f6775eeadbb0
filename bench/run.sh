#!/usr/bin/env bash
# The code-intel benchmark: prints figures and ratios against ripgrep and universal-ctags run in
# the same run on the same directory (the core tools' performance targets). It measures; it never fails
# on a slow figure. See bench/README.md.
#
#   bench/run.sh [options] DIR        e.g. bench/run.sh /tmp/bench-repos/symfony
#   bench/run.sh --help               all options (runs, probe symbols, patterns, sections, JSON)
#
# The binary: $CODE_INTEL_BIN, else target/release/code-intel, else target/debug/code-intel. It
# is copied to a temporary directory first so a rebuild during the run cannot change it midway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"

python="$(command -v python3 || true)"
if [[ -z "$python" ]]; then
    echo "bench: python3 is required" >&2
    exit 2
fi

for arg in "$@"; do
    if [[ "$arg" == "-h" || "$arg" == "--help" ]]; then
        exec "$python" "$here/bench.py" --bin code-intel --help
    fi
done

if [[ -n "${CODE_INTEL_BIN:-}" ]]; then
    bin="$CODE_INTEL_BIN"
    label="$bin (CODE_INTEL_BIN)"
elif [[ -x "$repo/target/release/code-intel" ]]; then
    bin="$repo/target/release/code-intel"
    label="target/release/code-intel (release profile)"
elif [[ -x "$repo/target/debug/code-intel" ]]; then
    bin="$repo/target/debug/code-intel"
    label="target/debug/code-intel (dev profile: dependencies optimised, this crate opt-level 1)"
else
    echo "bench: no code-intel binary; run 'cargo build --release' or set CODE_INTEL_BIN" >&2
    exit 2
fi
if [[ ! -x "$bin" ]]; then
    echo "bench: $bin is not an executable" >&2
    exit 2
fi

for tool in rg ctags; do
    command -v "$tool" >/dev/null || echo "bench: $tool not found; its comparison is skipped (bench/setup.sh installs it)" >&2
done
command -v hyperfine >/dev/null || echo "bench: hyperfine not found; timing with a Python loop instead (bench/setup.sh installs it)" >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/code-intel-bench-bin.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/code-intel"
built="$(date -r "$bin" '+%Y-%m-%d %H:%M')"

# Tool calls must not pick up a user's logging or ripgrep configuration.
unset CODE_INTEL_LOG RIPGREP_CONFIG_PATH
"$python" "$here/bench.py" --bin "$work/code-intel" --bin-label "$label, built $built" "$@"
