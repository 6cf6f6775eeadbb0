//! `analyze_project` (seed 002 §3): a project's shape in one call — totals, a summary, the
//! directory tree with sizes and lines, external and internal dependencies, exports per file,
//! statistics — aggregated from the outline index and the import graph, so a warm call parses
//! nothing.

use super::Context;
use crate::analysis::outline::Export;
use crate::deps::{cycle_message, package_name};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::index::outlines::OutlineEntry;
use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub const DESCRIPTION: &str = "Analyse a whole project (or a directory of it): totals (files, lines), a summary \
built from the code and its manifests, the directory tree with size and lines, external packages and \
internal modules depended on, exports per file, statistics (functions, classes, interfaces, types, \
enums, files by language, averages) and import cycles. Every supported language by default; narrow \
with `includePatterns` / `excludePatterns` (globs relative to `rootPath`). Files that fail to parse \
are listed with `PARTIAL_ANALYSIS`; the rest is still returned. Cached by file fingerprint.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Params {
    /// Project root: the workspace root (`.`), or a directory inside it.
    pub root_path: String,
    /// Globs of files to include, relative to `rootPath` (default: every supported language).
    pub include_patterns: Option<Vec<String>>,
    /// Globs to exclude (default: `node_modules/**`, `dist/**`, `build/**`; `.gitignore` and
    /// dependency directories are always skipped).
    pub exclude_patterns: Option<Vec<String>>,
    /// `concise` (default) or `detailed` (adds a per-file list with summaries, and the full
    /// directory tree however large).
    pub mode: Option<super::analyze_file::Mode>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    pub project: ProjectInfo,
    pub summary: String,
    pub structure: Vec<FileNode>,
    pub dependencies: Dependencies,
    pub exports: BTreeMap<String, Vec<Export>>,
    pub statistics: Statistics,
    /// Import cycles among the analysed files.
    pub circular_dependencies: Vec<super::get_dependencies::Cycle>,
    /// True when some files could not be fully analysed (see `errors`).
    pub partial: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<AnalysisError>,
    /// Detailed mode: every file with its language, size, lines and summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileSummary>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    pub root_path: String,
    pub total_files: usize,
    pub total_lines: usize,
    /// Unix time in milliseconds.
    pub analyzed_at: i64,
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

