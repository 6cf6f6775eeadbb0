#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (targets in fuzz/fuzz_targets, seeds in fuzz/corpus,
# crash reproducers in fuzz/regressions).
#
#   scripts/fuzz.sh list                      the targets
#   scripts/fuzz.sh build                     build every target
#   scripts/fuzz.sh smoke [SECONDS] [JOBS]    build, replay every regression input, then run each
#                                             target SECONDS (default 30) from its seeds, JOBS at
#                                             a time (default 2); fails on any crash
#   scripts/fuzz.sh run TARGET SECONDS [ARGS] one long run (ARGS go to libFuzzer); the corpus
#                                             it grows is kept under the build directory
#   scripts/fuzz.sh unsupported               prints why fuzzing cannot run here and exits 0,
#                                             or exits 1 when it can
#
# The build needs no nightly: it is the dev profile in a build directory whose dependencies are
# hard links to the main one's (nothing is copied or rebuilt), and only this workspace's crates
# get libFuzzer's coverage instrumentation (scripts/fuzz-rustc.sh). Without a sanitizer, memory
# errors in C code (the grammars) show only when they crash; `cargo +nightly fuzz run TARGET`
# builds the same targets with AddressSanitizer, at the price of a cold build of everything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
main="${CARGO_TARGET_DIR:-$root/target}"
main=$(mkdir -p "$main" && cd "$main" && pwd)
dir="$main/sancov"
bins="$dir/debug"
# Exit status of a target that cannot run here (the tokens target without the model).
skip_status=75

# Every target but `any`, the binary that runs them all (one link instead of one per target:
# each is as large as the server).
targets() { ls fuzz/fuzz_targets | sed 's/\.rs$//' | grep -vx any; }

unsupported() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64 | Linux-aarch64 | Darwin-*) ;;
    *) echo "libFuzzer is not set up for $(uname -s) $(uname -m)"; return 0 ;;
  esac
  # libfuzzer-sys compiles libFuzzer itself, which is C++.
  if ! command -v "${CXX:-c++}" >/dev/null && ! command -v g++ >/dev/null \
    && ! command -v clang++ >/dev/null; then
    echo "no C++ compiler to build libFuzzer with"
    return 0
  fi
  return 1
}

# The instrumented build's directory: the main build's dependencies and build-script outputs
# as hard links, its fingerprints as copies (cargo rewrites those in place). Files are only
# added, never replaced, so this workspace's own artifacts here stay the instrumented ones.
prepare() {
  mkdir -p "$bins"
  [[ -d "$main/debug" ]] || return 0
  cp -p "$main/.rustc_info.json" "$dir/" 2>/dev/null || true
  local sub mode f
  for sub in deps build .fingerprint; do
    [[ -d "$main/debug/$sub" ]] || continue
    mode=link
    [[ $sub == .fingerprint ]] && mode=copy
    if [[ ! -e "$bins/$sub" ]]; then
      if [[ $mode == link ]]; then cp -al "$main/debug/$sub" "$bins/"; else cp -a "$main/debug/$sub" "$bins/"; fi
      continue
    fi
    (cd "$main/debug/$sub" && find . -mindepth 1 -type d) | while read -r f; do mkdir -p "$bins/$sub/$f"; done
    (cd "$main/debug/$sub" && find . ! -type d) | while read -r f; do
      [[ -e "$bins/$sub/$f" ]] && continue
      if [[ $mode == link ]]; then ln "$main/debug/$sub/$f" "$bins/$sub/$f"; else cp -p "$main/debug/$sub/$f" "$bins/$sub/$f"; fi
    done
  done
  # This workspace's artifacts are rebuilt instrumented: drop any still shared with the main
  # build, so that rustc never writes through a link into it.
  for f in "$bins"/deps/*code_intel* "$bins"/deps/code-intel*; do
    [[ -e $f && $f -ef "$main/debug/deps/${f##*/}" ]] && rm -f "$f"
  done
  return 0
}

