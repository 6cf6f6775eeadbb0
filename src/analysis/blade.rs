//! Blade templates have no tree-sitter grammar: their definitions are directives, found by a
//! scanner. `@section('content')`, `@push('scripts')`, `@slot('title')` and `<x-slot name="…">`
//! / `<x-slot:…>` define named regions other templates fill or yield.

use super::symbols::{Symbol, SymbolKind};
use regex::Regex;
use std::sync::LazyLock;

static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"@(section|push|prepend|slot|fragment)\s*\(\s*['"]([^'"]+)['"]|<x-slot(?::([\w.-]+)|\s+name=["']([\w.-]+)["'])"#)
        .expect("valid regex")
});

static END_SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@(endsection|show|stop|overwrite)\b").expect("valid regex"));
static END_PUSH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@(endpush|endprepend)\b").expect("valid regex"));
static END_SLOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@endslot\b|</x-slot>").expect("valid regex"));
static END_FRAGMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@endfragment\b").expect("valid regex"));

pub fn symbols(text: &str) -> Vec<Symbol> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |byte: usize| line_starts.partition_point(|&start| start <= byte);
    let mut out = Vec::new();
    for caps in DIRECTIVE.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        let directive = caps.get(1).map_or("slot", |m| m.as_str());
        let Some(name) = caps
            .get(2)
            .or(caps.get(3))
            .or(caps.get(4))
            .map(|m| m.as_str().to_string())
        else {
            continue;
        };
        let line = line_of(whole.start());
        // An inline `@section('title', 'Shop')` ends on its own line; a block ends at its end tag.
        let rest = &text[whole.end()..];
        let inline = directive == "section"
            && rest.split('\n').next().is_some_and(|l| {
                l.trim_start().starts_with(',') || l.contains("',") || l.contains("\",")
            });
        let end_line = if inline {
            line
        } else {
            let end = match directive {
                "section" => &END_SECTION,
                "push" | "prepend" => &END_PUSH,
                "fragment" => &END_FRAGMENT,
                _ => &END_SLOT,
            };
            end.find(rest)
                .map_or(line, |m| line_of(whole.end() + m.start()))
        };
        let line_text = text[line_starts[line - 1]..]
            .lines()
            .next()
            .unwrap_or("")
            .trim();
        out.push(Symbol {
            qualified_name: name.clone(),
            name,
            kind: SymbolKind::Section,
            line,
            column: whole.start() - line_starts[line - 1] + 1,
            end_line,
            scope: None,
            signature: line_text.chars().take(120).collect(),
            exported: true,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sections_pushes_and_slots() {
        let text = "@extends('layouts.app')\n@section('title', 'Shop')\n@section('content')\n  <x-card>\n    <x-slot:header>Hi</x-slot>\n  </x-card>\n@endsection\n@push('scripts')\n<script></script>\n@endpush\n";
        let found: Vec<(String, usize, usize)> = super::symbols(text)
            .into_iter()
            .map(|s| (s.name, s.line, s.end_line))
            .collect();
        assert_eq!(
            found,
            vec![
                ("title".into(), 2, 2),
                ("content".into(), 3, 7),
                ("header".into(), 5, 5),
                ("scripts".into(), 8, 10)
            ]
        );
    }
}
