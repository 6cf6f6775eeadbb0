//! `get_dependencies` (seed 002 §4): a file's imports resolved to project files, followed to
//! the requested depth, the files that import it, and the import cycles it is part of — from the
//! project-wide import graph (`deps::GraphStore`), which is brought up to date incrementally.

use super::Context;
use crate::analysis::outline::Import;
use crate::deps::{Cycle, ImportGraph, cycle_message, package_name};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::index::outlines::OutlineSnapshot;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

pub const DESCRIPTION: &str = "Show a file's dependencies: each import with its source, internal/external type, \
imported names and `resolvedPath` (real module resolution: TS/JS relative paths, index files, \
tsconfig paths/baseUrl; Python packages and relative imports; PHP `use` through composer.json PSR-4 \
and classmap, and project classes of the same namespace used without `use`; Go module paths; Java \
packages; Rust mod/use crate::; Blade @extends/@include/@each/@component, <x-…> and Livewire \
components to their views and classes; CSS/SCSS @import/@use/@forward with partials; Ruby require_relative \
and require through the library's lib/), nested `dependencies` up to \
`depth` (1 = direct imports, 2 = their imports, 0 = unlimited), `dependents` (files that import this \
one), and `circularDependencies` (each cycle through this file, e.g. A -> B -> C -> A).";

/// Deepest expansion asked for explicitly; `0` (unlimited) is always allowed because each file
/// is expanded once.
pub const MAX_DEPTH: usize = 20;
/// Nodes in one answer; beyond this the tree is cut and `truncated` is set.
const MAX_NODES: usize = 5000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File path, relative to the workspace root or absolute inside it.
    pub path: String,
    /// How far to follow imports: 1 (default) = direct imports, 2 = their imports too, …,
    /// 0 = unlimited.
    pub depth: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    pub file: String,
    pub imports: Vec<DependencyNode>,
    /// Files that import this file.
    pub dependents: Vec<String>,
    pub circular_dependencies: Vec<Cycle>,
    pub depth: usize,
    /// `CIRCULAR_DEPENDENCY` warnings, one per cycle.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// True when the tree was cut at the node limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DependencyNode {
    pub source: String,
    /// `internal` or `external`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub imported: Vec<String>,
    /// The project file the import resolves to (a Go package: its directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_path: Option<String>,
    /// All files when the import resolves to several (Go packages, wildcard imports).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resolved_files: Vec<String>,
    /// For external imports: the package (`@scope/pkg`, `numpy`, `Illuminate\Support`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<serde_json::Value>>")]
    pub dependencies: Option<Vec<DependencyNode>>,
    /// The resolved file is already on the path from the root: following it would loop.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub circular: bool,
    /// The resolved file was expanded earlier in this answer; its imports are listed there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub already_listed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Warning {
    pub code: &'static str,
    pub message: String,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let depth = p.depth.unwrap_or(1);
    if depth > MAX_DEPTH {
        return Err(ToolError::new(
            ErrorCode::DepthLimitExceeded,
            format!("depth {depth} is above the limit of {MAX_DEPTH}"),
        )
        .with("depth", depth)
        .with("max_depth", MAX_DEPTH)
        .with(
            "hint",
            "use depth 0 to follow every import once, to the end",
        ));
    }
    let target = ctx.ws.resolve_file(&p.path)?;
    if crate::lang::detect(&target.rel).is_none() {
        return Err(ToolError::new(
            ErrorCode::InvalidParameter,
            format!("'{}' is not in a supported language", target.rel),
        )
        .with("file", target.rel.clone())
        .with("supported_languages", crate::lang::ids()));
    }
    let (mut snapshot, _) = ctx
        .outlines
        .refresh(&ctx.ws, ctx.ws.root())
        .map_err(ToolError::from)?;
    if !snapshot.files.contains_key(&target.rel) {
        // Ignored by .gitignore (or too large): analyse it on request all the same.
        ctx.outlines.file(&ctx.ws, &target)?;
        snapshot = ctx.outlines.snapshot();
    }
    let (graph, _) = ctx.graph.graph(&snapshot);
    let mut walk = Walk {
        snapshot: &snapshot,
        graph: &graph,
        expanded: HashSet::from([target.rel.clone()]),
        nodes: 0,
        truncated: false,
    };
    let mut path = vec![target.rel.clone()];
    let imports = walk.imports_of(&target.rel, depth, 1, &mut path);
    let cycles: Vec<Cycle> = graph
        .cycles_through(&target.rel)
        .into_iter()
        .map(|cycle| Cycle {
            message: cycle_message(&cycle),
            cycle,
        })
        .collect();
    Ok(Output {
        file: target.rel.clone(),
        imports,
        dependents: graph
            .dependents
            .get(&target.rel)
            .cloned()
            .unwrap_or_default(),
        warnings: cycles
            .iter()
            .map(|c| Warning {
                code: ErrorCode::CircularDependency.as_str(),
                message: c.message.clone(),
            })
            .collect(),
        circular_dependencies: cycles,
        depth,
        truncated: walk.truncated,
    })
}

