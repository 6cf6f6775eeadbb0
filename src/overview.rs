//! The project overview behind seed 002's `analyze_project`: totals, statistics, the directory
//! tree, dependencies (external packages, internal modules), exports per file, import cycles and
//! a summary, aggregated from the outline index and the import graph — nothing is parsed here,
//! so a warm overview of a thousand files takes milliseconds.

use crate::analysis::outline::Export;
use crate::deps::{ImportGraph, cycle_message, package_name};
use crate::index::outlines::{OutlineEntry, OutlineSnapshot};
use crate::search::roles::is_test_path;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// In concise mode a tree of more files than this shows directories below this depth collapsed.
pub const CONCISE_TREE_FILES: usize = 300;
const CONCISE_TREE_DEPTH: usize = 3;

/// A file of the overview: its path relative to the workspace and its index entry.
pub type Selected<'a> = (String, &'a Arc<OutlineEntry>);

pub struct Overview {
    pub total_files: usize,
    pub total_lines: usize,
    pub summary: String,
    pub structure: Vec<FileNode>,
    pub dependencies: Dependencies,
    pub exports: BTreeMap<String, Vec<Export>>,
    pub statistics: Statistics,
    pub cycles: Vec<crate::deps::Cycle>,
    /// Files that were skipped or parsed with syntax errors.
    pub failed: Vec<FailedFile>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileNode {
    pub name: String,
    pub path: String,
    /// `file` or `directory`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub size: u64,
    pub lines: usize,
    /// Directories: files below, at any depth.
    #[serde(rename = "fileCount", skip_serializing_if = "Option::is_none")]
    pub file_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<serde_json::Value>>")]
    pub children: Option<Vec<FileNode>>,
    /// The directory's contents were left out to keep the answer short (concise mode).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub collapsed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Dependencies {
    /// Packages imported from outside the project.
    pub external: Vec<String>,
    /// Project files imported by other files (resolved paths; the import as written when it
    /// could not be resolved).
    pub internal: Vec<String>,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Statistics {
    /// Functions and methods.
    pub total_functions: usize,
    pub total_methods: usize,
    /// Classes, structs, traits (PHP) and records.
    pub total_classes: usize,
    /// Interfaces, protocols and Rust traits.
    pub total_interfaces: usize,
    /// Type aliases and other named types.
    pub total_types: usize,
    pub total_enums: usize,
    pub files_by_language: BTreeMap<String, usize>,
    pub average_file_size: u64,
    pub average_lines: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FailedFile {
    pub file: String,
    pub reason: String,
}

/// Why a file's outline is partial: how many syntax errors, and where the first is.
fn syntax_errors(outline: &crate::lang::outline::FileOutline) -> Option<String> {
    let first = outline.errors.first()?;
    Some(format!(
        "{} syntax error(s), first at {}:{}: {}",
        outline.errors.len(),
        first.line,
        first.column,
        first.message
    ))
}

impl Statistics {
    /// Adds one file's declarations.
    fn count(&mut self, outline: &crate::lang::outline::FileOutline) {
        *self
            .files_by_language
            .entry(outline.language.clone())
            .or_default() += 1;
        let methods = outline.method_count();
        self.total_methods += methods;
        self.total_functions += outline.functions.len() + methods;
        // Receivers and impl blocks of types declared elsewhere are not classes of their own.
        self.total_classes += outline
            .classes
            .iter()
            .filter(|c| !matches!(c.kind.as_str(), "type" | "impl"))
            .count();
        for t in &outline.types {
            if matches!(t.kind.as_str(), "interface" | "trait" | "annotation") {
                self.total_interfaces += 1;
            } else {
                self.total_types += 1;
            }
        }
        self.total_enums += outline.enums.len();
    }
}

/// The overview of `files` (sorted, relative to the workspace), under the directory `root`.
/// `collapse` shortens the tree of a large project (concise mode).
pub fn overview(
    snapshot: &OutlineSnapshot,
    graph: &ImportGraph,
    files: &[Selected],
    root: &str,
    collapse: bool,
) -> Overview {
    let selected: BTreeSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let mut failed: Vec<FailedFile> = snapshot
        .skipped
        .iter()
        .filter(|(path, _)| crate::deps::layout::contains(root, path))
        .map(|(path, reason)| FailedFile {
            file: path.clone(),
            reason: reason.clone(),
        })
        .collect();
    let mut external = BTreeSet::new();
    let mut internal = BTreeSet::new();
    let mut stats = Statistics::default();
    let mut exports = BTreeMap::new();
    let (mut total_lines, mut total_size) = (0usize, 0u64);
    for (path, entry) in files {
        let outline = &entry.outline;
        if let Some(reason) = syntax_errors(outline) {
            failed.push(FailedFile {
                file: path.clone(),
                reason,
            });
        }
        total_lines += entry.lines;
        total_size += entry.size;
        stats.count(outline);
        if !outline.exports.is_empty() {
            exports.insert(path.clone(), outline.exports.clone());
        }
        let resolved = graph.imports.get(path);
        for (i, import) in outline.imports.iter().enumerate() {
            let resolution = resolved.and_then(|r| r.get(i));
            // A class named without `use` counts only as the project file it resolved to.
            if import.is_reference() && resolution.is_none_or(|r| r.targets.is_empty()) {
                continue;
            }
            match resolution {
                Some(r) if r.internal => {
                    internal.insert(r.targets.first().unwrap_or(&import.source).clone());
                }
                _ => {
                    external.insert(package_name(&outline.language, &import.source));
                }
            }
        }
    }
    failed.sort_by(|a, b| a.file.cmp(&b.file));
    if !files.is_empty() {
        stats.average_file_size = total_size / files.len() as u64;
        stats.average_lines = total_lines / files.len();
    }
    let cycles = graph
        .all_cycles()
        .into_iter()
        .filter(|c| c.iter().all(|f| selected.contains(f.as_str())))
        .map(|cycle| crate::deps::Cycle {
            message: cycle_message(&cycle),
            cycle,
        })
        .collect();
    let manifests: Vec<(&String, &str)> = snapshot
        .manifests
        .iter()
        .filter(|(path, _)| crate::deps::layout::dir_of(path) == root)
        .map(|(path, m)| (path, m.text.as_str()))
        .collect();
    let summary = project_summary(
        files,
        graph,
        &stats,
        &external,
        &manifests,
        root,
        total_lines,
    );
    Overview {
        total_files: files.len(),
        total_lines,
        summary,
        structure: tree(files, root, collapse),
        dependencies: Dependencies {
            external: external.into_iter().collect(),
            internal: internal.into_iter().collect(),
        },
        exports,
        statistics: stats,
        cycles,
        failed,
    }
}

/// The directory tree of the files (paths relative to the workspace), rooted at `root`.
fn tree(files: &[Selected], root: &str, collapse: bool) -> Vec<FileNode> {
    #[derive(Default)]
    struct Dir {
        dirs: BTreeMap<String, Dir>,
        files: Vec<(String, String, u64, usize, String)>,
    }
    let mut top = Dir::default();
    for (path, entry) in files {
        let rel = if root.is_empty() {
            path.as_str()
        } else {
            &path[root.len() + 1..]
        };
        let mut parts: Vec<&str> = rel.split('/').collect();
        let name = parts.pop().unwrap_or(rel);
        let mut dir = &mut top;
        for part in parts {
            dir = dir.dirs.entry(part.to_string()).or_default();
        }
        dir.files.push((
            name.to_string(),
            path.clone(),
            entry.size,
            entry.lines,
            entry.outline.language.clone(),
        ));
    }
    fn build(dir: Dir, prefix: &str, depth: usize, collapse: bool) -> Vec<FileNode> {
        let mut out = Vec::new();
        for (name, sub) in dir.dirs {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let children = build(sub, &path, depth + 1, collapse);
            let (size, lines, count) = children.iter().fold((0, 0, 0), |(s, l, c), n| {
                (s + n.size, l + n.lines, c + n.file_count.unwrap_or(1))
            });
            let collapsed = collapse && depth + 1 >= CONCISE_TREE_DEPTH;
            out.push(FileNode {
                name,
                path,
                kind: "directory",
                size,
                lines,
                file_count: Some(count),
                language: None,
                children: (!collapsed).then_some(children),
                collapsed,
            });
        }
        for (name, path, size, lines, language) in dir.files {
            out.push(FileNode {
                name,
                path,
                kind: "file",
                size,
                lines,
                file_count: None,
                language: Some(language),
                children: None,
                collapsed: false,
            });
        }
        out
    }
    build(top, root, 0, collapse)
}

/// "A TypeScript project (user-directory-mcp: MCP server exposing …) with 15 files and 1,200
/// lines …" — from the manifests' own descriptions, the languages, the largest directories,
/// the main exports and the packages depended on.
fn project_summary(
    files: &[Selected],
    graph: &ImportGraph,
    stats: &Statistics,
    external: &BTreeSet<String>,
    manifests: &[(&String, &str)],
    root: &str,
    total_lines: usize,
) -> String {
    let mut languages: Vec<(&String, &usize)> = stats.files_by_language.iter().collect();
    languages.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let main_language = languages
        .first()
        .map_or("source", |(l, _)| display_language(l));
    let mut summary = format!("A {main_language} project");
    if let Some(described) = manifest_description(manifests) {
        summary.push_str(&format!(" ({described})"));
    }
    summary.push_str(&format!(
        " with {} files and {} lines",
        files.len(),
        total_lines
    ));
    if languages.len() > 1 {
        let parts: Vec<String> = languages
            .iter()
            .take(4)
            .map(|(l, n)| format!("{n} {}", display_language(l)))
            .collect();
        summary.push_str(&format!(" ({})", parts.join(", ")));
    }
    summary.push('.');
    let dirs = main_directories(files, root);
    if !dirs.is_empty() {
        summary.push_str(&format!(" Most code is in {}", dirs.join(", ")));
    }
    let key = most_imported(files, graph);
    if !key.is_empty() {
        summary.push_str(&format!(
            "{}most imported: {}",
            if dirs.is_empty() { " Its " } else { "; its " },
            key.join(", ")
        ));
    }
    if !dirs.is_empty() || !key.is_empty() {
        summary.push('.');
    }
    if !external.is_empty() {
        let shown: Vec<&str> = external.iter().take(6).map(String::as_str).collect();
        summary.push_str(&format!(
            " It depends on {}{}.",
            shown.join(", "),
            if external.len() > 6 {
                format!(" and {} more", external.len() - 6)
            } else {
                String::new()
            }
        ));
    }
    summary
}

/// The project's name and description from the first manifest that names it
/// (`name: description`).
fn manifest_description(manifests: &[(&String, &str)]) -> Option<String> {
    for (path, text) in manifests {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (pkg, description) = match name {
            "package.json" | "composer.json" => {
                let json = crate::deps::layout::parse_jsonc(text);
                let get = |k: &str| {
                    json.as_ref()
                        .and_then(|j| j.get(k))
                        .and_then(|v| v.as_str())
                        .map(String::from)
                };
                (get("name"), get("description"))
            }
            "pyproject.toml" | "Cargo.toml" => {
                (toml_value(text, "name"), toml_value(text, "description"))
            }
            "go.mod" => (
                text.lines()
                    .find_map(|l| l.trim().strip_prefix("module "))
                    .map(|m| m.trim().to_string()),
                None,
            ),
            _ => (None, None),
        };
        if let Some(pkg) = pkg {
            return Some(match description {
                Some(d) if !d.is_empty() => format!("{pkg}: {}", d.trim_end_matches('.')),
                _ => pkg,
            });
        }
    }
    None
}

/// The (up to four) directories, two levels deep, holding most lines of code.
fn main_directories(files: &[Selected], root: &str) -> Vec<String> {
    let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
    for (path, entry) in files {
        let rel = if root.is_empty() {
            path.as_str()
        } else {
            &path[root.len() + 1..]
        };
        let parts: Vec<&str> = rel.split('/').collect();
        if parts.len() > 1 {
            let depth = if parts.len() > 2 { 2 } else { 1 };
            *dirs.entry(parts[..depth].join("/")).or_default() += entry.lines;
        }
    }
    let mut dirs: Vec<(String, usize)> = dirs.into_iter().collect();
    dirs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    dirs.into_iter().take(4).map(|(d, _)| d).collect()
}

/// The declarations the rest of the project leans on: the first exported class, type or
/// function of each of the (up to five) most imported files, with its importer count.
fn most_imported(files: &[Selected], graph: &ImportGraph) -> Vec<String> {
    let mut ranked: Vec<(&Selected, usize)> = files
        .iter()
        .filter(|(path, _)| !is_test_path(path))
        .map(|f| (f, graph.dependents.get(&f.0).map_or(0, Vec::len)))
        .filter(|(_, n)| *n > 0)
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.0.cmp(&b.0.0)));
    let mut key: Vec<String> = Vec::new();
    for ((path, entry), importers) in ranked {
        let outline = &entry.outline;
        let name = outline
            .classes
            .iter()
            .filter(|c| c.exported)
            .map(|c| c.name.as_str())
            .chain(
                outline
                    .types
                    .iter()
                    .filter(|t| t.exported)
                    .map(|t| t.name.as_str()),
            )
            .chain(
                outline
                    .functions
                    .iter()
                    .filter(|f| f.exported)
                    .map(|f| f.name.as_str()),
            )
            .next()
            .map_or_else(
                || path.rsplit('/').next().unwrap_or(path).to_string(),
                String::from,
            );
        if !key.iter().any(|k| k.starts_with(&format!("{name} ("))) {
            key.push(format!("{name} ({importers})"));
        }
        if key.len() == 5 {
            break;
        }
    }
    key
}

fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?;
        let value = rest.trim_start().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_string())
    })
}

/// The language's name as people write it (`TypeScript`), or the id when it is not one of ours.
fn display_language(id: &str) -> &str {
    crate::lang::by_id(id).map_or(id, |lang| lang.name)
}
