//! The configuration's JSON Schema, generated from [`Config`] so the type, the validation, the
//! editors' completion (`code-intel config schema`) and README's table cannot disagree.

use super::Config;
use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::Value;

/// The JSON Schema (draft 2020-12) of `config.json`, with every default.
pub fn schema() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().for_deserialize();
    let schema = settings.into_generator().into_root_schema_for::<Config>();
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

/// `supported_languages`: the ids come from the language registry, so a language added there is
/// accepted here without another edit.
pub(super) fn language_list(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {"type": "string", "enum": crate::lang::ids()},
        "uniqueItems": true,
    })
}

/// README's configuration table: one row per key (schema order), its default and its
/// description. A unit test compares README with this.
pub fn markdown_table() -> String {
    let schema = schema();
    let mut out = String::from("| key | default | meaning |\n|---|---|---|\n");
    let Some(properties) = schema["properties"].as_object() else {
        return out;
    };
    for (key, property) in properties {
        if key == "$schema" {
            continue;
        }
        let description = property["description"]
            .as_str()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!(
            "| `{key}` | {} | {} |\n",
            default_cell(&property["default"]),
            description.replace('|', "\\|")
        ));
    }
    out
}

fn default_cell(value: &Value) -> String {
    match value {
        Value::Null => "—".to_string(),
        Value::Array(items) if items.is_empty() => "`[]`".to_string(),
        Value::Array(items) if items.len() > 4 => {
            let shown: Vec<String> = items.iter().take(4).map(Value::to_string).collect();
            format!("`[{}, …]`", shown.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k} {v}")).collect();
            parts.join(", ")
        }
        other => format!("`{other}`"),
    }
}
