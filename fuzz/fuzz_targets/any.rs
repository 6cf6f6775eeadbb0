//! Every target in one binary, chosen by `CODE_INTEL_FUZZ_TARGET` (what scripts/fuzz.sh runs).
#![no_main]
use std::sync::LazyLock;

static RUN: LazyLock<fn(&[u8])> = LazyLock::new(|| {
    let name = std::env::var("CODE_INTEL_FUZZ_TARGET").unwrap_or_default();
    code_intel_fuzz::by_name(&name).unwrap_or_else(|| {
        eprintln!("CODE_INTEL_FUZZ_TARGET={name:?} names no target (see fuzz/fuzz_targets)");
        std::process::exit(2)
    })
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| RUN(data));
