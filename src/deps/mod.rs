//! Dependencies between files: module resolution per language (`resolve`, reading the project
//! layout from its manifests in `layout`) and the project-wide import graph with reverse edges
//! and circular-dependency detection (`graph`), kept incrementally in `.code-intel/imports.bin`.
//!
//! Input is the outline snapshot (`index::outlines`): imports as written, manifests, the file
//! set. Nothing here parses or walks files, so the graph is cheap to bring up to date.

pub mod graph;
pub mod layout;
pub mod resolve;

pub use graph::{Cycle, GraphStats, GraphStore, ImportGraph, ResolvedImport, cycle_message};
pub use resolve::{Resolution, Resolver};

/// The package an external import belongs to, as a dependency list names it: `react`,
/// `@scope/pkg` (for `@scope/pkg/sub`), `numpy` (for `numpy.linalg`), `Illuminate\Support`,
/// `github.com/x/y`, `java.util`, `serde`.
pub fn package_name(language: &str, source: &str) -> String {
    match language {
        "typescript" | "tsx" | "javascript" | "vue" => {
            let source = source.strip_prefix("node:").unwrap_or(source);
            let mut parts = source.split('/');
            match (parts.next(), parts.next()) {
                (Some(scope), Some(name)) if scope.starts_with('@') => format!("{scope}/{name}"),
                (Some(name), _) => name.to_string(),
                _ => source.to_string(),
            }
        }
        "python" => source.split('.').next().unwrap_or(source).to_string(),
        "php" => {
            let parts: Vec<&str> = source.trim_start_matches('\\').split('\\').collect();
            parts[..parts.len().min(2)].join("\\")
        }
        "go" => {
            let parts: Vec<&str> = source.split('/').collect();
            if parts[0].contains('.') {
                parts[..parts.len().min(3)].join("/")
            } else {
                source.to_string()
            }
        }
        "java" => {
            let parts: Vec<&str> = source.split('.').collect();
            parts[..parts.len().min(2)].join(".")
        }
        "rust" => source.split("::").next().unwrap_or(source).to_string(),
        // `~bootstrap/scss/bootstrap` and `bootstrap/scss/bootstrap` (a load path) alike.
        "css" | "scss" if !source.contains("://") && !source.starts_with("sass:") => {
            package_name("javascript", source.trim_start_matches('~'))
        }
        // `mail::message`, `<x-filament::button>`.
        "blade" => source
            .trim_start_matches("x-")
            .split("::")
            .next()
            .unwrap_or(source)
            .to_string(),
        _ => source.to_string(),
    }
}
