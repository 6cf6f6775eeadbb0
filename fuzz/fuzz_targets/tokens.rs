//! The model's tokenizer as the chunker counts tokens with it (needs the provisioned model).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| code_intel_fuzz::tokens(data));
