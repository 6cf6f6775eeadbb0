//! What the fuzz targets in `fuzz_targets/` run: each target is one line that hands libFuzzer's
//! bytes to a function here, which calls the real code and fails (by panicking) on a panic of
//! that code or on a broken invariant the code promises.
//!
//! Text inputs are decoded lossily, as the workspace reader decodes files that are not UTF-8.

use code_intel::chunk::{ChunkOptions, Chunker, TokenCounter};
use code_intel::lang::{self, LanguageDef};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

pub mod stores;
pub mod tools;

/// Exit status of a target that cannot run on this machine (a missing model file); the smoke
/// run reports it as skipped rather than as a crash.
pub const SKIP_STATUS: i32 = 75;

fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Lines as the chunker and the analysis number them: the count of `\n` plus one.
fn line_count(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count() + 1
}

/// Paths a file of `lang` is chunked under. The chunker picks framework enrichments from the
/// path (Laravel models, routes, Filament resources, Blade components …), so these cover them.
fn paths_for(lang: &LanguageDef) -> Vec<String> {
    let mut paths: Vec<String> = lang
        .extensions
        .iter()
        .map(|ext| format!("src/fuzz.{ext}"))
        .collect();
    let framework: &[&str] = match lang.extensions.first().copied() {
        Some("php") => &[
            "app/Models/Fuzz.php",
            "app/Http/Controllers/FuzzController.php",
            "routes/web.php",
            "app/Filament/Resources/FuzzResource.php",
            "app/Filament/Resources/FuzzResource/Pages/EditFuzz.php",
            "app/Livewire/Fuzz.php",
            "app/Providers/FuzzServiceProvider.php",
            "database/migrations/2024_01_01_000000_create_fuzz_table.php",
        ],
        Some("blade.php") => &[
            "resources/views/components/fuzz.blade.php",
            "resources/views/livewire/fuzz.blade.php",
        ],
        Some("js") => &["tailwind.config.js"],
        Some("ts") => &["tailwind.config.ts"],
        _ => &[],
    };
    paths.extend(framework.iter().map(|p| p.to_string()));
    paths
}

/// Two chunkers: the defaults, and a small budget that makes most units split and merge.
static CHUNKERS: LazyLock<[Chunker; 2]> = LazyLock::new(|| {
    let tokens = TokenCounter::estimate("fuzzing");
    [
        Chunker::new(ChunkOptions::default(), tokens.clone()),
        Chunker::new(
            ChunkOptions {
                max_tokens: 64,
                merge_below_tokens: 16,
                ..ChunkOptions::default()
            },
            tokens,
        ),
    ]
});

/// One registry language: symbols, outline and chunks of arbitrary text.
pub fn language(id: &str, data: &[u8]) {
    let lang = lang::by_id(id).unwrap_or_else(|| panic!("{id} is not a registry language"));
    let text = text(data);
    let lines = line_count(&text);

    let symbols = code_intel::analysis::analyze_source(lang, &text);
    for s in &symbols.symbols {
        assert!(
            1 <= s.line && s.line <= s.end_line && s.end_line <= lines,
            "symbol lines out of the file ({lines} lines): {s:?}"
        );
    }
    code_intel::analysis::outline::outline_source(lang, &text);

    // The path and chunker come from the input's length, so the fuzzer reaches every pairing.
    let paths = paths_for(lang);
    let path = &paths[data.len() % paths.len()];
    chunks(&CHUNKERS[data.len() / paths.len() % 2], path, &text);
}

/// Files no language owns but the chunker still cuts: manifests and plain text.
pub fn other_file(data: &[u8]) {
    const PATHS: &[&str] = &[
        "composer.json",
        "package.json",
        "README.md",
        "notes.txt",
        ".env.example",
        "config/settings.yaml",
    ];
    let text = text(data);
    let path = PATHS[data.len() % PATHS.len()];
    chunks(&CHUNKERS[data.len() / PATHS.len() % 2], path, &text);
}

