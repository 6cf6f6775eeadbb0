//! The project's own translations: the English and Japanese of its user interface, read as a
//! dictionary that comes before the general one.
//!
//! A project translated into Japanese has already said what its Japanese words mean: a baby
//! tracker's catalogue renders "Feeding" as 授乳, where a general dictionary gives 授乳 as
//! "breastfeeding" and the code says `Feeding`. A request is written in the words its users see,
//! so the project's translations are the surest bridge from a Japanese request to the project's
//! names.
//!
//! Read here: gettext catalogues (`…/ja/LC_MESSAGES/*.po`, `ja.po`, `ja_JP.po`: `msgid` is the
//! English, `msgstr` the Japanese) and JSON or YAML message files (`ja.json`, `ja-JP.json`,
//! Rails' `devise.ja.yml`, or any under a `ja` directory), paired by key with the English file
//! beside them (`en`, `en-US`, `en_US`, `en-GB`), or, without one, keyed by the English text
//! itself (Laravel's `lang/ja.json`). A message may be a string or a list of parts (compiled ICU
//! messages).
//!
//! Only short messages are kept: a Japanese word or phrase of at most [`MAX_JAPANESE_CHARS`]
//! characters, without markup or placeholders, rendered by at most [`MAX_ENGLISH_WORDS`] English
//! words. Sentences say too much to stand for one word of a request.
//!
//! The files are found by a walk when a project first needs them, and read again when one of
//! them changes (size, or a settled modification time as the index's directory stamps take
//! it). A translation file added later is found when the server starts again.

use super::dictionary::Dictionary;
use super::roles::{FileRole, role_of};
use crate::index::dir_stamps::stable_nanos;
use crate::workspace::{WalkOptions, Workspace, walk_files};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Longest Japanese message kept, in characters: as long as the dictionary's longest form.
pub const MAX_JAPANESE_CHARS: usize = 12;
/// Most English words a kept message has.
pub const MAX_ENGLISH_WORDS: usize = 4;
/// Translation files read at most, and their largest size: a project's catalogues, not a
/// vendored library's hundreds.
const MAX_FILES: usize = 64;
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The locale names read as Japanese and as English.
const JAPANESE: &[&str] = &["ja", "ja-JP", "ja_JP"];
const ENGLISH: &[&str] = &["en", "en-US", "en_US", "en-GB", "en_GB"];

/// One message in both languages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub english: String,
    pub japanese: String,
}

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

/// The messages of two JSON message files, paired by key (nested keys joined with `.`).
pub fn from_json_pair(english: &Value, japanese: &Value) -> Vec<Translation> {
    let (mut en, mut ja) = (BTreeMap::new(), BTreeMap::new());
    flatten(english, String::new(), &mut en);
    flatten(japanese, String::new(), &mut ja);
    let mut out = Vec::new();
    for (key, mut japanese) in ja {
        if let Some(mut english) = en.remove(&key) {
            keep(&mut out, &mut english, &mut japanese);
        }
    }
    out
}

/// The messages of a Japanese JSON file whose keys are the English text (`"Log in": "ログイン"`).
pub fn from_json_keyed_by_english(japanese: &Value) -> Vec<Translation> {
    let mut ja = BTreeMap::new();
    flatten(japanese, String::new(), &mut ja);
    let mut out = Vec::new();
    for (mut key, mut japanese) in ja {
        // A key path (`auth.login`, `nav_home`) is not English text.
        if key.contains(['.', '_']) {
            continue;
        }
        keep(&mut out, &mut key, &mut japanese);
    }
    out
}

