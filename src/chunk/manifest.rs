//! Dependency manifests (seed 004 §1.8): `composer.json` and `package.json`. An agent that
//! does not know the project uses `spatie/laravel-permission` or `alpinejs` reasons badly, so
//! each section becomes a chunk: `require`/`dependencies` (production), `require-dev`/
//! `devDependencies` (development), peer and optional dependencies, PSR-4 `autoload`
//! mappings, and `scripts`; the rest (name, description, type) is the `module` chunk.
//!
//! Values come from `serde_json`; line ranges from a small scanner that finds where each
//! top-level key starts and ends, since serde does not keep positions.

use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Source};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::ops::Range;

#[derive(Clone, Copy, PartialEq)]
enum Manager {
    Composer,
    Npm,
}

impl Manager {
    fn as_str(self) -> &'static str {
        match self {
            Manager::Composer => "composer",
            Manager::Npm => "npm",
        }
    }
}

/// Chunks a manifest; `None` when the file is not one (by name, and it must parse as a JSON
/// object).
pub(crate) fn chunk(source: &Source, emitter: &Emitter) -> Option<Vec<Chunk>> {
    let manager = match source.file_name() {
        "composer.json" => Manager::Composer,
        "package.json" => Manager::Npm,
        _ => return None,
    };
    let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(source.text) else {
        return None;
    };
    let spans = top_level_spans(source.text);
    let mut root = Unit::new(
        ChunkKind::Module,
        source.file.to_string(),
        0..source.text.len(),
    )
    .key("manifest");
    root.meta.set("manager", manager.as_str());
    for key in ["name", "description", "type", "license", "version"] {
        if let Some(Value::String(value)) = doc.get(key) {
            root.meta.set(key, value);
        }
    }
    let mut units = Vec::new();
    for (key, value) in &doc {
        let Some(range) = spans.get(key.as_str()).cloned() else {
            continue;
        };
        let unit = |kind: ChunkKind, name: &str| {
            Unit::new(kind, name, range.clone())
                .key(format!("{}:{key}", manager.as_str()))
                .elide(Elide::Whole {
                    stub: format!("\"{key}\": …,"),
                })
                .header(format!("\"{key}\": {{"))
        };
        match (manager, key.as_str()) {
            (Manager::Composer, "require") | (Manager::Npm, "dependencies") => {
                units.push(dependencies(
                    unit(ChunkKind::Dependencies, "production_dependencies"),
                    value,
                    "production",
                    manager,
                ));
            }
            (Manager::Composer, "require-dev") | (Manager::Npm, "devDependencies") => {
                units.push(dependencies(
                    unit(ChunkKind::Dependencies, "dev_dependencies"),
                    value,
                    "development",
                    manager,
                ));
            }
            (Manager::Npm, "peerDependencies") => {
                units.push(dependencies(
                    unit(ChunkKind::Dependencies, "peer_dependencies"),
                    value,
                    "peer",
                    manager,
                ));
            }
            (Manager::Npm, "optionalDependencies") => {
                units.push(dependencies(
                    unit(ChunkKind::Dependencies, "optional_dependencies"),
                    value,
                    "optional",
                    manager,
                ));
            }
            (Manager::Composer, "autoload") | (Manager::Composer, "autoload-dev") => {
                let name = if key == "autoload" {
                    "psr4_autoload"
                } else {
                    "psr4_autoload_dev"
                };
                let mut u = unit(ChunkKind::NamespaceMapping, name);
                let psr4 = value.get("psr-4").and_then(Value::as_object);
                let mapping: BTreeMap<String, Value> = psr4
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                u.meta.set("namespaces", mapping.keys().collect::<Vec<_>>());
                u.meta.set(
                    "paths",
                    mapping.values().flat_map(paths).collect::<Vec<_>>(),
                );
                u.meta.set("mapping", &mapping);
                if let Some(classmap) = value.get("classmap") {
                    u.meta.set("classmap", classmap);
                }
                if let Some(files) = value.get("files") {
                    u.meta.set("files", files);
                }
                units.push(u);
            }
            (_, "scripts") => {
                let mut u = unit(ChunkKind::Scripts, "scripts");
                if let Value::Object(scripts) = value {
                    u.meta.set("scripts", scripts.keys().collect::<Vec<_>>());
                }
                units.push(u);
            }
            _ => {}
        }
    }
    root.meta.set("sections", doc.keys().collect::<Vec<_>>());
    root.nest(units);
    Some(emitter.emit(&root, "json"))
}

