//! What happens to text before the model sees it.
//!
//! Two things, both from the seeds and the model card:
//!
//! - E5 was trained with a `query: ` prefix on requests and `passage: ` on indexed text; leaving
//!   them out, or using the wrong one, costs retrieval quality.
//! - Code names are glued words. The model's tokenizer cuts `AuthService` or `get_user_name` into
//!   pieces that rarely line up with the words a person writes, so identifier-like words are
//!   rewritten as the words they are made of (`Auth Service`, `get user name`) before embedding
//!   (seed 003's camel-case split, extended to snake_case, kebab-case, PHP namespaces, `::`
//!   paths, dotted names and file paths). Ordinary prose and non-ASCII text are left as they are.

use std::borrow::Cow;

/// E5's prefix for requests and natural-language terms.
pub const QUERY_PREFIX: &str = "query: ";
/// E5's prefix for indexed text.
pub const PASSAGE_PREFIX: &str = "passage: ";

/// The text the model sees for a request.
pub fn query_text(text: &str) -> String {
    with_prefix(QUERY_PREFIX, text)
}

/// The text the model sees for an indexed chunk or description.
pub fn passage_text(text: &str) -> String {
    with_prefix(PASSAGE_PREFIX, text)
}

/// The first `max_bytes` of a passage, ending at a line break where one is near the cut
/// (else at a character boundary): a chunk's head (its title, path, signature, doc comment and
/// first lines), which carries most of what the model reads from the whole chunk at a fraction
/// of the tokens. Text that fits is returned whole.
pub fn head(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(line_end) if line_end >= end / 2 => &text[..line_end],
        _ => &text[..end],
    }
}

fn with_prefix(prefix: &str, text: &str) -> String {
    let split = split_identifiers(text.trim());
    let mut out = String::with_capacity(prefix.len() + split.len());
    out.push_str(prefix);
    out.push_str(&split);
    out
}

