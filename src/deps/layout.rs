//! The project layout module resolution needs, read from the manifests the outline index keeps:
//! `tsconfig.json` / `jsconfig.json` (`baseUrl`, `paths`, `extends`), `composer.json` (PSR-4,
//! PSR-0 and classmap autoload, dev included), `go.mod` (module path), `Cargo.toml` (crate
//! name), `package.json` (workspace package names) and Python project roots.
//!
//! Every path here is relative to the workspace root, `/`-separated, `""` for the root itself.

use crate::index::outlines::Manifest;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug, Default, Clone)]
pub struct Layout {
    pub tsconfigs: Vec<TsConfig>,
    pub composers: Vec<Composer>,
    pub go_modules: Vec<GoModule>,
    pub crates: Vec<Crate>,
    pub packages: Vec<NpmPackage>,
    /// Directories holding `pyproject.toml` / `setup.cfg` (Python project roots).
    pub python_projects: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct TsConfig {
    pub dir: String,
    pub base_url: Option<String>,
    /// `(pattern, targets)`; targets already joined to the directory they are relative to.
    pub paths: Vec<(String, Vec<String>)>,
}

#[derive(Debug, Clone)]
pub struct Composer {
    pub dir: String,
    /// `(namespace prefix with trailing \, directories)`, longest prefix first.
    pub psr4: Vec<(String, Vec<String>)>,
    pub psr0: Vec<(String, Vec<String>)>,
    pub classmap: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct GoModule {
    pub dir: String,
    pub path: String,
}

#[derive(Debug, Clone)]
pub struct Crate {
    pub dir: String,
    /// The package name with `-` as `_`, as `use` paths spell it.
    pub name: String,
}

#[derive(Debug, Clone)]
pub struct NpmPackage {
    pub dir: String,
    pub name: String,
    pub main: Option<String>,
}

/// Parent directory of a relative path (`""` for top-level files).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Joins and normalises `a/b` + `../c` → `a/c`; `None` when it climbs above the root.
pub fn join(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = if rel.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

impl Layout {
    pub fn from_manifests(manifests: &HashMap<String, Arc<Manifest>>) -> Layout {
        let mut layout = Layout::default();
        let mut paths: Vec<&String> = manifests.keys().collect();
        paths.sort();
        for path in paths {
            let text = &manifests[path].text;
            let name = path.rsplit('/').next().unwrap_or(path);
            let dir = dir_of(path).to_string();
            match name {
                "composer.json" => {
                    if let Some(c) = composer(&dir, text) {
                        layout.composers.push(c);
                    }
                }
                "go.mod" => {
                    if let Some(module) =
                        text.lines().find_map(|l| l.trim().strip_prefix("module "))
                    {
                        layout.go_modules.push(GoModule {
                            dir,
                            path: module.trim().trim_matches('"').to_string(),
                        });
                    }
                }
                "Cargo.toml" => {
                    if let Some(name) = cargo_package_name(text) {
                        layout.crates.push(Crate {
                            dir,
                            name: name.replace('-', "_"),
                        });
                    }
                }
                "package.json" => {
                    if let Some(json) = parse_jsonc(text)
                        && let Some(name) = json.get("name").and_then(Value::as_str)
                    {
                        layout.packages.push(NpmPackage {
                            dir,
                            name: name.to_string(),
                            main: json
                                .get("source")
                                .or_else(|| json.get("module"))
                                .or_else(|| json.get("main"))
                                .and_then(Value::as_str)
                                .map(|m| m.trim_start_matches("./").to_string()),
                        });
                    }
                }
                "pyproject.toml" | "setup.cfg" => layout.python_projects.push(dir),
                _ if name == "jsconfig.json" || name == "tsconfig.json" => {
                    layout
                        .tsconfigs
                        .push(tsconfig(path, manifests, &mut Vec::new()));
                }
                _ => {}
            }
        }
        // Nearest configuration first when searching from a file.
        layout
            .tsconfigs
            .sort_by_key(|t| std::cmp::Reverse(t.dir.len()));
        layout
            .go_modules
            .sort_by_key(|m| std::cmp::Reverse(m.dir.len()));
        layout
            .crates
            .sort_by_key(|c| std::cmp::Reverse(c.dir.len()));
        layout
            .composers
            .sort_by_key(|c| std::cmp::Reverse(c.dir.len()));
        layout
    }

    /// The tsconfig whose directory contains `file`, nearest first.
    pub fn tsconfig_for(&self, file: &str) -> Option<&TsConfig> {
        self.tsconfigs.iter().find(|t| contains(&t.dir, file))
    }

    pub fn crate_for(&self, file: &str) -> Option<&Crate> {
        self.crates.iter().find(|c| contains(&c.dir, file))
    }
}

/// Whether `dir` contains `path` (the root contains everything).
pub fn contains(dir: &str, path: &str) -> bool {
    dir.is_empty() || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

/// Reads a tsconfig with its `extends` chain (relative parents only; a package preset such as
/// `@tsconfig/node20` lives in node_modules, which is not part of the project).
fn tsconfig(
    path: &str,
    manifests: &HashMap<String, Arc<Manifest>>,
    seen: &mut Vec<String>,
) -> TsConfig {
    let dir = dir_of(path).to_string();
    let mut config = TsConfig {
        dir: dir.clone(),
        base_url: None,
        paths: Vec::new(),
    };
    if seen.contains(&path.to_string()) {
        return config;
    }
    seen.push(path.to_string());
    let Some(json) = manifests.get(path).and_then(|m| parse_jsonc(&m.text)) else {
        return config;
    };
    if let Some(parent) = json.get("extends").and_then(Value::as_str)
        && parent.starts_with('.')
        && let Some(parent_path) = join(&dir, parent)
    {
        let parent_path = if parent_path.ends_with(".json") {
            parent_path
        } else {
            format!("{parent_path}.json")
        };
        let inherited = tsconfig(&parent_path, manifests, seen);
        config.base_url = inherited.base_url;
        config.paths = inherited.paths;
    }
    let options = json.get("compilerOptions");
    if let Some(base) = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(Value::as_str)
    {
        config.base_url = join(&dir, base);
    }
    if let Some(paths) = options
        .and_then(|o| o.get("paths"))
        .and_then(Value::as_object)
    {
        // `paths` are relative to baseUrl when set, otherwise to this tsconfig.
        let anchor = config.base_url.clone().unwrap_or_else(|| dir.clone());
        config.paths = paths
            .iter()
            .map(|(pattern, targets)| {
                let targets = targets
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .filter_map(|t| join(&anchor, t))
                            .collect()
                    })
                    .unwrap_or_default();
                (pattern.clone(), targets)
            })
            .collect();
        // Longest (most specific) pattern first, as TypeScript matches.
        config
            .paths
            .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }
    config
}

fn composer(dir: &str, text: &str) -> Option<Composer> {
    let json = parse_jsonc(text)?;
    let mut composer = Composer {
        dir: dir.to_string(),
        psr4: Vec::new(),
        psr0: Vec::new(),
        classmap: Vec::new(),
    };
    for section in ["autoload", "autoload-dev"] {
        let Some(autoload) = json.get(section) else {
            continue;
        };
        for (key, list) in [("psr-4", &mut composer.psr4), ("psr-0", &mut composer.psr0)] {
            if let Some(map) = autoload.get(key).and_then(Value::as_object) {
                for (prefix, dirs) in map {
                    let dirs: Vec<String> = match dirs {
                        Value::String(d) => vec![d.clone()],
                        Value::Array(a) => a
                            .iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect(),
                        _ => Vec::new(),
                    };
                    list.push((
                        prefix.clone(),
                        dirs.iter()
                            .filter_map(|d| join(dir, d.trim_end_matches('/')))
                            .collect(),
                    ));
                }
            }
        }
        if let Some(classmap) = autoload.get("classmap").and_then(Value::as_array) {
            composer.classmap.extend(
                classmap
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(|d| join(dir, d.trim_end_matches('/'))),
            );
        }
    }
    composer
        .psr4
        .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    composer
        .psr0
        .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    Some(composer)
}

/// `name = "…"` in the `[package]` table.
fn cargo_package_name(text: &str) -> Option<String> {
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if in_package
            && let Some(rest) = line.strip_prefix("name")
            && let Some(value) = rest.trim_start().strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// JSON with comments and trailing commas, as tsconfig and friends allow.
pub fn parse_jsonc(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' && i + 1 < chars.len() {
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
            in_string = c != '"';
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_string = true;
                out.push('"');
                i += 1;
            }
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            (',', _) => {
                // Drop a comma followed only by whitespace and a closing bracket.
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    serde_json::from_str(&out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let value =
            parse_jsonc("{\n  // comment\n  \"a\": \"x//y\", /* block */\n  \"b\": [1, 2,],\n}\n")
                .unwrap();
        assert_eq!(value["a"], "x//y");
        assert_eq!(value["b"][1], 2);
    }

    #[test]
    fn joins_normalise_and_refuse_escapes() {
        assert_eq!(join("src/a", "../b/./c").as_deref(), Some("src/b/c"));
        assert_eq!(join("", "./x").as_deref(), Some("x"));
        assert_eq!(join("", "../x"), None);
    }
}
