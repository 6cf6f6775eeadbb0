//! The formats a project's translations are written in, each read into messages.
//!
//! Two kinds: a gettext or XLIFF catalogue holds both languages, message by message; the other
//! formats (JSON, YAML, Flutter's ARB, Java's properties, Laravel's PHP arrays, Android's string
//! resources, TOML, Fluent) hold one language by key, and a Japanese file is [`pair`]ed with the
//! English file of the same keys. Every reader is forgiving: what it cannot read it leaves out, and a file
//! that is not what its name says gives nothing.

use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::{MAX_ENGLISH_WORDS, MAX_JAPANESE_CHARS};

/// One message in both languages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub english: String,
    pub japanese: String,
}

/// One language's messages by key (nested keys joined with `.`).
pub type Messages = BTreeMap<String, String>;

/// Nesting read at most in a PHP array: deeper arrays are skipped, not read (a file of brackets
/// must not exhaust the stack).
const MAX_DEPTH: usize = 32;

/// The messages of a gettext catalogue whose translation is Japanese: `msgid` and the first
/// `msgstr` (`msgstr[0]` for a plural), continuation lines joined, fuzzy ones left out.
pub fn from_po(text: &str) -> Vec<Translation> {
    #[derive(PartialEq)]
    enum Field {
        None,
        Id,
        Str,
        Other,
    }
    let mut out = Vec::new();
    let (mut id, mut translated) = (String::new(), String::new());
    let mut field = Field::None;
    let mut fuzzy = false;
    let mut flush = |id: &mut String, translated: &mut String, fuzzy: &mut bool| {
        if !*fuzzy {
            keep(&mut out, id, translated);
        }
        id.clear();
        translated.clear();
        *fuzzy = false;
    };
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            // A message's comments and flags come before it: the one before is complete.
            if field == Field::Str || field == Field::Other {
                flush(&mut id, &mut translated, &mut fuzzy);
                field = Field::None;
            }
            if line.starts_with("#,") && line.contains("fuzzy") {
                fuzzy = true;
            }
        } else if let Some(rest) = line.strip_prefix("msgid ") {
            if field == Field::Str || field == Field::Other {
                flush(&mut id, &mut translated, &mut fuzzy);
            }
            id = unquote(rest);
            field = Field::Id;
        } else if let Some(rest) = line
            .strip_prefix("msgstr[0] ")
            .or_else(|| line.strip_prefix("msgstr "))
        {
            translated = unquote(rest);
            field = Field::Str;
        } else if line.starts_with("msgid_plural")
            || line.starts_with("msgstr[")
            || line.starts_with("msgctxt")
        {
            if line.starts_with("msgctxt") && field == Field::Str {
                flush(&mut id, &mut translated, &mut fuzzy);
            }
            field = Field::Other;
        } else if line.starts_with('"') {
            match field {
                Field::Id => id.push_str(&unquote(line)),
                Field::Str => translated.push_str(&unquote(line)),
                _ => {}
            }
        }
    }
    flush(&mut id, &mut translated, &mut fuzzy);
    out
}

/// The text of a quoted PO string, escapes read.
fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix('"').unwrap_or(s);
    let s = s.strip_suffix('"').unwrap_or(s);
    backslash_escapes(s)
}

