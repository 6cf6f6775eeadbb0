//! The Claude Code PreToolUse hook's JSON input.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::hook(data));
