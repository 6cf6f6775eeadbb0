//! Search engines. `text` is ripgrep's engine in-process (the only user of the grep crates);
//! `semantic` is the hybrid code search (`crate::lexical` analysis below it, `names` matching, `glossary`
//! bridging Japanese (`dictionary` and `loanword` for the words it lacks), `hybrid` fusion, `roles` telling code from tests and prose, `hubness` correcting the dense signal).
//! `symbol` matches names in the symbol index (exact, prefix, suffix, contains, word-aware);
//! `references` finds the uses of names (with `text`) and the definitions they sit in.

pub mod dictionary;
pub mod glossary;
pub mod hubness;
pub mod hybrid;
pub mod loanword;
pub mod names;
pub mod references;
pub mod roles;
pub mod semantic;
pub mod symbol;
pub mod text;
pub mod translations;