/// `s` with its backslash escapes read, as gettext and Android write them: `\n` and `\t` as a
/// space (a message's line breaks do not matter here), any other escaped character as itself.
fn backslash_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') | Some('t') => out.push(' '),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The units of an XLIFF catalogue (1.2's `<trans-unit>`, 2.0's `<segment>`): each source with
/// the target after it. The source is the English unless the file declares it Japanese (a
/// catalogue translated from Japanese into English).
pub fn from_xliff(text: &str) -> Vec<Translation> {
    static UNIT: OnceLock<Regex> = OnceLock::new();
    static SOURCE_LANGUAGE: OnceLock<Regex> = OnceLock::new();
    let unit = UNIT.get_or_init(|| {
        Regex::new(r"(?s)<source(?:\s[^>]*)?>(.*?)</source>\s*<target(?:\s[^>]*)?>(.*?)</target>")
            .expect("valid regex")
    });
    let source_language = SOURCE_LANGUAGE.get_or_init(|| {
        Regex::new(r#"(?:source-language|srcLang)\s*=\s*["']([^"']*)["']"#).expect("valid regex")
    });
    let source_is_japanese = source_language
        .captures(text)
        .is_some_and(|c| c[1].starts_with("ja"));
    let mut out = Vec::new();
    for c in unit.captures_iter(text) {
        let (mut source, mut target) = (xml_text(&c[1]), xml_text(&c[2]));
        if source_is_japanese {
            std::mem::swap(&mut source, &mut target);
        }
        keep(&mut out, &mut source, &mut target);
    }
    out
}

/// Android's string resources (`res/values-ja/strings.xml`): `<string name="key">text</string>`,
/// the format's quoting and escapes (`\'`, `\"`, `\n`) read.
pub fn android_strings(text: &str) -> Messages {
    static STRING: OnceLock<Regex> = OnceLock::new();
    let string = STRING.get_or_init(|| {
        Regex::new(r#"(?s)<string\s+[^>]*?name\s*=\s*"([^"]*)"[^>]*>(.*?)</string>"#)
            .expect("valid regex")
    });
    let mut out = Messages::new();
    for c in string.captures_iter(text) {
        let value = xml_text(&c[2]);
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(&value);
        out.insert(c[1].to_string(), backslash_escapes(value));
    }
    out
}

/// An XML element's text: a CDATA section unwrapped, entities read. Markup inside is left as it
/// is, so a message holding some is not kept.
fn xml_text(s: &str) -> String {
    let s = s.trim();
    if let Some(inner) = s
        .strip_prefix("<![CDATA[")
        .and_then(|s| s.strip_suffix("]]>"))
    {
        return inner.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest
            .find(';')
            .filter(|&end| end <= 10)
            .and_then(|end| Some((entity(&rest[1..end])?, end)));
        match entity {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character an XML entity's name stands for (`amp`, `#38`, `#x26`).
fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let code = name.strip_prefix('#')?;
            let code = match code.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => code.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

/// Java's properties (`messages_ja.properties`): `key=value`, `key: value` or `key value`, a line
/// continued by a trailing backslash, `\uXXXX` escapes read (most Japanese bundles are written
/// in them).
pub fn properties(text: &str) -> Messages {
    let mut out = Messages::new();
    let mut logical = String::new();
    for line in text.lines() {
        let line = line.trim_start();
        if logical.is_empty() && (line.is_empty() || line.starts_with(['#', '!'])) {
            continue;
        }
        let backslashes = line.chars().rev().take_while(|&c| c == '\\').count();
        if backslashes % 2 == 1 {
            logical.push_str(&line[..line.len() - 1]);
            continue;
        }
        logical.push_str(line);
        let (key, value) = property(&std::mem::take(&mut logical));
        out.insert(key, value);
    }
    if !logical.is_empty() {
        let (key, value) = property(&logical);
        out.insert(key, value);
    }
    out
}

/// One logical line of a properties file: the key ends at the first unescaped `=`, `:` or
/// space.
fn property(line: &str) -> (String, String) {
    let end = unescaped(line, |c| c == '=' || c == ':' || c.is_whitespace()).unwrap_or(line.len());
    let rest = line[end..].trim_start();
    let rest = rest.strip_prefix(['=', ':']).unwrap_or(rest).trim_start();
    (properties_unescape(&line[..end]), properties_unescape(rest))
}

/// A properties value with its escapes read: `\uXXXX` (surrogate pairs joined), `\t` and `\n` as
/// a space, any other escaped character as itself.
fn properties_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut units: Vec<u16> = Vec::new();
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        out.extend(char::decode_utf16(units.drain(..)).map(|c| c.unwrap_or('\u{FFFD}')));
    };
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            flush(&mut units, &mut out);
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                match u16::from_str_radix(&hex, 16) {
                    Ok(unit) => units.push(unit),
                    Err(_) => {
                        flush(&mut units, &mut out);
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                flush(&mut units, &mut out);
                out.push(if matches!(other, 't' | 'n' | 'r' | 'f') {
                    ' '
                } else {
                    other
                });
            }
            None => {}
        }
    }
    flush(&mut units, &mut out);
    out
}

/// A TOML message file (go-i18n's `active.ja.toml`, Hugo's `i18n/ja.toml`): `key = "value"`
/// under `[table]` headers (joined with `.`: `[PersonCats]` then `other = …` is
/// `PersonCats.other`), basic strings with their escapes, literal strings as written. Multi-line
/// strings, arrays and inline tables are left out; a line that is none of these is skipped.
pub fn toml(text: &str) -> Messages {
    let mut out = Messages::new();
    // The table the keys are in (none: an array of tables, whose keys name no message).
    let mut table = Some(String::new());
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            table = match header.strip_suffix(']') {
                Some(name) if !name.starts_with('[') => Some(toml_key(name)),
                _ => None,
            };
            continue;
        }
        let (Some(table), Some((key, value))) = (&table, line.split_once('=')) else {
            continue;
        };
        let value = value.trim();
        if value.starts_with("\"\"\"") || value.starts_with("'''") {
            // A multi-line string: only its first line is here.
            continue;
        }
        let text = if let Some(rest) = value.strip_prefix('"') {
            // A basic string ends at the first `"` no backslash escapes.
            match unescaped(rest, |c| c == '"') {
                Some(end) => backslash_escapes(&rest[..end]),
                None => continue,
            }
        } else if let Some(rest) = value.strip_prefix('\'') {
            match rest.find('\'') {
                Some(end) => rest[..end].to_string(),
                None => continue,
            }
        } else {
            continue;
        };
        let key = toml_key(key);
        let key = if table.is_empty() {
            key
        } else {
            format!("{table}.{key}")
        };
        out.insert(key, text);
    }
    out
}

