//! `find_definitions`: where a symbol is defined, from the fresh symbol index.

use super::search_text::bounded;
use super::{Context, check_symbol, resolve_or_root};
use crate::analysis::{Symbol, SymbolKind};
use crate::error::{ErrorCode, ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DESCRIPTION: &str = "Find where a symbol is defined: functions, methods, classes, interfaces, traits, \
enums, types, constants, variables, properties, in every supported language (the `language` error \
lists them; Blade sections and CSS selectors count). Give a bare name (`AuthService`, `login`) or a qualified one \
(`App\\Models\\Product`, `CartService::add`, `AuthService.login`, `Product->save`, `Story#save`; a trailing `()` is ignored). Each result has kind, file, 1-based \
line and end line, scope, qualified name (PHP: FQCN), signature and language. `exact_match: false` \
matches case-insensitive substrings.";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Symbol name, bare or qualified.
    pub symbol: String,
    /// Limit to a file or directory, relative to the workspace root.
    pub path: Option<String>,
    /// Limit to one language id (`python`, `php`, `typescript`, …).
    pub language: Option<String>,
    /// Exact name match (default true); false = case-insensitive substring.
    pub exact_match: Option<bool>,
    /// Limit to one kind (`class`, `method`, `function`, …).
    pub kind: Option<String>,
    /// Maximum definitions returned (1-1000, default 50).
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub definitions: Vec<Definition>,
    pub total: usize,
    pub truncated: bool,
    /// Files indexed for this answer.
    pub files_indexed: usize,
}

/// A symbol with the file and language it lives in.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Definition {
    pub file: String,
    pub language: String,
    #[serde(flatten)]
    pub symbol: Symbol,
}

pub fn run(ctx: &Context, p: Params) -> ToolResult<Output> {
    let symbol = check_symbol(&p.symbol)?;
    let max_results = bounded("max_results", p.max_results.unwrap_or(50), 1, 1000)?;
    let language = p.language.as_deref().map(parse_language).transpose()?;
    let kind = p.kind.as_deref().map(parse_kind).transpose()?;
    let base = resolve_or_root(ctx, p.path.as_deref())?;
    let (snapshot, _) = ctx
        .symbols
        .refresh(&ctx.ws, &base.abs)
        .map_err(ToolError::from)?;
    let matcher = NameMatcher::new(symbol, p.exact_match.unwrap_or(true));
    // `()` or `Product.` leave no name; a substring search for nothing would list every symbol.
    if matcher.name.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidSymbol,
            format!("'{symbol}' names no symbol"),
        )
        .with("symbol", symbol));
    }
    let mut found: Vec<Definition> = Vec::new();
    for (file, entry) in &snapshot.files {
        if !in_scope(file, &base.rel) || language.is_some_and(|l| l != entry.symbols.language) {
            continue;
        }
        // Exact lookups read only each file's name list; symbols are decoded for the hits.
        if matcher.exact && !entry.symbols.has_name(&matcher.name) {
            continue;
        }
        for s in &entry.symbols.symbols {
            if kind.is_none_or(|k| k == s.kind) && matcher.matches(s, file) {
                found.push(Definition {
                    file: file.clone(),
                    language: entry.symbols.language.clone(),
                    symbol: s.clone(),
                });
            }
        }
    }
    // Exact-case matches and type-like definitions first: they are what "go to definition" means.
    found.sort_by(|a, b| {
        let rank = |d: &Definition| {
            (
                d.symbol.name != symbol,
                !d.symbol.kind.is_type_like(),
                d.symbol.kind == SymbolKind::Property,
            )
        };
        rank(a)
            .cmp(&rank(b))
            .then(a.file.cmp(&b.file))
            .then(a.symbol.line.cmp(&b.symbol.line))
    });
    let total = found.len();
    found.truncate(max_results);
    Ok(Output {
        truncated: total > found.len(),
        total,
        definitions: found,
        files_indexed: snapshot.files.len(),
    })
}

pub(super) fn in_scope(file: &str, base_rel: &str) -> bool {
    base_rel.is_empty()
        || file == base_rel
        || (file.starts_with(base_rel) && file.as_bytes().get(base_rel.len()) == Some(&b'/'))
}

