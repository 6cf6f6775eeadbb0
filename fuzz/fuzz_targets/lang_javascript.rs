//! The javascript grammar, symbol analysis, outline and chunker on arbitrary text.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::language("javascript", data));
