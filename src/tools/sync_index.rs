//! `sync_index`: brings the semantic index (forest of code chunks, map of agreements) up to date
//! with the workspace, incrementally, reporting progress.

use super::Context;
use crate::error::ToolResult;
use crate::index::semantic::{SyncOutcome, Target};
use crate::index::sync::Progress;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

pub const DESCRIPTION: &str = "Sync the semantic index with the workspace: re-index files added, modified or deleted \
since the last sync (SHA-256 fingerprints), then embed new chunks. The lexical index is usable as soon as the first \
phase ends; embedding continues in the background if it does not finish within the call. Sends progress \
notifications when the request has a progress token. Returns added/modified/deleted counts, chunks, embedding \
state and timings. A sync longer than sync_timeout_seconds (config.json, default 30) returns early with `background` \
saying it goes on in the background. Usually not needed: the server syncs at start and search results flag files \
changed since indexing. A store whose files are damaged is rebuilt (index_status.store says so).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Which collection to sync: `forest` (code chunks), `map` (learned agreements) or `all` (default).
    pub target: Option<Target>,
    /// Rebuild the index from scratch instead of only what changed (default false): the store
    /// starts empty, every file is indexed again, vectors come back from the machine's
    /// embedding cache where it holds them.
    pub force: Option<bool>,
}

pub type Output = SyncOutcome;

pub fn run(ctx: &Context, params: Params) -> ToolResult<Output> {
    let reporter = ctx.progress();
    // Leave time to answer within the call's limit, and give way at `sync_timeout_seconds`.
    let limit = Duration::from_secs(ctx.ws.config.sync_timeout_seconds).min(
        Duration::from_secs_f64(ctx.ws.config.tool_timeout_secs as f64 * 0.75),
    );
    let progress = move |p: Progress| {
        // Two phases on one monotonic 0-100 scale: indexing, then embedding.
        let fraction = if p.total > 0 {
            p.done as f64 / p.total as f64
        } else {
            0.0
        };
        let value = match p.phase {
            "scan" => 0.0,
            "index" => 50.0 * fraction,
            _ => 50.0 + 50.0 * fraction,
        };
        reporter.report(value, Some(100.0), &p.message);
    };
    let mut outcome = ctx
        .semantic
        .sync_within(
            &ctx.ws,
            &ctx.symbols,
            params.target.unwrap_or(Target::All),
            params.force.unwrap_or(false),
            limit,
            Arc::new(progress),
        )
        .map_err(|err| super::index_failure("sync failed", &err))?;
    outcome.config_problems = ctx.ws.config_report.problems.clone();
    Ok(outcome)
}

/// How long the start-up work that needs the model waits for it to load.
const MODEL_WAIT: Duration = Duration::from_secs(600);

