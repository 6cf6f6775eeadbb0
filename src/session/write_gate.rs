//! The write gate (seed 000 `validate_write_target`, seed 004 v3.10 recovery): a session may
//! write only files it explored. Used by `check_write_target` and by the Claude Code
//! `PreToolUse` hook, which asks it before every Edit / Write / MultiEdit / NotebookEdit.
//!
//! Rules, on workspace-relative paths:
//! - outside READY nothing is written;
//! - an existing file must be explored: listed in `explored_files`, or inside an explored
//!   directory (entries ending in `/`, added with `add_explored_files`);
//! - a new file needs `allow_new_files` and an explored parent directory (a directory entry
//!   covering it, or an explored file in the same directory).
//!
//! A blocked write carries `recovery_options`: `add_explored_files` (stay in READY) or
//! `revert_to_exploration` (explore again).

use crate::router::Phase;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WriteDecision {
    pub allowed: bool,
    /// The path the decision is about, relative to the workspace root.
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_options: Option<Value>,
}

/// Whether `dir_entry` (ending in `/`) covers `path`.
fn covered_by_dir(path: &str, entries: &BTreeSet<String>) -> bool {
    entries
        .iter()
        .filter(|e| e.ends_with('/'))
        .any(|dir| dir == "/" || path.starts_with(dir.as_str()))
}

fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Decides a write. `file` is workspace-relative; `exists` says whether it is on disk now.
pub fn validate_write_target(
    phase: Phase,
    file: &str,
    exists: bool,
    explored: &BTreeSet<String>,
    allow_new_files: bool,
) -> WriteDecision {
    let blocked = |error: String| WriteDecision {
        allowed: false,
        file: file.to_string(),
        error: Some(error),
        recovery_options: Some(recovery_options(phase, file)),
    };
    if phase != Phase::Ready {
        return blocked(format!(
            "the session is in {}: files are written only in READY; finish the phase first ({})",
            phase.as_str(),
            phase.next_step()
        ));
    }
    if exists {
        if explored.contains(file) || covered_by_dir(file, explored) {
            return allowed(file);
        }
        return blocked(format!(
            "'{file}' was not explored in this session; only explored files may be edited"
        ));
    }
    if !allow_new_files {
        return blocked(format!(
            "'{file}' does not exist; creating files needs allow_new_files: true and an explored parent directory"
        ));
    }
    let dir = parent(file);
    let dir_explored = covered_by_dir(file, explored)
        || explored
            .iter()
            .any(|e| !e.ends_with('/') && parent(e) == dir);
    if dir_explored {
        allowed(file)
    } else {
        blocked(format!(
            "'{file}' would be created in '{}', which was not explored in this session",
            if dir.is_empty() { "." } else { dir }
        ))
    }
}

fn allowed(file: &str) -> WriteDecision {
    WriteDecision {
        allowed: true,
        file: file.to_string(),
        error: None,
        recovery_options: None,
    }
}

/// Seed 004 v3.10's recovery options, with the call to make for this file.
pub fn recovery_options(phase: Phase, file: &str) -> Value {
    let dir = parent(file);
    let target = if dir.is_empty() {
        file.to_string()
    } else {
        format!("{dir}/")
    };
    let mut options = json!({
        "revert_to_exploration": {
            "description": "Go back to EXPLORATION phase for thorough re-exploration (results kept by default)",
            "example": {"tool": "revert_to_exploration", "arguments": {"keep_results": true}},
        },
    });
    if phase == Phase::Ready {
        options["add_explored_files"] = json!({
            "description": "Add files/directories to explored list without leaving READY phase",
            "example": {"tool": "add_explored_files", "arguments": {"files": [file, target]}},
        });
    } else {
        options["finish_phase"] = json!({
            "description": format!("Complete the {} phase first", phase.as_str()),
            "next_step": phase.next_step(),
        });
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explored_files_directories_and_new_files() {
        let explored: BTreeSet<String> = ["src/auth/service.py", "tests/", "docs/guide.md"]
            .into_iter()
            .map(String::from)
            .collect();
        use Phase::*;
        // (phase, file, exists, allow_new, allowed)
        let cases = [
            (Ready, "src/auth/service.py", true, false, true),
            (Ready, "src/auth/tokens.py", true, false, false),
            (Ready, "tests/test_auth.py", true, false, true),
            (Ready, "tests/deep/new_test.py", false, true, true),
            (Ready, "src/auth/new_module.py", false, true, true),
            (Ready, "src/auth/new_module.py", false, false, false),
            (Ready, "src/billing/new.py", false, true, false),
            (Ready, "docs/new.md", false, true, true),
            (Exploration, "src/auth/service.py", true, false, false),
            (Verification, "src/auth/service.py", true, false, false),
        ];
        for (phase, file, exists, allow_new, want) in cases {
            let d = validate_write_target(phase, file, exists, &explored, allow_new);
            assert_eq!(
                d.allowed, want,
                "{phase:?} {file} exists={exists} new={allow_new}: {:?}",
                d.error
            );
            assert_eq!(d.recovery_options.is_some(), !want);
            if !want && phase == Ready {
                assert!(d.recovery_options.as_ref().unwrap()["add_explored_files"].is_object());
            }
        }
    }
}