#[derive(Debug, Serialize, JsonSchema)]
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
pub struct AnalysisError {
    pub code: &'static str,
    pub message: String,
    pub files: Vec<FailedFile>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FailedFile {
    pub file: String,
    pub reason: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileSummary {
    pub path: String,
    pub language: String,
    pub size: u64,
    pub lines: usize,
    pub summary: String,
}

/// Seed 002's default excludes (dependency and build directories are skipped by the walk too).
const DEFAULT_EXCLUDES: &[&str] = &["node_modules/**", "dist/**", "build/**"];
/// In concise mode a tree of more files than this shows directories below this depth collapsed.
const CONCISE_TREE_FILES: usize = 300;
const CONCISE_TREE_DEPTH: usize = 3;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let root = ctx.ws.resolve(&p.root_path).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidRootPath,
            format!("invalid rootPath '{}': {}", p.root_path, err.message),
        )
        .with("rootPath", p.root_path.clone())
        .with("cause", err.code.as_str())
    })?;
    if !root.is_dir {
        return Err(ToolError::new(
            ErrorCode::InvalidRootPath,
            format!("rootPath '{}' is a file, not a directory", p.root_path),
        )
        .with("rootPath", p.root_path.clone())
        .with("hint", "use analyze_file for a single file"));
    }
    let include = match &p.include_patterns {
        Some(patterns) if !patterns.is_empty() => Some(globs(patterns, "includePatterns")?),
        _ => None,
    };
    let exclude = match &p.exclude_patterns {
        Some(patterns) => globs(patterns, "excludePatterns")?,
        None => globs(
            &DEFAULT_EXCLUDES
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            "excludePatterns",
        )?,
    };
    let (snapshot, _) = ctx
        .outlines
        .refresh(&ctx.ws, ctx.ws.root())
        .map_err(ToolError::internal)?;
    let under_root = |path: &str| -> Option<String> {
        let rel = if root.rel.is_empty() {
            path
        } else {
            path.strip_prefix(&root.rel)?.strip_prefix('/')?
        };
        let selected = include.as_ref().is_none_or(|g| g.is_match(rel)) && !exclude.is_match(rel);
        selected.then(|| rel.to_string())
    };
    let mut files: Vec<(String, &Arc<OutlineEntry>)> = snapshot
        .files
        .iter()
        .filter(|(path, _)| under_root(path).is_some())
        .map(|(path, entry)| (path.clone(), entry))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut failed: Vec<FailedFile> = snapshot
        .skipped
        .iter()
        .filter(|(path, _)| under_root(path).is_some())
        .map(|(path, reason)| FailedFile {
            file: path.clone(),
            reason: reason.clone(),
        })
        .collect();
    if files.is_empty() {
        return Err(ToolError::new(
            ErrorCode::NoFilesFound,
            format!(
                "no source files under '{}' match the patterns",
                if root.rel.is_empty() { "." } else { &root.rel }
            ),
        )
        .with("rootPath", p.root_path.clone())
        .with(
            "includePatterns",
            p.include_patterns.clone().unwrap_or_default(),
        )
        .with(
            "excludePatterns",
            p.exclude_patterns.clone().unwrap_or_default(),
        )
        .with("supported_languages", crate::lang::ids()));
    }
    for (path, entry) in &files {
        if let Some(first) = entry.outline.errors.first() {
            failed.push(FailedFile {
                file: path.clone(),
                reason: format!(
                    "{} syntax error(s), first at {}:{}: {}",
                    entry.outline.errors.len(),
                    first.line,
                    first.column,
                    first.message
                ),
            });
        }
    }
    failed.sort_by(|a, b| a.file.cmp(&b.file));

    let (graph, _) = ctx.graph.graph(&snapshot);
    let selected: BTreeSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let mut external = BTreeSet::new();
    let mut internal = BTreeSet::new();
    let mut stats = Statistics {
        total_functions: 0,
        total_methods: 0,
        total_classes: 0,
        total_interfaces: 0,
        total_types: 0,
        total_enums: 0,
        files_by_language: BTreeMap::new(),
        average_file_size: 0,
        average_lines: 0,
    };
    let mut exports = BTreeMap::new();
    let (mut total_lines, mut total_size) = (0usize, 0u64);
    for (path, entry) in &files {
        let outline = &entry.outline;
        total_lines += entry.lines;
        total_size += entry.size;
        *stats
            .files_by_language
            .entry(outline.language.clone())
            .or_default() += 1;
        let methods = outline.method_count();
        stats.total_methods += methods;
        stats.total_functions += outline.functions.len() + methods;
        // Receivers and impl blocks of types declared elsewhere are not classes of their own.
        stats.total_classes += outline
            .classes
            .iter()
            .filter(|c| !matches!(c.kind.as_str(), "type" | "impl"))
            .count();
        for t in &outline.types {
            if matches!(t.kind.as_str(), "interface" | "trait" | "annotation") {
                stats.total_interfaces += 1;
            } else {
                stats.total_types += 1;
            }
        }
        stats.total_enums += outline.enums.len();
        if !outline.exports.is_empty() {
            exports.insert(path.clone(), outline.exports.clone());
        }
        let resolved = graph.imports.get(path);
        for (i, import) in outline.imports.iter().enumerate() {
            match resolved.and_then(|r| r.get(i)) {
                Some(r) if r.internal => match r.targets.first() {
                    Some(target) => {
                        internal.insert(target.clone());
                    }
                    None => {
                        internal.insert(import.source.clone());
                    }
                },
                _ => {
                    external.insert(package_name(&outline.language, &import.source));
                }
            }
        }
    }
    stats.average_file_size = total_size / files.len() as u64;
    stats.average_lines = total_lines / files.len();
    let cycles = graph
        .all_cycles()
        .into_iter()
        .filter(|c| c.iter().all(|f| selected.contains(f.as_str())))
        .map(|cycle| super::get_dependencies::Cycle {
            message: cycle_message(&cycle),
            cycle,
        })
        .collect();
    let detailed = p.mode == Some(super::analyze_file::Mode::Detailed);
    let manifests: Vec<(&String, &str)> = snapshot
        .manifests
        .iter()
        .filter(|(path, _)| {
            crate::deps::layout::contains(&root.rel, path)
                && crate::deps::layout::dir_of(path) == root.rel
        })
        .map(|(path, m)| (path, m.text.as_str()))
        .collect();
    let summary = project_summary(
        &files,
        &stats,
        &external,
        &manifests,
        &root.rel,
        total_lines,
    );
    let structure = tree(
        &files,
        &root.rel,
        !detailed && files.len() > CONCISE_TREE_FILES,
    );
    let partial = !failed.is_empty();
    Ok(Output {
        project: ProjectInfo {
            root_path: if root.rel.is_empty() {
                ctx.ws.root().display().to_string()
            } else {
                root.abs.display().to_string()
            },
            total_files: files.len(),
            total_lines,
            analyzed_at: chrono::Utc::now().timestamp_millis(),
        },
        summary,
        structure,
        dependencies: Dependencies {
            external: external.into_iter().collect(),
            internal: internal.into_iter().collect(),
        },
        exports,
        statistics: stats,
        circular_dependencies: cycles,
        partial,
        errors: if partial {
            vec![AnalysisError {
                code: ErrorCode::PartialAnalysis.as_str(),
                message: format!(
                    "{} of {} files could not be fully analysed; the results cover what parsed",
                    failed.len(),
                    files.len()
                ),
                files: failed,
            }]
        } else {
            Vec::new()
        },
        files: detailed.then(|| {
            files
                .iter()
                .map(|(path, entry)| FileSummary {
                    path: path.clone(),
                    language: entry.outline.language.clone(),
                    size: entry.size,
                    lines: entry.lines,
                    summary: crate::analysis::outline::summarize(&entry.outline, path),
                })
                .collect()
        }),
    })
}

