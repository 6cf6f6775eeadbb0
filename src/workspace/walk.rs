//! Walking the workspace the way ripgrep does: `.gitignore`/`.ignore` respected, hidden files and
//! dependency/build directories skipped, in parallel.
//!
//! Everything that lists files (search, the symbol index, analysis) goes through here so that the
//! rules about what belongs to "the code" are the same for every tool.

use super::Workspace;
use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Extra globs: `pattern` includes, `!pattern` excludes (gitignore syntax).
    pub globs: Vec<String>,
    /// ripgrep file type names (`py`, `php`, `ts`, …) to restrict to.
    pub types: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub abs: PathBuf,
    pub rel: String,
    pub size: u64,
    pub mtime: Option<SystemTime>,
}

/// Why a walk cannot start: its rules (globs, excludes, file types) do not build.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("invalid {what} '{glob}': {source}")]
    Glob {
        /// `glob`, `skip directory`, `exclude pattern`, `file type`.
        what: &'static str,
        glob: String,
        #[source]
        source: ignore::Error,
    },
    #[error(
        "unknown file_type '{0}' (use a language id such as python, php, typescript, or a ripgrep type such as py, js, md)"
    )]
    UnknownType(String),
    #[error("the walk rules do not build: {0}")]
    Rules(#[source] ignore::Error),
}

/// A walk's rules come from the call's parameters (globs, file types) or the project's settings:
/// either way the caller can fix them.
impl From<WalkError> for crate::error::ToolError {
    fn from(err: WalkError) -> Self {
        crate::error::ToolError::invalid_parameter(err.to_string())
    }
}

impl WalkError {
    fn glob(what: &'static str, glob: &str) -> impl FnOnce(ignore::Error) -> WalkError {
        let glob = glob.to_string();
        move |source| WalkError::Glob { what, glob, source }
    }
}

impl Workspace {
    /// A configured ripgrep-style walker rooted at `base` (a path inside the workspace).
    pub fn walker(&self, base: &Path, opts: &WalkOptions) -> Result<WalkBuilder, WalkError> {
        let mut builder = WalkBuilder::new(base);
        builder
            .hidden(!self.config.include_hidden)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false)
            .threads(
                std::thread::available_parallelism()
                    .map_or(2, |n| n.get())
                    .min(8),
            );
        let mut overrides = OverrideBuilder::new(self.root());
        for glob in &opts.globs {
            overrides.add(glob).map_err(WalkError::glob("glob", glob))?;
        }
        // Skip rules are excludes; they only apply when no include glob was given, or alongside.
        for dir in &self.config.skip_dirs {
            overrides
                .add(&format!("!**/{dir}/"))
                .map_err(WalkError::glob("skip directory", dir))?;
        }
        for pattern in &self.config.exclude_patterns {
            let pattern = pattern.strip_prefix('!').unwrap_or(pattern);
            overrides
                .add(&format!("!{pattern}"))
                .map_err(WalkError::glob("exclude pattern", pattern))?;
        }
        builder.overrides(overrides.build().map_err(WalkError::Rules)?);
        if !opts.types.is_empty() {
            builder.types(file_types(&opts.types)?);
        }
        Ok(builder)
    }
}

/// Builds a type matcher from ripgrep type names, also accepting our language ids.
pub fn file_types(names: &[String]) -> Result<ignore::types::Types, WalkError> {
    let mut types = ignore::types::TypesBuilder::new();
    types.add_defaults();
    for lang in crate::lang::LANGUAGES {
        for ext in lang.extensions {
            let glob = format!("*.{ext}");
            types
                .add(lang.id, &glob)
                .map_err(WalkError::glob("file type", &glob))?;
        }
    }
    for name in names {
        types.select(name);
    }
    let known: Vec<String> = types
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect();
    for name in names {
        if !known.iter().any(|k| k == name) {
            return Err(WalkError::UnknownType(name.clone()));
        }
    }
    types.build().map_err(WalkError::Rules)
}

/// All regular files under `base` that pass the walk rules, sorted by path.
pub fn walk_files(
    ws: &Workspace,
    base: &Path,
    opts: &WalkOptions,
) -> Result<Vec<WalkedFile>, WalkError> {
    let found = Mutex::new(Vec::new());
    ws.walker(base, opts)?.build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Ok(meta) = entry.metadata() else {
                return WalkState::Continue;
            };
            let abs = entry.into_path();
            let rel = ws.relative(&abs);
            found.lock().unwrap().push(WalkedFile {
                abs,
                rel,
                size: meta.len(),
                mtime: meta.modified().ok(),
            });
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(files)
}