/// A TOML key as the messages name it: dotted parts trimmed and unquoted.
fn toml_key(key: &str) -> String {
    key.split('.')
        .map(|part| part.trim().trim_matches(['"', '\'']))
        .collect::<Vec<_>>()
        .join(".")
}

/// Where the first character that `stop` accepts and no backslash escapes is in `text`: the
/// end of a properties key, of a TOML basic string.
fn unescaped(text: &str, stop: impl Fn(char) -> bool) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if std::mem::take(&mut escaped) => {}
            '\\' => escaped = true,
            c if stop(c) => return Some(at),
            _ => {}
        }
    }
    None
}

/// A Fluent file (`locales/ja/main.ftl`): `message = value`, the value continued on indented
/// lines, and a message's attributes (`.placeholder = …`) as `message.placeholder`. Comments
/// and terms (`-brand = …`) are left out, and a placeable (`{ $count }`) stays as written.
pub fn fluent(text: &str) -> Messages {
    let mut out = Messages::new();
    // The message being read, and the key (it or one of its attributes) a continued line adds to.
    let mut message: Option<String> = None;
    let mut current: Option<String> = None;
    for line in text.lines() {
        let indented = line.starts_with([' ', '\t']);
        let trimmed = line.trim();
        if trimmed.is_empty() || (!indented && trimmed.starts_with('#')) {
            continue;
        }
        if indented {
            if let Some(attribute) = trimmed.strip_prefix('.')
                && let (Some(message), Some((name, value))) = (&message, attribute.split_once('='))
            {
                let key = format!("{message}.{}", name.trim());
                out.insert(key.clone(), value.trim().to_string());
                current = Some(key);
            } else if let Some(value) = current.as_ref().and_then(|key| out.get_mut(key)) {
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(trimmed);
            }
            continue;
        }
        message = None;
        current = None;
        let Some((name, value)) = trimmed.split_once('=') else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || name.starts_with('-') {
            continue;
        }
        out.insert(name.to_string(), value.trim().to_string());
        message = Some(name.to_string());
        current = Some(name.to_string());
    }
    out.retain(|_, value| !value.is_empty());
    out
}

