//! The text the embedding model sees for a chunk, built in this one place so ranking
//! experiments change one function: what it is and where (kind, name, file), its signature and
//! docstring, a one-line-per-fact summary of its metadata, then the code.
//!
//! The model truncates at its limit, so the most informative parts come first; the code, the
//! longest part, comes last. `ChunkOptions::content_budget` reserves room for this header.

use super::{Chunk, TokenCounter};
use serde_json::Value;
use std::fmt::Write;

/// Longest rendering of one metadata field.
const MAX_FIELD_CHARS: usize = 160;

/// The header (everything before the code) stops growing past this many characters: about 110
/// model tokens for identifier-heavy text, which with `ChunkOptions::content_budget` (three
/// quarters of `chunk_max_tokens`) keeps the whole passage inside the model's limit.
pub const MAX_HEADER_CHARS: usize = 340;

/// Metadata fields that say nothing to a reader, or repeat another field.
const SKIPPED_FIELDS: &[&str] = &[
    "exported",
    "part",
    "members",
    "versions",
    "file_module",
    "resource_source",
    "traits",
    "symbols",
    "schema_class",
    "qualified_name",
    "merged",
];

/// Fields worth their header space first, in this order; the rest follow alphabetically.
const FIRST_FIELDS: &[&str] = &[
    "role",
    "table",
    "operation",
    "columns",
    "translatable",
    "relations",
    "relation",
    "fillable",
    "casts",
    "model",
    "resource",
    "delegates_to",
    "fields",
    "filters",
    "actions",
    "entries",
    "injected_dependencies",
    "directive",
    "components",
    "routes",
    "livewire",
    "packages",
    "namespaces",
    "colors",
    "fonts",
    "screens",
    "plugins",
    "scan_patterns",
];

pub fn embedding_text(chunk: &Chunk) -> String {
    let m = &chunk.metadata;
    let mut lines: Vec<String> = Vec::new();
    let mut title = format!("{} {}", chunk.kind.as_str().replace('_', " "), chunk.name);
    if let Some(q) = m
        .fqcn
        .as_ref()
        .or(m.qualified_name.as_ref())
        .filter(|q| **q != chunk.name)
    {
        let _ = write!(title, " ({q})");
    }
    lines.push(title);
    lines.push(format!("file: {}", chunk.file));
    if let Some(sig) = &m.signature {
        lines.push(format!("signature: {}", clip(sig)));
    }
    if let Some(doc) = &m.docstring {
        lines.push(format!(
            "doc: {}",
            clip(&doc.split_whitespace().collect::<Vec<_>>().join(" "))
        ));
    }
    let mut keys: Vec<&String> = m
        .fields
        .keys()
        .filter(|k| !SKIPPED_FIELDS.contains(&k.as_str()))
        .collect();
    keys.sort_by_key(|k| {
        FIRST_FIELDS
            .iter()
            .position(|f| f == k)
            .unwrap_or(FIRST_FIELDS.len())
    });
    for key in keys {
        let rendered = render(&m.fields[key]);
        if !rendered.is_empty() {
            lines.push(format!("{}: {}", key.replace('_', " "), clip(&rendered)));
        }
    }
    if !m.related_symbols.is_empty() {
        // Short names: the full ones are in the metadata, the words are what embeds.
        let short: Vec<&str> = m
            .related_symbols
            .iter()
            .map(|s| s.rsplit(['\\', '.', '#', '/', ':']).next().unwrap_or(s))
            .collect();
        lines.push(format!("related: {}", clip(&short.join(", "))));
    }
    let mut out = String::new();
    for line in lines {
        if !out.is_empty() && out.len() + line.len() > MAX_HEADER_CHARS {
            break;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&chunk.content);
    out
}

/// How much of a chunk's [`embedding_text`] its head holds, in the model's tokens (about 70
/// once the passage prefix and special tokens are added).
pub const HEAD_TOKENS: usize = 64;

/// A chunk's head: the start of its [`embedding_text`] (kind and name, path, signature, doc
/// comment, facts, first lines of code) up to [`HEAD_TOKENS`], or the text itself when it fits.
/// Whole lines while they fit, then as much of the next line as the rest of the budget holds,
/// cut between words. What the index embeds first and what a request embeds for candidates
/// still without a vector.
///
/// Why a head, and why in tokens: the model's cost grows with tokens, and on two cores it
/// embeds about 100 texts of this size a second against 25–40 whole chunks. Measured outside
/// the product on 8 repositories, e5 on a chunk's first 64 tokens ranked as well as on the whole
/// chunk (NDCG@10 0.678 against 0.681, dense alone). A cut in bytes does not hold that cost:
/// 256 bytes of a PHP framework's chunk (long namespaces, `$this->`) were about 100 tokens and
/// embedded at 65 a second. Whole lines only are not enough either: a namespaced title and a
/// deep path can fill the budget before the signature.
pub fn embedding_head<'a>(text: &'a str, tokens: &TokenCounter) -> &'a str {
    if tokens.fits(text, HEAD_TOKENS) {
        return text;
    }
    let mut used = 0;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        let n = tokens.count(line);
        if used + n <= HEAD_TOKENS {
            used += n;
            end += line.len();
            continue;
        }
        // The part of this line the rest of the budget holds, by its share of the line's
        // tokens, ending between words.
        let share = line.len() * (HEAD_TOKENS - used) / n.max(1);
        let mut cut = share.min(line.len());
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        cut = line[..cut].rfind(char::is_whitespace).unwrap_or(cut);
        end += cut;
        break;
    }
    text[..end].trim_end()
}

/// A metadata value as short prose: lists joined, objects as `key value` pairs.
fn render(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => {
            if *b {
                "yes".into()
            } else {
                "no".into()
            }
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(render)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(map) => {
            // Named things (columns, actions, relations) read best name first.
            let name = map
                .get("name")
                .or_else(|| map.get("method"))
                .or_else(|| map.get("column"))
                .and_then(Value::as_str);
            let rest: Vec<String> = map
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "name" | "method" | "column"))
                .map(|(k, v)| match v {
                    Value::Object(_) => format!("{k} {}", render(v)),
                    _ => render(v),
                })
                .filter(|s| !s.is_empty())
                .collect();
            match name {
                Some(name) if rest.is_empty() => name.to_string(),
                Some(name) => format!("{name} ({})", rest.join(" ")),
                None => map
                    .iter()
                    .map(|(k, v)| format!("{k} {}", render(v)))
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        }
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_FIELD_CHARS {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX_FIELD_CHARS).collect();
    format!("{cut}…")
}
