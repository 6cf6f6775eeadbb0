#!/usr/bin/env bash
# Installs the tools the benchmark compares against, from Debian packages: ripgrep,
# universal-ctags and hyperfine (repeated timing). Each one is optional: bench/run.sh skips a
# comparison, with a message, when its tool is missing, so a failure here is reported, not fatal.
set -uo pipefail

wanted=(ripgrep universal-ctags hyperfine)
missing=()
command -v rg >/dev/null || missing+=(ripgrep)
{ ctags --version 2>/dev/null | grep -q "Universal Ctags"; } || missing+=(universal-ctags)
command -v hyperfine >/dev/null || missing+=(hyperfine)
if [[ ${#missing[@]} -eq 0 ]]; then
    echo "bench setup: ${wanted[*]} already installed"
    exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then
        sudo=(sudo)
    else
        echo "bench setup: not root and no sudo; install ${missing[*]} yourself (the bench skips what is absent)" >&2
        exit 0
    fi
fi
if ! command -v apt-get >/dev/null; then
    echo "bench setup: no apt-get; install ${missing[*]} with your package manager (the bench skips what is absent)" >&2
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || echo "bench setup: apt-get update failed; trying the install anyway" >&2
for pkg in "${missing[@]}"; do
    if "${sudo[@]}" apt-get install -y -qq "$pkg" >/dev/null 2>&1; then
        echo "bench setup: installed $pkg"
    else
        echo "bench setup: could not install $pkg; its comparison will be skipped" >&2
    fi
done
exit 0
