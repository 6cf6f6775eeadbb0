//! `code-intel init`: sets a project up for Claude Code in one idempotent step.
//!
//! | file | what init does |
//! |---|---|
//! | `.code-intel/config.json` | adds the keys of [`INIT_KEYS`] that are missing, with the server's defaults; existing values stay |
//! | `.code-intel/config.schema.json` | the configuration's JSON Schema (regenerated), named by `$schema` |
//! | `.mcp.json` | adds a `code-intel` server entry if there is none |
//! | `.claude/commands/code.md` | writes the /code workflow unless the user has their own file |
//! | `.claude/settings.json` | adds the `PreToolUse` hook (Edit/Write/MultiEdit/NotebookEdit/Bash) and the `Stop` hook if absent; widens an older matcher |
//!
//! The binary is named as `code-intel` when that name on `PATH` is this binary, so the files can
//! be committed and work on every teammate's machine; otherwise by its absolute path, and the
//! report says so.
//!
//! A file that is not valid JSON is never rewritten (the user may be mid-edit); it is reported.
//! Running init twice changes nothing the second time.

use super::workflow;
use crate::config::Config;
use crate::fsutil::write_atomic;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The Claude Code tools whose edits the hook gates (`super::hook::GATED_TOOLS`, joined).
pub const HOOK_MATCHER: &str = "Edit|Write|MultiEdit|NotebookEdit|Bash";

/// The keys `init` writes: seed 004's full `config.json` plus the session's `strict_write_gate`,
/// each of which changes what the server does. The values are the server's own defaults
/// ([`Config::default`]), so the written file describes what the server does anyway and can
/// never narrow it (an index cut at the seed's 10,000 chunks, three languages, three
/// directories). `[]` for `source_dirs` and `supported_languages` means the whole repository
/// and every language.
pub const INIT_KEYS: &[&str] = &[
    "embedding_model",
    "source_dirs",
    "exclude_patterns",
    "chunk_strategy",
    "chunk_max_tokens",
    "supported_languages",
    "sync_ttl_hours",
    "sync_on_start",
    "sync_timeout_seconds",
    "search_weights",
    "max_chunks",
    "max_index_size_mb",
    "auto_purge_days",
    "memory_limit_mb",
    "lightweight_mode",
    "strict_write_gate",
];

/// The schema file `init` writes next to `config.json`, which the file's `$schema` names so
/// editors validate and complete it.
pub const SCHEMA_FILE: &str = "config.schema.json";

