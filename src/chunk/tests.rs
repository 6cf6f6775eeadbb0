//! Properties every strategy must keep, checked on every fixture file: nothing is lost, ids are
//! stable (across runs and across edits elsewhere in a file), oversized units are split with
//! their signature, broken and generated files still chunk.

use super::test_support::{chunk, chunker, find, fixture, fixtures, outline};
use super::{ChunkKind, ChunkOptions, Chunker, TokenCounter, embedding_text};
use crate::workspace::Workspace;

/// Every fixture file, as (workspace-relative path, text).
fn fixture_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for project in [
        "laravel-shop",
        "python-service",
        "ts-app",
        "polyglot",
        "api-spec",
        "broken",
    ] {
        let root = fixtures().join(project);
        let ws = Workspace::open(&root).unwrap();
        let files = crate::workspace::walk_files(&ws, &root, &Default::default()).unwrap();
        for file in files {
            if let Ok(text) = std::fs::read_to_string(&file.abs) {
                out.push((format!("{project}/{}", file.rel), text));
            }
        }
    }
    assert!(out.len() > 150, "fixtures missing: {}", out.len());
    out
}

/// Nothing is lost: each non-blank line is in the content of a chunk whose range covers it.
#[test]
fn chunks_cover_every_non_blank_line() {
    let mut failures = Vec::new();
    for (file, text) in fixture_files() {
        let result = chunk(&file, &text);
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let wanted = line.trim();
            if wanted.is_empty() {
                continue;
            }
            let found = result.chunks.iter().any(|c| {
                c.line_start <= number && number <= c.line_end && c.content.contains(wanted)
            });
            if !found {
                failures.push(format!("{file}:{number}: {wanted}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} lines lost, first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn ids_are_unique_and_stable_across_runs() {
    for (file, text) in fixture_files() {
        let first = chunk(&file, &text);
        let second = chunker().chunk_text(&file, &text);
        assert_eq!(first.chunks, second.chunks, "{file}");
        let mut ids: Vec<&str> = first.chunks.iter().map(|c| c.id.as_str()).collect();
        ids.sort();
        let before = ids.len();
        ids.dedup();
        assert_eq!(
            ids.len(),
            before,
            "duplicate ids in {file}:\n{}",
            outline(&first.chunks).join("\n")
        );
        for c in &first.chunks {
            assert_eq!(
                c.fingerprint,
                crate::digest::sha256_hex(c.content.as_bytes())
            );
            assert!(
                c.line_start >= 1 && c.line_start <= c.line_end,
                "{file}: {c:?}"
            );
        }
    }
}

/// Editing one method's body changes that chunk's fingerprint and nothing else; adding a
/// method above the others leaves their ids alone.
#[test]
fn an_edit_elsewhere_in_the_file_keeps_ids_and_fingerprints() {
    let path = "app/Models/Product.php";
    let original = std::fs::read_to_string(fixtures().join("laravel-shop").join(path)).unwrap();
    let before = chunk(path, &original).chunks;
    let edited = original.replace(
        "        return $this->is_active && $this->stock >= $quantity;",
        "        $available = $this->stock >= $quantity;\n\n        return $this->is_active && $available;",
    );
    assert_ne!(edited, original);
    let after = chunk(path, &edited).chunks;
    assert_eq!(
        before.iter().map(|c| &c.id).collect::<Vec<_>>(),
        after.iter().map(|c| &c.id).collect::<Vec<_>>()
    );
    let changed: Vec<&str> = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| b.fingerprint != a.fingerprint)
        .map(|(b, _)| b.name.as_str())
        .collect();
    assert_eq!(changed, vec!["isAvailable"]);

    let inserted = original.replace(
        "    public function scopeActive(",
        "    public function scopeCheap(Builder $query): Builder\n    {\n        $limit = 1000;\n\n        return $query->where('price', '<', $limit)->orderBy('price');\n    }\n\n    public function scopeActive(",
    );
    let after_insert = chunk(path, &inserted).chunks;
    for old in &before {
        if old.kind == ChunkKind::Module || old.kind == ChunkKind::Class {
            continue;
        }
        let same = after_insert
            .iter()
            .find(|c| c.name == old.name && c.kind == old.kind)
            .unwrap();
        assert_eq!(same.id, old.id, "{}", old.name);
        assert_eq!(same.fingerprint, old.fingerprint, "{}", old.name);
    }
    assert!(after_insert.iter().any(|c| c.name == "scopeCheap"));
}

/// A function over the budget is cut at statement boundaries; every part after the first starts
/// with the signature, parts stay under the budget and together cover the function.
#[test]
fn oversized_units_split_at_children_with_the_signature_as_header() {
    let mut text = String::from(
        "import os\n\n\ndef build_report(orders, *, currency=\"JPY\"):\n    \"\"\"Totals per customer.\"\"\"\n",
    );
    for i in 0..120 {
        text.push_str(&format!(
            "    subtotal_{i} = sum(o.amount for o in orders if o.customer_id == {i})\n"
        ));
    }
    text.push_str("    return locals()\n");
    let tokens = TokenCounter::estimate("tests");
    let opts = ChunkOptions {
        max_tokens: 256,
        ..ChunkOptions::default()
    };
    let result = Chunker::new(opts, tokens.clone()).chunk_text("report.py", &text);
    let parts: Vec<_> = result
        .chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Function)
        .collect();
    assert!(parts.len() >= 3, "{}", outline(&result.chunks).join("\n"));
    assert!(
        parts[0]
            .content
            .starts_with("def build_report(orders, *, currency=\"JPY\"):")
    );
    for (i, part) in parts.iter().enumerate() {
        assert_eq!(part.name, "build_report");
        assert!(
            tokens.count(&part.content) <= opts.content_budget(),
            "part {i} too big"
        );
        if i > 0 {
            assert!(
                part.content
                    .starts_with("def build_report(orders, *, currency=\"JPY\"): …\n"),
                "{}",
                part.content
            );
            assert_eq!(
                part.line_start,
                parts[i - 1].line_end + 1,
                "parts are contiguous"
            );
            // Whole statements only: the body after the header is made of complete lines.
            for line in part.content.lines().skip(1) {
                assert!(
                    line.starts_with("    subtotal_") || line.starts_with("    return"),
                    "{line}"
                );
            }
        }
        assert_eq!(super::test_support::field(part, "part")["index"], i + 1);
    }
    assert_eq!(parts.last().unwrap().line_end, text.lines().count());
    // Ids of parts are distinct and the first part keeps the unsplit id.
    let unsplit = chunker().chunk_text(
        "report.py",
        "def build_report(orders, *, currency=\"JPY\"):\n    return 1\n",
    );
    assert_eq!(
        find(&unsplit.chunks, ChunkKind::Function, "build_report").id,
        parts[0].id
    );
}

/// One enormous line (a data blob) is cut at spaces, never inside a word.
#[test]
fn a_single_huge_line_is_cut_at_whitespace() {
    let words: Vec<String> = (0..800).map(|i| format!("w{i}")).collect();
    let text = format!("x = \"{}\"\n", words.join(" "));
    assert!(!super::lines::is_generated(&text));
    let opts = ChunkOptions {
        max_tokens: 128,
        ..ChunkOptions::default()
    };
    let result = Chunker::new(opts, TokenCounter::estimate("tests")).chunk_text("notes.txt", &text);
    assert!(
        result.chunks.len() > 5,
        "{}",
        outline(&result.chunks).join("\n")
    );
    for c in &result.chunks {
        for word in c.content.split_whitespace() {
            let w = word.trim_matches(['"', '=', '…']);
            assert!(
                w.is_empty() || w == "x" || words.iter().any(|x| x == w),
                "cut inside a word: {word}"
            );
        }
    }
}

#[test]
fn files_with_syntax_errors_chunk_the_valid_parts_and_flag_the_rest() {
    let result = fixture("broken", "inventory_report.py");
    assert!(result.syntax_errors > 0);
    for name in ["parse_rows", "needs_reorder", "low_stock", "render_report"] {
        find(&result.chunks, ChunkKind::Function, name);
    }
    find(&result.chunks, ChunkKind::Class, "StockRow");
    let flagged: Vec<_> = result
        .chunks
        .iter()
        .filter(|c| c.metadata.fields.get("syntax_error") == Some(&serde_json::json!(true)))
        .collect();
    assert!(
        !flagged.is_empty(),
        "{}",
        outline(&result.chunks).join("\n")
    );
    assert!(flagged.iter().all(|c| c.kind == ChunkKind::Lines));
    assert!(
        flagged
            .iter()
            .any(|c| c.content.contains("summarize_by_warehouse"))
    );
    for file in ["priceTable.ts", "InvoiceMailer.php"] {
        let result = fixture("broken", file);
        assert!(result.syntax_errors > 0, "{file}");
        assert!(
            result.chunks.iter().any(|c| c.kind == ChunkKind::Lines),
            "{file}: {}",
            outline(&result.chunks).join("\n")
        );
        assert!(
            result
                .chunks
                .iter()
                .filter(|c| c.kind.is_callable_kind())
                .count()
                >= 2,
            "{file}"
        );
    }
}

#[test]
fn generated_and_minified_files_are_capped() {
    let minified = format!("!function(){{{}}}();\n", "var a=1;".repeat(2000));
    let result = chunk("public/js/app.min.js", &minified);
    assert!(result.truncated);
    assert_eq!(result.chunks.len(), 1);
    let c = &result.chunks[0];
    assert_eq!(c.kind, ChunkKind::Lines);
    assert_eq!(c.metadata.fields["generated"], true);
    assert!(c.content.len() <= 1500);
}

#[test]
fn unknown_files_become_line_windows() {
    let text: String = (1..=400)
        .map(|i| format!("line {i}: some prose for the fallback\n"))
        .collect();
    let result = chunk("docs/notes.txt", &text);
    assert_eq!(result.strategy, "lines");
    assert_eq!(result.language, "txt");
    assert!(result.chunks.len() > 1);
    assert!(result.chunks.iter().all(|c| c.kind == ChunkKind::Lines));
    assert_eq!(
        result.chunks[0].name,
        format!("lines 1-{}", result.chunks[0].line_end)
    );
    let readme = fixture("python-service", "README.md");
    assert_eq!(readme.chunks[0].kind, ChunkKind::Lines);
    assert_eq!(readme.chunks[0].language, "md");
}

/// `chunk_strategy: "lines"`: code, manifests and all get line windows, with the language still
/// named; the default strategy cuts the same file at its definitions.
#[test]
fn the_lines_strategy_cuts_every_file_into_line_windows() {
    let opts = ChunkOptions {
        lines_only: true,
        ..ChunkOptions::default()
    };
    let lines = Chunker::new(opts, TokenCounter::estimate("tests"));
    let text = std::fs::read_to_string(
        super::test_support::fixtures().join("python-service/src/orderly/auth/service.py"),
    )
    .unwrap();
    let cut = lines.chunk_text("src/orderly/auth/service.py", &text);
    assert_eq!(
        (cut.strategy.as_str(), cut.language.as_str()),
        ("lines", "python")
    );
    assert!(
        cut.chunks.iter().all(|c| c.kind == ChunkKind::Lines),
        "{:?}",
        outline(&cut.chunks)
    );
    let ast = chunk("src/orderly/auth/service.py", &text);
    assert_eq!(ast.strategy, "code");
    assert!(ast.chunks.iter().any(|c| c.kind != ChunkKind::Lines));
    let manifest = lines.chunk_text(
        "composer.json",
        r#"{"name": "shop/app", "require": {"php": "^8.2"}}"#,
    );
    assert_eq!(manifest.strategy, "lines");
}

/// The text embedded for a chunk: what it is first, then its facts, then the code.
#[test]
fn embedding_text_puts_identity_and_facts_before_the_code() {
    let result = fixture("laravel-shop", "app/Models/Product.php");
    let class = find(&result.chunks, ChunkKind::Class, "Product");
    let text = embedding_text(class);
    assert!(
        text.starts_with("class Product (App\\Models\\Product)\nfile: app/Models/Product.php\n"),
        "{text}"
    );
    assert!(text.contains("translatable: name, description"), "{text}");
    assert!(text.ends_with(&class.content));
    let header = &text[..text.len() - class.content.len()];
    assert!(
        header.len() <= super::text::MAX_HEADER_CHARS + 200,
        "{header}"
    );
}

/// With the real tokenizer every fixture chunk's embedding text fits the model's 512 tokens.
#[test]
fn every_fixture_chunk_fits_the_model_with_the_real_tokenizer() {
    let tokens = TokenCounter::load(None);
    assert!(
        !tokens.is_estimate(),
        "this test needs the provisioned tokenizer (run scripts/model/provision.sh): {}",
        tokens.describe()
    );
    let chunker = Chunker::new(ChunkOptions::default(), tokens.clone());
    let mut over = Vec::new();
    for (file, text) in fixture_files() {
        for c in chunker.chunk_text(&file, &text).chunks {
            let n = tokens.count(&embedding_text(&c)) + 2;
            if n > 512 {
                over.push(format!("{file} {} {} ({n})", c.kind.as_str(), c.name));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// A chunk's head, with the real tokenizer: the start of its text, at most the head's size and
/// close to it (heads much shorter would embed little of the chunk; much longer, slowly).
#[test]
fn heads_fill_their_size_with_the_real_tokenizer() {
    let tokens = TokenCounter::load(None);
    assert!(!tokens.is_estimate(), "{}", tokens.describe());
    let chunker = Chunker::new(ChunkOptions::default(), tokens.clone());
    let (mut cut, mut sum) = (0usize, 0usize);
    for (file, text) in fixture_files() {
        for c in chunker.chunk_text(&file, &text).chunks {
            let text = embedding_text(&c);
            let head = super::embedding_head(&text, &tokens);
            assert!(text.starts_with(head), "{file}");
            let n = tokens.count_exact(head);
            if head.len() < text.len() {
                assert!(
                    n <= super::HEAD_TOKENS + 4,
                    "{file} {} ({n}): {head}",
                    c.name
                );
                assert!(
                    n >= super::HEAD_TOKENS / 4,
                    "{file} {} ({n}): {head}",
                    c.name
                );
                cut += 1;
                sum += n;
                if cut % 40 == 1 {
                    eprintln!("{n}\t{head:?}");
                }
            }
        }
    }
    let mean = sum as f64 / cut.max(1) as f64;
    eprintln!("{cut} heads cut, mean {mean:.1} tokens");
    assert!(
        cut > 50 && mean >= 52.0,
        "{cut} heads, mean {mean:.1} tokens"
    );
}
