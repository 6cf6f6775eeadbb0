//! `code-intel index` killed with SIGKILL at arbitrary moments (while chunking, committing,
//! writing the state or embedding) and in the middle of the store's compaction, with files
//! changing in between: every intermediate store opens and answers, and the final sync ends
//! exactly where a clean index of the same files ends — no duplicates, no orphans, nothing
//! missing, everything embedded.

use crate::support::{assert_consistent, context, files_under, sync, write};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn module(i: usize, variant: usize) -> String {
    (0..6)
        .map(|f| {
            format!(
                "def handler_{i}_{f}_v{variant}(request):\n    \"\"\"Handles request kind {f} of module {i}.\"\"\"\n    value = request.get('field_{f}')\n    if value is None:\n        return error_response({i}, {f})\n    return process_{f}(value, retries={variant})\n\n\n"
            )
        })
        .collect()
}

/// `count` modules spread over `packages` package directories under `root`.
fn write_modules(root: &Path, count: usize, packages: usize) {
    let files: Vec<(String, String)> = (0..count)
        .map(|i| (format!("pkg{}/mod_{i}.py", i % packages), module(i, 0)))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    write(root, &refs);
}

/// `code-intel index` on `root` with the fake embedder (`embedder`, e.g. `fake:2000` for 2 ms
/// a chunk), the store's debug log on stderr when `log` is set.
fn start_index(root: &Path, embedder: &str, log: bool) -> std::process::Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_code-intel"));
    command
        .args(["index", "--json", "--root"])
        .arg(root)
        .env("CODE_INTEL_EMBEDDER", embedder)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if log {
        command
            .env("CODE_INTEL_LOG", "code_intel::store=debug")
            .stderr(Stdio::piped());
    }
    command.spawn().unwrap()
}

fn index_killed_after(root: &Path, after: Duration) -> bool {
    // 2 ms per chunk: about 5 s of embedding, so kills land in every stage.
    let mut child = start_index(root, "fake:2000", false);
    std::thread::sleep(after);
    let finished = child.try_wait().unwrap().is_some();
    // SIGKILL: no destructors, no flushing, exactly like a crash.
    let _ = child.kill();
    let _ = child.wait();
    finished
}

#[test]
fn a_sync_killed_at_any_moment_is_finished_by_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    write_modules(dir.path(), 400, 20);

    let mut kills = 0;
    for (round, millis) in [150u64, 400, 700, 1000, 1500, 2200, 3000, 4000]
        .into_iter()
        .enumerate()
    {
        if !index_killed_after(dir.path(), Duration::from_millis(millis)) {
            kills += 1;
        }
        // The interrupted store opens and answers.
        let ctx = context(dir.path());
        ctx.semantic.store().unwrap().counts().unwrap();
        drop(ctx);
        // Files change between crashes: modified, deleted, added.
        let i = round * 7;
        write(
            dir.path(),
            &[(
                format!("pkg{}/mod_{i}.py", i % 20).as_str(),
                module(i, round + 1).as_str(),
            )],
        );
        let _ = std::fs::remove_file(dir.path().join(format!(
            "pkg{}/mod_{}.py",
            (i + 1) % 20,
            i + 1
        )));
        write(
            dir.path(),
            &[(
                format!("new/extra_{round}.py").as_str(),
                module(1000 + round, 0).as_str(),
            )],
        );
    }
    assert!(
        kills >= 3,
        "the index finished before most kills ({kills}); make the project larger"
    );

    assert_resumes_to_a_clean_index(dir.path());
}

/// A sync of `root` finishes what the kills left: everything embedded, nothing duplicated or
/// orphaned, and the same chunks as a clean index of the same files.
fn assert_resumes_to_a_clean_index(root: &Path) {
    let ctx = context(root);
    let outcome = sync(&ctx);
    assert_eq!(outcome.embedding.pending, 0);
    assert_consistent(&ctx);
    let store = ctx.semantic.store().unwrap();
    let resumed = store.counts().unwrap();
    assert_eq!(resumed.embedded, resumed.chunks);

    let clean = tempfile::tempdir().unwrap();
    for entry in files_under(root) {
        let rel = entry.strip_prefix(root).unwrap();
        if rel.starts_with(".code-intel") {
            continue;
        }
        let to = clean.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, to).unwrap();
    }
    let fresh = context(clean.path());
    sync(&fresh);
    let mut a = store.chunk_ids().unwrap();
    let mut b = fresh.semantic.store().unwrap().chunk_ids().unwrap();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// Runs `code-intel index` and kills it `after` the store says it starts compacting; returns
/// whether the kill landed there (false: the run ended without compacting).
fn index_killed_in_compaction(root: &Path, after: Duration) -> bool {
    let mut child = start_index(root, "fake", true);
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut landed = false;
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        if line.contains("compacting") && line.contains("forest") {
            std::thread::sleep(after);
            landed = child.try_wait().unwrap().is_none();
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    landed
}

#[test]
fn a_sync_killed_while_the_store_compacts_is_finished_by_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    write_modules(dir.path(), 200, 10);
    let mut landed = 0;
    for (round, millis) in [0u64, 2, 5, 10, 20, 40, 80].into_iter().enumerate() {
        // Every round changes files one at a time between small syncs, so the forest gathers
        // more data files than it tolerates and the next index compacts it.
        for k in 0..12 {
            let i = (round * 12 + k) % 200;
            write(
                dir.path(),
                &[(
                    format!("pkg{}/mod_{i}.py", i % 10).as_str(),
                    module(i, round + 1).as_str(),
                )],
            );
            let ctx = context(dir.path());
            ctx.semantic
                .sync_stored(
                    &ctx.ws,
                    &ctx.symbols,
                    code_intel::index::semantic::Target::Forest,
                    false,
                    &|_| {},
                )
                .unwrap();
        }
        if index_killed_in_compaction(dir.path(), Duration::from_millis(millis)) {
            landed += 1;
        }
        // The interrupted store opens and answers.
        let ctx = context(dir.path());
        ctx.semantic.store().unwrap().counts().unwrap();
    }
    assert!(
        landed >= 4,
        "only {landed} kills landed while the store compacted; make the rounds write more files"
    );
    assert_resumes_to_a_clean_index(dir.path());
}
