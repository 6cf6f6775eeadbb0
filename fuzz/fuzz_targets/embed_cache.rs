//! The machine embedding cache's segment reader, on a segment of arbitrary bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::embed_cache(data));
