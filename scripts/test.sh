#!/usr/bin/env bash
# Run every test: Rust unit and integration tests, then the end-to-end suite that drives the
# real binary through the official MCP Python SDK over stdio. Run scripts/setup.sh first on a
# fresh machine (scripts/demo.sh does).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv="${CODE_INTEL_VENV:-$HOME/.cache/code-intel/venv-e2e}"
target="${CARGO_TARGET_DIR:-target}"

echo "== cargo test" >&2
cargo test --locked

echo "== end-to-end (MCP Python SDK over stdio)" >&2
cargo build --locked --bins
CODE_INTEL_CLAUDE="${CODE_INTEL_CLAUDE:-${CODE_INTEL_CLAUDE_DIR:-$HOME/.cache/code-intel/claude-code}/node_modules/.bin/claude}" \
CODE_INTEL_BIN="$(cd "$target" && pwd)/debug/code-intel" "$venv/bin/python" -m pytest -q tests/e2e

echo "== evaluation runner self-tests" >&2
"$venv/bin/python" -m pytest -q tests/eval/test_run_eval.py
