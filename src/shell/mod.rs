//! Shell: which files a shell command may write, found without running it.
//!
//! The write gate (seed 000's `validate_write_target`) must see edits made through the shell as
//! well as through an editor tool: `sed -i`, `cat > f <<EOF`, `mv`, `git checkout -- f`, a
//! `python -c` one-liner. [`analyze`] parses the command with tree-sitter-bash and walks it the
//! way the shell would run it: redirections, pipelines, `&&` chains, subshells, command
//! substitutions, `bash -c` / `eval` strings (parsed again), `cd` earlier in the same command,
//! wrappers (`sudo`, `env`, `timeout`, `xargs`, `find -exec`). Each simple command is looked up in
//! one table of what commands write ([`commands`]).
//!
//! The result is conservative by construction: a command this module cannot prove read-only is
//! never reported read-only. What it cannot pin down (an interpreter's inline script, a target
//! in a variable, a glob, an unknown program, `git stash pop`) is an [`Opaque`] part, with the
//! text judged and the reason, so the gate can say exactly what it refused.

mod commands;
mod walk;
mod words;

use std::path::{Component, Path, PathBuf};

/// What a command may do to files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// Paths the command may create, modify, move or delete: absolute, lexically normalised,
    /// unique, in the order they appear in the command.
    pub writes: Vec<PathBuf>,
    /// Parts whose writes cannot be known without running them.
    pub opaque: Vec<Opaque>,
    /// Changes git's own state (index, refs, objects: `git add`, `commit`, `fetch`), which is no
    /// project source; the working tree is covered by `writes` and `opaque`.
    pub git_state: bool,
}

/// A part of a command whose effect on files is unknown.
#[derive(Debug, Clone, PartialEq)]
pub struct Opaque {
    /// The part of the command judged, as written (shortened when long).
    pub part: String,
    /// Why its writes are unknown.
    pub reason: String,
}

impl Effects {
    /// Nothing is written and nothing is unknown.
    pub fn is_read_only(&self) -> bool {
        self.writes.is_empty() && self.opaque.is_empty() && !self.git_state
    }

    fn write(&mut self, path: PathBuf) {
        if !self.writes.contains(&path) {
            self.writes.push(path);
        }
    }

    fn opaque(&mut self, part: &str, reason: impl Into<String>) {
        let part = shorten(part.trim());
        let reason = reason.into();
        if !self
            .opaque
            .iter()
            .any(|o| o.part == part && o.reason == reason)
        {
            self.opaque.push(Opaque { part, reason });
        }
    }
}

/// Analyses `command` as bash would run it in directory `cwd` (absolute).
pub fn analyze(command: &str, cwd: &Path) -> Effects {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    walk::run(command, cwd, home.as_deref())
}

/// `path` without `.` and with `..` applied, without touching the file system (the target may
/// not exist yet, and a symlink is the gate's business, not the parser's).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

const MAX_PART_CHARS: usize = 160;

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_PART_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_PART_CHARS).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
