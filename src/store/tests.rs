//! Store behaviour on a real LanceDB directory: replacement is exact, stamps rebuild, vectors
//! survive only for unchanged content, the full-text index finds new rows, and the ANN index
//! keeps recall against brute force.

use super::*;

const DIM: usize = 16;

fn open(dir: &tempfile::TempDir, dim: usize) -> Store {
    Store::open(dir.path().join("db").to_str().unwrap(), ModelStamp { dim }).unwrap()
}

fn chunk(file: &str, name: &str, content: &str) -> ChunkRecord {
    ChunkRecord {
        id: format!("{file}#{name}"),
        file: file.into(),
        language: "python".into(),
        chunk_type: "function".into(),
        name: name.into(),
        line_start: 1,
        line_end: 3,
        content: content.into(),
        fingerprint: format!("fp:{content}"),
        file_sha: "sha".into(),
        metadata: "{}".into(),
        text: crate::lexical::index_text(&[name, content]),
        vector: None,
        head_only: false,
    }
}

/// A vector of `id`'s whole text.
fn whole(id: &str, fingerprint: &str, vector: Vec<f32>) -> NewVector {
    NewVector {
        id: id.into(),
        fingerprint: fingerprint.into(),
        vector,
        head_only: false,
    }
}

fn unit(seed: u64) -> Vec<f32> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    normalize((0..DIM).map(|_| rng.gauss()).collect())
}

fn normalize(v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
    v.into_iter().map(|x| x / norm).collect()
}

/// xorshift64*: deterministic test data without a rand dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn uniform(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn gauss(&mut self) -> f32 {
        let (u, v) = (self.uniform().max(1e-7), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }
}

#[test]
fn replacing_a_file_touches_exactly_its_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    store
        .append_chunks(vec![
            chunk("a.py", "one", "def one(): pass"),
            chunk("a.py", "two", "def two(): pass"),
            chunk("b.py", "three", "def three(): pass"),
        ])
        .unwrap();
    assert_eq!(store.counts().unwrap().chunks, 3);

    // a.py now has one (changed) chunk; c.py is deleted without ever existing; b.py untouched.
    store
        .replace_files(
            &["a.py".into(), "c.py".into()],
            vec![chunk("a.py", "one", "def one(): return 1")],
        )
        .unwrap();
    let counts = store.chunk_counts().unwrap();
    assert_eq!(counts.get("a.py"), Some(&1));
    assert_eq!(counts.get("b.py"), Some(&1));
    assert_eq!(counts.get("c.py"), None);

    // Replacing twice with the same rows is idempotent (a retried sync adds no duplicates).
    for _ in 0..2 {
        store
            .replace_files(&["b.py".into()], vec![chunk("b.py", "three", "x")])
            .unwrap();
    }
    assert_eq!(store.chunk_counts().unwrap().get("b.py"), Some(&1));

    // Rows of other files are refused: they would escape the delete filter.
    assert!(
        store
            .replace_files(&["a.py".into()], vec![chunk("z.py", "z", "z")])
            .is_err()
    );
}

#[test]
fn another_layout_rebuilds_and_another_model_clears_only_vectors() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(&dir, DIM);
        assert!(
            !store.adopt_model("m1").unwrap(),
            "nothing to clear at first"
        );
        let mut with_vector = chunk("a.py", "one", "x");
        with_vector.vector = Some(unit(1));
        store
            .append_chunks(vec![with_vector, chunk("a.py", "two", "y")])
            .unwrap();
        assert!(!store.was_rebuilt());
    }
    let same = open(&dir, DIM);
    assert_eq!(same.vector_model().unwrap().as_deref(), Some("m1"));
    assert!(!same.adopt_model("m1").unwrap());
    assert_eq!(same.counts().unwrap().embedded, 1);
    assert!(same.adopt_model("m2").unwrap());
    let counts = same.counts().unwrap();
    assert_eq!((counts.chunks, counts.embedded), (2, 0));
    assert_eq!(same.vector_model().unwrap().as_deref(), Some("m2"));
    drop(same);
    let other = open(&dir, DIM * 2);
    assert!(other.was_rebuilt());
    assert_eq!(other.counts().unwrap().chunks, 0);
}