fn globs(patterns: &[String], parameter: &str) -> ToolResult<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern).map_err(|err| {
            ToolError::invalid_parameter(format!("invalid glob '{pattern}': {err}"))
                .with("parameter", parameter)
        })?;
        builder.add(glob);
    }
    builder.build().map_err(|err| {
        ToolError::invalid_parameter(format!("invalid {parameter}: {err}"))
            .with("parameter", parameter)
    })
}

/// The directory tree of the files (paths relative to the workspace), rooted at `root`.
fn tree(files: &[(String, &Arc<OutlineEntry>)], root: &str, collapse: bool) -> Vec<FileNode> {
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
    files: &[(String, &Arc<OutlineEntry>)],
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
    let mut described = None;
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
            described = Some(match description {
                Some(d) if !d.is_empty() => format!("{pkg}: {}", d.trim_end_matches('.')),
                _ => pkg,
            });
            break;
        }
    }
    let mut summary = format!("A {main_language} project");
    if let Some(described) = described {
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
    // The directories holding most of the code.
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
    if !dirs.is_empty() {
        let shown: Vec<String> = dirs.iter().take(4).map(|(d, _)| d.clone()).collect();
        summary.push_str(&format!(" Most code is in {}", shown.join(", ")));
    }
    let mut key_exports: Vec<&str> = files
        .iter()
        .flat_map(|(_, e)| {
            e.outline
                .classes
                .iter()
                .filter(|c| c.exported && c.methods.len() >= 2)
                .map(|c| c.name.as_str())
        })
        .collect();
    key_exports.sort();
    key_exports.dedup();
    if !key_exports.is_empty() {
        let shown: Vec<&str> = key_exports.iter().take(5).copied().collect();
        summary.push_str(&format!(
            "{}key classes: {}",
            if dirs.is_empty() { " Its " } else { "; its " },
            shown.join(", ")
        ));
    }
    if !dirs.is_empty() || !key_exports.is_empty() {
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

fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?;
        let value = rest.trim_start().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_string())
    })
}

fn display_language(id: &str) -> &str {
    match id {
        "typescript" => "TypeScript",
        "tsx" => "TSX",
        "javascript" => "JavaScript",
        "python" => "Python",
        "php" => "PHP",
        "go" => "Go",
        "java" => "Java",
        "rust" => "Rust",
        "vue" => "Vue",
        "css" => "CSS",
        "scss" => "SCSS",
        "html" => "HTML",
        "blade" => "Blade",
        other => other,
    }
}

#[cfg(test)]
mod tests;
