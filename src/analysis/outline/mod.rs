//! File outlines: the detailed, per-file facts behind seed 002's `analyze_file` — imports with
//! their flavour (default, namespace, type-only, dynamic), exports, functions with typed
//! parameters, classes with their members, interfaces and type aliases, enums, doc comments, and a
//! one- or two-sentence summary built from the code itself.
//!
//! Like the rest of `analysis`, an outline is a pure function of (language, text) and holds no
//! tree-sitter types: caching lives in `index::outlines`, module resolution in `deps`. The shapes
//! are `lang::outline`'s and each language's walker lives in its home (`lang/<id>/outline.rs`,
//! named by the registry row); this module runs the right one and adds the syntax errors, and
//! `summary` turns an outline into a sentence or two.
//!
//! Broken code still yields an outline: tree-sitter recovers, the extractors take what parsed, and
//! the syntax errors travel with the outline so callers can answer `partial: true`.

mod summary;

pub use crate::lang::css::is_external as is_external_stylesheet;
pub use crate::lang::outline::*;
pub use summary::summarize;

use crate::lang::LanguageDef;

/// Parses `text` as `lang` and extracts its outline with the walker of the language that parsed
/// the code (a Vue file's script language). Languages without a walker answer with the imports
/// their text scan finds (Blade, CSS, SCSS) or an empty outline with their id (HTML).
pub fn outline_source(lang: &'static LanguageDef, text: &str) -> FileOutline {
    let parsed = crate::syntax::parse(lang, text);
    let mut outline = match (&parsed.tree, parsed.code_lang.outline) {
        (Some(tree), Some(walk)) => walk(tree.root_node(), text),
        _ => FileOutline::default(),
    };
    if let Some(scan) = lang.scanned_imports {
        outline.imports = scan(text);
    }
    if lang.component_file && !outline.exports.iter().any(|e| e.default) {
        // A single-file component is its file's default export whatever its script says.
        outline.exports.push(Export {
            name: "default".into(),
            kind: "component".into(),
            default: true,
            re_export: false,
            source: None,
        });
    }
    outline.language = lang.id.to_string();
    outline.errors = parsed
        .errors
        .into_iter()
        .map(|e| OutlineError {
            line: e.line,
            column: e.column,
            message: e.message,
        })
        .collect();
    outline
}

#[cfg(test)]
mod tests;
