//! CSS and SCSS outlines: `@import`, and Sass's `@use` / `@forward`, as imports. One `@import`
//! may name several files (`@import 'a', 'b';`), each its own import; `url(…)` and quoted forms
//! are both read; media queries and `as` / `with` / `show` / `hide` clauses are left out.
//! `source` keeps what was written (`./base`, `~bootstrap/scss/bootstrap`, `sass:math`);
//! `deps::resolve` turns it into files (partials, index files) or a package.
//!
//! The rule text is read after blanking comments (newlines kept, so lines stay right); a scan
//! is all it takes, and it reads broken stylesheets as well as valid ones.

use crate::lang::outline::{Import, ImportType};
use regex::Regex;
use std::sync::LazyLock;

static AT_RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)@(import|use|forward)\s+([^;{}]+)").expect("valid regex"));
/// `'x'`, `"x"`, `url(x)`, `url('x')`, each at the start of the remaining text.
static TARGET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*(?:url\(\s*(?:'([^']*)'|"([^"]*)"|([^)\s]*))\s*\)|'([^']*)'|"([^"]*)")"#)
        .expect("valid regex")
});

pub fn imports(text: &str, scss: bool) -> Vec<Import> {
    let code = blank_comments(text, scss);
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', code.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |byte: usize| line_starts.partition_point(|&start| start <= byte);
    let mut out = Vec::new();
    for caps in AT_RULE.captures_iter(&code) {
        let rule = &caps[1];
        let line = line_of(caps.get(0).map_or(0, |m| m.start()));
        let mut rest = &caps[2];
        // `@use`/`@forward` take one module; `@import` a comma-separated list.
        while let Some(found) = TARGET.captures(rest) {
            let source = (1..=5)
                .find_map(|i| found.get(i))
                .map_or("", |m| m.as_str());
            if !source.is_empty() {
                out.push(Import {
                    source: source.to_string(),
                    kind: if is_external(source) {
                        ImportType::External
                    } else {
                        ImportType::Internal
                    },
                    imported: Vec::new(),
                    default: false,
                    // A plain `@use` binds the module under its name, like a namespace import.
                    namespace: rule == "use",
                    type_only: false,
                    dynamic: false,
                    statement: Some(format!("@{rule}")),
                    line,
                });
            }
            rest = &rest[found.get(0).map_or(0, |m| m.end())..];
            match rest.trim_start().strip_prefix(',') {
                Some(next) if rule == "import" => rest = next,
                _ => break,
            }
        }
    }
    out
}

/// What the syntax alone says is not a project file: URLs, Sass's built-in modules
/// (`sass:math`), and `~package` paths into node_modules.
pub fn is_external(source: &str) -> bool {
    source.starts_with("http://")
        || source.starts_with("https://")
        || source.starts_with("//")
        || source.starts_with("sass:")
        || source.starts_with('~')
}

/// `text` with `/* … */` (and, in SCSS, `// …`) comments replaced by spaces, newlines kept and
/// strings left alone.
fn blank_comments(text: &str, line_comments: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if b == b'\\' {
                i += 2;
                continue;
            }
            if b == q || b == b'\n' {
                quote = None;
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"' | b'\'', _) => {
                quote = Some(b);
                i += 1;
            }
            (b'/', Some(b'*')) => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                blank(&mut out, i, end);
                i = end;
            }
            // `//` inside `url(http://…)` is not a comment: only at a line start or after space.
            (b'/', Some(b'/'))
                if line_comments && (i == 0 || bytes[i - 1].is_ascii_whitespace()) =>
            {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes inside comments were replaced by spaces; multi-byte characters in
    // comments are blanked byte by byte, which still leaves valid UTF-8 (all spaces).
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}