#[test]
fn vectors_are_kept_only_for_unchanged_content() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    store
        .append_chunks(vec![chunk("a.py", "one", "v1"), chunk("a.py", "two", "w1")])
        .unwrap();
    let pending = store.pending_chunks(Pass::Head, None, 10).unwrap();
    assert_eq!(pending.len(), 2);

    // The file changes between reading the pending rows and writing their vectors: the vector
    // computed for the old content of `one` must not land on the new content.
    store
        .replace_files(
            &["a.py".into()],
            vec![chunk("a.py", "one", "v2"), chunk("a.py", "two", "w1")],
        )
        .unwrap();
    let items = pending
        .iter()
        .enumerate()
        .map(|(i, p)| whole(&p.id, &p.fingerprint, unit(i as u64)))
        .collect();
    assert_eq!(store.set_vectors(items).unwrap(), 1);
    let counts = store.counts().unwrap();
    assert_eq!((counts.chunks, counts.embedded), (2, 1));
    let left = store.pending_chunks(Pass::Head, None, 10).unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].content, "v2");

    // The surviving vector is found again by fingerprint (reuse across re-syncs and renames).
    let reuse = store
        .vectors_for(&["fp:w1".to_string(), "fp:v2".to_string()])
        .unwrap();
    assert_eq!(reuse.keys().collect::<Vec<_>>(), ["fp:w1"]);
}

#[test]
fn a_head_vector_waits_for_the_whole_pass_and_yields_to_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    store
        .append_chunks(vec![
            chunk("a.py", "one", "v1"),
            chunk("b.py", "two", "w1"),
            chunk("tests/c.py", "three", "v1"),
        ])
        .unwrap();
    let waiting = store.pending_files(Pass::Head).unwrap();
    assert_eq!(waiting.len(), 3);
    let of_b = store
        .pending_chunks(Pass::Head, Some(&["b.py".to_string()]), 10)
        .unwrap();
    assert_eq!(of_b.len(), 1);
    assert_eq!(of_b[0].name, "two");

    let head = |id: &str, fp: &str, seed| NewVector {
        head_only: true,
        ..whole(id, fp, unit(seed))
    };
    let n = store
        .set_vectors(vec![
            head("a.py#one", "fp:v1", 1),
            whole("b.py#two", "fp:w1", unit(2)),
            whole("tests/c.py#three", "fp:v1", unit(3)),
        ])
        .unwrap();
    assert_eq!(n, 3);
    let counts = store.counts().unwrap();
    assert_eq!((counts.embedded, counts.head_only), (3, 1));
    assert!(store.pending_files(Pass::Head).unwrap().is_empty());
    let whole_pass = store.pending_chunks(Pass::Whole, None, 10).unwrap();
    assert_eq!(whole_pass.len(), 1);
    assert_eq!(whole_pass[0].id, "a.py#one");
    // Reuse by fingerprint prefers the whole text's vector (c's) over a head's (a's).
    let reuse = store.vectors_for(&["fp:v1".to_string()]).unwrap();
    assert_eq!(reuse["fp:v1"], (unit(3), false));

    store
        .set_vectors(vec![whole("a.py#one", "fp:v1", unit(4))])
        .unwrap();
    assert_eq!(store.counts().unwrap().head_only, 0);
    assert!(
        store
            .pending_chunks(Pass::Whole, None, 10)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn full_text_search_finds_indexed_and_new_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    store
        .append_chunks(vec![
            chunk(
                "auth.py",
                "login",
                "def login(user, password): check credentials",
            ),
            chunk(
                "cart.py",
                "total",
                "def calculateOrderTotal(items): sum prices",
            ),
        ])
        .unwrap();
    assert!(
        store.text_search("login", 5).unwrap().is_empty(),
        "no index yet"
    );
    store
        .maintain(Duration::from_secs(600), MaintenanceScope::All, &|| false)
        .unwrap();
    let hits = store.text_search("order totals", 5).unwrap();
    assert_eq!(hits.first().map(|h| h.file.as_str()), Some("cart.py"));

    // Rows added after the index was built are searched too (until maintenance folds them in).
    store
        .append_chunks(vec![chunk(
            "mail.py",
            "send",
            "def sendInvoiceMail(order): smtp",
        )])
        .unwrap();
    let hits = store.text_search("invoice mail", 5).unwrap();
    assert_eq!(hits.first().map(|h| h.file.as_str()), Some("mail.py"));
    // Each hit says whether its chunk has a vector yet (the ranking reads it).
    assert!(!hits[0].embedded);
    store
        .set_vectors(vec![whole(
            "mail.py#send",
            "fp:def sendInvoiceMail(order): smtp",
            unit(7),
        )])
        .unwrap();
    let hits = store.text_search("invoice mail", 5).unwrap();
    assert_eq!(
        hits.first().map(|h| (h.file.as_str(), h.embedded)),
        Some(("mail.py", true))
    );
    let cart = store.text_search("order totals", 5).unwrap();
    assert_eq!(
        cart.first().map(|h| (h.file.as_str(), h.embedded)),
        Some(("cart.py", false))
    );
    let indexes = store.forest_indexes().unwrap();
    assert!(
        indexes.contains_key("text") && indexes.contains_key("file"),
        "{indexes:?}"
    );
}

