//! `analyze_file` (seed 002 §1): one file's structure in one call — summary, imports, exports,
//! functions, classes, types, enums — from the cached outline (`index::outlines`), with import
//! types from module resolution (`deps`). Syntax errors give `success: false, partial: true`,
//! the recovered structure, `errors` and `fallback`.

use super::Context;
use crate::analysis::outline::{
    Class, EnumDefinition, Export, FileOutline, Function, Import, ImportType, Location, Position,
    TypeDefinition, Variable, summarize,
};
use crate::error::{ErrorCode, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Analyse one source file and return its structure in one call, instead of reading \
it: a 1-2 sentence summary built from the code, imports (source, internal/external, imported names, \
default/namespace/typeOnly/dynamic), exports, functions (async, generator, typed parameters with \
optional/rest, return type, start/end line and column), classes (abstract, extends, implements, \
methods with accessModifier/static/abstract/async), interfaces and type aliases, enums, for every \
language with an outline (stylesheets and templates list their imports). `mode: \"detailed\"` adds doc comments and a short \
body excerpt per function; `include` limits the sections (structure, types, docs, dependencies). A \
file with syntax errors still returns what parsed, with `partial: true`, `errors` and `fallback`. \
Results are cached by file fingerprint.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File path, relative to the workspace root or absolute inside it.
    pub path: String,
    /// `concise` (default): signatures only. `detailed`: plus doc comments and body excerpts.
    pub mode: Option<Mode>,
    /// Sections to include (default all): `structure` (functions, classes), `types` (interfaces,
    /// type aliases, enums), `docs` (doc comments), `dependencies` (imports, exports).
    pub include: Option<Vec<Section>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Concise,
    Detailed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    Structure,
    Types,
    Docs,
    Dependencies,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// True when the file parsed without syntax errors.
    pub success: bool,
    /// True when syntax errors left parts of the file unanalysed.
    pub partial: bool,
    pub file: FileInfo,
    pub language: String,
    pub summary: String,
    pub exports: Vec<Export>,
    pub imports: Vec<Import>,
    pub functions: Vec<Function>,
    pub classes: Vec<Class>,
    pub types: Vec<TypeDefinition>,
    pub enums: Vec<EnumDefinition>,
    /// Module-level variables and constants.
    pub variables: Vec<Variable>,
    /// Namespace or package the file declares (PHP, Java, Go).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ParseError>,
    /// Size and lines of the file, for reading it directly when parsing failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileInfo {
    pub path: String,
    pub size: u64,
    pub lines: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Fallback {
    pub size: u64,
    pub lines: usize,
}

/// Seed 002's `ParseError`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ParseError {
    pub code: &'static str,
    pub message: String,
    pub severity: &'static str,
    pub location: Location,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let target = ctx.ws.resolve_file(&p.path)?;
    ctx.touched(&target);
    let entry = ctx.outlines.file(&ctx.ws, &target).map_err(|err| {
        if err.code == ErrorCode::InvalidParameter {
            err.with("hint", "search_text works on any text file")
        } else {
            err
        }
    })?;
    let mode = p.mode.unwrap_or_default();
    let sections = p.include.clone();
    let wants = |s: Section| sections.as_ref().is_none_or(|list| list.contains(&s));
    // Docs come with detailed mode, or when `docs` is asked for explicitly.
    let docs = (mode == Mode::Detailed && wants(Section::Docs))
        || sections
            .as_ref()
            .is_some_and(|l| l.contains(&Section::Docs));
    let mut outline: FileOutline = (*entry.outline).clone();
    outline.set_file(&target.rel);
    outline.strip_details(docs, mode == Mode::Detailed);
    let summary = summarize(&entry.outline, &target.rel);
    if wants(Section::Dependencies) {
        let imports = std::mem::take(&mut outline.imports);
        outline.imports = resolved(ctx, &target.rel, &entry.outline, imports);
    }
    let partial = outline.is_partial();
    let errors = parse_errors(&outline, &target.rel);
    Ok(Output {
        success: !partial,
        partial,
        file: FileInfo {
            path: target.rel.clone(),
            size: entry.size,
            lines: entry.lines,
        },
        language: outline.language.clone(),
        summary,
        exports: if wants(Section::Dependencies) {
            outline.exports
        } else {
            Vec::new()
        },
        imports: if wants(Section::Dependencies) {
            outline.imports
        } else {
            Vec::new()
        },
        functions: if wants(Section::Structure) {
            outline.functions
        } else {
            Vec::new()
        },
        classes: if wants(Section::Structure) {
            outline.classes
        } else {
            Vec::new()
        },
        types: if wants(Section::Types) {
            outline.types
        } else {
            Vec::new()
        },
        enums: if wants(Section::Types) {
            outline.enums
        } else {
            Vec::new()
        },
        variables: if wants(Section::Structure) {
            outline.variables
        } else {
            Vec::new()
        },
        module: outline.module,
        errors,
        fallback: partial.then_some(Fallback {
            size: entry.size,
            lines: entry.lines,
        }),
    })
}

/// The imports with their internal/external type from module resolution (not the outline's
/// guess); a class named without `use` is kept only when it is a project file.
fn resolved(ctx: &Context, file: &str, outline: &FileOutline, imports: Vec<Import>) -> Vec<Import> {
    let snapshot = ctx.outlines.snapshot();
    let resolutions = ctx.graph.resolve_imports(&snapshot, file, outline);
    imports
        .into_iter()
        .zip(resolutions.iter())
        .filter(|(import, resolution)| !(import.is_reference() && resolution.targets.is_empty()))
        .map(|(mut import, resolution)| {
            import.kind = if resolution.internal {
                ImportType::Internal
            } else {
                ImportType::External
            };
            import
        })
        .collect()
}

/// The outline's syntax errors in seed 002's error shape.
fn parse_errors(outline: &FileOutline, file: &str) -> Vec<ParseError> {
    outline
        .errors
        .iter()
        .map(|e| {
            let at = Position {
                line: e.line,
                column: e.column,
            };
            ParseError {
                code: "PARSE_ERROR",
                message: e.message.clone(),
                severity: "error",
                location: Location {
                    file: file.to_string(),
                    start: at,
                    end: at,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