/// Rewrites identifier-like words as space-separated words:
///
/// | in | out |
/// |---|---|
/// | `AuthService` | `Auth Service` |
/// | `get_user_name`, `__init__` | `get user name`, `init` |
/// | `user-profile` | `user profile` |
/// | `App\Services\AuthService` | `App Services Auth Service` |
/// | `Foo::bar`, `auth.service`, `src/auth/login.py` | `Foo bar`, `auth service`, `src auth login py` |
/// | `HTTPServer`, `parseJSON2Html` | `HTTP Server`, `parse JSON2 Html` |
///
/// Digits stay with the letters before them (`sha256`, `utf8`, `v2`), numbers keep their dots
/// and dashes (`3.14`, `2024-01`), and a word without an internal boundary (`login`, `ログイン`)
/// is unchanged. Returns the input unchanged (borrowed) when nothing needed splitting.
pub fn split_identifiers(text: &str) -> Cow<'_, str> {
    // Word breaks are first written as MARK so that they can be told apart from the text's own
    // spaces, which are kept exactly as they are.
    const MARK: char = '\u{1}';
    let chars: Vec<char> = text.chars().collect();
    let mut marked = String::with_capacity(text.len() + 8);
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        if is_joiner(c, prev, next, &chars, i) {
            marked.push(MARK);
            changed = true;
        } else {
            if let Some(p) = prev
                && starts_new_word(p, c, next)
            {
                marked.push(MARK);
                changed = true;
            }
            marked.push(c);
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    // A run of marks is one break, and only between two words: none at the start or end of a
    // word (`__init__(` → `init(`), none next to the text's own whitespace.
    let mut out = String::with_capacity(marked.len());
    let mut pending = false;
    for c in marked.chars() {
        if c == MARK {
            pending = true;
            continue;
        }
        if pending {
            let after_word = out.chars().next_back().is_some_and(|p| !p.is_whitespace());
            if after_word && !c.is_whitespace() && !is_closing(c) {
                out.push(' ');
            }
            pending = false;
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Closing punctuation never gets a space before it (`__init__(` → `init(`).
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '(' | ')' | ',' | ';' | ']' | '}' | '>' | '.' | ':' | '?' | '!'
    )
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Whether `c` (at `i`) glues two parts of one identifier and should become a space.
fn is_joiner(c: char, prev: Option<char>, next: Option<char>, chars: &[char], i: usize) -> bool {
    match c {
        // snake_case and dunder names: any underscore touching an identifier character.
        '_' => {
            prev.is_some_and(|p| is_word_char(p) || p == '_')
                || next.is_some_and(|n| is_word_char(n) || n == '_')
        }
        // Namespaces and paths: between identifier characters on both sides.
        '\\' | '/' => {
            prev.is_some_and(is_word_char) && next.is_some_and(|n| is_word_char(n) || n == '_')
        }
        // `Foo::bar`: both colons of a `::` between identifier characters.
        ':' => {
            (next == Some(':')
                && prev.is_some_and(is_word_char)
                && chars.get(i + 2).copied().is_some_and(is_word_char))
                || (prev == Some(':')
                    && next.is_some_and(is_word_char)
                    && i >= 2
                    && is_word_char(chars[i - 2]))
        }
        // kebab-case and dotted names: only between letters, so numbers (3.14, 2024-01) keep
        // their punctuation.
        '-' | '.' => {
            prev.is_some_and(|p| p.is_ascii_alphabetic())
                && next.is_some_and(|n| n.is_ascii_alphabetic())
        }
        _ => false,
    }
}

/// Whether a case change between `prev` and `c` starts a new word inside an identifier.
fn starts_new_word(prev: char, c: char, next: Option<char>) -> bool {
    if !c.is_ascii_uppercase() {
        return false;
    }
    // `authService`, `base64Encoder`: lower case or digit, then upper case.
    if prev.is_ascii_lowercase() || prev.is_ascii_digit() {
        return true;
    }
    // `HTTPServer`: the last capital of an acronym starts the next word when a lower-case
    // letter follows it.
    prev.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_ends_at_a_line_or_a_character_boundary() {
        assert_eq!(head("short", 10), "short");
        assert_eq!(
            head("line one\nline two\nline three", 20),
            "line one\nline two"
        );
        // No line break in the second half: cut inside the line, never inside a character.
        assert_eq!(head("abcdefghij", 4), "abcd");
        assert_eq!(head("ログイン処理", 4), "ロ");
        assert_eq!(head("a\nログイン処理", 8), "a\nログ");
    }

    #[test]
    fn splits_identifiers_and_keeps_prose() {
        let cases = [
            ("AuthService", "Auth Service"),
            ("authService", "auth Service"),
            ("get_user_name", "get user name"),
            ("__init__", "init"),
            ("def __init__(self):", "def init(self):"),
            ("MAX_RETRY_COUNT", "MAX RETRY COUNT"),
            ("user-profile", "user profile"),
            ("App\\Services\\AuthService", "App Services Auth Service"),
            ("Foo::bar()", "Foo bar()"),
            ("auth.service", "auth service"),
            ("src/orderly/auth/service.py", "src orderly auth service py"),
            ("HTTPServer", "HTTP Server"),
            ("parseJSON2Html", "parse JSON2 Html"),
            ("base64Encoder", "base64 Encoder"),
            ("sha256 utf8 v2", "sha256 utf8 v2"),
            ("pi is 3.14 on 2024-01-02", "pi is 3.14 on 2024-01-02"),
            ("Hello world, this is fine.", "Hello world, this is fine."),
            ("ログイン機能", "ログイン機能"),
            ("ログイン機能とAuthService", "ログイン機能とAuth Service"),
            ("query: text", "query: text"),
            ("a_b c", "a b c"),
            ("if a_b > 0 {", "if a b > 0 {"),
            ("x  =  my_var", "x  =  my var"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(split_identifiers(input), want, "input {input:?}");
        }
    }

    #[test]
    fn unchanged_text_is_borrowed() {
        for text in ["login feature", "ログイン", "x = 1 + 2", "version 3.14"] {
            assert!(
                matches!(split_identifiers(text), Cow::Borrowed(_)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn prefixes_are_applied_once_after_splitting() {
        assert_eq!(query_text("  ログイン機能 "), "query: ログイン機能");
        assert_eq!(query_text("AuthService"), "query: Auth Service");
        assert_eq!(
            passage_text("class ConfigLoader:"),
            "passage: class Config Loader:"
        );
    }
}