#[test]
fn agreements_round_trip_and_are_found_by_vector() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    let agreement = |id: &str, seed: u64| Agreement {
        id: id.into(),
        nl_term: format!("term {id}"),
        symbols: vec!["AuthService".into()],
        evidence: "AuthService.login() handles login".into(),
        files: vec!["src/auth.py".into()],
        similarity: 0.85,
        session: "s1".into(),
        query: String::new(),
        time: 1_700_000_000,
        vector: Some(unit(seed)),
    };
    store
        .upsert_agreements(vec![agreement("a", 1), agreement("b", 2)])
        .unwrap();
    store.upsert_agreements(vec![agreement("a", 1)]).unwrap();
    assert_eq!(store.agreements().unwrap().len(), 2);
    let hits = store.search_map(&unit(2), 2).unwrap();
    assert_eq!(hits[0].agreement.id, "b");
    assert!(hits[0].cosine > 0.99);
    assert_eq!(hits[0].agreement.symbols, ["AuthService"]);
    store.delete_agreements(&["a".into()]).unwrap();
    assert_eq!(store.counts().unwrap().agreements, 1);
}

/// Recall@10 of the ANN index against exact search on clustered vectors (real embeddings are
/// clustered; uniform random vectors are the unrealistic worst case). The requirement is ≥ 0.95.
#[test]
fn ann_index_keeps_recall_against_brute_force() {
    const DIM_ANN: usize = 64;
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM_ANN);
    let mut rng = Rng(7);
    let centers: Vec<Vec<f32>> = (0..64)
        .map(|_| (0..DIM_ANN).map(|_| rng.gauss()).collect())
        .collect();
    let sample = |rng: &mut Rng| {
        let c = &centers[(rng.next() % centers.len() as u64) as usize];
        normalize(c.iter().map(|x| x + 0.6 * rng.gauss()).collect())
    };
    let total = ANN_MIN_ROWS + 1_000;
    let mut records = Vec::with_capacity(total);
    for i in 0..total {
        let mut r = chunk(&format!("f{}.py", i / 10), &format!("n{i}"), "x");
        r.vector = Some(sample(&mut rng));
        records.push(r);
    }
    for part in records.chunks(2_000) {
        store.append_chunks(part.to_vec()).unwrap();
    }
    let report = store
        .maintain(Duration::from_secs(600), MaintenanceScope::All, &|| false)
        .unwrap();
    assert!(report.vector_index, "{report:?}");

    let queries: Vec<Vec<f32>> = (0..50).map(|_| sample(&mut rng)).collect();
    let mut found = 0usize;
    for q in &queries {
        let exact: Vec<String> = store
            .vector_search(q, 10, true)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        let approx: Vec<String> = store
            .vector_search(q, 10, false)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        found += approx.iter().filter(|id| exact.contains(id)).count();
    }
    let recall = found as f64 / (queries.len() * 10) as f64;
    eprintln!("ANN recall@10 vs brute force: {recall:.3}");
    assert!(recall >= 0.95, "recall {recall}");
}

