//! The workspace: the project root every path is resolved against, and the only place that
//! decides whether a path is inside it.
//!
//! **Invariant:** no tool touches the file system with a user-supplied path before it went
//! through [`Workspace::resolve`]; `..` traversal, absolute paths elsewhere and symlinks that
//! leave the root all end in `OUTSIDE_WORKSPACE`.

pub mod file_role;
mod source;
mod walk;
pub mod watch;

pub use source::{SourceText, count_lines, read_source};
pub use walk::{WalkError, WalkOptions, WalkedFile, walk_files};

use crate::config::{Config, ConfigReport};
use crate::error::{ErrorCode, ToolError, ToolResult};
use std::path::{Component, Path, PathBuf};

#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    pub config: Config,
    /// What loading `config` found: problems to pass on to the agent, and value origins.
    pub config_report: ConfigReport,
}

/// A path known to be inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Absolute, canonical path.
    pub abs: PathBuf,
    /// Path relative to the root with `/` separators; `""` for the root itself.
    pub rel: String,
    pub is_dir: bool,
}

/// Why a project root cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot open workspace root {root}: {source}")]
    Unreadable {
        root: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace root {0} is not a directory")]
    NotADirectory(String),
}

impl Workspace {
    /// Opens a workspace at `root`, which must be an existing directory.
    pub fn open(root: &Path) -> Result<Workspace, OpenError> {
        let root = root
            .canonicalize()
            .map_err(|source| OpenError::Unreadable {
                root: root.display().to_string(),
                source,
            })?;
        if !root.is_dir() {
            return Err(OpenError::NotADirectory(root.display().to_string()));
        }
        let (config, config_report) = crate::config::load(&root);
        for problem in &config_report.problems {
            tracing::warn!(
                "{}: {}: {}",
                config_report.file.display(),
                problem.path,
                problem.message
            );
        }
        Ok(Workspace {
            root,
            config,
            config_report,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A project file's text (`rel` relative to the root), or `None` when it cannot be read as
    /// text within `max_file_bytes`: for callers that skip what they cannot read.
    pub fn read_text(&self, rel: &str) -> Option<String> {
        source::read_source(&self.root().join(rel), rel, self.config.max_file_bytes)
            .ok()
            .map(|s| s.text)
    }

    /// Directory for code-intel's own per-project state (`.code-intel/`).
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(crate::config::STATE_DIR)
    }

    /// Resolves a user path (relative to the root, or absolute) to an existing path inside the
    /// workspace. An empty path or `.` means the root.
    pub fn resolve(&self, input: &str) -> ToolResult<ResolvedPath> {
        let lexical = self.lexical(input)?;
        let abs = match lexical.canonicalize() {
            Ok(abs) => abs,
            Err(_) if lexical.symlink_metadata().is_ok() => {
                // A dangling symlink: it exists as a link but points nowhere we can follow.
                return Err(ToolError::new(
                    ErrorCode::FileNotFound,
                    format!("'{input}' is a symlink whose target does not exist"),
                )
                .with("path", input));
            }
            Err(_) => {
                return Err(ToolError::new(
                    ErrorCode::FileNotFound,
                    format!("'{input}' does not exist in the workspace"),
                )
                .with("path", input)
                .with("hint", "paths are relative to the workspace root; use search_files to find a file by name"));
            }
        };
        if !abs.starts_with(&self.root) {
            return Err(outside(
                input,
                "it is a symlink that points outside the workspace",
            ));
        }
        let is_dir = abs.is_dir();
        Ok(ResolvedPath {
            rel: self.relative(&abs),
            abs,
            is_dir,
        })
    }

    /// Like [`resolve`](Self::resolve) but the path must be a regular file.
    pub fn resolve_file(&self, input: &str) -> ToolResult<ResolvedPath> {
        let resolved = self.resolve(input)?;
        if resolved.is_dir {
            return Err(ToolError::new(
                ErrorCode::InvalidParameter,
                format!("'{input}' is a directory, but this tool needs a file"),
            )
            .with("path", input)
            .with(
                "hint",
                "give a file path, or use get_symbols / analyze_structure for a directory",
            ));
        }
        Ok(resolved)
    }

    /// Path relative to the root, `/`-separated. `abs` must be inside the root.
    pub fn relative(&self, abs: &Path) -> String {
        let rel = abs.strip_prefix(&self.root).unwrap_or(abs);
        let mut out = String::new();
        for (i, part) in rel.components().enumerate() {
            if i > 0 {
                out.push('/');
            }
            out.push_str(&part.as_os_str().to_string_lossy());
        }
        out
    }

    /// Joins `input` to the root and removes `.`/`..` without touching the file system, so a
    /// traversal is refused even when its target does not exist.
    fn lexical(&self, input: &str) -> ToolResult<PathBuf> {
        if input.contains('\0') {
            return Err(
                ToolError::invalid_parameter("path contains a NUL byte").with("path", input)
            );
        }
        let given = Path::new(input);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        let mut out = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(outside(input, "it climbs above the file system root"));
                    }
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        if !out.starts_with(&self.root) {
            return Err(outside(
                input,
                "it resolves to a location outside the workspace root",
            ));
        }
        Ok(out)
    }
}

fn outside(input: &str, reason: &str) -> ToolError {
    ToolError::new(
        ErrorCode::OutsideWorkspace,
        format!("'{input}' is outside the workspace: {reason}"),
    )
    .with("path", input)
    .with("reason", reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn resolves_relative_and_absolute_paths_inside_the_root() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.resolve("src/a.py").unwrap().rel, "src/a.py");
        assert_eq!(ws.resolve("./src/../src/a.py").unwrap().rel, "src/a.py");
        let abs = ws.root().join("src/a.py");
        assert_eq!(ws.resolve(abs.to_str().unwrap()).unwrap().rel, "src/a.py");
        assert!(ws.resolve("").unwrap().is_dir);
    }

    #[test]
    fn refuses_traversal_absolute_outside_and_escaping_symlinks() {
        let (_dir, ws) = workspace();
        assert_eq!(
            ws.resolve("../etc/passwd").unwrap_err().code,
            ErrorCode::OutsideWorkspace
        );
        assert_eq!(
            ws.resolve("src/../../x").unwrap_err().code,
            ErrorCode::OutsideWorkspace
        );
        assert_eq!(
            ws.resolve("/etc/passwd").unwrap_err().code,
            ErrorCode::OutsideWorkspace
        );
        let outside_dir = tempfile::tempdir().unwrap();
        std::fs::write(outside_dir.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside_dir.path(), ws.root().join("escape")).unwrap();
        assert_eq!(
            ws.resolve("escape/secret.txt").unwrap_err().code,
            ErrorCode::OutsideWorkspace
        );
    }

    #[test]
    fn reports_missing_files_and_directories_given_for_files() {
        let (_dir, ws) = workspace();
        assert_eq!(
            ws.resolve("src/missing.py").unwrap_err().code,
            ErrorCode::FileNotFound
        );
        assert_eq!(
            ws.resolve_file("src").unwrap_err().code,
            ErrorCode::InvalidParameter
        );
    }
}
