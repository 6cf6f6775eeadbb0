//! The `.code-intel/config.json` loader, and what it loads loading back unchanged.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::config(data));