/// Chunks `text` as `path` and checks what the chunker promises (and its own tests check on the
/// fixtures): the same chunks every time, unique ids, content fingerprints, line ranges inside
/// the file.
fn chunks(chunker: &Chunker, path: &str, text: &str) {
    let first = chunker.chunk_text(path, text);
    let again = chunker.chunk_text(path, text);
    assert_eq!(first.chunks, again.chunks, "chunking is not deterministic");
    let lines = line_count(text);
    let mut ids = std::collections::HashSet::new();
    for c in &first.chunks {
        assert!(ids.insert(c.id.as_str()), "duplicate chunk id {}", c.id);
        assert_eq!(
            c.fingerprint,
            code_intel::digest::sha256_hex(c.content.as_bytes()),
            "fingerprint of {}",
            c.id
        );
        assert!(
            1 <= c.line_start && c.line_start <= c.line_end && c.line_end <= lines,
            "chunk lines out of the file ({lines} lines): {} {}-{}",
            c.id,
            c.line_start,
            c.line_end
        );
    }
}

/// The embedder's text preparation.
pub fn embed_prepare(data: &[u8]) {
    use code_intel::embed::prepare;
    let Some((&cut, rest)) = data.split_first() else {
        return;
    };
    let text = text(rest);
    assert!(prepare::query_text(&text).starts_with(prepare::QUERY_PREFIX));
    assert!(prepare::passage_text(&text).starts_with(prepare::PASSAGE_PREFIX));
    prepare::split_identifiers(&text);
    // A head is a prefix of the text within the byte budget (or the whole text when it fits).
    let max = usize::from(cut) * 8;
    let head = prepare::head(&text, max);
    assert!(text.starts_with(head));
    assert!(head.len() <= max || head.len() == text.len());
}

/// The model's tokenizer as the chunker counts with it: counting word by word through the
/// per-thread cache gives the same number as encoding the whole text.
pub fn tokens(data: &[u8]) {
    static COUNTER: LazyLock<TokenCounter> = LazyLock::new(|| {
        let counter = TokenCounter::load(None);
        if counter.is_estimate() {
            eprintln!(
                "the tokens target needs the provisioned model's tokenizer ({}); \
                 run scripts/setup.sh or set CODE_INTEL_MODEL_DIR",
                counter.describe()
            );
            std::process::exit(SKIP_STATUS);
        }
        counter
    });
    let text = text(data);
    let counted = COUNTER.count(&text);
    // Twice: the second count comes from the word cache the first one filled.
    assert_eq!(counted, COUNTER.count(&text), "cached count differs");
    assert_eq!(
        counted,
        COUNTER.count_exact(&text),
        "word-wise count differs"
    );
}

/// The write gate's shell analyser.
pub fn shell(data: &[u8]) {
    let command = text(data);
    let effects = code_intel::shell::analyze(&command, Path::new("/work/project"));
    effects.is_read_only();
    code_intel::shell::normalize(Path::new(command.as_ref()));
}

/// A project directory with a `.code-intel/` state directory, shared by one target's runs.
fn project(files: &[(&str, &str)]) -> PathBuf {
    let dir = tempfile::Builder::new()
        .prefix("code-intel-fuzz-")
        .tempdir()
        .expect("a temp dir")
        .keep();
    std::fs::create_dir_all(dir.join(".code-intel")).expect("the state dir");
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).expect("a project dir");
        std::fs::write(path, text).expect("a project file");
    }
    dir
}

/// The Claude Code PreToolUse hook's JSON input. The project is fixed (as `CLAUDE_PROJECT_DIR`
/// fixes it), so that a `cwd` in the input never opens the state of a real project.
pub fn hook(data: &[u8]) {
    static ROOT: LazyLock<PathBuf> =
        LazyLock::new(|| project(&[("app.py", "def main():\n    pass\n")]));
    let input = text(data);
    let _ = code_intel::integration::hook::decide(&input, Some(&ROOT), &ROOT);
}

/// The configuration loader; what it loads must load again unchanged from its own JSON.
pub fn config(data: &[u8]) {
    use code_intel::config::Config;
    static ROOT: LazyLock<PathBuf> = LazyLock::new(|| project(&[("src/app.py", "x = 1\n")]));
    let path = Config::path(&ROOT);
    std::fs::write(&path, data).expect("the config file");
    let loaded = Config::load(&ROOT);
    let json = serde_json::to_vec(&loaded).expect("a config serialises");
    std::fs::write(&path, &json).expect("the config file");
    let (again, report) = code_intel::config::load(&ROOT);
    assert_eq!(
        loaded,
        again,
        "the config does not load back from {}; problems: {report:?}",
        String::from_utf8_lossy(&json)
    );
}

