//! `semantic_search`: find code by meaning, in English or Japanese (seed 004).

use super::Context;
use crate::error::{ToolError, ToolResult};
use crate::search::semantic::{Collection, SearchRequest, SearchResponse};
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::Duration;

pub const DESCRIPTION: &str = "Find the code a request in plain words is about (English or Japanese): \
'where is the order total calculated', 'ログイン機能'. Combines embedding similarity, BM25, symbol \
definitions, file paths and learned agreements, one result per file first. `collection: auto` (default) \
checks learned agreements (the map) first and answers from them alone when one matches with relevance \
≥ 0.7; otherwise searches the code (the forest) and returns relevant agreements as `map_hints`. Each \
result has file, lines, symbol, chunk type, snippet, score and its components, and whether the file \
changed since it was indexed. `index_status` says whether the embedding model is ready (while it \
loads, results come from lexical and symbol signals only).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// What you are looking for, in words (any language) or identifiers.
    pub query: String,
    /// `auto` (default: map first, then code), `map` (learned agreements only) or `forest` (code only).
    pub collection: Option<Collection>,
    /// Maximum number of results (default 10, at most 50).
    pub n_results: Option<usize>,
}

pub type Output = SearchResponse;

impl Params {
    /// The query and the number of results, or what is wrong with them: everything the tool
    /// checks before it touches the index (the fuzz target runs exactly this).
    pub fn checked(&self) -> ToolResult<(&str, usize)> {
        let query = self.query.trim();
        if query.is_empty() {
            return Err(ToolError::invalid_parameter("query is empty").with(
                "hint",
                "describe the code you are looking for, e.g. 'where are orders saved'",
            ));
        }
        let n = self.n_results.unwrap_or(10);
        if n == 0 || n > 50 {
            return Err(ToolError::invalid_parameter(format!(
                "n_results must be between 1 and 50 (got {n})"
            ))
            .with("n_results", n));
        }
        Ok((query, n))
    }
}

/// How long a call waits for another sync (a forced rebuild, a repair, the first sync of a
/// fresh server) before it answers from the files stored so far: a small project's whole
/// lexical sync fits in it, a large one's rebuild (tens of seconds) does not.
const SYNC_PATIENCE: Duration = Duration::from_secs(3);

pub fn run(ctx: &Context, params: Params) -> ToolResult<Output> {
    let (query, n) = params.checked()?;
    let sem = &ctx.semantic;
    let complete = sem
        .ensure_indexed_within(&ctx.ws, &ctx.symbols, SYNC_PATIENCE)
        .map_err(|err| super::index_failure("indexing failed", &err))?;
    let mut request = SearchRequest::new(query, n, ctx.ws.config.search_weights);
    request.collection = params.collection.unwrap_or_default();
    let mut response = ctx
        .search(&request)
        .map_err(|err| super::index_failure("search failed", &err))?;
    if !complete {
        response.note = Some(
            "a sync is storing the project's files (index_status.syncing, index_status.store): \
             these results cover only the files stored so far; search_text and \
             find_definitions read the files themselves"
                .into(),
        );
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn finds_code_by_words_and_flags_changed_files() {
        let (dir, ctx) = project(&[
            (
                "app/billing/invoice.py",
                "class InvoiceMailer:\n    def send_invoice(self, order):\n        smtp.send(order.customer.email)\n",
            ),
            (
                "app/cart.py",
                "def calculate_total(items):\n    return sum(i.price for i in items)\n",
            ),
        ]);
        let out = run(
            &ctx,
            "semantic_search",
            json!({"query": "send the invoice mail"}),
        )
        .unwrap();
        let results = out["results"].as_array().unwrap();
        assert_eq!(results[0]["file"], "app/billing/invoice.py", "{out}");
        assert_eq!(results[0]["changed_since_indexed"], false);
        assert_eq!(out["source"], "forest");
        assert!(out["index_status"]["chunks"].as_u64().unwrap() >= 2);

        std::fs::write(
            dir.path().join("app/billing/invoice.py"),
            "class InvoiceMailer:\n    # moved\n    def send_invoice(self, order):\n        pass\n",
        )
        .unwrap();
        let out = run(
            &ctx,
            "semantic_search",
            json!({"query": "send the invoice mail"}),
        )
        .unwrap();
        assert_eq!(out["results"][0]["changed_since_indexed"], true, "{out}");

        for bad in [
            json!({"query": "  "}),
            json!({"query": "x", "n_results": 0}),
        ] {
            assert!(run(&ctx, "semantic_search", bad).is_err());
        }
    }

    #[test]
    fn a_call_does_not_queue_behind_a_long_sync_and_says_what_it_covers() {
        let (_dir, ctx) = project(&[(
            "app/cart.py",
            "def calculate_total(items):\n    return sum(i.price for i in items)\n",
        )]);
        let query = json!({"query": "calculate the cart total"});
        let sync_under_way = ctx.semantic.hold_sync_lock();
        let started = std::time::Instant::now();
        let out = run(&ctx, "semantic_search", query.clone()).unwrap();
        let waited = started.elapsed();
        assert!(
            waited >= super::SYNC_PATIENCE && waited < super::SYNC_PATIENCE * 3,
            "{waited:?}"
        );
        assert_eq!(out["index_status"]["syncing"], true, "{out}");
        assert!(out["index_status"]["last_sync"].is_null(), "{out}");
        assert!(
            out["note"]
                .as_str()
                .unwrap()
                .contains("files stored so far"),
            "{out}"
        );

        drop(sync_under_way);
        let out = run(&ctx, "semantic_search", query).unwrap();
        assert_eq!(out["index_status"]["syncing"], false, "{out}");
        assert!(out["note"].is_null(), "{out}");
        assert_eq!(out["results"][0]["file"], "app/cart.py", "{out}");
    }
}