/// What `init` adds to `config.json` (see [`INIT_KEYS`]).
pub fn default_config() -> Value {
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    let mut out = Map::new();
    out.insert("$schema".into(), json!(SCHEMA_FILE));
    for key in INIT_KEYS {
        if let Some(value) = defaults.get(*key) {
            out.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(out)
}

/// What init did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Created,
    Updated,
    Unchanged,
    /// Left alone: the user's own content, or unreadable JSON.
    Kept,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub file: String,
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    pub root: String,
    pub files: Vec<FileReport>,
}

/// The binary's name on `PATH`.
pub const COMMAND_NAME: &str = "code-intel";

/// How Claude Code should start this binary: `code-intel` when that name on `PATH` is this
/// binary (portable: the written files can be committed), else its absolute path, with a note.
pub fn command_path() -> (String, Option<String>) {
    let this = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(COMMAND_NAME))
            .find(|candidate| candidate.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match (this, on_path) {
        (Some(this), Some(found)) if this == found => (COMMAND_NAME.to_string(), None),
        (Some(this), _) => (
            this.display().to_string(),
            Some(format!(
                "`{COMMAND_NAME}` on PATH is not this binary, so the files name {}; that path is this machine's only: run `cargo install --path .` and init again before committing them",
                this.display()
            )),
        ),
        (None, _) => (COMMAND_NAME.to_string(), None),
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Why a project (or a plugin directory) could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{what} {path}: {source}")]
    File {
        what: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl InitError {
    fn file(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> InitError {
        let path = path.display().to_string();
        move |source| InitError::File { what, path, source }
    }
}

/// Sets up `root` (see the module doc). `command` is the binary Claude Code runs.
pub fn init(root: &Path, command: &str) -> Result<InitReport, InitError> {
    let root = root
        .canonicalize()
        .map_err(InitError::file("cannot open", root))?;
    if !root.is_dir() {
        return Err(InitError::NotADirectory(root.display().to_string()));
    }
    let mut files = Vec::new();

    // 1. config.json: add missing keys only.
    files.push(merge_json(
        &root,
        &root.join(".code-intel/config.json"),
        |existing| {
            let mut changed = false;
            if let (Value::Object(map), Value::Object(defaults)) = (existing, default_config()) {
                for (key, value) in defaults {
                    if !map.contains_key(&key) {
                        map.insert(key, value);
                        changed = true;
                    }
                }
            }
            (changed, None)
        },
    )?);
    let mut schema = serde_json::to_string_pretty(&crate::config::schema())?;
    schema.push('\n');
    files.push(write_generated(
        &root,
        &format!(".code-intel/{SCHEMA_FILE}"),
        &schema,
    )?);

    // 2. .mcp.json: a code-intel server entry unless one exists.
    let entry = json!({"command": command, "args": ["serve"]});
    files.push(merge_json(&root, &root.join(".mcp.json"), |existing| {
        let servers = object_at(existing, "mcpServers");
        match servers.get("code-intel") {
            Some(current) if *current == entry => (false, None),
            Some(_) => (
                false,
                Some("a code-intel entry already exists; kept as it is".to_string()),
            ),
            None => {
                servers.insert("code-intel".into(), entry.clone());
                (true, None)
            }
        }
    })?);

    // 3. The /code command.
    files.push(write_command(&root)?);

    // 4. The hooks: the write gate before tools run, the outcome request when the agent stops.
    let quoted = shell_quote(command);
    files.push(merge_json(
        &root,
        &root.join(".claude/settings.json"),
        |existing| {
            let hooks = object_at(existing, "hooks");
            let gate = ensure_hook(
                hooks,
                "PreToolUse",
                Some(HOOK_MATCHER),
                &format!("{quoted} hook pre-tool-use"),
                "hook pre-tool-use",
            );
            let stop = ensure_hook(
                hooks,
                "Stop",
                None,
                &format!("{quoted} hook stop"),
                "hook stop",
            );
            let note = [gate.1, stop.1].into_iter().flatten().collect::<Vec<_>>();
            (
                gate.0 || stop.0,
                (!note.is_empty()).then(|| note.join("; ")),
            )
        },
    )?);

    Ok(InitReport {
        root: root.display().to_string(),
        files,
    })
}

/// Adds a command hook for `event` unless code-intel's one (`marker` in its command) is there;
/// an existing one with another matcher gets this matcher (an older init gated fewer tools).
/// Returns whether anything changed and a note when the event's entry could not be read.
fn ensure_hook(
    hooks: &mut Map<String, Value>,
    event: &str,
    matcher: Option<&str>,
    command: &str,
    marker: &str,
) -> (bool, Option<String>) {
    let list = hooks.entry(event).or_insert_with(|| json!([]));
    let Value::Array(list) = list else {
        return (
            false,
            Some(format!("hooks.{event} is not a list; left alone")),
        );
    };
    let ours = |v: &Value| {
        v["hooks"].as_array().is_some_and(|hs| {
            hs.iter().any(|h| {
                h["command"].as_str().is_some_and(|c| {
                    c == command || (c.contains(marker) && c.contains(COMMAND_NAME))
                })
            })
        })
    };
    if let Some(existing) = list.iter_mut().find(|v| ours(v)) {
        return match matcher {
            Some(m) if existing["matcher"] != m => {
                existing["matcher"] = json!(m);
                (true, None)
            }
            _ => (false, None),
        };
    }
    let mut entry = json!({"hooks": [{"type": "command", "command": command}]});
    if let Some(m) = matcher {
        entry["matcher"] = json!(m);
    }
    list.push(entry);
    (true, None)
}

/// The object under `key` of `value` (created when missing or not an object).
fn object_at<'a>(value: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    if !value.is_object() {
        *value = json!({});
    }
    let map = value.as_object_mut().expect("just made an object");
    let slot = map.entry(key.to_string()).or_insert_with(|| json!({}));
    if !slot.is_object() {
        *slot = json!({});
    }
    slot.as_object_mut().expect("just made an object")
}

/// Reads a JSON object file (missing → `{}`), lets `edit` change it, writes it back when it
/// changed. Invalid JSON or a non-object is reported and never rewritten.
fn merge_json(
    root: &Path,
    path: &Path,
    edit: impl FnOnce(&mut Value) -> (bool, Option<String>),
) -> Result<FileReport, InitError> {
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let (mut value, existed) = match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(v) if v.is_object() => (v, true),
            _ => {
                return Ok(FileReport {
                    file: shown,
                    action: Action::Kept,
                    note: Some(
                        "not a JSON object; not modified (fix it and run init again)".into(),
                    ),
                });
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (json!({}), false),
        Err(e) => return Err(InitError::file("cannot read", path)(e)),
    };
    let (changed, note) = edit(&mut value);
    if !changed {
        return Ok(FileReport {
            file: shown,
            action: if note.is_some() {
                Action::Kept
            } else {
                Action::Unchanged
            },
            note,
        });
    }
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    write_atomic(path, text.as_bytes()).map_err(InitError::file("cannot write", path))?;
    Ok(FileReport {
        file: shown,
        action: if existed {
            Action::Updated
        } else {
            Action::Created
        },
        note,
    })
}

/// `code-intel init --plugin DIR`: the same integration as a Claude Code plugin a team installs
/// once for every repository: `.claude-plugin/plugin.json`, the server in `.mcp.json`, both
/// hooks in `hooks/hooks.json` and the /code command in `commands/code.md`. Every file is
/// generated; a second run rewrites only what changed.
pub fn plugin(dir: &Path, command: &str) -> Result<InitReport, InitError> {
    std::fs::create_dir_all(dir).map_err(InitError::file("cannot create", dir))?;
    let dir = dir
        .canonicalize()
        .map_err(InitError::file("cannot open", dir))?;
    let quoted = shell_quote(command);
    let hook = |subcommand: &str| json!({"type": "command", "command": format!("{quoted} hook {subcommand}")});
    let manifest = json!({
        "name": COMMAND_NAME,
        "version": env!("CARGO_PKG_VERSION"),
        "description": env!("CARGO_PKG_DESCRIPTION"),
        "license": env!("CARGO_PKG_LICENSE"),
        "author": {"name": "code-intel"},
        "keywords": ["code-search", "mcp", "write-gate"],
    });
    let servers = json!({"mcpServers": {COMMAND_NAME: {"command": command, "args": ["serve"]}}});
    let hooks = json!({
        "description": "code-intel write gate (edits and shell writes only to explored files) and outcome request",
        "hooks": {
            "PreToolUse": [{"matcher": HOOK_MATCHER, "hooks": [hook("pre-tool-use")]}],
            "Stop": [{"hooks": [hook("stop")]}],
        }
    });
    let readme = format!(
        "# code-intel for Claude Code\n\n{}.\n\nThis plugin adds the `code-intel` MCP server (run as `{command} serve` in each project), \
         the write-gate hook (edits and shell writes only to files explored in the session), the outcome \
         request when a session ends, and the `/code` command (the phase-gated workflow). The binary must be \
         on `PATH` (`cargo install --path .` in the code-intel repository).\n",
        env!("CARGO_PKG_DESCRIPTION")
    );
    let pretty =
        |v: &Value| -> Result<String, InitError> { Ok(serde_json::to_string_pretty(v)? + "\n") };
    let files = vec![
        write_generated(&dir, ".claude-plugin/plugin.json", &pretty(&manifest)?)?,
        write_generated(&dir, ".mcp.json", &pretty(&servers)?)?,
        write_generated(&dir, "hooks/hooks.json", &pretty(&hooks)?)?,
        write_generated(&dir, "commands/code.md", &workflow::command_markdown())?,
        write_generated(&dir, "README.md", &readme)?,
    ];
    Ok(InitReport {
        root: dir.display().to_string(),
        files,
    })
}

/// Writes a file code-intel owns entirely, reporting whether it changed.
fn write_generated(dir: &Path, rel: &str, content: &str) -> Result<FileReport, InitError> {
    let path = dir.join(rel);
    let action = match std::fs::read_to_string(&path) {
        Ok(current) if current == content => Action::Unchanged,
        Ok(_) => Action::Updated,
        Err(_) => Action::Created,
    };
    if action != Action::Unchanged {
        write_atomic(&path, content.as_bytes()).map_err(InitError::file("cannot write", &path))?;
    }
    Ok(FileReport {
        file: rel.to_string(),
        action,
        note: None,
    })
}

fn write_command(root: &Path) -> Result<FileReport, InitError> {
    let path: PathBuf = root.join(".claude/commands/code.md");
    let shown = ".claude/commands/code.md".to_string();
    let wanted = workflow::command_markdown();
    let action = match std::fs::read_to_string(&path) {
        Ok(current) if current == wanted => Action::Unchanged,
        Ok(current) if !current.contains("generated-by: code-intel init") => {
            return Ok(FileReport {
                file: shown,
                action: Action::Kept,
                note: Some("the file is the user's own; not overwritten".into()),
            });
        }
        Ok(_) => Action::Updated,
        Err(_) => Action::Created,
    };
    if action != Action::Unchanged {
        write_atomic(&path, wanted.as_bytes()).map_err(InitError::file("cannot write", &path))?;
    }
    Ok(FileReport {
        file: shown,
        action,
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actions(report: &InitReport) -> Vec<(String, Action)> {
        report
            .files
            .iter()
            .map(|f| (f.file.clone(), f.action.clone()))
            .collect()
    }

    #[test]
    fn a_plugin_holds_the_server_the_hooks_and_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plugin");
        let first = plugin(&out, "code-intel").unwrap();
        assert!(first.files.iter().all(|f| f.action == Action::Created));
        let read = |p: &str| {
            serde_json::from_str::<Value>(&std::fs::read_to_string(out.join(p)).unwrap()).unwrap()
        };
        assert_eq!(read(".claude-plugin/plugin.json")["name"], "code-intel");
        assert_eq!(
            read(".mcp.json")["mcpServers"]["code-intel"]["args"][0],
            "serve"
        );
        let hooks = read("hooks/hooks.json");
        assert_eq!(hooks["hooks"]["PreToolUse"][0]["matcher"], HOOK_MATCHER);
        assert_eq!(
            hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
            "code-intel hook stop"
        );
        assert!(
            std::fs::read_to_string(out.join("commands/code.md"))
                .unwrap()
                .contains("$ARGUMENTS")
        );
        let second = plugin(&out, "code-intel").unwrap();
        assert!(second.files.iter().all(|f| f.action == Action::Unchanged));
    }

    /// Every key init writes holds the server's own default (so never a lower limit), and every
    /// one is a key the configuration reads.
    #[test]
    fn init_writes_the_servers_defaults() {
        let written = default_config();
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let properties = crate::config::schema()["properties"].clone();
        for key in INIT_KEYS {
            assert_eq!(written[*key], defaults[*key], "{key}");
            assert!(properties.get(*key).is_some(), "{key} is not in the schema");
        }
        assert_eq!(written["max_chunks"], 200_000);
        assert_eq!(written["max_index_size_mb"], 4096);
        let parsed: Config = serde_json::from_value(written).unwrap();
        assert_eq!(
            parsed,
            Config {
                json_schema: Some(SCHEMA_FILE.into()),
                ..Config::default()
            }
        );
    }

    #[test]
    fn the_matcher_names_every_gated_tool() {
        assert_eq!(HOOK_MATCHER, super::super::hook::GATED_TOOLS.join("|"));
    }

    #[test]
    fn init_is_idempotent_and_merges() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join(".code-intel")).unwrap();
        // The user's own settings, servers and config values.
        std::fs::write(
            root.join(".claude/settings.json"),
            r#"{"permissions": {"allow": ["Bash(npm test)"]}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard"}]}]}}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(".mcp.json"),
            r#"{"mcpServers": {"other": {"command": "x"}}}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(".code-intel/config.json"),
            r#"{"max_chunks": 5, "tool_timeout_secs": 9}"#,
        )
        .unwrap();

        let first = init(root, "/opt/code intel/code-intel").unwrap();
        let expected = [
            (".code-intel/config.json", Action::Updated),
            (".code-intel/config.schema.json", Action::Created),
            (".mcp.json", Action::Updated),
            (".claude/commands/code.md", Action::Created),
            (".claude/settings.json", Action::Updated),
        ];
        let want: Vec<(String, Action)> = expected
            .iter()
            .map(|(f, a)| (f.to_string(), a.clone()))
            .collect();
        assert_eq!(actions(&first), want);

        let read = |p: &str| {
            serde_json::from_str::<Value>(&std::fs::read_to_string(root.join(p)).unwrap()).unwrap()
        };
        let config = read(".code-intel/config.json");
        assert_eq!(config["max_chunks"], 5, "user value kept");
        assert_eq!(config["tool_timeout_secs"], 9);
        assert_eq!(config["strict_write_gate"], false);
        assert_eq!(
            config["search_weights"],
            serde_json::to_value(crate::config::SearchWeights::default()).unwrap()
        );
        assert_eq!(config["$schema"], SCHEMA_FILE);
        assert_eq!(
            read(".code-intel/config.schema.json"),
            crate::config::schema()
        );
        // What init wrote loads without a problem.
        let (_, report) = crate::config::load(root);
        assert_eq!(report.problems, []);
        let mcp = read(".mcp.json");
        assert_eq!(mcp["mcpServers"]["other"]["command"], "x");
        assert_eq!(mcp["mcpServers"]["code-intel"]["args"][0], "serve");
        let settings = read(".claude/settings.json");
        assert_eq!(settings["permissions"]["allow"][0], "Bash(npm test)");
        let hooks = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[1]["matcher"], HOOK_MATCHER);
        assert_eq!(
            hooks[1]["hooks"][0]["command"],
            "'/opt/code intel/code-intel' hook pre-tool-use"
        );
        let stop = settings["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(
            stop[0]["hooks"][0]["command"],
            "'/opt/code intel/code-intel' hook stop"
        );
        assert!(stop[0].get("matcher").is_none());

        let second = init(root, "/opt/code intel/code-intel").unwrap();
        assert!(
            second.files.iter().all(|f| f.action == Action::Unchanged),
            "{:?}",
            actions(&second)
        );

        // An older init gated only the editor tools: its matcher is widened to Bash.
        let mut old = read(".claude/settings.json");
        old["hooks"]["PreToolUse"][1]["matcher"] = json!("Edit|Write|MultiEdit|NotebookEdit");
        std::fs::write(root.join(".claude/settings.json"), old.to_string()).unwrap();
        let upgraded = init(root, "/opt/code intel/code-intel").unwrap();
        assert_eq!(upgraded.files[4].action, Action::Updated);
        assert_eq!(
            read(".claude/settings.json")["hooks"]["PreToolUse"][1]["matcher"],
            HOOK_MATCHER
        );

        // A user's own command file and a broken settings file are left alone.
        std::fs::write(root.join(".claude/commands/code.md"), "my own /code").unwrap();
        std::fs::write(root.join(".claude/settings.json"), "{ broken").unwrap();
        let third = init(root, "/opt/code intel/code-intel").unwrap();
        let kept: Vec<&str> = third
            .files
            .iter()
            .filter(|f| f.action == Action::Kept)
            .map(|f| f.file.as_str())
            .collect();
        assert_eq!(kept, [".claude/commands/code.md", ".claude/settings.json"]);
        assert_eq!(
            std::fs::read_to_string(root.join(".claude/settings.json")).unwrap(),
            "{ broken"
        );
    }
}
