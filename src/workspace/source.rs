//! Reading a file as source text, with the decisions about what is "text" made in one place.
//!
//! Policy (documented in README): files with a NUL byte in their first 8 KiB are binary and
//! refused with `ENCODING_ERROR`; UTF-16/UTF-32 (by BOM) likewise; any other invalid UTF-8 is
//! decoded lossily (U+FFFD) and flagged `lossy`, because a stray Latin-1 byte in a comment should
//! not hide a whole file's symbols. Files over the size cap are refused with `FILE_TOO_LARGE`.

use crate::error::{ErrorCode, ToolError, ToolResult};
use std::path::Path;

#[derive(Debug, Clone)]
pub struct SourceText {
    pub text: String,
    /// Size on disk in bytes.
    pub size: u64,
    /// True when invalid UTF-8 sequences were replaced.
    pub lossy: bool,
}

impl SourceText {
    pub fn line_count(&self) -> usize {
        count_lines(&self.text)
    }
}

/// Number of lines as an editor shows them (a trailing newline does not start a new line).
pub fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// Reads `path` (already resolved inside the workspace) as text. `shown` is the path as the user
/// should see it in errors.
pub fn read_source(path: &Path, shown: &str, max_bytes: u64) -> ToolResult<SourceText> {
    let meta = std::fs::metadata(path).map_err(|err| io_error(shown, &err))?;
    if meta.len() > max_bytes {
        return Err(ToolError::new(
            ErrorCode::FileTooLarge,
            format!(
                "'{shown}' is {} bytes, over the {max_bytes}-byte limit for parsing",
                meta.len()
            ),
        )
        .with("file", shown)
        .with("size", meta.len())
        .with("limit", max_bytes)
        .with(
            "hint",
            "use search_text for large files, or raise max_file_bytes in .code-intel/config.json",
        ));
    }
    let bytes = std::fs::read(path).map_err(|err| io_error(shown, &err))?;
    decode(bytes, shown)
}

/// Decodes file bytes under the policy above.
pub fn decode(bytes: Vec<u8>, shown: &str) -> ToolResult<SourceText> {
    let size = bytes.len() as u64;
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(encoding_error(
            shown,
            "the file is UTF-16 or UTF-32 (byte-order mark); only UTF-8 is read",
        ));
    }
    let head = &bytes[..bytes.len().min(8192)];
    if memchr::memchr(0, head).is_some() {
        return Err(encoding_error(shown, "binary file (contains NUL bytes)"));
    }
    let body = bytes
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .map(<[u8]>::to_vec)
        .unwrap_or(bytes);
    match String::from_utf8(body) {
        Ok(text) => Ok(SourceText {
            text,
            size,
            lossy: false,
        }),
        Err(err) => Ok(SourceText {
            text: String::from_utf8_lossy(err.as_bytes()).into_owned(),
            size,
            lossy: true,
        }),
    }
}

fn encoding_error(shown: &str, reason: &str) -> ToolError {
    ToolError::new(
        ErrorCode::EncodingError,
        format!("cannot read '{shown}' as text: {reason}"),
    )
    .with("file", shown)
    .with("reason", reason)
}

fn io_error(shown: &str, err: &std::io::Error) -> ToolError {
    let code = if err.kind() == std::io::ErrorKind::NotFound {
        ErrorCode::FileNotFound
    } else {
        ErrorCode::InvalidParameter
    };
    ToolError::new(code, format!("cannot read '{shown}': {err}")).with("file", shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_utf16_and_lossy() {
        assert!(
            !decode(b"def f():\n    pass\n".to_vec(), "a.py")
                .unwrap()
                .lossy
        );
        assert_eq!(
            decode(b"\x7fELF\0\0\x01".to_vec(), "a.bin")
                .unwrap_err()
                .code,
            ErrorCode::EncodingError
        );
        assert_eq!(
            decode(b"\xFF\xFEa\0".to_vec(), "u.txt").unwrap_err().code,
            ErrorCode::EncodingError
        );
        let lossy = decode(b"# caf\xE9\nx = 1\n".to_vec(), "l.py").unwrap();
        assert!(lossy.lossy);
        assert!(lossy.text.contains("x = 1"));
        assert_eq!(
            decode(b"\xEF\xBB\xBFx = 1\n".to_vec(), "b.py")
                .unwrap()
                .text,
            "x = 1\n"
        );
    }

    #[test]
    fn line_counts() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
    }
}
