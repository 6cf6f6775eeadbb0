//! Tidy: the layer rule of ARCHITECTURE.md, checked against the code.
//!
//! ARCHITECTURE.md's "Layers" table puts every top-level module of `src/` in a numbered layer. A
//! module may use modules of lower layers, and modules of its own layer as long as no cycle
//! forms among them; it may never reach a layer above it. This test reads the table, reads every
//! `crate::…` path in `src/` (code only: comments and string literals are skipped, tests are
//! included, since a test that needs a module above its own is that module's test), and fails
//! naming the file and line of each path that breaks the rule. The table is the one a reader
//! sees, so the document cannot drift from the code either: a module missing from it, or listed
//! but gone, fails too.
//!
//! A language lives in one place: `src/lang/<id>/`. Outside `src/lang/`, no code names a
//! language id in a string literal; it asks the registry's row instead (tests may name ids, and
//! a line that means something else by the same word, such as the `php` interpreter, says so
//! with a `not a language id` comment on that line or the one above). Library code returns typed
//! errors: `anyhow` appears only in `src/cli/` and `src/main.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One `crate::<module>` path in a source file.
#[derive(Debug, Clone, PartialEq)]
struct Reference {
    module: String,
    line: usize,
}

#[test]
fn layers_only_point_down() {
    let root = Path::new(ROOT);
    let architecture = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let layers = layer_table(&architecture);
    assert!(
        !layers.is_empty(),
        "ARCHITECTURE.md has no \"Layers\" table (| layer | modules | … |)"
    );

    let declared = top_level_modules(&fs::read_to_string(root.join("src/lib.rs")).unwrap());
    let listed: BTreeSet<String> = layers.keys().cloned().collect();
    let mut problems = Vec::new();
    for missing in declared.difference(&listed) {
        problems.push(format!(
            "src/lib.rs declares `{missing}`, which ARCHITECTURE.md's Layers table does not list"
        ));
    }
    for gone in listed.difference(&declared) {
        problems.push(format!(
            "ARCHITECTURE.md's Layers table lists `{gone}`, which src/lib.rs does not declare"
        ));
    }

    // Same-layer edges, with where each was first seen, for the cycle check.
    let mut siblings: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in rust_files(&root.join("src")) {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let Some(from) = owning_module(&rel) else {
            continue;
        };
        let Some(&from_layer) = layers.get(&from) else {
            continue; // reported above
        };
        let text = fs::read_to_string(&file).unwrap();
        for r in crate_references(&text) {
            if r.module == from {
                continue;
            }
            let Some(&to_layer) = layers.get(&r.module) else {
                continue; // not a module (a macro or a re-export at the root)
            };
            let at = format!("{rel}:{}", r.line);
            if to_layer > from_layer {
                problems.push(format!(
                    "{at}: `{from}` (layer {from_layer}) uses `{}` (layer {to_layer}), a layer above it",
                    r.module
                ));
            } else if to_layer == from_layer {
                siblings
                    .entry(from.clone())
                    .or_default()
                    .entry(r.module.clone())
                    .or_insert(at);
            }
        }
    }
    for cycle in cycles(&siblings) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("`{}` → `{}` ({})", w[0], w[1], siblings[&w[0]][&w[1]]))
            .collect();
        problems.push(format!(
            "modules of one layer use each other: {}",
            steps.join(", ")
        ));
    }
    assert!(
        problems.is_empty(),
        "the layer rule of ARCHITECTURE.md is broken:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn no_language_ids_outside_lang() {
    let root = Path::new(ROOT);
    let ids: BTreeSet<&str> = code_intel::lang::ids().into_iter().collect();
    let files = rust_files(&root.join("src"));
    let tests = test_files(&files);
    let mut problems = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel.starts_with("src/lang/") || tests.contains(file) {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let test_lines = inline_test_lines(&code_only(&text));
        for (line, literal) in string_literals(&text) {
            // The marker sits on the literal's line or on the line above it.
            let excused = lines[line.saturating_sub(2)..line]
                .iter()
                .any(|l| l.contains("not a language id"));
            if ids.contains(literal.as_str()) && !test_lines.contains(&line) && !excused {
                problems.push(format!(
                    "{rel}:{line}: names the language id \"{literal}\"; ask the registry row \
                     (src/lang/) instead"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "language knowledge outside src/lang/:\n  {}",
        problems.join("\n  ")
    );
}

/// Library code returns typed errors; `anyhow` belongs to the edge that prints them.
#[test]
fn anyhow_only_at_the_edge() {
    let root = Path::new(ROOT);
    let mut problems = Vec::new();
    for file in rust_files(&root.join("src")) {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel.starts_with("src/cli/") || rel == "src/main.rs" {
            continue;
        }
        let code = code_only(&fs::read_to_string(&file).unwrap());
        for (index, line) in code.lines().enumerate() {
            if line.contains("anyhow") {
                problems.push(format!("{rel}:{}", index + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "`anyhow` outside src/cli/ and src/main.rs (use a typed error):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn finds_literals_and_test_code() {
    let text = "let a = \"php\"; // \"go\"\nlet b = r#\"rust\"#;\n#[cfg(test)]\nmod tests {\n    fn f() { g(\"python\") }\n}\nlet c = 'x';\n";
    assert_eq!(
        string_literals(text),
        vec![
            (1, "php".to_string()),
            (2, "rust".to_string()),
            (5, "python".to_string())
        ]
    );
    assert_eq!(
        inline_test_lines(&code_only(text)),
        BTreeSet::from([3, 4, 5, 6])
    );
}

/// The files that `#[cfg(test)] mod x;` declarations pull in: `x.rs` or `x/mod.rs` beside the
/// declaring file (inside its directory when it is a `mod.rs`), and everything under them.
fn test_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in files {
        let code = code_only(&fs::read_to_string(file).unwrap());
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().unwrap().to_path_buf(),
            _ => file.with_extension(""),
        };
        let mut rest = code.as_str();
        while let Some(at) = rest.find("#[cfg(test)]") {
            rest = &rest[at + "#[cfg(test)]".len()..];
            let after = rest.trim_start();
            let Some(decl) = after.strip_prefix("mod ") else {
                continue;
            };
            let name: String = decl
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !decl[name.len()..].trim_start().starts_with(';') {
                continue; // an inline module: its lines are skipped by `inline_test_lines`
            }
            let single = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name);
            for candidate in files {
                if *candidate == single || candidate.starts_with(&nested) {
                    out.insert(candidate.clone());
                }
            }
        }
    }
    out
}

/// The lines of `#[cfg(test)] mod x { … }` blocks in `code` (comments and strings blanked).
fn inline_test_lines(code: &str) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        from = start + 1;
        let after = &code[start + "#[cfg(test)]".len()..];
        let Some(decl) = after.trim_start().strip_prefix("mod ") else {
            continue;
        };
        let Some(open) = decl
            .find(['{', ';'])
            .filter(|&i| decl.as_bytes()[i] == b'{')
        else {
            continue;
        };
        let body_start = code.len() - decl.len() + open;
        let mut depth = 0;
        let mut end = code.len();
        for (i, b) in code.bytes().enumerate().skip(body_start) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = code[..start].matches('\n').count() + 1;
        let last = code[..end].matches('\n').count() + 1;
        out.extend(first..=last);
    }
    out
}

/// The reader itself: comments, strings and look-alikes are not references.
#[test]
fn reads_only_code_paths() {
    let text = r###"
use crate::lang::{self, LanguageDef};
use crate::{index::Snapshot, search::{glossary, lexical}};
// crate::commented
/* crate::block /* nested */ crate::still_comment */
const A: &str = "crate::in_string";
const B: &str = r#"crate::in_raw "string""#;
const C: char = '"';
fn f<'a>(x: &'a str) -> pub_crate::Thing { crate::tools::run(x) }
pub(crate) fn g() {}
"###;
    let found: Vec<(String, usize)> = crate_references(text)
        .into_iter()
        .map(|r| (r.module, r.line))
        .collect();
    assert_eq!(
        found,
        vec![
            ("lang".to_string(), 2),
            ("index".to_string(), 3),
            ("search".to_string(), 3),
            ("tools".to_string(), 9),
        ]
    );
}

#[test]
fn reads_the_table() {
    let md = "# A\n\n## Layers\n\n| layer | modules | what |\n|---|---|---|\n| 0 | `error`, `digest` | x |\n| 1 | `lang` | y |\n\n## Next\n\n| 5 | `not_this` | z |\n";
    let layers = layer_table(md);
    assert_eq!(layers.len(), 3);
    assert_eq!(layers["digest"], 0);
    assert_eq!(layers["lang"], 1);
}

/// Module → layer, from the table under the `## Layers` heading.
fn layer_table(markdown: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    let mut in_section = false;
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = heading.trim() == "Layers";
            continue;
        }
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(layer), Some(modules)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(layer) = layer.parse::<u32>() else {
            continue; // the header and the separator row
        };
        for name in modules.split('`').skip(1).step_by(2) {
            out.insert(name.to_string(), layer);
        }
    }
    out
}

/// The `mod` declarations of `src/lib.rs`.
fn top_level_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// `src/index/sync.rs` → `index`, `src/digest.rs` → `digest`; the crate root's files → none.
fn owning_module(rel: &str) -> Option<String> {
    let inner = rel.strip_prefix("src/")?;
    match inner.split_once('/') {
        Some((dir, _)) => Some(dir.to_string()),
        None => {
            let stem = inner.strip_suffix(".rs")?;
            (stem != "lib" && stem != "main").then(|| stem.to_string())
        }
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every `crate::<module>` in code, with its line; a `use crate::{a::…, b}` group yields each of
/// its first segments.
fn crate_references(text: &str) -> Vec<Reference> {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find("crate::") {
        let start = from + pos;
        from = start + "crate::".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') {
            continue;
        }
        let line = code[..start].matches('\n').count() + 1;
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            for item in top_level_items(group) {
                if let Some(module) = leading_ident(item.trim_start()) {
                    out.push(Reference { module, line });
                }
            }
        } else if let Some(module) = leading_ident(rest) {
            out.push(Reference { module, line });
        }
    }
    out
}

/// The comma-separated items of a `{…}` group (given what follows its `{`), up to its `}`.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

fn leading_ident(s: &str) -> Option<String> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0 && s[..end] != *"self").then(|| s[..end].to_string())
}

