//! Packing: styles, token accounting, compression, budgets and splitting, ignore rules.

use super::*;

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = crate::fsutil::temp_tree(files);
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

fn sample() -> (tempfile::TempDir, Workspace) {
    workspace(&[
        (
            "src/cart.ts",
            "/** A cart. */\nexport class Cart {\n  /** Adds. */\n  add(sku: string, qty: number): void {\n    this.items.push({ sku, qty });\n    this.touch();\n  }\n}\n",
        ),
        (
            "src/config.py",
            "API_KEY = \"sk-proj-abcdefghijklmnopqrstuvwx\"\n\ndef load():\n    \"\"\"Loads.\"\"\"\n    return API_KEY\n",
        ),
        ("README.md", "# Shop\n\nA small shop.\n"),
        (".gitignore", "build/\n"),
        ("build/out.js", "console.log('generated');\n"),
    ])
}

#[test]
fn styles_tree_and_token_counts() {
    let (_dir, ws) = sample();
    for style in [Style::Xml, Style::Markdown, Style::Plain] {
        let packed = pack(
            &ws,
            &PackOptions {
                style,
                ..PackOptions::default()
            },
        )
        .unwrap();
        let paths: Vec<&str> = packed.files.iter().map(|f| f.path.as_str()).collect();
        // .gitignore'd build output and hidden files are not packed.
        assert_eq!(paths, ["README.md", "src/cart.ts", "src/config.py"]);
        let content = &packed.parts[0].content;
        assert!(
            content.contains("README.md\nsrc/\n  cart.ts\n  config.py\n"),
            "{content}"
        );
        for file in &packed.files {
            assert!(file.tokens > 0);
        }
        // The total is the exact count of the document, which holds every file.
        assert_eq!(packed.total_tokens, Encoding::O200k.count(content));
        assert!(packed.total_tokens > packed.files.iter().map(|f| f.tokens).sum::<usize>());
        match style {
            Style::Xml => assert!(content.contains("<file path=\"src/cart.ts\">\n/** A cart. */")),
            Style::Markdown => {
                assert!(content.contains("### src/cart.ts\n\n```ts\n/** A cart. */"))
            }
            Style::Plain => assert!(content.contains("File: src/cart.ts\n")),
        }
    }
}

#[test]
fn secrets_are_masked_and_compress_keeps_signatures() {
    let (_dir, ws) = sample();
    let plain = pack(&ws, &PackOptions::default()).unwrap();
    let content = &plain.parts[0].content;
    assert!(!content.contains("sk-proj-abcdefghijklmnopqrstuvwx"));
    assert!(content.contains("API_KEY = \"[MASKED]\""));
    let config = plain
        .files
        .iter()
        .find(|f| f.path == "src/config.py")
        .unwrap();
    assert_eq!(config.masked_secrets, 1);
    let compressed = pack(
        &ws,
        &PackOptions {
            compress: true,
            ..PackOptions::default()
        },
    )
    .unwrap();
    let text = &compressed.parts[0].content;
    assert!(text.contains("  /** Adds. */\n  add(sku: string, qty: number): void { … }"));
    assert!(!text.contains("this.touch()"));
    assert!(compressed.total_tokens < plain.total_tokens);
    // cl100k counts differently from o200k, but counts.
    let cl = pack(
        &ws,
        &PackOptions {
            encoding: Encoding::Cl100k,
            ..PackOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        cl.total_tokens,
        Encoding::Cl100k.count(&cl.parts[0].content)
    );
}

#[test]
fn budgets_fail_fast_or_split() {
    let files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("src/m{i:02}.ts"),
                format!(
                    "export function f{i}(x: number): number {{\n  return x * {i} + {};\n}}\n",
                    i * 7
                )
                .repeat(i + 1),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let (_dir, ws) = workspace(&refs);
    let full = pack(&ws, &PackOptions::default()).unwrap();
    let max = full.total_tokens / 3;
    match pack(
        &ws,
        &PackOptions {
            max_tokens: Some(max),
            ..PackOptions::default()
        },
    ) {
        Err(PackError::OverBudget { total, largest, .. }) => {
            assert!(total > max);
            assert_eq!(largest[0].0, "src/m11.ts");
            assert!(largest.windows(2).all(|w| w[0].1 >= w[1].1));
        }
        other => panic!("expected OverBudget, got {other:?}"),
    }
    let split = pack(
        &ws,
        &PackOptions {
            max_tokens: Some(max),
            split: true,
            ..PackOptions::default()
        },
    )
    .unwrap();
    assert!(split.parts.len() >= 3);
    let mut seen: Vec<String> = Vec::new();
    for (i, part) in split.parts.iter().enumerate() {
        assert!(part.tokens <= max, "part {i}: {} > {max}", part.tokens);
        assert_eq!(part.tokens, Encoding::O200k.count(&part.content));
        assert!(
            part.content
                .contains(&format!("part {} of {}", i + 1, split.parts.len()))
        );
        seen.extend(part.files.iter().cloned());
    }
    let all: Vec<String> = split.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(seen, all, "every file in exactly one part, in order");
    match pack(
        &ws,
        &PackOptions {
            max_tokens: Some(50),
            split: true,
            ..PackOptions::default()
        },
    ) {
        Err(PackError::FileOverBudget { path, .. }) => assert!(path.starts_with("src/m")),
        other => panic!("expected FileOverBudget, got {other:?}"),
    }
}

#[test]
fn include_and_exclude_globs() {
    let (_dir, ws) = sample();
    let packed = pack(
        &ws,
        &PackOptions {
            include: vec!["src/**".into()],
            exclude: vec!["*.py".into()],
            ..PackOptions::default()
        },
    )
    .unwrap();
    let paths: Vec<&str> = packed.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/cart.ts"]);
    assert!(matches!(
        pack(
            &ws,
            &PackOptions {
                include: vec!["*.rb".into()],
                ..PackOptions::default()
            }
        ),
        Err(PackError::NoFiles)
    ));
}