/// A PHP file's tokens, as far as an array of literals needs them.
#[derive(Debug, Clone, PartialEq)]
enum Php {
    Str(String),
    /// A name or a number (`array`, `return`, `3`).
    Word(String),
    Arrow,
    Open,
    Close,
    Comma,
    /// Any other character.
    Other,
}

fn php_tokens(text: &str) -> Vec<Php> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    let line_end = |at: usize| {
        chars[at..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(chars.len(), |n| at + n)
    };
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        match c {
            c if c.is_whitespace() => at += 1,
            '/' if next == Some('/') => at = line_end(at),
            '#' => at = line_end(at),
            '/' if next == Some('*') => {
                at = (at + 2..chars.len().saturating_sub(1))
                    .find(|&i| chars[i] == '*' && chars[i + 1] == '/')
                    .map_or(chars.len(), |i| i + 2);
            }
            '\'' | '"' => {
                let mut s = String::new();
                at += 1;
                while at < chars.len() && chars[at] != c {
                    if chars[at] == '\\' && at + 1 < chars.len() {
                        let escaped = chars[at + 1];
                        match (c, escaped) {
                            ('\'', '\'' | '\\') | ('"', '"' | '\\' | '$') => s.push(escaped),
                            ('"', 'n' | 't' | 'r') => s.push(' '),
                            _ => {
                                s.push('\\');
                                s.push(escaped);
                            }
                        }
                        at += 2;
                    } else {
                        s.push(chars[at]);
                        at += 1;
                    }
                }
                at += 1;
                out.push(Php::Str(s));
            }
            '=' if next == Some('>') => {
                out.push(Php::Arrow);
                at += 2;
            }
            '[' | '(' => {
                out.push(Php::Open);
                at += 1;
            }
            ']' | ')' => {
                out.push(Php::Close);
                at += 1;
            }
            ',' => {
                out.push(Php::Comma);
                at += 1;
            }
            c if c.is_alphanumeric() || c == '_' => {
                let end = (at..chars.len())
                    .find(|&i| !(chars[i].is_alphanumeric() || chars[i] == '_'))
                    .unwrap_or(chars.len());
                out.push(Php::Word(chars[at..end].iter().collect()));
                at = end;
            }
            _ => {
                out.push(Php::Other);
                at += 1;
            }
        }
    }
    out
}

/// The messages of a Laravel language file (`lang/ja/auth.php`): the array it returns, nested
/// keys joined with `.`. Only literal strings are read; a value built by code is left out.
pub fn php_array(text: &str) -> Messages {
    let tokens = php_tokens(text);
    let mut out = Messages::new();
    let Some(ret) = tokens.iter().position(|t| *t == Php::Word("return".into())) else {
        return out;
    };
    let mut at = ret + 1;
    if matches!(&tokens.get(at), Some(Php::Word(w)) if w.eq_ignore_ascii_case("array")) {
        at += 1;
    }
    if tokens.get(at) == Some(&Php::Open) {
        at += 1;
        php_elements(&tokens, &mut at, "", 0, &mut out);
    }
    out
}

/// The elements of an array whose `[` is behind `at`, up to and past its `]`.
fn php_elements(tokens: &[Php], at: &mut usize, prefix: &str, depth: usize, out: &mut Messages) {
    let mut index = 0usize;
    while let Some(token) = tokens.get(*at) {
        match token {
            Php::Close => {
                *at += 1;
                return;
            }
            Php::Comma => {
                *at += 1;
                continue;
            }
            _ => {}
        }
        let key = if tokens.get(*at + 1) == Some(&Php::Arrow) {
            let key = match token {
                Php::Str(s) | Php::Word(s) => s.clone(),
                _ => String::new(),
            };
            *at += 2;
            key
        } else {
            index += 1;
            (index - 1).to_string()
        };
        let path = if prefix.is_empty() {
            key
        } else {
            format!("{prefix}.{key}")
        };
        let array_at = match (tokens.get(*at), tokens.get(*at + 1)) {
            (Some(Php::Open), _) => Some(*at + 1),
            (Some(Php::Word(w)), Some(Php::Open)) if w.eq_ignore_ascii_case("array") => {
                Some(*at + 2)
            }
            _ => None,
        };
        match (tokens.get(*at), tokens.get(*at + 1), array_at) {
            (Some(Php::Str(s)), Some(Php::Comma | Php::Close) | None, _) => {
                out.insert(path, s.clone());
                *at += 1;
            }
            (_, _, Some(inner)) if depth < MAX_DEPTH => {
                *at = inner;
                php_elements(tokens, at, &path, depth + 1, out);
            }
            _ => skip_php_value(tokens, at),
        }
    }
}