/// `text` with comments and the contents of string and char literals blanked out (newlines
/// kept, so line numbers stay right).
fn code_only(text: &str) -> String {
    lex(text).code
}

/// Every string literal's content with the line it starts on (plain and raw strings; comments
/// and char literals skipped).
fn string_literals(text: &str) -> Vec<(usize, String)> {
    lex(text).literals
}

/// A source file split the way the checks read it.
struct Lexed {
    /// The text with comments dropped and literals blanked, newlines kept.
    code: String,
    /// Each string literal's content and the line it starts on.
    literals: Vec<(usize, String)>,
}

/// One pass over Rust source that tells code, comments and literals apart.
fn lex(text: &str) -> Lexed {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut literals = Vec::new();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    // The line a literal starts on, counted incrementally: the newlines of `code` seen so far.
    let (mut line, mut counted) = (1, 0);
    let mut line_of = |code: &String| {
        line += code[counted..].matches('\n').count();
        counted = code.len();
        line
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    code.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
            && raw_string_end(&chars, i).is_some()
        {
            let end = raw_string_end(&chars, i).unwrap();
            let raw: String = chars[i..end].iter().collect();
            let hashes = raw[1..].chars().take_while(|&c| c == '#').count();
            literals.push((
                line_of(&code),
                raw[2 + hashes..raw.len() - 1 - hashes].to_string(),
            ));
            code.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '"' {
            let line = line_of(&code);
            let mut content = String::new();
            code.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    content.push(chars[i]);
                    code.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    content.push(chars[i]);
                    code.push(blank(chars[i]));
                    i += 1;
                }
            }
            literals.push((line, content));
            code.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '"') or a lifetime ('a): only the former is skipped.
            let close = if next == Some('\\') {
                chars[i + 2..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map(|p| i + 2 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(end) => {
                    code.extend(std::iter::repeat_n(' ', end + 1 - i));
                    i = end + 1;
                }
                None => {
                    code.push(c);
                    i += 1;
                }
            }
        } else {
            code.push(c);
            i += 1;
        }
    }
    Lexed { code, literals }
}

/// The index just past a raw string starting at `start` (`r"…"`, `r#"…"#`, …), if it is one.
fn raw_string_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

/// Every elementary cycle's first appearance, each as a closed walk (`a, b, a`), found by a
/// depth-first search from each node in order.
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut seen_sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for start in edges.keys() {
        let mut path = vec![start.clone()];
        walk(edges, start, &mut path, &mut found, &mut seen_sets);
    }
    found
}

fn walk(
    edges: &BTreeMap<String, BTreeMap<String, String>>,
    start: &str,
    path: &mut Vec<String>,
    found: &mut Vec<Vec<String>>,
    seen_sets: &mut BTreeSet<BTreeSet<String>>,
) {
    let last = path.last().unwrap().clone();
    for next in edges.get(&last).into_iter().flat_map(|m| m.keys()) {
        if next == start {
            let set: BTreeSet<String> = path.iter().cloned().collect();
            if seen_sets.insert(set) {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                found.push(cycle);
            }
        } else if !path.contains(next) && path.len() < 8 {
            path.push(next.clone());
            walk(edges, start, path, found, seen_sets);
            path.pop();
        }
    }
}