#[test]
fn maintenance_folds_rewritten_rows_compacts_and_stops_between_steps() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    let keep = Duration::from_secs(600);
    for i in 0..12 {
        store
            .append_chunks(vec![chunk(
                &format!("m{i}.py"),
                &format!("handler{i}"),
                &format!("def handler{i}(request): respond invoice"),
            )])
            .unwrap();
    }
    assert!(store.ensure_text_indexes().unwrap());
    assert!(!store.ensure_text_indexes().unwrap(), "created only once");
    assert_eq!(store.forest_layout().unwrap().fragments, 12);

    // Vector writes patch the vector column in place: the rows stay in the full-text index.
    let ids = store.chunk_ids().unwrap();
    let fps: HashMap<String, String> = store
        .pending_chunks(Pass::Head, None, 100)
        .unwrap()
        .into_iter()
        .map(|p| (p.id, p.fingerprint))
        .collect();
    let items = ids
        .iter()
        .enumerate()
        .map(|(i, id)| whole(id, &fps[id], unit(i as u64)))
        .collect();
    assert_eq!(store.set_vectors(items).unwrap(), 12);
    assert_eq!(store.forest_layout().unwrap().unindexed_text_rows, Some(0));
    assert_eq!(store.counts().unwrap().embedded, 12);
    assert_eq!(store.text_search("invoice", 30).unwrap().len(), 12);
    // More small commits: unindexed, yet found.
    for i in 12..22 {
        store
            .append_chunks(vec![chunk(
                &format!("m{i}.py"),
                &format!("handler{i}"),
                &format!("def handler{i}(request): respond invoice"),
            )])
            .unwrap();
    }
    assert_eq!(store.forest_layout().unwrap().unindexed_text_rows, Some(10));
    assert_eq!(store.text_search("invoice", 30).unwrap().len(), 22);

    // Text indexes only: folded, nothing compacted.
    let report = store
        .maintain(keep, MaintenanceScope::TextIndexes, &|| false)
        .unwrap();
    assert!(report.text_indexes && report.finished && !report.compacted);
    let layout = store.forest_layout().unwrap();
    assert_eq!(layout.unindexed_text_rows, Some(0));
    assert!(layout.fragments > MAX_SMALL_FRAGMENTS, "{layout:?}");

    // A full run asked to stop after the first step leaves compaction for later.
    let report = store
        .maintain(keep, MaintenanceScope::All, &|| true)
        .unwrap();
    assert!(!report.finished && !report.compacted, "{report:?}");
    assert!(store.forest_layout().unwrap().fragments > MAX_SMALL_FRAGMENTS);

    let report = store
        .maintain(keep, MaintenanceScope::All, &|| false)
        .unwrap();
    assert!(report.finished && report.compacted, "{report:?}");
    assert_eq!(store.forest_layout().unwrap().fragments, 1);
    assert_eq!(store.text_search("invoice", 30).unwrap().len(), 22);
    // Nothing left to do: a second run compacts nothing.
    let report = store
        .maintain(keep, MaintenanceScope::All, &|| false)
        .unwrap();
    assert!(report.finished && !report.compacted, "{report:?}");
}

/// `n` chunks, ten per file, named `n{i}` in files `{prefix}{i / 10}.py`.
fn numbered_chunks(prefix: &str, from: usize, n: usize) -> Vec<ChunkRecord> {
    (from..from + n)
        .map(|i| {
            chunk(
                &format!("{prefix}{}.py", i / 10),
                &format!("n{i}"),
                &format!("def n{i}(): pass"),
            )
        })
        .collect()
}

