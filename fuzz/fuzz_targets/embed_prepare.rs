//! The embedder's text preparation (prefixes, identifier splitting, passage heads).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::embed_prepare(data));
