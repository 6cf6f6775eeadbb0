//! Analysis: turns a parsed file into plain data — symbols with kind, scope and signature, and
//! (`outline`) the detailed per-file facts of seed 002's `analyze_file`.
//!
//! Everything here is a pure function of (language, text); caching and freshness live in
//! `index`. Results never hold tree-sitter types.

mod blade;
pub mod outline;
mod symbols;

pub use symbols::{
    FileSymbols, NAME_SEPARATORS, Reach, Symbol, SymbolKind, analyze_source, dotted, innermost_at,
    split_qualified, symbols_in_tree,
};