#[test]
fn compaction_keeps_files_small_enough_for_vector_writes_to_patch_in_place() {
    // The first embedding pass over a large project writes a thousand vectors or so per
    // commit. Compacted into one file, the forest would make each such write move its rows
    // out of the full-text index (and every catch-up fold rebuild it); in files of
    // FRAGMENT_ROWS the vector column is patched and the index keeps covering every row.
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    let total = 2 * FRAGMENT_ROWS + 2_000;
    let per_sync = total / (MAX_SMALL_FRAGMENTS + 2);
    for part in 0..MAX_SMALL_FRAGMENTS + 2 {
        store
            .append_chunks(numbered_chunks("f", part * per_sync, per_sync))
            .unwrap();
    }
    assert!(store.ensure_text_indexes().unwrap());
    let report = store
        .maintain(Duration::from_secs(600), MaintenanceScope::All, &|| false)
        .unwrap();
    assert!(report.compacted, "{report:?}");
    // Lance fills each new file up to the target, the last small file added whole.
    let layout = store.forest_layout().unwrap();
    assert!(layout.fragments >= 2, "{layout:?}");
    assert_eq!(layout.unindexed_text_rows, Some(0), "{layout:?}");
    let fragments = layout.fragments;

    let pending = store.pending_chunks(Pass::Head, None, 1_000).unwrap();
    assert_eq!(pending.len(), 1_000);
    let items = pending
        .iter()
        .enumerate()
        .map(|(i, p)| whole(&p.id, &p.fingerprint, unit(i as u64)))
        .collect();
    assert_eq!(store.set_vectors(items).unwrap(), 1_000);
    let layout = store.forest_layout().unwrap();
    assert_eq!(layout.unindexed_text_rows, Some(0), "{layout:?}");
    assert_eq!(layout.fragments, fragments, "{layout:?}");
    assert_eq!(store.counts().unwrap().embedded, 1_000);
}

#[test]
fn a_large_commit_is_cut_into_files_of_the_compacted_size() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    store
        .append_chunks(numbered_chunks("g", 0, 2 * FRAGMENT_ROWS + 10))
        .unwrap();
    assert_eq!(store.forest_layout().unwrap().fragments, 3);
    assert_eq!(store.counts().unwrap().chunks, 2 * FRAGMENT_ROWS + 10);
}

#[test]
fn vectors_for_a_few_rows_of_a_large_fragment_move_those_rows() {
    // One fragment far larger than the write (one commit of more than two compacted files'
    // rows): patching its vector column would rewrite every row's vector, so the write moves
    // the matched rows instead. Either way the outcome is the same: exactly the chunks whose
    // fingerprint still matches get their vectors.
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, DIM);
    // Written the way a store of an earlier version was compacted: one file for every row.
    let batch = store
        .forest_batch(&numbered_chunks("f", 0, 2 * FRAGMENT_ROWS + 1_000))
        .unwrap();
    let forest = store.forest.clone();
    store
        .run(async move {
            forest.add(batch).execute().await?;
            Ok::<(), StoreError>(())
        })
        .unwrap();
    assert!(store.ensure_text_indexes().unwrap());
    assert_eq!(store.forest_layout().unwrap().fragments, 1);

    let mut items: Vec<NewVector> = (0..5)
        .map(|i| {
            let c = chunk(
                &format!("f{}.py", i / 10),
                &format!("n{i}"),
                &format!("def n{i}(): pass"),
            );
            whole(&c.id, &c.fingerprint, unit(i))
        })
        .collect();
    items.push(whole("f0.py#n6", "fp:stale", unit(6)));
    assert_eq!(store.set_vectors(items).unwrap(), 5);
    assert_eq!(store.counts().unwrap().embedded, 5);
    assert_eq!(store.counts().unwrap().chunks, 2 * FRAGMENT_ROWS + 1_000);
    let layout = store.forest_layout().unwrap();
    assert_eq!(layout.unindexed_text_rows, Some(5), "{layout:?}");
    assert_eq!(
        store.vector_search(&unit(2), 1, true).unwrap()[0].id,
        "f0.py#n2"
    );
}
