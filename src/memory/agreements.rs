//! Agreements (合意事項): a natural-language term the project's user wrote and the symbol it
//! turned out to mean, with the code evidence, stored as seed 001's Markdown with front matter
//! so a person can read, edit or delete them and the map can index them.

use crate::index::agreement_file::{self, AgreementText, yaml_scalar};
use sha2::{Digest, Sha256};

/// One agreement.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub nl_term: String,
    pub symbol: String,
    /// Calibrated relevance of the term to the symbol when it was confirmed.
    pub similarity: f32,
    pub session_id: String,
    pub code_evidence: String,
    pub files: Vec<String>,
    /// The request of the session that learned it.
    pub query: String,
    pub created_at: String,
}

impl Agreement {
    /// One file per (term, symbol): `AuthService-1a2b3c4d.md`.
    pub fn file_name(&self) -> String {
        let digest = Sha256::digest(format!("{}\0{}", self.nl_term, self.symbol).as_bytes());
        let hash = crate::digest::hex(&digest[..4]);
        let stem: String = self
            .symbol
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        format!("{stem}-{hash}.md")
    }

    /// The Markdown form (seed 001), with `query` and `created_at` added to the front matter.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("---\ndoc_type: agreement\n");
        for (key, value) in [
            ("nl_term", self.nl_term.as_str()),
            ("symbol", self.symbol.as_str()),
        ] {
            out.push_str(&format!("{key}: {}\n", yaml_scalar(value)));
        }
        out.push_str(&format!("similarity: {:.2}\n", self.similarity));
        for (key, value) in [
            ("session_id", self.session_id.as_str()),
            ("query", self.query.as_str()),
            ("created_at", self.created_at.as_str()),
        ] {
            out.push_str(&format!("{key}: {}\n", yaml_scalar(value)));
        }
        out.push_str("---\n\n");
        out.push_str(&format!("# {} → {}\n\n", self.nl_term, self.symbol));
        out.push_str("## 根拠 (Code Evidence)\n\n");
        out.push_str(self.code_evidence.trim());
        out.push_str("\n\n## 関連ファイル\n\n");
        for file in &self.files {
            out.push_str(&format!("- `{file}`\n"));
        }
        out
    }
}

/// Reads an agreement back; `None` when the text is not one (no front matter, other doc_type,
/// no term or symbol).
pub fn parse_agreement(text: &str) -> Option<Agreement> {
    let AgreementText {
        mut fields,
        evidence,
        files,
    } = agreement_file::read(text).ok()?;
    if fields.get("doc_type").map(String::as_str) != Some("agreement") {
        return None;
    }
    let nl_term = fields.remove("nl_term").filter(|s| !s.is_empty())?;
    let symbol = fields.remove("symbol").filter(|s| !s.is_empty())?;
    Some(Agreement {
        nl_term,
        symbol,
        similarity: fields
            .get("similarity")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0),
        session_id: fields.remove("session_id").unwrap_or_default(),
        code_evidence: evidence,
        files,
        query: fields.remove("query").unwrap_or_default(),
        created_at: fields.remove("created_at").unwrap_or_default(),
    })
}
