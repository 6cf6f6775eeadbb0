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

use crate::lang::ModuleSystem;

/// The package an external import belongs to, as a dependency list names it: `react`,
/// `@scope/pkg` (for `@scope/pkg/sub`), `numpy` (for `numpy.linalg`), `Illuminate\Support`,
/// `github.com/x/y`, `java.util`, `serde`, `active_support` (for `active_support/core_ext`).
pub fn package_name(language: &str, source: &str) -> String {
    let modules = crate::lang::by_id(language).map_or(ModuleSystem::None, |l| l.modules);
    package_in(modules, source)
}

fn package_in(modules: ModuleSystem, source: &str) -> String {
    match modules {
        ModuleSystem::EsModules => {
            let source = source.strip_prefix("node:").unwrap_or(source);
            let mut parts = source.split('/');
            match (parts.next(), parts.next()) {
                (Some(scope), Some(name)) if scope.starts_with('@') => format!("{scope}/{name}"),
                (Some(name), _) => name.to_string(),
                _ => source.to_string(),
            }
        }
        ModuleSystem::PythonPackages => source.split('.').next().unwrap_or(source).to_string(),
        ModuleSystem::PhpNamespaces => {
            let parts: Vec<&str> = source.trim_start_matches('\\').split('\\').collect();
            parts[..parts.len().min(2)].join("\\")
        }
        ModuleSystem::GoPackages => {
            let parts: Vec<&str> = source.split('/').collect();
            if parts[0].contains('.') {
                parts[..parts.len().min(3)].join("/")
            } else {
                source.to_string()
            }
        }
        ModuleSystem::JavaPackages => {
            let parts: Vec<&str> = source.split('.').collect();
            parts[..parts.len().min(2)].join(".")
        }
        ModuleSystem::RustModules => source.split("::").next().unwrap_or(source).to_string(),
        // `~bootstrap/scss/bootstrap` and `bootstrap/scss/bootstrap` (a load path) alike: npm
        // packages.
        ModuleSystem::Stylesheets if !source.contains("://") && !source.starts_with("sass:") => {
            package_in(ModuleSystem::EsModules, source.trim_start_matches('~'))
        }
        // `mail::message`, `<x-filament::button>`.
        ModuleSystem::BladeViews => source
            .trim_start_matches("x-")
            .split("::")
            .next()
            .unwrap_or(source)
            .to_string(),
        ModuleSystem::LoadPath { .. } => source.split('/').next().unwrap_or(source).to_string(),
        ModuleSystem::Stylesheets | ModuleSystem::None => source.to_string(),
    }
}
