//! Shared helpers: temporary projects, a context with the fake embedder, store inspection.

use code_intel::embed::{EmbedderHandle, FakeEmbedder};
use code_intel::index::semantic::{SemanticIndex, Target};
use code_intel::tools::Context;
use std::path::Path;
use std::sync::Arc;

pub fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
}

pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    dir
}

/// A context whose semantic index uses the fake embedder (and no embedding cache).
pub fn context(root: &Path) -> Context {
    context_with(root, None)
}

/// [`context`] with the machine's embedding cache at a place of the test's own.
pub fn context_with_cache(
    root: &Path,
    cache: Arc<code_intel::embed::cache::VectorCache>,
) -> Context {
    context_with(root, Some(cache))
}

fn context_with(root: &Path, cache: Option<Arc<code_intel::embed::cache::VectorCache>>) -> Context {
    let mut ctx = Context::open(root).unwrap();
    ctx.semantic = Arc::new(
        SemanticIndex::with_model(
            &ctx.ws,
            EmbedderHandle::ready(Arc::new(FakeEmbedder::new())),
        )
        .with_vector_cache(cache),
    );
    ctx.semantic.set_relevance(ctx.sessions.relevance().clone());
    ctx.sessions.set_map_store(ctx.semantic.clone());
    ctx
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(files_under(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

pub fn sync(ctx: &Context) -> code_intel::index::semantic::SyncOutcome {
    ctx.semantic
        .sync(&ctx.ws, &ctx.symbols, Target::All, false, None, &|_| {})
        .unwrap()
}

/// Store invariants after any sync: ids unique, every file in the table exists, is recorded in
/// the state with the same number of chunks, and nothing recorded is missing from the table.
pub fn assert_consistent(ctx: &Context) {
    let store = ctx.semantic.store().unwrap();
    let ids = store.chunk_ids().unwrap();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "duplicate chunk ids");
    let counts = store.chunk_counts().unwrap();
    let state = ctx.semantic.sync_state();
    for (file, n) in &counts {
        assert!(
            ctx.ws.root().join(file).exists(),
            "orphan chunks of deleted {file}"
        );
        let recorded = state.files.get(file).map(|f| f.chunks);
        assert_eq!(
            recorded,
            Some(*n),
            "{file}: table has {n} chunks, state {recorded:?}"
        );
    }
    for (file, entry) in &state.files {
        if entry.chunks > 0 {
            assert_eq!(
                counts.get(file),
                Some(&entry.chunks),
                "{file} missing from the table"
            );
        }
    }
}
