//! The Markdown file of an agreement (seed 001): YAML-like front matter between `---` lines, then
//! sections by heading — the code evidence (`## 根拠 (Code Evidence)`) and the related files
//! (`## 関連ファイル`, one `- path` a line). The memory writes these files and reads them back;
//! the map's sync reads every file a person may have written or edited. Both read them here, so
//! a value the writer quoted is unquoted the same way by both.

use std::collections::HashMap;

/// Why a text is not an agreement file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgreementFileError {
    #[error("no front matter (expected a leading ---)")]
    NoFrontMatter,
    #[error("front matter is not closed by ---")]
    Unclosed,
}

/// An agreement file as written: its front matter's fields and its two sections.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgreementText {
    /// Front matter, key → value (quotes removed, a double-quoted value read as JSON).
    pub fields: HashMap<String, String>,
    /// The evidence section, trimmed.
    pub evidence: String,
    /// The related files section's items, backticks removed.
    pub files: Vec<String>,
}

/// Reads an agreement file's front matter and sections. Headings are recognised in Japanese as
/// the seed writes them or in English (`Evidence`, `Files`), in any case.
pub fn read(text: &str) -> Result<AgreementText, AgreementFileError> {
    let text = text.trim_start_matches('\u{feff}');
    let rest = text
        .strip_prefix("---")
        .ok_or(AgreementFileError::NoFrontMatter)?;
    let (front, body) = rest
        .split_once("\n---")
        .ok_or(AgreementFileError::Unclosed)?;
    let mut out = AgreementText::default();
    for line in front.lines() {
        if let Some((key, value)) = line.split_once(':') {
            out.fields
                .insert(key.trim().to_string(), parse_scalar(value));
        }
    }
    let mut section = Section::Other;
    for line in body.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix("## ") {
            let lower = heading.to_lowercase();
            section = if heading.contains("根拠") || lower.contains("evidence") {
                Section::Evidence
            } else if heading.contains("ファイル") || lower.contains("file") {
                Section::Files
            } else {
                Section::Other
            };
            continue;
        }
        match section {
            Section::Evidence => {
                out.evidence.push_str(line);
                out.evidence.push('\n');
            }
            Section::Files => {
                if let Some(item) = trimmed.strip_prefix("- ") {
                    out.files.push(item.trim().trim_matches('`').to_string());
                }
            }
            Section::Other => {}
        }
    }
    out.evidence = out.evidence.trim().to_string();
    Ok(out)
}

enum Section {
    Evidence,
    Files,
    Other,
}

/// A front-matter value as written: plain when that reads back the same, else a double-quoted
/// (JSON) string, which YAML reads as is and [`read`] unquotes.
pub fn yaml_scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.contains(['\n', '"', '\''])
        && !value.starts_with(|c: char| c.is_whitespace() || "-?:,[]{}#&*!|>%@`".contains(c))
        && !value.ends_with(char::is_whitespace);
    if plain {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_default()
    }
}

fn parse_scalar(raw: &str) -> String {
    let raw = raw.trim();
    if raw.starts_with('"') {
        serde_json::from_str(raw).unwrap_or_else(|_| raw.trim_matches('"').to_string())
    } else {
        raw.trim_matches('\'').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_sections() {
        let text = "\u{feff}---\nnl_term: \"rate \\\"limit\\\": login\"\nsymbol: 'X'\n---\n\n## 根拠 (Code Evidence)\n\nfirst\n\nsecond\n\n## Related files\n\n- `a.py`\n- b.py\n";
        let read = read(text).unwrap();
        assert_eq!(read.fields["nl_term"], "rate \"limit\": login");
        assert_eq!(read.fields["symbol"], "X");
        assert_eq!(read.evidence, "first\n\nsecond");
        assert_eq!(read.files, ["a.py", "b.py"]);
        assert_eq!(
            super::read("no front matter"),
            Err(AgreementFileError::NoFrontMatter)
        );
        assert_eq!(
            super::read("---\nx: 1\n"),
            Err(AgreementFileError::Unclosed)
        );
    }

    #[test]
    fn written_values_read_back() {
        for value in [
            "plain",
            "a: b",
            "- dash",
            "quote \"q\"",
            "line\nbreak",
            " pad",
        ] {
            let text = format!("---\nk: {}\n---\n", yaml_scalar(value));
            assert_eq!(read(&text).unwrap().fields["k"], value, "{text}");
        }
    }
}
