//! The persisted caches' reader (symbol store, outline store, import graph).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::stores::load(data));
