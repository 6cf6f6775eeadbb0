//! `search_symbol` (seed 002 §2): where symbols are defined, by exact, prefix, suffix or
//! substring match, from the fresh symbol index; each result carries the name's own line and
//! column, the signature of functions and methods, whether it is exported, and two lines of
//! context. Matching lives in `search::symbol`.

use super::Context;
use super::find_definitions::parse_language;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::search::symbol::{
    Hit, KindFilter, MatchType, NameMatcher, call_signature, find_word, search,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub const DESCRIPTION: &str = "Find where symbols (functions, methods, classes, interfaces, types, enums, \
variables, constants) are defined, by name: `matchType` exact (default), prefix (`User` → UserService), \
suffix (`Service` → AuthService) or contains (`User` → getCurrentUser). `caseSensitive: false` ignores \
case; `identifierWords: true` compares identifier words, so get_user_by_id, getUserById and \
GetUserByID are the same name. `type` filters by function, class, type, variable or all. Each result \
has symbol, type, file, line, column, signature (functions and methods), exported and context. Empty \
results are not an error.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Params {
    /// The symbol name (or part of it, with `matchType`).
    pub symbol: String,
    /// `function`, `class`, `type`, `variable` or `all` (default); a precise kind such as
    /// `method` or `interface` also works.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `exact` (default), `prefix`, `suffix` or `contains`.
    pub match_type: Option<MatchTypeParam>,
    /// Match letter case exactly (default true).
    pub case_sensitive: Option<bool>,
    /// Compare identifier words, ignoring camelCase / snake_case / kebab-case style (default false).
    pub identifier_words: Option<bool>,
    /// Limit to a file or directory, relative to the workspace root.
    pub path: Option<String>,
    /// Limit to one language id (`typescript`, `python`, `php`, …).
    pub language: Option<String>,
    /// Maximum results (1-1000, default 100); `total` counts them all.
    pub max_results: Option<usize>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchTypeParam {
    Exact,
    Prefix,
    Suffix,
    Contains,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    pub results: Vec<SymbolResult>,
    /// Milliseconds spent, index refresh included.
    pub search_time: f64,
    pub files_scanned: usize,
    /// All matches, even beyond `maxResults`.
    pub total: usize,
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolResult {
    pub symbol: String,
    /// The symbol's kind: function, method, class, interface, type, enum, variable, …
    #[serde(rename = "type")]
    pub kind: String,
    pub file: String,
    pub line: usize,
    /// Column of the name itself (1-based).
    pub column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    pub exported: bool,
    /// The definition line and the next one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Enclosing class or namespace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    pub language: String,
}

const CONTEXT_LINES: usize = 2;

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let started = std::time::Instant::now();
    let symbol = p.symbol.trim();
    if symbol.is_empty() {
        return Err(
            ToolError::new(ErrorCode::InvalidSymbol, "the symbol name is empty")
                .with("symbol", p.symbol.clone()),
        );
    }
    if symbol.chars().any(char::is_whitespace) {
        return Err(ToolError::new(
            ErrorCode::InvalidSymbol,
            format!("'{symbol}' is not a symbol name (it contains whitespace)"),
        )
        .with("symbol", p.symbol.clone())
        .with("hint", "use search_text for phrases"));
    }
    let kinds = match p.kind.as_deref() {
        None => KindFilter::All,
        Some(kind) => KindFilter::parse(kind).ok_or_else(|| {
            ToolError::invalid_parameter(format!("unknown type '{kind}'"))
                .with("parameter", "type")
                .with("accepted", "function, class, type, variable, all, or a kind such as method, interface, enum")
        })?,
    };
    let max_results = p.max_results.unwrap_or(100);
    if !(1..=1000).contains(&max_results) {
        return Err(
            ToolError::invalid_parameter("maxResults must be between 1 and 1000")
                .with("parameter", "maxResults"),
        );
    }
    let language = p.language.as_deref().map(parse_language).transpose()?;
    let match_type = match p.match_type.unwrap_or(MatchTypeParam::Exact) {
        MatchTypeParam::Exact => MatchType::Exact,
        MatchTypeParam::Prefix => MatchType::Prefix,
        MatchTypeParam::Suffix => MatchType::Suffix,
        MatchTypeParam::Contains => MatchType::Contains,
    };
    let matcher = NameMatcher::new(
        symbol,
        match_type,
        p.case_sensitive.unwrap_or(true),
        p.identifier_words.unwrap_or(false),
    );
    let base = ctx.ws.resolve(p.path.as_deref().unwrap_or(""))?;
    let (snapshot, _) = ctx
        .symbols
        .refresh(&ctx.ws, &base.abs)
        .map_err(ToolError::from)?;
    let (hits, scanned) = search(&snapshot, &base.rel, language, &matcher, &kinds);
    let total = hits.len();
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let results = hits
        .into_iter()
        .take(max_results)
        .map(|hit| {
            let text = texts
                .entry(hit.file.clone())
                .or_insert_with(|| {
                    std::fs::read(ctx.ws.root().join(&hit.file))
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                })
                .as_deref();
            result(hit, text)
        })
        .collect();
    Ok(Output {
        results,
        search_time: (started.elapsed().as_secs_f64() * 1000.0 * 100.0).round() / 100.0,
        files_scanned: scanned,
        truncated: total > max_results,
        total,
    })
}

fn result(hit: Hit, text: Option<&str>) -> SymbolResult {
    let s = hit.symbol;
    let lines: Vec<&str> = text
        .map(|t| {
            t.lines()
                .skip(s.line.saturating_sub(1))
                .take(CONTEXT_LINES)
                .collect()
        })
        .unwrap_or_default();
    // The index stores where the declaration starts; seed 002 reports where the name is.
    let column = lines
        .first()
        .and_then(|line| {
            let from = s.column.saturating_sub(1).min(line.len());
            let from = (0..=from)
                .rev()
                .find(|i| line.is_char_boundary(*i))
                .unwrap_or(0);
            find_word(&line[from..], &s.name)
                .map(|i| from + i + 1)
                .or_else(|| find_word(line, &s.name).map(|i| i + 1))
        })
        .unwrap_or(s.column);
    let context = (!lines.is_empty()).then(|| {
        let mut context = lines.join("\n");
        context.push('\n');
        context
    });
    SymbolResult {
        signature: s
            .kind
            .is_callable()
            .then(|| call_signature(&s.name, &s.signature)),
        symbol: s.name,
        kind: s.kind.as_str().to_string(),
        file: hit.file,
        line: s.line,
        column,
        exported: s.exported,
        context,
        scope: s.scope,
        language: hit.language,
    }
}

#[cfg(test)]
mod tests;