pub(super) fn parse_language(id: &str) -> ToolResult<&'static str> {
    crate::lang::by_id(id).map(|l| l.id).ok_or_else(|| {
        ToolError::invalid_parameter(format!("unknown language '{id}'"))
            .with("supported_languages", crate::lang::ids())
    })
}

pub(super) fn parse_kind(kind: &str) -> ToolResult<SymbolKind> {
    SymbolKind::parse(kind).ok_or_else(|| {
        ToolError::invalid_parameter(format!("unknown kind '{kind}'")).with(
            "kinds",
            "function, method, class, interface, trait, enum, struct, type, constant, variable, property, module, namespace, macro, rule, keyframes, section, element",
        )
    })
}

/// Matches a bare or qualified name against symbols.
struct NameMatcher {
    name: String,
    qualifier: Option<String>,
    exact: bool,
}

impl NameMatcher {
    fn new(symbol: &str, exact: bool) -> NameMatcher {
        let (qualifier, name) = crate::analysis::split_qualified(symbol);
        NameMatcher {
            name: name.to_string(),
            qualifier,
            exact,
        }
    }

    /// `s`, defined in `file`, by name and qualifier ([`Symbol::answers_to`]).
    fn matches(&self, s: &Symbol, file: &str) -> bool {
        let name_ok = if self.exact {
            s.name == self.name
        } else {
            s.name.to_lowercase().contains(&self.name.to_lowercase())
        };
        name_ok
            && self
                .qualifier
                .as_ref()
                .is_none_or(|q| s.answers_to(q, file))
    }
}

#[cfg(test)]
mod tests {
    use crate::tools::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn bare_and_qualified_names() {
        let (_d, ctx) = project(&[
            (
                "app/Models/Product.php",
                "<?php\nnamespace App\\Models;\n\nclass Product\n{\n    public function save(): bool { return true; }\n}\n",
            ),
            (
                "src/product.py",
                "class Product:\n    def save(self):\n        pass\n",
            ),
        ]);
        let out = run(&ctx, "find_definitions", json!({"symbol": "Product"})).unwrap();
        assert_eq!(out["total"], 2);
        let out = run(
            &ctx,
            "find_definitions",
            json!({"symbol": "App\\Models\\Product"}),
        )
        .unwrap();
        assert_eq!(out["total"], 1);
        assert_eq!(
            out["definitions"][0]["qualified_name"],
            "App\\Models\\Product"
        );
        let out = run(&ctx, "find_definitions", json!({"symbol": "Product::save"})).unwrap();
        assert_eq!(out["total"], 2);
        // PHP's instance arrow and a copied call name the same methods; another class does not.
        for written in [
            "Product->save",
            "Product.save()",
            "\\App\\Models\\Product::save",
        ] {
            let out = run(&ctx, "find_definitions", json!({"symbol": written})).unwrap();
            let want = if written.contains("Models") { 1 } else { 2 };
            assert_eq!(out["total"], want, "{written}");
        }
        let out = run(&ctx, "find_definitions", json!({"symbol": "Order->save"})).unwrap();
        assert_eq!(out["total"], 0);
        let out = run(
            &ctx,
            "find_definitions",
            json!({"symbol": "save", "language": "python"}),
        )
        .unwrap();
        assert_eq!(out["definitions"][0]["kind"], "method");
        assert_eq!(out["definitions"][0]["scope"], "Product");
        let out = run(
            &ctx,
            "find_definitions",
            json!({"symbol": "prod", "exact_match": false}),
        )
        .unwrap();
        assert_eq!(out["total"], 2);
    }

    #[test]
    fn empty_symbol_is_invalid() {
        let (_d, ctx) = project(&[("a.py", "x = 1\n")]);
        assert_eq!(
            run(&ctx, "find_definitions", json!({"symbol": "  "}))
                .unwrap_err()
                .code
                .as_str(),
            "INVALID_SYMBOL"
        );
        // A call's parentheses alone name nothing, even as a substring.
        let err = run(
            &ctx,
            "find_definitions",
            json!({"symbol": "()", "exact_match": false}),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_SYMBOL");
    }
}
