//! Every tool's parameters through the server's dispatch (the two that embed: parsed and checked only).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::tools::dispatch(data));
