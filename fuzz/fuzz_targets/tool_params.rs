//! Every tool's parameters (but the two that embed), through the server's dispatch.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::tools::dispatch(data));