/// Server start: warm the model up and, when the index is older than `sync_ttl_hours`, sync in
/// the background (the first searches answer lexically meanwhile).
pub fn start_background(ctx: Arc<Context>) {
    ctx.semantic.warm_up();
    // The request centers of the hubness correction take the model about a second to embed,
    // the project's words for the judge's bridges a few more: compute them as soon as it is
    // loaded, not inside the first search or verdict.
    let centers = ctx.clone();
    let _ = crate::background::spawn("code-intel-centers", move || {
        if let Ok(model) = centers.embedder.wait(MODEL_WAIT) {
            centers.search_cache.warm_model(&centers.semantic);
            let started = std::time::Instant::now();
            match centers.symbols.refresh(&centers.ws, centers.ws.root()) {
                Ok((snapshot, _)) => {
                    crate::judge::warm_bridges(&centers.ws, model.as_ref(), &snapshot);
                    tracing::debug!(
                        "bridge words embedded in {} ms",
                        started.elapsed().as_millis()
                    );
                }
                Err(err) => tracing::debug!("no bridge words embedded: {err}"),
            }
        }
    });
    if !ctx.ws.config.sync_on_start || !ctx.semantic.needs_sync() {
        // Still finish embedding an earlier sync left pending.
        let ctx = ctx.clone();
        let _ = crate::background::spawn("code-intel-sync", move || {
            if let Err(err) = ctx.semantic.embed(Some(Duration::ZERO), &|_| {}) {
                tracing::warn!("embedding at start failed: {err:#}");
            }
            ctx.search_cache.warm(&ctx.semantic, &ctx.ws, &ctx.symbols);
        });
        return;
    }
    let _ = crate::background::spawn("code-intel-sync", move || {
        let result = ctx.semantic.sync(
            &ctx.ws,
            &ctx.symbols,
            Target::All,
            false,
            Some(Duration::ZERO),
            &|_| {},
        );
        match result {
            Ok(outcome) => tracing::info!("startup sync done in {:.1}s", outcome.seconds),
            Err(err) => tracing::warn!("startup sync failed: {err:#}"),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::Context;
    use super::super::test_support::{project, run};
    use serde_json::json;

    #[test]
    fn syncs_incrementally_and_reports_counts() {
        let (dir, ctx) = project(&[
            (
                "app/cart.py",
                "class Cart:\n    def total(self):\n        return 1\n",
            ),
            ("README.md", "# Shop\nA shop.\n"),
        ]);
        let out = run(&ctx, "sync_index", json!({})).unwrap();
        assert_eq!(out["forest"]["added"], 2, "{out}");
        assert_eq!(out["map"]["agreements"], 0);
        std::fs::write(
            dir.path().join("app/cart.py"),
            "def total():\n    return 2\n",
        )
        .unwrap();
        std::fs::remove_file(dir.path().join("README.md")).unwrap();
        let out = run(&ctx, "sync_index", json!({"target": "forest"})).unwrap();
        assert_eq!(out["forest"]["modified"], 1, "{out}");
        assert_eq!(out["forest"]["deleted"], 1);
        assert_eq!(out["forest"]["added"], 0);
        assert!(out.get("map").is_none());
        let err = run(&ctx, "sync_index", json!({"target": "trees"})).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::InvalidParameter);
    }

    /// `supported_languages` narrows the index (and a narrower setting removes what it leaves
    /// out); `chunk_strategy` decides the chunks, and changing it re-chunks every file.
    #[test]
    fn languages_and_chunk_strategy_change_what_is_indexed() {
        let (dir, ctx) = project(&[
            (
                "app/cart.py",
                "class Cart:\n    def total(self):\n        return 1\n",
            ),
            (
                "web/cart.ts",
                "export function total(): number {\n  return 1;\n}\n",
            ),
            ("README.md", "# Shop\nA shop.\n"),
        ]);
        let out = run(&ctx, "sync_index", json!({"target": "forest"})).unwrap();
        assert_eq!(out["forest"]["files"], 3, "{out}");
        assert_eq!(out["forest"]["rechunked"], false);
        let chunks = run(&ctx, "get_chunks", json!({"path": "app/cart.py"})).unwrap();
        assert_eq!(chunks["files"][0]["strategy"], "code", "{chunks}");
        drop(ctx);

        std::fs::write(
            dir.path().join(".code-intel/config.json"),
            r#"{"supported_languages": ["python"], "chunk_strategy": "lines"}"#,
        )
        .unwrap();
        let ctx = Context::open(dir.path()).unwrap();
        let out = run(&ctx, "sync_index", json!({"target": "forest"})).unwrap();
        assert_eq!(out["forest"]["rechunked"], true, "{out}");
        // The Python file and the README (text has no language); the TypeScript file is out.
        assert_eq!(out["forest"]["files"], 2, "{out}");
        let chunks = run(&ctx, "get_chunks", json!({"path": "app/cart.py"})).unwrap();
        assert_eq!(chunks["files"][0]["strategy"], "lines", "{chunks}");
        let again = run(&ctx, "sync_index", json!({"target": "forest"})).unwrap();
        assert_eq!(again["forest"]["rechunked"], false, "{again}");
        assert_eq!(again["forest"]["unchanged"], 2, "{again}");
    }

    /// `auto_purge_days`: an old agreement whose symbol is gone is purged (file and row); an old
    /// one whose symbol exists and a young one whose symbol is gone stay.
    #[test]
    fn old_agreements_about_vanished_symbols_are_purged() {
        let agreement = |symbol: &str, created: &str| {
            format!(
                "---\nnl_term: cart {symbol}\nsymbol: {symbol}\ncreated_at: {created}\n---\n\n## 根拠\n\n{symbol}\n"
            )
        };
        let now = chrono::Utc::now().to_rfc3339();
        let old = "2020-01-02T03:04:05+00:00";
        let (old_gone, old_kept) = (agreement("Vanished", old), agreement("Cart", old));
        let new_gone = agreement("Vanished", &now);
        let (dir, ctx) = project(&[
            ("app/cart.py", "class Cart:\n    pass\n"),
            (".code-intel/config.json", r#"{"auto_purge_days": 10}"#),
            (".code-intel/agreements/old-gone.md", old_gone.as_str()),
            (".code-intel/agreements/old-kept.md", old_kept.as_str()),
            (".code-intel/agreements/new-gone.md", new_gone.as_str()),
        ]);
        let out = run(&ctx, "sync_index", json!({"target": "map"})).unwrap();
        assert_eq!(out["map"]["purged"], 1, "{out}");
        assert_eq!(out["map"]["agreements"], 2, "{out}");
        let left = |name: &str| {
            dir.path()
                .join(".code-intel/agreements")
                .join(name)
                .exists()
        };
        assert!(!left("old-gone.md"));
        assert!(left("old-kept.md") && left("new-gone.md"));
    }

    /// `sync_timeout_seconds`: a sync that runs longer returns at once, says it goes on in the
    /// background, and does finish there.
    #[test]
    fn a_sync_past_its_timeout_continues_in_the_background() {
        let (_dir, ctx) = project(&[
            ("app/cart.py", "class Cart:\n    pass\n"),
            (".code-intel/config.json", r#"{"sync_timeout_seconds": 0}"#),
        ]);
        let out = run(&ctx, "sync_index", json!({})).unwrap();
        assert!(
            out["background"]
                .as_str()
                .unwrap()
                .contains("sync_timeout_seconds (0 s)"),
            "{out}"
        );
        assert!(out.get("forest").is_none(), "{out}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while ctx.semantic.sync_state().last_sync.is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "the background sync never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(ctx.semantic.sync_state().files.len(), 1);
    }
}