/// Moves `at` to the `,` or `]` that ends the value at `at` (brackets inside it balanced).
fn skip_php_value(tokens: &[Php], at: &mut usize) {
    let mut depth = 0usize;
    while let Some(token) = tokens.get(*at) {
        match token {
            Php::Open => depth += 1,
            Php::Close if depth == 0 => return,
            Php::Close => depth -= 1,
            Php::Comma if depth == 0 => return,
            _ => {}
        }
        *at += 1;
    }
}

/// Every message of a JSON or YAML value by its key path: a string, or a list of parts whose
/// text is joined (compiled ICU messages: `[{"type": 0, "value": "追加"}]`). Keys starting with
/// `@` are metadata (Flutter's ARB: `"@@locale"`, `"@title": {"description": …}`), not messages.
pub fn value_messages(value: &Value) -> Messages {
    let mut out = Messages::new();
    flatten(value, String::new(), &mut out);
    out
}

fn flatten(value: &Value, key: String, out: &mut Messages) {
    match value {
        Value::String(s) => {
            out.insert(key, s.clone());
        }
        Value::Object(map) => {
            for (k, v) in map.iter().filter(|(k, _)| !k.starts_with('@')) {
                let path = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                flatten(v, path, out);
            }
        }
        Value::Array(parts) => {
            let text: Option<String> = parts
                .iter()
                .map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("value").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            if let Some(text) = text {
                out.insert(key, text);
            }
        }
        _ => {}
    }
}

/// The messages two files hold under the same key, the English file's and the Japanese one's.
pub fn pair(mut english: Messages, japanese: Messages) -> Vec<Translation> {
    let mut out = Vec::new();
    for (key, mut japanese) in japanese {
        if let Some(mut english) = english.remove(&key) {
            keep(&mut out, &mut english, &mut japanese);
        }
    }
    out
}

/// The messages of a Japanese file whose keys are the English text (`"Log in": "ログイン"`,
/// Laravel's `lang/ja.json`).
pub fn keyed_by_english(japanese: Messages) -> Vec<Translation> {
    let mut out = Vec::new();
    for (mut key, mut japanese) in japanese {
        // A key path (`auth.login`, `nav_home`) is not English text.
        if key.contains(['.', '_']) {
            continue;
        }
        keep(&mut out, &mut key, &mut japanese);
    }
    out
}

