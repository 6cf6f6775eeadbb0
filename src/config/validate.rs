//! Key-by-key validation of a parsed `config.json` against the generated schema.
//!
//! The file is walked alongside the schema. An unknown key is reported with the nearest known
//! key (a misspelt `sync_on_strat` names `sync_on_start`). A known key's value is checked twice:
//! by serde, deserialising a [`Config`] that holds only that entry (so the type, the enum
//! variants and the integer width are exactly what the loader accepts), then against the
//! schema's `minimum`/`maximum`/`enum`. Array items outside an `enum` are dropped one by one,
//! so one misspelt language does not discard the list. What survives is returned as a clean
//! JSON object that deserialises into [`Config`] in one go.

use super::Config;
use super::report::ConfigProblem;
use serde_json::{Map, Value};

/// Keys the seeds describe that this server deliberately does not take, with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "fallback_languages",
        "every language of this build has its parser compiled in, so none falls back; use \"chunk_strategy\": \"lines\" for line windows",
    ),
    (
        "parser_timeout_ms",
        "parsing is bounded by max_file_bytes and tool_timeout_secs instead",
    ),
];

/// Checks `value` (the whole file) against `schema`; returns the valid entries and the problems.
pub(super) fn validate(value: &Value, schema: &Value) -> (Value, Vec<ConfigProblem>) {
    let mut problems = Vec::new();
    let Value::Object(object) = value else {
        problems.push(ConfigProblem {
            path: "$".into(),
            message: format!(
                "the file holds {}, not an object of settings; the defaults apply",
                describe(value)
            ),
        });
        return (Value::Object(Map::new()), problems);
    };
    let mut walk = Walk {
        root: schema,
        problems: &mut problems,
    };
    let clean = walk.object(object, schema, &mut Vec::new());
    (Value::Object(clean), problems)
}

struct Walk<'a> {
    root: &'a Value,
    problems: &'a mut Vec<ConfigProblem>,
}

impl<'a> Walk<'a> {
    fn problem(&mut self, keys: &[String], index: Option<usize>, message: String) {
        let mut path = String::from("$");
        for key in keys {
            path.push('.');
            path.push_str(key);
        }
        if let Some(i) = index {
            path.push_str(&format!("[{i}]"));
        }
        self.problems.push(ConfigProblem { path, message });
    }

    /// The schema node behind a `$ref` (only local `#/$defs/…` references occur).
    fn resolve<'s>(&self, node: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        match node["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => self.root.pointer(pointer).unwrap_or(node),
            None => node,
        }
    }

    fn object(
        &mut self,
        object: &Map<String, Value>,
        schema: &Value,
        keys: &mut Vec<String>,
    ) -> Map<String, Value> {
        let schema = self.resolve(schema);
        let empty = Map::new();
        let properties = schema["properties"].as_object().unwrap_or(&empty);
        let mut clean = Map::new();
        for (key, value) in object {
            keys.push(key.clone());
            match properties.get(key) {
                None => {
                    let message = unknown_key(key, properties.keys().map(String::as_str));
                    self.problem(keys, None, message);
                }
                Some(property) => {
                    let property = merged(property, self.resolve(property));
                    let property = &property;
                    if let (Value::Object(inner), true) =
                        (value, property["properties"].is_object())
                    {
                        let inner = self.object(inner, property, keys);
                        clean.insert(key.clone(), Value::Object(inner));
                    } else if let Some(value) = self.leaf(value, property, keys) {
                        clean.insert(key.clone(), value);
                    }
                }
            }
            keys.pop();
        }
        clean
    }

    /// One value: kept (possibly with invalid array items removed) or reported and dropped.
    fn leaf(&mut self, value: &Value, schema: &Value, keys: &[String]) -> Option<Value> {
        if let Err(err) = serde_json::from_value::<Config>(nest(keys, value.clone())) {
            let message = type_message(&err.to_string(), schema, value);
            let default = default_of(schema);
            self.problem(keys, None, format!("{message}; {default}"));
            return None;
        }
        if let Some(allowed) = schema["enum"].as_array()
            && !allowed.contains(value)
        {
            let default = default_of(schema);
            self.problem(
                keys,
                None,
                format!(
                    "{value} is not available; available: {}; {default}",
                    list(allowed)
                ),
            );
            return None;
        }
        if let Some(message) = range_message(value, schema) {
            let default = default_of(schema);
            self.problem(keys, None, format!("{message}; {default}"));
            return None;
        }
        if let (Value::Array(items), Some(allowed)) = (value, schema["items"]["enum"].as_array()) {
            let mut kept = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if allowed.contains(item) {
                    kept.push(item.clone());
                } else {
                    let known = list(allowed);
                    let hint = item
                        .as_str()
                        .and_then(|s| nearest(s, allowed.iter().filter_map(Value::as_str)))
                        .map(|n| format!(" (did you mean \"{n}\"?)"))
                        .unwrap_or_default();
                    self.problem(
                        keys,
                        Some(i),
                        format!("{item} is not known{hint}; known: {known}; it is left out"),
                    );
                }
            }
            return Some(Value::Array(kept));
        }
        Some(value.clone())
    }
}

