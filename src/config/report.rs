//! What loading the configuration found: the problems (each with its JSON path) and where each
//! effective value came from. The workspace keeps it so the tools can pass it on to the agent,
//! and `code-intel config` prints it.

use super::Config;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One entry of the configuration file that does not apply as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ConfigProblem {
    /// JSONPath of the entry: `$.max_chunks`, `$.search_weights.vector`,
    /// `$.supported_languages[1]`; `$` for the whole file.
    pub path: String,
    /// What is wrong and what applies instead.
    pub message: String,
}

/// Where an effective value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Default,
    File,
    Environment,
}

/// One effective value, for `code-intel config`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub key: String,
    pub value: Value,
    pub origin: Origin,
    /// The environment variable, for values that come from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<&'static str>,
}

/// The outcome of loading one project's configuration.
#[derive(Debug, Clone, Default)]
pub struct ConfigReport {
    pub file: PathBuf,
    pub problems: Vec<ConfigProblem>,
    /// Top-level keys that the file set (and that passed the checks).
    from_file: Vec<String>,
    /// The effective values, key by key.
    values: BTreeMap<String, Value>,
}

impl ConfigReport {
    pub(super) fn new(file: &Path) -> ConfigReport {
        ConfigReport {
            file: file.to_path_buf(),
            ..ConfigReport::default()
        }
    }

    pub(super) fn problem(&mut self, path: &str, message: String) {
        self.problems.push(ConfigProblem {
            path: path.to_string(),
            message,
        });
    }

    /// Records the effective `config` and which keys the file's checked entries (`clean`) set.
    pub(super) fn finish(&mut self, config: Config, clean: Option<&Value>) -> Config {
        if let Some(Value::Object(map)) = clean {
            self.from_file = map.keys().filter(|k| *k != "$schema").cloned().collect();
        }
        if let Ok(Value::Object(map)) = serde_json::to_value(&config) {
            self.values = map.into_iter().filter(|(k, _)| k != "$schema").collect();
        }
        config
    }

    /// Every key with its effective value and origin, in key order.
    pub fn entries(&self) -> Vec<Entry> {
        self.values
            .iter()
            .map(|(key, value)| {
                let from_env = super::ENV_OVERRIDES
                    .iter()
                    .find(|(k, _)| k == key)
                    .and_then(|&(_, var)| {
                        let v = std::env::var_os(var).filter(|v| !v.is_empty())?;
                        Some((var, v.to_string_lossy().into_owned()))
                    });
                if let Some((variable, v)) = from_env {
                    return Entry {
                        key: key.clone(),
                        value: Value::String(v),
                        origin: Origin::Environment,
                        variable: Some(variable),
                    };
                }
                Entry {
                    key: key.clone(),
                    value: value.clone(),
                    origin: if self.from_file.contains(key) {
                        Origin::File
                    } else {
                        Origin::Default
                    },
                    variable: None,
                }
            })
            .collect()
    }

    /// One paragraph for the agent, or `None` when the file has no problem.
    pub fn warning(&self) -> Option<String> {
        if self.problems.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.path, p.message))
            .collect();
        Some(format!(
            "{} has {} problem(s); every other entry applies. {}. Run `code-intel config` for the effective values.",
            self.file.display(),
            self.problems.len(),
            list.join("; ")
        ))
    }
}
