//! `analyze_project` (seed 002 §3): a project's shape in one call — totals, a summary, the
//! directory tree with sizes and lines, external and internal dependencies, exports per file,
//! statistics — aggregated from the outline index and the import graph, so a warm call parses
//! nothing.

use super::Context;
use crate::analysis::outline::Export;
use crate::deps::Cycle;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::overview::{
    CONCISE_TREE_FILES, Dependencies, FailedFile, FileNode, Selected, Statistics, overview,
};
use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    pub circular_dependencies: Vec<Cycle>,
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
pub struct AnalysisError {
    pub code: &'static str,
    pub message: String,
    pub files: Vec<FailedFile>,
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

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let root = project_root(ctx, &p.root_path)?;
    let include = match &p.include_patterns {
        Some(patterns) if !patterns.is_empty() => Some(globs(patterns, "includePatterns")?),
        _ => None,
    };
    let default_excludes: Vec<String> = DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect();
    let exclude = globs(
        p.exclude_patterns.as_ref().unwrap_or(&default_excludes),
        "excludePatterns",
    )?;
    // The whole workspace is refreshed: resolution needs every manifest and file.
    let (snapshot, _) = ctx
        .outlines
        .refresh(&ctx.ws, ctx.ws.root())
        .map_err(ToolError::from)?;
    let selected = |path: &str| -> bool {
        let rel = if root.rel.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(&root.rel)
                .and_then(|r| r.strip_prefix('/'))
        };
        rel.is_some_and(|rel| {
            include.as_ref().is_none_or(|g| g.is_match(rel)) && !exclude.is_match(rel)
        })
    };
    let mut files: Vec<Selected> = snapshot
        .files
        .iter()
        .filter(|(path, _)| selected(path))
        .map(|(path, entry)| (path.clone(), entry))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    if files.is_empty() {
        return Err(no_files(&p, &root.rel));
    }
    let (graph, _) = ctx.graph.graph(&snapshot);
    let detailed = p.mode == Some(super::analyze_file::Mode::Detailed);
    let o = overview(
        &snapshot,
        &graph,
        &files,
        &root.rel,
        !detailed && files.len() > CONCISE_TREE_FILES,
    );
    let failed: Vec<FailedFile> = o.failed.into_iter().filter(|f| selected(&f.file)).collect();
    let partial = !failed.is_empty();
    Ok(Output {
        project: ProjectInfo {
            root_path: root.abs.display().to_string(),
            total_files: o.total_files,
            total_lines: o.total_lines,
            analyzed_at: chrono::Utc::now().timestamp_millis(),
        },
        summary: o.summary,
        structure: o.structure,
        dependencies: o.dependencies,
        exports: o.exports,
        statistics: o.statistics,
        circular_dependencies: o.cycles,
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

/// `rootPath` resolved inside the workspace; it must be a directory.
fn project_root(ctx: &Context, root_path: &str) -> ToolResult<crate::workspace::ResolvedPath> {
    let root = ctx.ws.resolve(root_path).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidRootPath,
            format!("invalid rootPath '{root_path}': {}", err.message),
        )
        .with("rootPath", root_path)
        .with("cause", err.code.as_str())
    })?;
    if !root.is_dir {
        return Err(ToolError::new(
            ErrorCode::InvalidRootPath,
            format!("rootPath '{root_path}' is a file, not a directory"),
        )
        .with("rootPath", root_path)
        .with("hint", "use analyze_file for a single file"));
    }
    Ok(root)
}

/// No source file under the root matches the patterns: say which patterns, and what is
/// supported.
fn no_files(p: &Params, root: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NoFilesFound,
        format!(
            "no source files under '{}' match the patterns",
            if root.is_empty() { "." } else { root }
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
    .with("supported_languages", crate::lang::ids())
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

#[cfg(test)]
mod tests;