build() {
  prepare
  local start=$SECONDS
  RUSTC_WORKSPACE_WRAPPER="$root/scripts/fuzz-rustc.sh" CARGO_TARGET_DIR="$dir" \
    CARGO_INCREMENTAL=0 cargo build --locked -p code-intel-fuzz --bin any
  echo "[fuzz] built in $((SECONDS - start)) s" >&2
}

# Runs one target: replays its regression inputs, then fuzzes for $2 seconds from its seeds.
# The libFuzzer log goes to $dir/logs/TARGET.log; prints one summary line.
one() {
  local target=$1 seconds=$2
  shift 2
  local bin="$bins/any" corpus="$dir/corpus/$target" log="$dir/logs/$target.log"
  mkdir -p "$corpus" "$dir/logs" "$dir/crashes"
  export CODE_INTEL_FUZZ_TARGET=$target
  local common=(-timeout=30 -rss_limit_mb=4096 -artifact_prefix="$dir/crashes/$target-")
  local status=0
  if compgen -G "fuzz/regressions/$target/*" >/dev/null; then
    "$bin" "${common[@]}" fuzz/regressions/"$target"/* >"$log" 2>&1 || status=$?
    if [[ $status -eq $skip_status ]]; then
      report "$target" "$status" "$log"
      return 0
    elif [[ $status -ne 0 ]]; then
      report "$target" "$status" "$log" "a regression input fails again"
      return 1
    fi
  fi
  local seeds=()
  [[ -d fuzz/corpus/$target ]] && seeds=("fuzz/corpus/$target")
  # Seeds that are files of fixtures/, listed rather than copied into the repository.
  local listed="$dir/seeds/$target"
  rm -rf "$listed" && mkdir -p "$listed"
  awk -F'\t' -v t="$target" '!/^#/ && $1 == t {print $2}' fuzz/corpus/fixtures.tsv |
    while read -r f; do cp "$f" "$listed/"; done
  compgen -G "$listed/*" >/dev/null && seeds+=("$listed")
  "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 "$@" \
    "$corpus" "${seeds[@]}" >>"$log" 2>&1 || status=$?
  report "$target" "$status" "$log"
}

report() {
  local target=$1 status=$2 log=$3 why=${4:-}
  local done execs rate
  done=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  local cov ft corp
  cov=$(grep -o 'cov: [0-9]*' <<<"$done" | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' <<<"$done" | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' <<<"$done" | cut -d' ' -f2)
  case $status in
    0) printf '[fuzz] %-16s ok      execs %-9s exec/s %-6s cov %-6s ft %-6s corpus %s\n' \
         "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" ;;
    "$skip_status") echo "[fuzz] $target skipped: $(tail -1 "$log")" ;;
    *) echo "[fuzz] $target CRASHED (exit $status${why:+: $why}); log: $log" >&2
       grep -E 'panicked at|^Error|SUMMARY|Test unit written|^==[0-9]+==' "$log" | head -20 >&2
       return 1 ;;
  esac
}

case "${1:-}" in
  list) targets ;;
  unsupported) unsupported ;;
  build) build ;;
  one) shift; one "$@" ;;
  smoke)
    seconds=${2:-30}
    jobs=${3:-2}
    if why=$(unsupported); then echo "[fuzz] skipped: $why"; exit 0; fi
    build
    start=$SECONDS
    # Each target in its own process, $jobs at a time; any crash fails the run.
    if targets | xargs -P "$jobs" -I{} bash "$0" one {} "$seconds"; then
      echo "[fuzz] $(targets | wc -l) targets, ${seconds} s each, no crash ($((SECONDS - start)) s)"
    else
      echo "[fuzz] crash found; reproducers under $dir/crashes" >&2
      exit 1
    fi
    ;;
  run)
    [[ $# -ge 3 ]] || { echo "usage: $0 run TARGET SECONDS [libFuzzer args]" >&2; exit 2; }
    target=$2 seconds=$3
    shift 3
    [[ -x "$bins/any" ]] || build
    one "$target" "$seconds" "$@"
    ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