/// Every message of a JSON value by its key path: a string, or a list of parts whose text is
/// joined (compiled ICU messages: `[{"type": 0, "value": "追加"}]`).
fn flatten(value: &Value, key: String, out: &mut BTreeMap<String, String>) {
    match value {
        Value::String(s) => {
            out.insert(key, s.clone());
        }
        Value::Object(map) => {
            for (k, v) in map {
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

/// How a file holds Japanese messages, by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Catalogue {
    /// A gettext catalogue.
    Po,
    /// A message file (JSON or YAML), with the English files that may pair with it (relative
    /// paths).
    Messages {
        format: Format,
        english: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
}

/// Whether `rel` is a Japanese translation file, and of which kind: a translation catalogue
/// as [`role_of`] knows them, in Japanese by its name (`ja.json`, Rails' `devise.ja.yml`) or
/// its directory (`locales/ja/common.json`).
fn catalogue(rel: &str) -> Option<Catalogue> {
    if role_of(rel) != FileRole::Translations {
        return None;
    }
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let (stem, ext) = name.rsplit_once('.')?;
    let is_japanese = |s: &str| JAPANESE.contains(&s);
    let dirs: Vec<&str> = dir.split('/').collect();
    let format = match ext {
        "po" => {
            let japanese = is_japanese(stem) || dirs.iter().any(|d| is_japanese(d));
            return japanese.then_some(Catalogue::Po);
        }
        "json" => Format::Json,
        "yml" | "yaml" => Format::Yaml,
        _ => return None,
    };
    // The locale as the name's last part: `ja`, `devise.ja`.
    let (prefix, locale) = match stem.rsplit_once('.') {
        Some((prefix, locale)) => (Some(prefix), locale),
        None => (None, stem),
    };
    let english: Vec<String> = if is_japanese(locale) {
        ENGLISH
            .iter()
            .map(|en| {
                let name = match prefix {
                    Some(prefix) => format!("{prefix}.{en}.{ext}"),
                    None => format!("{en}.{ext}"),
                };
                join(dir, &name)
            })
            .collect()
    } else {
        // `locales/ja/common.json` pairs with `locales/en/common.json`.
        let at = dirs.iter().rposition(|d| is_japanese(d))?;
        ENGLISH
            .iter()
            .map(|en| {
                let mut parts = dirs.clone();
                parts[at] = en;
                join(&parts.join("/"), name)
            })
            .collect()
    };
    Some(Catalogue::Messages { format, english })
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// A file read, as it was when read: its size and its settled mtime
/// ([`stable_nanos`]: 0 while a second edit within the same timestamp tick cannot be ruled out).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    size: u64,
    mtime: u128,
}

impl Stamp {
    fn of(path: PathBuf) -> Stamp {
        let meta = std::fs::metadata(&path).ok();
        Stamp {
            size: meta.as_ref().map_or(0, |m| m.len()),
            mtime: stable_nanos(meta.and_then(|m| m.modified().ok())),
            path,
        }
    }

    /// Whether the file is still as it was read; an unsettled mtime never is.
    fn unchanged(&self) -> bool {
        self.mtime != 0 && *self == Stamp::of(self.path.clone())
    }
}

/// The Japanese translation files a walk of the project finds (relative paths, with their kind).
fn find(ws: &Workspace) -> Vec<(String, Catalogue)> {
    let globs = ["*.po", "*.json", "*.yml", "*.yaml"]
        .iter()
        .map(|g| g.to_string())
        .collect();
    let opts = WalkOptions {
        globs,
        ..WalkOptions::default()
    };
    let Ok(files) = walk_files(ws, ws.root(), &opts) else {
        return Vec::new();
    };
    let mut found: Vec<(String, Catalogue)> = files
        .into_iter()
        .filter(|f| f.size <= MAX_FILE_BYTES)
        .filter_map(|f| Some((f.rel.clone(), catalogue(&f.rel)?)))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.truncate(MAX_FILES);
    found
}

/// Reads the messages of the files `found`, with the stamps of every file read. A file is read
/// only inside the project (an English partner may be a symlink to anywhere) and up to
/// [`MAX_FILE_BYTES`]; one that cannot be read or parsed gives nothing, and its stamp still
/// makes an edit that mends it read again.
fn read(ws: &Workspace, found: &[(String, Catalogue)]) -> (Vec<Translation>, Vec<Stamp>) {
    let mut out = Vec::new();
    let mut stamps = Vec::new();
    let text = |rel: &str, stamps: &mut Vec<Stamp>| -> Option<String> {
        let resolved = ws.resolve(rel).ok().filter(|r| !r.is_dir)?;
        let stamp = Stamp::of(resolved.abs.clone());
        let fits = stamp.size <= MAX_FILE_BYTES;
        stamps.push(stamp);
        if !fits {
            return None;
        }
        std::fs::read_to_string(&resolved.abs).ok()
    };
    let messages = |rel: &str, format: Format, stamps: &mut Vec<Stamp>| -> Option<Value> {
        let text = text(rel, stamps)?;
        let value: Value = match format {
            Format::Json => serde_json::from_str(&text).ok()?,
            Format::Yaml => serde_yaml_ng::from_str(&text).ok()?,
        };
        Some(without_locale_root(value))
    };
    for (rel, kind) in found {
        match kind {
            Catalogue::Po => {
                if let Some(text) = text(rel, &mut stamps) {
                    out.extend(from_po(&text));
                }
            }
            Catalogue::Messages { format, english } => {
                let Some(japanese) = messages(rel, *format, &mut stamps) else {
                    continue;
                };
                // The first partner that is there and reads.
                let english = english
                    .iter()
                    .find_map(|en| messages(en, *format, &mut stamps));
                match english {
                    Some(english) => out.extend(from_json_pair(&english, &japanese)),
                    None => out.extend(from_json_keyed_by_english(&japanese)),
                }
            }
        }
    }
    (out, stamps)
}

/// The messages under a file's one top-level key when that key is its locale (Rails' `ja:` and
/// `en:`), so the two files' keys pair.
fn without_locale_root(value: Value) -> Value {
    match value {
        Value::Object(mut map)
            if map.len() == 1
                && map
                    .keys()
                    .all(|k| JAPANESE.contains(&k.as_str()) || ENGLISH.contains(&k.as_str())) =>
        {
            let key = map.keys().next().cloned().unwrap_or_default();
            map.remove(&key).unwrap_or(Value::Null)
        }
        other => other,
    }
}

/// The dictionary's text for `translations`: one line per Japanese message, its English
/// renderings as the glosses of one sense, the most frequent first.
pub fn dictionary_text(translations: &[Translation]) -> String {
    let mut by_japanese: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
    for t in translations {
        let renderings = by_japanese.entry(&t.japanese).or_default();
        match renderings
            .iter_mut()
            .find(|(e, _)| e.eq_ignore_ascii_case(&t.english))
        {
            Some((_, n)) => *n += 1,
            None => renderings.push((&t.english, 1)),
        }
    }
    let mut text = String::new();
    for (japanese, mut renderings) in by_japanese {
        renderings.sort_by_key(|r| std::cmp::Reverse(r.1));
        let glosses: Vec<&str> = renderings.iter().map(|(e, _)| *e).collect();
        text.push_str(japanese);
        text.push('\t');
        text.push_str(&glosses.join("; "));
        text.push('\n');
    }
    text
}

/// What is kept of a project: the files read and the dictionary built on them.
struct Kept {
    found: Vec<(String, Catalogue)>,
    stamps: Vec<Stamp>,
    general: Option<Arc<Dictionary>>,
    dictionary: Option<Arc<Dictionary>>,
}

/// The dictionary for `ws`'s requests: its translations ([`Dictionary::layered`] over
/// `general`), or `general` itself when the project has none.
pub fn layered(ws: &Workspace, general: Option<Arc<Dictionary>>) -> Option<Arc<Dictionary>> {
    type Store = Mutex<HashMap<PathBuf, Kept>>;
    static KEPT: OnceLock<Store> = OnceLock::new();
    let kept = KEPT.get_or_init(Default::default);
    let root = ws.root().to_path_buf();
    let found = {
        let store = kept.lock().unwrap_or_else(|p| p.into_inner());
        match store.get(&root) {
            Some(k)
                if same_dictionary(&k.general, &general)
                    && k.stamps.iter().all(Stamp::unchanged) =>
            {
                return k.dictionary.clone().or(general);
            }
            Some(k) => Some(k.found.clone()),
            None => None,
        }
    };
    // Walked and read outside the lock: another project's requests need not wait.
    let found = found.unwrap_or_else(|| find(ws));
    let (translations, stamps) = read(ws, &found);
    let dictionary = if translations.is_empty() {
        None
    } else {
        match Dictionary::layered(dictionary_text(&translations), general.clone()) {
            Ok(d) => {
                tracing::info!(
                    "read {} translated messages from {} files of {}",
                    translations.len(),
                    stamps.len(),
                    root.display()
                );
                Some(Arc::new(d))
            }
            Err(line) => {
                tracing::warn!(
                    "the translations of {} did not read (line {line})",
                    root.display()
                );
                None
            }
        }
    };
    kept.lock().unwrap_or_else(|p| p.into_inner()).insert(
        root,
        Kept {
            found,
            stamps,
            general: general.clone(),
            dictionary: dictionary.clone(),
        },
    );
    dictionary.or(general)
}

fn same_dictionary(a: &Option<Arc<Dictionary>>, b: &Option<Arc<Dictionary>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(ts: &[Translation]) -> Vec<(&str, &str)> {
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

    /// JSON files pair by key path, nested or compiled; a file without an English partner is
    /// read by its keys when they are English text.
    #[test]
    fn json_message_files_pair_by_key() {
        let en = serde_json::json!({
            "campaigns": {"new": "New campaign", "title": "Campaigns"},
            "label.add": [{"type": 0, "value": "Add"}],
            "only.en": "Lists"
        });
        let ja = serde_json::json!({
            "campaigns": {"new": "新規キャンペーン", "title": "キャンペーン"},
            "label.add": [{"type": 0, "value": "追加"}],
            "only.ja": "購読者"
        });
        assert_eq!(
            pairs(&from_json_pair(&en, &ja)),
            [
                ("新規キャンペーン", "New campaign"),
                ("キャンペーン", "Campaigns"),
                ("追加", "Add"),
            ]
        );
        let laravel = serde_json::json!({"Log in": "ログイン", "auth.failed": "認証失敗"});
        assert_eq!(
            pairs(&from_json_keyed_by_english(&laravel)),
            [("ログイン", "Log in")]
        );
    }

    #[test]
    fn translation_files_are_known_by_their_paths() {
        assert_eq!(
            catalogue("babybuddy/locale/ja/LC_MESSAGES/django.po"),
            Some(Catalogue::Po)
        );
        assert_eq!(catalogue("locale/de/LC_MESSAGES/django.po"), None);
        let english = |rel: &str| match catalogue(rel) {
            Some(Catalogue::Messages { english, format }) => (english, format),
            other => panic!("{rel} is a message file, not {other:?}"),
        };
        let (paired, format) = english("i18n/ja.json");
        assert_eq!((paired[0].as_str(), format), ("i18n/en.json", Format::Json));
        assert!(paired.contains(&"i18n/en-US.json".to_string()));
        let (paired, _) = english("src/locales/ja/common.json");
        assert_eq!(paired[0], "src/locales/en/common.json");
        let (paired, format) = english("config/locales/devise.ja.yml");
        assert_eq!(
            (paired[0].as_str(), format),
            ("config/locales/devise.en.yml", Format::Yaml)
        );
        assert_eq!(catalogue("config/locales/devise.fr.yml"), None);
        assert_eq!(catalogue("package.json"), None);
        assert_eq!(catalogue("src/java/App.json"), None);
    }

    /// Rails' YAML files pair under their locale keys.
    #[test]
    fn rails_yaml_files_pair_under_their_locale_keys() {
        let dir = tempfile::tempdir().unwrap();
        let locales = dir.path().join("config/locales");
        std::fs::create_dir_all(&locales).unwrap();
        std::fs::write(
            locales.join("en.yml"),
            "en:\n  stories:\n    hide: Hide\n    flag: \"Flag story\"\n",
        )
        .unwrap();
        std::fs::write(
            locales.join("ja.yml"),
            "ja:\n  stories:\n    hide: 非表示\n    flag: ストーリーを通報\n",
        )
        .unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let found = find(&ws);
        let (translations, stamps) = read(&ws, &found);
        assert_eq!(
            pairs(&translations),
            [("ストーリーを通報", "Flag story"), ("非表示", "Hide")]
        );
        assert_eq!(stamps.len(), 2);
    }

    /// An English partner that leads outside the project is not read (the Japanese file is
    /// then read by its keys), and a file that does not parse gives nothing.
    #[cfg(unix)]
    #[test]
    fn files_outside_the_project_or_broken_give_nothing() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(
            outside.path().join("en.json"),
            r#"{"nav": {"home": "Home"}}"#,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let i18n = dir.path().join("i18n");
        std::fs::create_dir_all(&i18n).unwrap();
        std::os::unix::fs::symlink(outside.path().join("en.json"), i18n.join("en.json")).unwrap();
        std::fs::write(i18n.join("ja.json"), r#"{"nav": {"home": "ホーム"}}"#).unwrap();
        std::fs::write(i18n.join("ja-JP.json"), "{ not json").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let found = find(&ws);
        assert_eq!(found.len(), 2, "{found:?}");
        let (translations, _) = read(&ws, &found);
        assert!(translations.is_empty(), "{translations:?}");
    }

    /// A project's catalogue is found by a walk and read again when it changes; a project
    /// without one gets the general dictionary back.
    #[test]
    fn a_projects_catalogue_is_read_and_read_again_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let po = dir.path().join("locale/ja/LC_MESSAGES/django.po");
        std::fs::create_dir_all(po.parent().unwrap()).unwrap();
        std::fs::write(&po, "msgid \"Feeding\"\nmsgstr \"授乳\"\n").unwrap();
        std::fs::write(dir.path().join("app.py"), "class Feeding:\n    pass\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let found = layered(&ws, None).expect("the catalogue is read");
        let words = found.words("授乳の記録", |_| true);
        assert_eq!((words[0].word, words[0].project), ("授乳", true));
        assert!(found.words("昼寝", |_| true).is_empty());

        std::fs::write(
            &po,
            "msgid \"Feeding\"\nmsgstr \"授乳\"\n\nmsgid \"Nap\"\nmsgstr \"昼寝\"\n",
        )
        .unwrap();
        let again = layered(&ws, None).unwrap();
        assert_eq!(again.words("昼寝", |_| true).len(), 1);

        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("app.py"), "x = 1\n").unwrap();
        let ws = Workspace::open(plain.path()).unwrap();
        let general = Arc::new(Dictionary::parse("昼寝\tnap\n".into()).unwrap());
        let got = layered(&ws, Some(general.clone())).unwrap();
        assert!(Arc::ptr_eq(&got, &general));
    }

    /// The same Japanese from several messages is one line, its most frequent English first.
    #[test]
    fn the_dictionary_text_groups_renderings() {
        let t = |ja: &str, en: &str| Translation {
            english: en.into(),
            japanese: ja.into(),
        };
        let text = dictionary_text(&[
            t("授乳", "Feedings"),
            t("授乳", "Feeding"),
            t("授乳", "Feeding"),
            t("体重", "Weight"),
        ]);
        assert_eq!(text, "体重\tWeight\n授乳\tFeeding; Feedings\n");
    }
}
