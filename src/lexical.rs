//! Lexical analysis shared by indexing and querying: how code, paths and requests (English or
//! Japanese) become comparable terms.
//!
//! Code names things with compound identifiers (`calculateOrderTotal`, `order_total`,
//! `HTTPServer`); requests use separate words. Every identifier therefore yields its lowercase
//! whole form *and* its parts. Japanese has no spaces and shares almost no tokens with code, so
//! runs of CJK characters become character bigrams (a dictionary-free segmentation that still
//! matches Japanese comments and docs). The full-text index stores the output of [`index_terms`]
//! joined by spaces and queries go through [`query_terms`], so both sides are analysed alike.

/// English function words that carry no meaning in a code-search request. Kept short on purpose:
/// words like `get`, `set`, `new` or `list` are identifiers in code.
const STOP_WORDS: &[&str] = &[
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "by",
    "can",
    "do",
    "does",
    "for",
    "from",
    "how",
    "i",
    "in",
    "is",
    "it",
    "its",
    "me",
    "of",
    "on",
    "or",
    "so",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "to",
    "was",
    "we",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "with",
    "you",
    "your",
    "code",
    "file",
    "files",
    "function",
    "functions",
    "implemented",
    "implementation",
    "handled",
    "handles",
    "handle",
    "defined",
    "logic",
    "located",
    "happen",
    "happens",
    "done",
    "work",
    "works",
    "find",
    "show",
];

/// Terms longer than this are hashes, base64 or minified code, not words.
const MAX_TERM_CHARS: usize = 40;

/// Whether a term is a stop word (expects lowercase input).
pub fn is_stop_word(term: &str) -> bool {
    STOP_WORDS.contains(&term)
}

/// A run of text of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run<'a> {
    /// ASCII identifier characters: letters, digits, `_`, `$`.
    Word(&'a str),
    /// Han, Hiragana or Katakana characters.
    Cjk(&'a str),
}

/// An identifier character of code: ASCII letters and digits, `_` and `$`.
pub fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Byte offsets where `word` stands in `text` as a whole word: neither neighbour is a word
/// character by `is_word`.
pub fn whole_word_starts<'a>(
    text: &'a str,
    word: &'a str,
    is_word: fn(char) -> bool,
) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Whether `c` is a full-width katakana letter or the long mark ー: what a katakana word (a
/// loanword, or several in a compound) is written with.
pub fn is_katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30FA}' | 'ー')
}

/// Han ideographs: CJK extension A, the unified ideographs and the compatibility ones.
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// Whether `c` is written as part of a kanji word: a Han ideograph or the repetition mark 々
/// (人々).
pub fn is_kanji(c: char) -> bool {
    is_han(c) || c == '々'
}

/// Han, Hiragana, Katakana (including the prolonged-sound mark and half-width forms).
pub fn is_cjk(c: char) -> bool {
    is_han(c)
        || matches!(c,
            '\u{3040}'..='\u{30FF}'   // Hiragana, Katakana
            | '\u{31F0}'..='\u{31FF}' // Katakana phonetic extensions
            | '\u{FF66}'..='\u{FF9F}' // half-width Katakana
        )
}

fn runs(text: &str) -> impl Iterator<Item = Run<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let start = rest.find(|c: char| is_word_char(c) || is_cjk(c))?;
            rest = &rest[start..];
            let first = rest.chars().next()?;
            let cjk = is_cjk(first);
            let end = rest
                .find(|c: char| if cjk { !is_cjk(c) } else { !is_word_char(c) })
                .unwrap_or(rest.len());
            let run = &rest[..end];
            rest = &rest[end..];
            if run.is_empty() {
                continue;
            }
            return Some(if cjk { Run::Cjk(run) } else { Run::Word(run) });
        }
    })
}

/// Splits an identifier into its lowercase parts: `getHTTPResponse2` → `get`, `http`,
/// `response`, `2`; `order_total` → `order`, `total`. Any character but a letter or a digit
/// separates (Ruby's `unblock!` and `valid?` are `unblock` and `valid`; a qualified
/// `Admin::User` is `admin` and `user`).
pub fn split_identifier(ident: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in ident
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_ascii_lowercase());
            let boundary = (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                || (prev.is_ascii_uppercase() && cur.is_ascii_uppercase() && next_lower)
                || (prev.is_ascii_digit() != cur.is_ascii_digit());
            if boundary {
                parts.push(
                    chars[start..i]
                        .iter()
                        .collect::<String>()
                        .to_ascii_lowercase(),
                );
                start = i;
            }
        }
        parts.push(
            chars[start..]
                .iter()
                .collect::<String>()
                .to_ascii_lowercase(),
        );
    }
    parts
}

