//! `repo_pack`: files packed into one document for a language model (`pack`), with token
//! counts, optional compression to signatures, masked secrets and a token budget.

use super::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::pack::{Encoding, PackError, PackOptions, Style, pack};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Pack files into one document for a language model (like Repomix): a directory \
tree header, then each file, as `xml` (default), `markdown` or `plain`. Choose files with `include` / \
`exclude` globs (gitignore syntax; .gitignore'd, hidden, binary and dependency files are skipped), or \
`explored: true` for the files the current session has explored. \
Returns `total_tokens` and per-file `tokens` (tiktoken o200k_base, or cl100k_base). `compress: true` \
keeps only signatures and doc comments. Secrets (API keys, tokens, private keys, passwords, .env \
values) are masked. With `max_tokens` the call fails fast with TOKEN_BUDGET_EXCEEDED naming the \
largest files, or with `split: true` returns `parts` that each fit.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Globs of files to pack (default: every file of the project).
    pub include: Option<Vec<String>>,
    /// Globs of files to leave out.
    pub exclude: Option<Vec<String>>,
    /// Pack the files (and directories) the session has explored so far, plus any `include`.
    pub explored: Option<bool>,
    /// With `explored`: the session (default: the active one).
    pub session_id: Option<String>,
    /// `xml` (default), `markdown` or `plain`.
    pub style: Option<StyleParam>,
    /// Keep only signatures and doc comments (function bodies elided). Default false.
    pub compress: Option<bool>,
    /// Token budget for the pack (or for each part when `split`).
    pub max_tokens: Option<usize>,
    /// With `max_tokens`: split into parts that each fit instead of failing. Default false.
    pub split: Option<bool>,
    /// `o200k_base` (default) or `cl100k_base`.
    pub encoding: Option<EncodingParam>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StyleParam {
    Xml,
    Markdown,
    Plain,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EncodingParam {
    O200kBase,
    Cl100kBase,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub total_tokens: usize,
    pub encoding: &'static str,
    pub style: &'static str,
    pub compressed: bool,
    pub file_count: usize,
    pub files: Vec<FileTokens>,
    /// Secrets replaced by `[MASKED]`, over all files.
    pub masked_secrets: usize,
    /// The packed document (absent when split into several parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartOut>,
    /// Files that were not packed, and why (binary, too large, unreadable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<crate::index::SkippedFile>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileTokens {
    pub path: String,
    pub tokens: usize,
    pub lines: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub masked_secrets: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PartOut {
    pub index: usize,
    pub tokens: usize,
    pub files: Vec<String>,
    pub content: String,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let style = match p.style.unwrap_or(StyleParam::Xml) {
        StyleParam::Xml => Style::Xml,
        StyleParam::Markdown => Style::Markdown,
        StyleParam::Plain => Style::Plain,
    };
    let encoding = match p.encoding.unwrap_or(EncodingParam::O200kBase) {
        EncodingParam::O200kBase => Encoding::O200k,
        EncodingParam::Cl100kBase => Encoding::Cl100k,
    };
    if p.max_tokens == Some(0) {
        return Err(ToolError::invalid_parameter("max_tokens must be positive")
            .with("parameter", "max_tokens"));
    }
    if p.split == Some(true) && p.max_tokens.is_none() {
        return Err(
            ToolError::invalid_parameter("split needs max_tokens (the size of each part)")
                .with("parameter", "split"),
        );
    }
    let mut include = p.include.unwrap_or_default();
    if p.explored == Some(true) {
        include.extend(explored_globs(ctx, p.session_id.as_deref())?);
    } else if p.session_id.is_some() {
        return Err(
            ToolError::invalid_parameter("session_id is only used with explored: true")
                .with("parameter", "session_id"),
        );
    }
    let options = PackOptions {
        include,
        exclude: p.exclude.unwrap_or_default(),
        style,
        compress: p.compress.unwrap_or(false),
        max_tokens: p.max_tokens,
        split: p.split.unwrap_or(false),
        encoding,
    };
    let packed = pack(&ctx.ws, &options).map_err(wire_error)?;
    let single = packed.parts.len() == 1;
    let mut parts = packed.parts;
    Ok(Output {
        total_tokens: packed.total_tokens,
        encoding: encoding.name(),
        style: match style {
            Style::Xml => "xml",
            Style::Markdown => "markdown",
            Style::Plain => "plain",
        },
        compressed: options.compress,
        file_count: packed.files.len(),
        masked_secrets: packed.files.iter().map(|f| f.masked_secrets).sum(),
        files: packed
            .files
            .into_iter()
            .map(|f| FileTokens {
                path: f.path,
                tokens: f.tokens,
                lines: f.lines,
                masked_secrets: f.masked_secrets,
            })
            .collect(),
        content: if single {
            parts.pop().map(|p| p.content)
        } else {
            None
        },
        parts: parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| PartOut {
                index: i + 1,
                tokens: part.tokens,
                files: part.files,
                content: part.content,
            })
            .collect(),
        skipped: packed
            .skipped
            .into_iter()
            .map(|(file, reason)| crate::index::SkippedFile { file, reason })
            .collect(),
    })
}

/// A packing failure as the wire's error, with what the caller needs to fix it.
fn wire_error(err: PackError) -> ToolError {
    match err {
        PackError::InvalidGlob(message) => {
            ToolError::invalid_parameter(message).with("parameter", "include/exclude")
        }
        PackError::NoFiles => ToolError::new(
            ErrorCode::NoFilesFound,
            "no readable text files match include/exclude",
        )
        .with(
            "hint",
            "globs are relative to the workspace root, e.g. \"src/**/*.ts\"",
        ),
        PackError::OverBudget {
            total,
            max,
            largest,
        } => {
            let names: Vec<String> = largest
                .iter()
                .take(5)
                .map(|(path, tokens)| format!("{path} ({tokens})"))
                .collect();
            ToolError::new(
                ErrorCode::TokenBudgetExceeded,
                format!(
                    "the pack needs {total} tokens, over max_tokens {max}; largest files: {}",
                    names.join(", ")
                ),
            )
            .with("total_tokens", total)
            .with("max_tokens", max)
            .with(
                "largest_files",
                largest
                    .iter()
                    .map(|(path, tokens)| serde_json::json!({"path": path, "tokens": tokens}))
                    .collect::<Vec<_>>(),
            )
            .with(
                "hint",
                "exclude the largest files, set compress: true, or set split: true for parts",
            )
        }
        PackError::FileOverBudget { path, tokens, max } => ToolError::new(
            ErrorCode::TokenBudgetExceeded,
            format!("'{path}' alone needs {tokens} tokens, over max_tokens {max}"),
        )
        .with("file", path)
        .with("tokens", tokens)
        .with("max_tokens", max)
        .with(
            "hint",
            "exclude it, set compress: true, or raise max_tokens",
        ),
    }
}

/// The session's explored files and directories as include globs.
fn explored_globs(ctx: &Context, session_id: Option<&str>) -> ToolResult<Vec<String>> {
    let store = ctx.sessions.store();
    let state = match session_id {
        Some(id) => store.load(id).map(Some),
        None => store.active(),
    }
    .map_err(|err| {
        ToolError::invalid_parameter(format!("cannot read the session: {err}"))
            .with("parameter", "session_id")
    })?;
    let Some(state) = state else {
        return Err(ToolError::invalid_parameter(
            "explored: true needs a session, and none is active",
        )
        .with("parameter", "explored")
        .with(
            "hint",
            "start_session first, or pass session_id, or use include globs",
        ));
    };
    if state.explored_files.is_empty() {
        return Err(ToolError::invalid_parameter(format!(
            "session {} has no explored files yet",
            state.session_id
        ))
        .with("parameter", "explored")
        .with("session_id", state.session_id.clone()));
    }
    // Anchored at the root; a directory entry takes everything below it.
    Ok(state
        .explored_files
        .iter()
        .map(|entry| match entry.strip_suffix('/') {
            Some(dir) => format!("/{dir}/**"),
            None => format!("/{entry}"),
        })
        .collect())
}

#[cfg(test)]
mod tests;
