//! The write gate's shell analyser on arbitrary command lines.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::shell(data));
