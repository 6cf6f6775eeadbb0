//! The query frame's quote normaliser (NFKC, clauses, coverage).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::query_frame(data));