fn push_word(word: &str, out: &mut Vec<String>) {
    if word.len() > MAX_TERM_CHARS || word.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return;
    }
    let whole = word.trim_matches(['_', '$']).to_ascii_lowercase();
    let parts = split_identifier(word);
    if parts.len() > 1 {
        for part in parts {
            if part.len() >= 2 && !part.bytes().all(|b| b.is_ascii_digit()) {
                out.push(part);
            }
        }
    }
    if whole.len() >= 2 {
        out.push(whole);
    }
}

fn push_cjk(run: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() == 1 {
        out.push(run.to_string());
        return;
    }
    for pair in chars.windows(2) {
        out.push(pair.iter().collect());
    }
}

/// Terms of indexed text (code, comments, docs, paths), in order, with repeats: identifier
/// wholes and parts, CJK bigrams. Stop words are kept (the full-text index drops its own).
pub fn index_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in runs(text) {
        match run {
            Run::Word(word) => push_word(word, &mut out),
            Run::Cjk(cjk) => push_cjk(cjk, &mut out),
        }
    }
    out
}

/// Terms of a request: like [`index_terms`] but without stop words and without repeats.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in index_terms(query) {
        if !is_stop_word(&term) && !out.contains(&term) {
            out.push(term);
        }
    }
    out
}

/// A crude English stemmer for matching request words against identifier parts and path
/// segments (`orders` ~ `order`, `caching` ~ `cache`, `validation` ~ `validate`). It only has
/// to map related forms to the same key, not produce real stems.
pub fn stem(term: &str) -> String {
    let t = term;
    if !t.is_ascii() || t.len() <= 3 {
        return t.to_string();
    }
    for (suffix, keep) in [
        ("ications", "ic"),
        ("ication", "ic"),
        ("ations", "at"),
        ("ation", "at"),
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
        ("e", ""),
    ] {
        if let Some(base) = t.strip_suffix(suffix)
            && base.len() >= if suffix == "ing" { 4 } else { 3 }
            && !(suffix == "s" && base.ends_with(['s', 'u', 'i']))
        {
            return format!("{base}{keep}");
        }
    }
    t.to_string()
}

/// Text for the full-text column: the terms joined by spaces.
pub fn index_text(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        for term in index_terms(part) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&term);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_mark_in_an_identifier_separates_its_words() {
        assert_eq!(split_identifier("unblock!"), ["unblock"]);
        assert_eq!(split_identifier("valid?"), ["valid"]);
        assert_eq!(
            split_identifier("Admin::UserPolicy"),
            ["admin", "user", "policy"]
        );
        assert_eq!(split_identifier("order_total$"), ["order", "total"]);
    }

    #[test]
    fn identifiers_give_whole_and_parts() {
        let cases: &[(&str, &[&str])] = &[
            (
                "calculateOrderTotal",
                &["calculate", "order", "total", "calculateordertotal"],
            ),
            ("order_total", &["order", "total", "order_total"]),
            ("HTTPServer", &["http", "server", "httpserver"]),
            (
                "getHTTPResponse2",
                &["get", "http", "response", "gethttpresponse2"],
            ),
            ("x", &[]),
            (
                "AuthService::login()",
                &["auth", "service", "authservice", "login"],
            ),
            ("12345", &[]),
        ];
        for (input, expected) in cases {
            assert_eq!(index_terms(input), *expected, "input {input:?}");
        }
    }

    #[test]
    fn japanese_runs_become_bigrams_and_mix_with_code() {
        assert_eq!(
            index_terms("ログイン機能"),
            ["ログ", "グイ", "イン", "ン機", "機能"]
        );
        assert_eq!(
            index_terms("注文をsaveする"),
            ["注文", "文を", "save", "する"]
        );
        assert_eq!(index_terms("字"), ["字"]);
    }

    #[test]
    fn query_terms_drop_stop_words_and_repeats() {
        assert_eq!(
            query_terms("Where is the order total calculated for the order?"),
            ["order", "total", "calculated"]
        );
    }

    #[test]
    fn stemming_maps_related_forms_together() {
        let groups: &[&[&str]] = &[
            &["order", "orders", "ordered", "ordering"],
            &["cache", "caching", "caches", "cached"],
            &["validate", "validation", "validates"],
            &["category", "categories"],
            &["user", "users"],
        ];
        for group in groups {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{group:?} → {stems:?}"
            );
        }
        assert_ne!(stem("class"), stem("cla"));
        assert_eq!(stem("status"), "status");
    }
}
