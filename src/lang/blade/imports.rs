//! Blade outlines: the views a template pulls in, as imports — `@extends`, `@include` and its
//! variants (`@includeIf`, `@includeWhen`, `@includeUnless`, `@includeFirst`, `@each`),
//! `@component`, `<x-…>` components and `@livewire` / `<livewire:…>` components. The directive
//! patterns are `lang::blade`'s, shared with the chunker, so both read a template the same way; here each
//! reference also gets its line and the directive that made it (`statement`).
//!
//! `source` is the view or component name as written (`layouts.app`, `x-forms.input`,
//! `cart-counter`); `deps::resolve` turns it into files. A namespaced `pkg::view` belongs to a
//! package, so the outline guesses `external` for it.

use super::{COMPONENT_DIRECTIVE, COMPONENT_TAG, EXTENDS, INCLUDE, LIVEWIRE, QUOTED};
use crate::lang::outline::{Import, ImportType};

pub fn imports(text: &str) -> Vec<Import> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |byte: usize| line_starts.partition_point(|&start| start <= byte);
    let mut out: Vec<Import> = Vec::new();
    let mut push = |source: &str, statement: &str, at: usize| {
        let source = source.trim();
        if source.is_empty()
            || out
                .iter()
                .any(|i| i.source == source && i.statement.as_deref() == Some(statement))
        {
            return;
        }
        out.push(Import {
            source: source.to_string(),
            kind: if source.contains("::") {
                ImportType::External
            } else {
                ImportType::Internal
            },
            imported: Vec::new(),
            default: false,
            namespace: false,
            type_only: false,
            dynamic: false,
            statement: Some(statement.to_string()),
            line: line_of(at),
        });
    };
    for caps in EXTENDS.captures_iter(text) {
        push(&caps[1], "extends", caps.get(0).map_or(0, |m| m.start()));
    }
    for caps in INCLUDE.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        let directive = whole.as_str()[1..]
            .split(|c: char| c == '(' || c.is_whitespace())
            .next()
            .unwrap_or("include");
        // The pattern's own argument group stops at the first `)`, which cuts
        // `@includeWhen($user->isAdmin(), 'menu')`; read up to the matching parenthesis.
        let open = caps.get(1).map_or(whole.end(), |m| m.start());
        let args = balanced_args(text, open);
        // `@includeFirst(['custom.admin', 'admin'])` names candidates, each a view it may render.
        let views: Vec<&str> = if directive == "includeFirst" {
            let list = args
                .find('[')
                .and_then(|open| {
                    args[open..]
                        .find(']')
                        .map(|close| &args[open..open + close])
                })
                .unwrap_or(args);
            QUOTED
                .captures_iter(list)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect()
        } else {
            QUOTED
                .captures_iter(args)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .take(1)
                .collect()
        };
        for view in views {
            push(view, directive, whole.start());
        }
    }
    for caps in COMPONENT_DIRECTIVE.captures_iter(text) {
        push(&caps[1], "component", caps.get(0).map_or(0, |m| m.start()));
    }
    for caps in COMPONENT_TAG.captures_iter(text) {
        let name = &caps[1];
        // Slots and the dynamic component are Blade syntax, not components of the project.
        if name == "slot" || name.starts_with("slot:") || name == "dynamic-component" {
            continue;
        }
        push(
            &format!("x-{name}"),
            "x-component",
            caps.get(0).map_or(0, |m| m.start()),
        );
    }
    for caps in LIVEWIRE.captures_iter(text) {
        if let Some(name) = caps.get(1).or(caps.get(2)) {
            push(name.as_str(), "livewire", name.start());
        }
    }
    out.sort_by_key(|i| i.line);
    out
}

/// The text from `start` (just after an opening parenthesis) to its closing one, quoted strings
/// skipped; the rest of the text when it is never closed.
fn balanced_args(text: &str, start: usize) -> &str {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' => depth += 1,
                b')' | b']' if depth == 0 => return &text[start..i],
                b')' | b']' => depth -= 1,
                _ => {}
            },
        }
        i += 1;
    }
    &text[start..]
}
