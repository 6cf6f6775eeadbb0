//! Search engines. `text` is ripgrep's engine in-process (the only user of the grep crates);
//! `symbol` matches names in the symbol index (exact, prefix, suffix, contains, word-aware).

pub mod symbol;
pub mod text;