/// The query frame's quote normaliser: a request quotes itself verbatim, and covers itself.
pub fn query_frame(data: &[u8]) {
    use code_intel::query_frame::normalize;
    let text = text(data);
    let (request, quote) = text.split_once('\u{0}').unwrap_or((&text, &text));
    normalize::normalize(request);
    normalize::clauses(request);
    normalize::contains_verbatim(request, quote);
    normalize::coverage(request, quote);
    code_intel::query_frame::Intent::parse(request);
    if request.chars().any(char::is_alphanumeric) {
        assert!(
            normalize::contains_verbatim(request, request),
            "a request does not contain itself"
        );
        let covered = normalize::coverage(request, request);
        assert!(covered == 1.0, "a request covers {covered} of itself");
    }
}

/// The machine embedding cache reading a segment another process wrote: whatever its bytes,
/// a vector stored afterwards reads back, and a record read from it has its stored length.
pub fn embed_cache(data: &[u8]) {
    use code_intel::embed::cache::{VectorCache, passage_key};
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("000000000000000000000001-1-1.seg"), data).expect("a segment");
    let cache = VectorCache::open(dir.path(), 1 << 20).expect("the cache opens");
    // The keys of the first two records a well-formed segment would hold (after the 8-byte
    // magic; a record is 38 bytes of head plus 4 per float), and one that is never in it.
    let mut keys = Vec::new();
    if let Some(key) = data.get(8..40) {
        keys.push(key.try_into().unwrap());
        let dims = data
            .get(40..42)
            .map_or(0, |d| u16::from_le_bytes([d[0], d[1]]));
        let next = 8 + 38 + 4 * usize::from(dims);
        if let Some(key) = data.get(next..next + 32) {
            keys.push(key.try_into().unwrap());
        }
    }
    let fresh = passage_key("fuzz", &code_intel::digest::sha256_hex(data));
    keys.push(fresh);
    for v in cache.get_many(&keys).into_iter().flatten() {
        assert!(
            4 * v.len() <= data.len(),
            "{} floats from {} bytes",
            v.len(),
            data.len()
        );
    }
    let vector = [0.5f32, -1.0, 2.0];
    cache.put_many(&[(fresh, &vector)]).expect("a put");
    assert_eq!(
        cache.get_many(&[fresh]),
        vec![Some(vector.to_vec())],
        "a stored vector does not read back"
    );
}

/// Every target by name, for the one binary that runs them all (`fuzz_targets/any.rs`): each
/// target linked on its own is as large as the server (the whole dependency tree), so the smoke
/// and long runs link once and pick the target at start.
pub fn by_name(target: &str) -> Option<fn(&[u8])> {
    let run: fn(&[u8]) = match target {
        "lang_blade" => |d| language("blade", d),
        "lang_css" => |d| language("css", d),
        "lang_go" => |d| language("go", d),
        "lang_html" => |d| language("html", d),
        "lang_java" => |d| language("java", d),
        "lang_javascript" => |d| language("javascript", d),
        "lang_php" => |d| language("php", d),
        "lang_python" => |d| language("python", d),
        "lang_ruby" => |d| language("ruby", d),
        "lang_rust" => |d| language("rust", d),
        "lang_scss" => |d| language("scss", d),
        "lang_tsx" => |d| language("tsx", d),
        "lang_typescript" => |d| language("typescript", d),
        "lang_vue" => |d| language("vue", d),
        "chunk_other" => other_file,
        "embed_prepare" => embed_prepare,
        "tokens" => tokens,
        "shell" => shell,
        "hook" => hook,
        "config" => config,
        "query_frame" => query_frame,
        "embed_cache" => embed_cache,
        "tool_params" => tools::dispatch,
        "cache_files" => stores::load,
        _ => return None,
    };
    Some(run)
}
