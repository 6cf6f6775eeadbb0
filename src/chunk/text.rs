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
const MAX_FIELD_CHARS: usize = 240;

/// Metadata fields that say nothing to a reader (or repeat another field).
const SKIPPED_FIELDS: &[&str] = &["exported", "part", "members", "versions", "file_module", "resource_source"];

pub fn embedding_text(chunk: &Chunk) -> String {
    let mut out = String::new();
    let m = &chunk.metadata;
    let _ = write!(out, "{} {}", chunk.kind.as_str().replace('_', " "), chunk.name);
    if let Some(q) = m.fqcn.as_ref().or(m.qualified_name.as_ref()).filter(|q| **q != chunk.name) {
        let _ = write!(out, " ({q})");
    }
    let _ = writeln!(out, "\nfile: {}", chunk.file);
    if let Some(sig) = &m.signature {
        let _ = writeln!(out, "signature: {}", clip(sig));
    }
    if let Some(doc) = &m.docstring {
        let _ = writeln!(out, "doc: {}", clip(&doc.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    for (key, value) in &m.fields {
        if SKIPPED_FIELDS.contains(&key.as_str()) {
            continue;
        }
        let rendered = render(value);
        if !rendered.is_empty() {
            let _ = writeln!(out, "{}: {}", key.replace('_', " "), clip(&rendered));
        }
    }
    if !m.related_symbols.is_empty() {
        let _ = writeln!(out, "related: {}", clip(&m.related_symbols.join(", ")));
    }
    out.push('\n');
    out.push_str(&chunk.content);
    out
}

/// A metadata value as short prose: lists joined, objects as `key value` pairs.
fn render(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "yes".into() } else { "no".into() },
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
