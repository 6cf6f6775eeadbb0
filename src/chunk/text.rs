//! The text the embedding model sees for a chunk, built in this one place so ranking
//! experiments change one function: what it is and where (kind, name, file), its signature and
//! docstring, a one-line-per-fact summary of its metadata, then the code.
//!
//! The model truncates at its limit, so the most informative parts come first; the code, the
//! longest part, comes last. `ChunkOptions::content_budget` reserves room for this header.

use super::Chunk;
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