/// A property's own keys (description, default) over the definition its `$ref` points to.
fn merged(property: &Value, resolved: &Value) -> Value {
    let mut out = resolved.as_object().cloned().unwrap_or_default();
    if let Value::Object(own) = property {
        for (k, v) in own {
            if k != "$ref" {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// `{"a": {"b": value}}` for keys `[a, b]`: a document holding only this entry.
fn nest(keys: &[String], value: Value) -> Value {
    keys.iter().rev().fold(value, |inner, key| {
        let mut map = Map::new();
        map.insert(key.clone(), inner);
        Value::Object(map)
    })
}

fn unknown_key<'k>(key: &str, known: impl Iterator<Item = &'k str>) -> String {
    if let Some((_, reason)) = REFUSED.iter().find(|(k, _)| *k == key) {
        return format!("not supported: {reason}; it is ignored");
    }
    let known: Vec<&str> = known.filter(|k| *k != "$schema").collect();
    match nearest(key, known.iter().copied()) {
        Some(near) => format!("unknown key (did you mean \"{near}\"?); it is ignored"),
        None => format!(
            "unknown key; it is ignored (known keys: {})",
            known.join(", ")
        ),
    }
}

/// The closest candidate within a third of the word's length (at least 2 edits), if any.
fn nearest<'k>(word: &str, candidates: impl Iterator<Item = &'k str>) -> Option<&'k str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
/// of neighbours each cost 1 (`strat` → `start` is one edit, as a typist would count it).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// serde's message, said in terms of the file: "expected an integer, found the string "abc"".
fn type_message(serde_message: &str, schema: &Value, value: &Value) -> String {
    if serde_message.starts_with("invalid type")
        && let Some(expected) = expected(schema)
    {
        return format!("expected {expected}, found {}", describe(value));
    }
    serde_message.to_string()
}

/// What the schema's `type` asks for, in words.
fn expected(schema: &Value) -> Option<String> {
    let variants: Vec<&Value> = schema["oneOf"]
        .as_array()
        .map(|vs| vs.iter().filter_map(|v| v.get("const")).collect())
        .unwrap_or_default();
    if !variants.is_empty() {
        let names: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
        return Some(format!("one of {}", names.join(", ")));
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ if schema["enum"].is_array() || schema["oneOf"].is_array() => vec!["string"],
        _ => return None,
    };
    let words: Vec<&str> = types
        .iter()
        .map(|t| match *t {
            "integer" if schema["minimum"].as_f64().is_some_and(|m| m >= 0.0) => {
                "a non-negative integer"
            }
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "true or false",
            "string" => "a string",
            "array" => "a list",
            "object" => "an object",
            "null" => "null",
            _ => "a value",
        })
        .collect();
    Some(words.join(" or "))
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn range_message(value: &Value, schema: &Value) -> Option<String> {
    let n = value.as_f64()?;
    if let Some(min) = schema["minimum"].as_f64()
        && n < min
    {
        return Some(format!(
            "{value} is below the minimum {}",
            schema["minimum"]
        ));
    }
    if let Some(max) = schema["maximum"].as_f64()
        && n > max
    {
        return Some(format!(
            "{value} is above the maximum {}",
            schema["maximum"]
        ));
    }
    None
}

fn default_of(schema: &Value) -> String {
    match &schema["default"] {
        Value::Null => "the default applies".into(),
        default => format!("the default {default} applies"),
    }
}

fn list(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn transpositions_are_one_edit() {
        assert_eq!(edit_distance("sync_on_strat", "sync_on_start"), 1);
        assert_eq!(edit_distance("max_chunk", "max_chunks"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
