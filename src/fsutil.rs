//! Small file-system helpers shared by everything that persists state.

use std::io::Write;
use std::path::{Path, PathBuf};

/// This program's directory in the user's cache: `$XDG_CACHE_HOME/code-intel` when that is an
/// absolute path (as the XDG base directory specification requires), else
/// `~/.cache/code-intel`; `None` without either.
pub fn user_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("code-intel"))
}

/// Writes `bytes` to `path` so that readers see either the old or the new content, never a torn
/// file: write a uniquely named sibling, fsync it, rename it over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp.{}.{}", std::process::id(), unique()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// Runs `f` while holding an exclusive advisory lock on `lock_path` (created if missing), so
/// read-modify-write cycles on shared state are serialised between threads and between
/// processes (two servers, or a server and a hook, on one project). The lock is released when
/// `f` returns, and by the OS if the process dies.
pub fn with_file_lock<T>(lock_path: &Path, f: impl FnOnce() -> T) -> std::io::Result<T> {
    if let Some(dir) = lock_path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path)?;
    file.lock()?;
    let out = f();
    let _ = file.unlock();
    Ok(out)
}

/// Appends one line (a newline is added) to `path` with a single write in append mode; callers
/// that need ordering with other writers hold [`with_file_lock`] around it. Readers skip a torn
/// last line left by a crash.
pub fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    file.write_all(&bytes)
}

/// A temporary directory holding `(path, text)` files, for the tests of every layer.
#[cfg(test)]
pub(crate) fn temp_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}
