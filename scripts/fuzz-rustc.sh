#!/usr/bin/env bash
# RUSTC_WORKSPACE_WRAPPER for scripts/fuzz.sh: cargo calls it as `fuzz-rustc.sh RUSTC ARGS...`
# for this workspace's crates only (code-intel and the fuzz targets), never for dependencies.
# It adds libFuzzer's coverage instrumentation (the flags cargo-fuzz passes, less the nightly
# sanitizer) so that the dependencies are the dev build's, reused as they are.
rustc=$1
shift
case " $* " in
  *" --crate-name "*)
    exec "$rustc" "$@" \
      -Cpasses=sancov-module \
      -Cllvm-args=-sanitizer-coverage-level=4 \
      -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
      -Cllvm-args=-sanitizer-coverage-pc-table \
      -Cllvm-args=-sanitizer-coverage-trace-compares \
      --cfg fuzzing ;;
  *) exec "$rustc" "$@" ;;
esac