/// Adds the message when both sides are short and plain (see the module's documentation).
fn keep(out: &mut Vec<Translation>, english: &mut String, japanese: &mut String) {
    let japanese = std::mem::take(japanese);
    let japanese = japanese
        .trim()
        .trim_end_matches(['。', '：', ':', '…', '!', '！']);
    let english = std::mem::take(english);
    let plain_japanese = !japanese.is_empty()
        && japanese.chars().count() <= MAX_JAPANESE_CHARS
        && japanese
            .chars()
            .all(|c| crate::lexical::is_cjk(c) || c == 'ー' || c == '・');
    let words: Vec<&str> = english
        .trim()
        .trim_end_matches(['.', ':', '…', '!'])
        .split([' ', '-'])
        .filter(|w| !w.is_empty())
        .collect();
    let plain_english = !words.is_empty()
        && words.len() <= MAX_ENGLISH_WORDS
        && words
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_alphabetic() || c == '\''));
    if plain_japanese && plain_english {
        out.push(Translation {
            english: words.join(" "),
            japanese: japanese.to_string(),
        });
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The messages as (Japanese, English), for comparing.
    pub(in crate::search::translations) fn pairs(ts: &[Translation]) -> Vec<(&str, &str)> {
        ts.iter()
            .map(|t| (t.japanese.as_str(), t.english.as_str()))
            .collect()
    }

    /// Continuation lines join; plurals take their first form; fuzzy messages, sentences,
    /// placeholders and markup are left out.
    #[test]
    fn a_gettext_catalogue_gives_its_short_plain_messages() {
        let po = r#"
msgid ""
msgstr ""
"Language: ja\n"

#: core/models.py:12
msgid "Feeding"
msgstr "授乳"

msgid "Diaper "
"Change"
msgstr "おむつ"
"交換"

msgid "%(count)s feeding"
msgid_plural "%(count)s feedings"
msgstr[0] "%(count)s 回の授乳"

#, fuzzy
msgid "Sleep"
msgstr "昼寝"

msgid "Tummy Time"
msgstr "うつぶせ遊び"

msgid "Are you sure you want to delete this child and all of its data?"
msgstr "この子どもとそのデータをすべて削除してもよろしいですか？"

msgid "<strong>Log</strong> in"
msgstr "ログイン"
"#;
        assert_eq!(
            pairs(&from_po(po)),
            [
                ("授乳", "Feeding"),
                ("おむつ交換", "Diaper Change"),
                ("うつぶせ遊び", "Tummy Time"),
            ]
        );
    }

    /// JSON files pair by key path, nested or compiled, ARB's metadata left out; a file without
    /// an English partner is read by its keys when they are English text.
    #[test]
    fn json_message_files_pair_by_key() {
        let en = serde_json::json!({
            "campaigns": {"new": "New campaign", "title": "Campaigns"},
            "label.add": [{"type": 0, "value": "Add"}],
            "only.en": "Lists",
            "@@locale": "en",
            "@title": {"description": "Title"}
        });
        let ja = serde_json::json!({
            "campaigns": {"new": "新規キャンペーン", "title": "キャンペーン"},
            "label.add": [{"type": 0, "value": "追加"}],
            "only.ja": "購読者",
            "@@locale": "ja",
            "@title": {"description": "題名"}
        });
        assert_eq!(
            pairs(&pair(value_messages(&en), value_messages(&ja))),
            [
                ("新規キャンペーン", "New campaign"),
                ("キャンペーン", "Campaigns"),
                ("追加", "Add"),
            ]
        );
        let laravel = serde_json::json!({"Log in": "ログイン", "auth.failed": "認証失敗"});
        assert_eq!(
            pairs(&keyed_by_english(value_messages(&laravel))),
            [("ログイン", "Log in")]
        );
    }

    /// XLIFF 1.2 and 2.0 units, entities and CDATA read, inline markup left out; a catalogue
    /// translated from Japanese reads the other way round.
    #[test]
    fn xliff_units_give_source_and_target() {
        let v12 = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2"><file source-language="en" target-language="ja" datatype="plaintext">
<body>
  <trans-unit id="login"><source>Sign in</source><target state="translated">サインイン</target></trans-unit>
  <trans-unit id="tos"><source>Terms &amp; Conditions</source><target>利用規約</target></trans-unit>
  <trans-unit id="cart">
    <source><![CDATA[Cart]]></source>
    <target><![CDATA[カート]]></target>
  </trans-unit>
  <trans-unit id="n"><source>Hello <x id="INTERPOLATION"/></source><target>こんにちは <x id="INTERPOLATION"/></target></trans-unit>
</body></file></xliff>"#;
        assert_eq!(
            pairs(&from_xliff(v12)),
            [("サインイン", "Sign in"), ("カート", "Cart")]
        );
        let v20 = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="ja" trgLang="en">
<file id="f"><unit id="u"><segment><source>注文履歴</source><target>Order history</target></segment></unit></file></xliff>"#;
        assert_eq!(pairs(&from_xliff(v20)), [("注文履歴", "Order history")]);
    }

    /// Continued lines, `:` and space separators, `\u` escapes (with a surrogate pair) and
    /// escaped separators in keys.
    #[test]
    fn properties_files_read_their_escapes() {
        let text = "# comment\n! another\nnav.login=\\u30ED\\u30B0\\u30A4\\u30F3\n\
                    owner.add : \\u98FC\\u3044\\u4E3B\\u3092\\\n    \\u8FFD\\u52A0\n\
                    smile \\uD83D\\uDE00\nkey\\=with\\:sep = v\nempty\n";
        let got = properties(text);
        assert_eq!(got["nav.login"], "ログイン");
        assert_eq!(got["owner.add"], "飼い主を追加");
        assert_eq!(got["smile"], "😀");
        assert_eq!(got["key=with:sep"], "v");
        assert_eq!(got["empty"], "");
    }

    /// TOML: tables, dotted and quoted keys, both kinds of string; what is no string is left out.
    #[test]
    fn toml_files_give_their_strings_by_key() {
        let text = "# go-i18n\n[PersonCats]\ndescription = \"猫の数\"\nother = \"{{.Name}}の猫は\\\"{{.Count}}\\\"匹\"\n\n\
                    [\"nav bar\"]\nhome = 'ホーム'\ncount = 3\nlong = \"\"\"\n複数行\n\"\"\"\n\
                    [[menu]]\nname = \"メニュー\"\n";
        let got = toml(text);
        assert_eq!(got["PersonCats.description"], "猫の数");
        assert_eq!(got["PersonCats.other"], "{{.Name}}の猫は\"{{.Count}}\"匹");
        assert_eq!(got["nav bar.home"], "ホーム");
        assert_eq!(got.len(), 3, "{got:?}");
        let top = toml("title = \"Orders\"\nsite.name = \"Shop\"\n");
        assert_eq!(top["title"], "Orders");
        assert_eq!(top["site.name"], "Shop");
    }

    /// Fluent: messages, continued values, attributes; comments and terms left out.
    #[test]
    fn fluent_files_give_their_messages_and_attributes() {
        let text = "# Cart\n-brand = Shop\ncart-title = カート\ncart-empty =\n    カートは\n    空です\n\
                    login-input = { -brand }\n    .placeholder = メールアドレス\n    .aria-label = ログイン\n";
        let got = fluent(text);
        assert_eq!(got["cart-title"], "カート");
        assert_eq!(got["cart-empty"], "カートは 空です");
        assert_eq!(got["login-input"], "{ -brand }");
        assert_eq!(got["login-input.placeholder"], "メールアドレス");
        assert_eq!(got["login-input.aria-label"], "ログイン");
        assert!(!got.contains_key("-brand"));
    }

    /// Laravel's arrays, short and long syntax, nested, with comments; a value built by code
    /// is left out and the rest still read.
    #[test]
    fn laravel_language_arrays_give_their_literals() {
        let text = r#"<?php
// Authentication lines
return [
    'failed' => 'ログイン情報が登録されていません。',
    "password" => 'パスワード', /* inline */
    'throttle' => __('x') . 'y',
    'nested' => array(
        'title' => 'タイトル',
        'list' => ['一', '二'],
    ),
    # a hash comment
    'it\'s' => "確認",
];
"#;
        let got = php_array(text);
        assert_eq!(got["password"], "パスワード");
        assert_eq!(got["nested.title"], "タイトル");
        assert_eq!(got["nested.list.1"], "二");
        assert_eq!(got["it's"], "確認");
        assert!(!got.contains_key("throttle"), "{got:?}");
        assert_eq!(got.len(), 6, "{got:?}");
        // Deep nesting is skipped, not followed.
        let deep = format!(
            "<?php return [{}'x'{}];",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert!(php_array(&deep).is_empty());
        assert!(php_array("<?php echo 'no array';").is_empty());
    }

    #[test]
    fn android_string_resources_read_their_quoting() {
        let text = r#"<resources>
    <string name="login">ログイン</string>
    <string name="app_name" translatable="false">"Baby \'Buddy\'"</string>
    <string name="amp">A &amp; B</string>
    <plurals name="n"><item quantity="other">%d items</item></plurals>
</resources>"#;
        let got = android_strings(text);
        assert_eq!(got["login"], "ログイン");
        assert_eq!(got["app_name"], "Baby 'Buddy'");
        assert_eq!(got["amp"], "A & B");
        assert_eq!(got.len(), 3);
    }
}
