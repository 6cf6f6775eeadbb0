//! The chunker on manifests and plain-text files (`composer.json`, `package.json`, Markdown …).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::other_file(data));