struct Walk<'a> {
    snapshot: &'a OutlineSnapshot,
    graph: &'a ImportGraph,
    /// Files whose imports have been listed in this answer.
    expanded: HashSet<String>,
    nodes: usize,
    truncated: bool,
}

impl Walk<'_> {
    /// The imports of `file` at `level` (1 = the root's own imports); `path` is the chain of
    /// files from the root, for cycle marking.
    fn imports_of(
        &mut self,
        file: &str,
        depth: usize,
        level: usize,
        path: &mut Vec<String>,
    ) -> Vec<DependencyNode> {
        let Some(entry) = self.snapshot.files.get(file) else {
            return Vec::new();
        };
        let outline = &entry.outline;
        let resolved = self.graph.imports.get(file);
        let mut out = Vec::new();
        for (i, import) in outline.imports.iter().enumerate() {
            if self.nodes >= MAX_NODES {
                self.truncated = true;
                break;
            }
            self.nodes += 1;
            let resolution = resolved.and_then(|r| r.get(i));
            let internal = resolution.is_some_and(|r| r.internal);
            let targets: Vec<String> = resolution.map(|r| r.targets.clone()).unwrap_or_default();
            // A class named without `use` is a dependency only once it is a project file.
            if import.is_reference() && targets.is_empty() {
                self.nodes -= 1;
                continue;
            }
            let mut node = DependencyNode {
                source: import.source.clone(),
                kind: if internal { "internal" } else { "external" },
                imported: imported_names(import),
                resolved_path: resolved_path(&targets),
                resolved_files: if targets.len() > 1 {
                    targets.clone()
                } else {
                    Vec::new()
                },
                package: (!internal).then(|| package_name(&outline.language, &import.source)),
                line: import.line,
                dependencies: None,
                circular: false,
                already_listed: false,
            };
            let deeper = depth == 0 || level < depth;
            if targets.iter().any(|t| path.contains(t)) {
                node.circular = true;
            } else if deeper && !targets.is_empty() {
                if targets.iter().all(|t| self.expanded.contains(t)) {
                    node.already_listed = true;
                } else {
                    let mut children = Vec::new();
                    for t in &targets {
                        if !self.expanded.insert(t.clone()) {
                            continue;
                        }
                        path.push(t.clone());
                        children.extend(self.imports_of(t, depth, level + 1, path));
                        path.pop();
                    }
                    node.dependencies = Some(children);
                }
            }
            out.push(node);
        }
        out
    }
}

/// Names as seed 002 lists them; a namespace import without a binding is `*`.
fn imported_names(import: &Import) -> Vec<String> {
    let names: Vec<String> = import
        .imported
        .iter()
        .map(|n| {
            n.alias
                .clone()
                .map_or(n.name.clone(), |a| format!("{} as {a}", n.name))
        })
        .collect();
    if names.is_empty() && import.namespace {
        vec!["*".into()]
    } else {
        names
    }
}

/// One file, or the directory of several (a Go package).
fn resolved_path(targets: &[String]) -> Option<String> {
    match targets {
        [] => None,
        [one] => Some(one.clone()),
        many => {
            let first = crate::deps::layout::dir_of(&many[0]);
            if many.iter().all(|t| crate::deps::layout::dir_of(t) == first) {
                Some(first.to_string())
            } else {
                Some(many[0].clone())
            }
        }
    }
}

#[cfg(test)]
mod tests;