fn paths(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn dependencies<'t>(mut unit: Unit<'t>, value: &Value, kind: &str, manager: Manager) -> Unit<'t> {
    let empty = Map::new();
    let packages = value.as_object().unwrap_or(&empty);
    unit.meta
        .set("packages", packages.keys().collect::<Vec<_>>());
    unit.meta.set("versions", packages);
    unit.meta.set("dependency_type", kind);
    unit.meta.set("manager", manager.as_str());
    // Packages are what the code imports: related symbols for the ranker.
    unit.meta.relate(
        packages
            .keys()
            // Composer's platform requirements: not a language id.
            .filter(|p| !matches!(p.as_str(), "php") && !p.starts_with("ext-"))
            .cloned(),
    );
    unit
}

/// Byte ranges of each top-level `"key": value` of a JSON object, from the key's line start to
/// the end of its value's line.
fn top_level_spans(text: &str) -> BTreeMap<&str, Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = BTreeMap::new();
    let mut depth = 0usize;
    let mut i = 0;
    let mut current: Option<(&str, usize)> = None;
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && current.is_none() {
                    // A key at depth 1 when followed by a colon.
                    let rest = text[(i + 1).min(text.len())..].trim_start();
                    if rest.starts_with(':') {
                        current = Some((&text[start + 1..i], line_start(start)));
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 1
                    && let Some((key, start)) = current.take()
                {
                    spans.insert(key, start..line_end(i));
                }
            }
            b',' | b'\n' if depth == 1 => {
                if let Some((key, start)) = current {
                    // A scalar value ends at the comma or line end after it.
                    let after_colon = text[start..i].split_once(':').map(|(_, v)| v.trim());
                    if after_colon.is_some_and(|v| !v.is_empty()) {
                        spans.insert(key, start..line_end(i));
                        current = None;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((key, start)) = current {
        spans.insert(key, start..text.len());
    }
    spans
}

#[cfg(test)]
mod tests {
    #[test]
    fn spans_cover_each_top_level_key() {
        let text = "{\n  \"name\": \"x\",\n  \"require\": {\n    \"a/b\": \"^1\"\n  },\n  \"last\": [1, 2]\n}\n";
        let spans = super::top_level_spans(text);
        assert_eq!(&text[spans["name"].clone()], "  \"name\": \"x\",\n");
        assert_eq!(
            &text[spans["require"].clone()],
            "  \"require\": {\n    \"a/b\": \"^1\"\n  },\n"
        );
        assert_eq!(&text[spans["last"].clone()], "  \"last\": [1, 2]\n");
    }
}

#[cfg(test)]
mod fixture_tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, strings};

    #[test]
    fn composer_dependencies_and_psr4_mapping() {
        let result = fixture("laravel-shop", "composer.json");
        assert_eq!(result.language, "json");
        let production = find(
            &result.chunks,
            ChunkKind::Dependencies,
            "production_dependencies",
        );
        assert_eq!((production.line_start, production.line_end), (7, 16));
        assert!(
            strings(production, "packages").contains(&"spatie/laravel-translatable".to_string())
        );
        assert_eq!(field(production, "versions")["filament/filament"], "^3.2");
        assert_eq!(field(production, "dependency_type"), "production");
        assert!(
            !production
                .metadata
                .related_symbols
                .contains(&"php".to_string())
        );
        let dev = find(&result.chunks, ChunkKind::Dependencies, "dev_dependencies");
        assert!(strings(dev, "packages").contains(&"phpunit/phpunit".to_string()));
        let autoload = find(&result.chunks, ChunkKind::NamespaceMapping, "psr4_autoload");
        assert_eq!(
            strings(autoload, "namespaces"),
            ["App\\", "Database\\Factories\\", "Database\\Seeders\\"]
        );
        assert_eq!(field(autoload, "mapping")["App\\"], "app/");
        assert_eq!(strings(autoload, "classmap"), ["database/legacy"]);
        find(
            &result.chunks,
            ChunkKind::NamespaceMapping,
            "psr4_autoload_dev",
        );
        let module = find(&result.chunks, ChunkKind::Module, "composer.json");
        assert_eq!(field(module, "name"), "northwind-goods/shop");
    }

    #[test]
    fn package_json_sections() {
        let result = fixture("laravel-shop", "package.json");
        let dev = find(&result.chunks, ChunkKind::Dependencies, "dev_dependencies");
        assert!(strings(dev, "packages").contains(&"tailwindcss".to_string()));
        let prod = find(
            &result.chunks,
            ChunkKind::Dependencies,
            "production_dependencies",
        );
        assert_eq!(strings(prod, "packages"), ["alpinejs"]);
        let scripts = find(&result.chunks, ChunkKind::Scripts, "scripts");
        // File order (serde_json keeps key order).
        assert_eq!(strings(scripts, "scripts"), ["dev", "build"]);
    }
}
