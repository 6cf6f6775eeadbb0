//! The project's own translations: the English and Japanese of its user interface, read as a
//! dictionary that comes before the general one.
//!
//! A project translated into Japanese has already said what its Japanese words mean: a baby
//! tracker's catalogue renders "Feeding" as 授乳, where a general dictionary gives 授乳 as
//! "breastfeeding" and the code says `Feeding`. A request is written in the words its users see,
//! so the project's translations are the surest bridge from a Japanese request to the project's
//! names.
//!
//! Read here ([`formats`]): gettext and XLIFF catalogues, which hold both languages
//! (`…/ja/LC_MESSAGES/*.po`, `ja.po`, `messages.ja.xlf`); and files of one language by key, each
//! Japanese one paired by key with the English file beside it (`en`, `en-US`, `en_US`, `en-GB`;
//! for Java the default bundle; for Android the default resources): JSON (`ja.json`,
//! `locales/ja/*.json`, compiled ICU messages), Flutter's ARB (`app_ja.arb`), YAML (Rails'
//! `config/locales/ja.yml`, `devise.ja.yml`), Java's properties (`messages_ja.properties`),
//! Laravel's PHP arrays (`lang/ja/auth.php`) and Android's string resources
//! (`res/values-ja/strings.xml`). A JSON or YAML file without an English partner is read by its
//! keys when they are English text (Laravel's `lang/ja.json`).
//!
//! Only short messages are kept: a Japanese word or phrase of at most [`MAX_JAPANESE_CHARS`]
//! characters, without markup or placeholders, rendered by at most [`MAX_ENGLISH_WORDS`] English
//! words. Sentences say too much to stand for one word of a request.
//!
//! The files are found by a walk when a project first needs them, and read again when one of
//! them changes (size, or a settled modification time as the index's directory stamps take
//! it). A translation file added later is found when the server starts again.

mod formats;

use super::dictionary::Dictionary;
use super::roles::{FileRole, role_of};
use crate::index::dir_stamps::stable_nanos;
use crate::workspace::{WalkOptions, Workspace, walk_files};
pub use formats::Translation;
use formats::{Messages, keyed_by_english, pair, value_messages};
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

/// How a file holds Japanese messages, by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Catalogue {
    /// Both languages in the one file.
    Bilingual(Bilingual),
    /// Japanese messages by key, with the English files of the same keys it may pair with
    /// (relative paths, the likeliest first).
    Keyed {
        format: Format,
        english: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bilingual {
    /// gettext (`ja.po`, `…/ja/LC_MESSAGES/django.po`).
    Po,
    /// XLIFF (`messages.ja.xlf`).
    Xliff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// JSON (`ja.json`, `locales/ja/common.json`) and Flutter's ARB (`app_ja.arb`).
    Json,
    /// YAML (Rails' `config/locales/ja.yml`).
    Yaml,
    /// Java's properties (`messages_ja.properties`).
    Properties,
    /// Laravel's PHP arrays (`lang/ja/auth.php`).
    Php,
    /// Android's string resources (`res/values-ja/strings.xml`).
    Android,
    /// TOML (go-i18n's `active.ja.toml`, Hugo's `i18n/ja.toml`).
    Toml,
    /// Fluent (`locales/ja/main.ftl`).
    Fluent,
}

impl Format {
    /// Whether a Japanese file of this format without an English partner may be keyed by the
    /// English text itself (Laravel's `lang/ja.json`). The other formats' keys are identifiers.
    fn may_key_by_english(self) -> bool {
        matches!(self, Format::Json | Format::Yaml)
    }
}

fn is_japanese(locale: &str) -> bool {
    JAPANESE.contains(&locale)
}

/// Whether `rel` is a Japanese translation file, and of which kind: a translation catalogue
/// as [`role_of`] knows them, in Japanese by its name (`ja.json`, Rails' `devise.ja.yml`,
/// `messages_ja.properties`) or its directory (`locales/ja/common.json`, `lang/ja/auth.php`,
/// Android's `values-ja`).
fn catalogue(rel: &str) -> Option<Catalogue> {
    if role_of(rel) != FileRole::Translations {
        return None;
    }
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let (stem, ext) = name.rsplit_once('.')?;
    let dirs: Vec<&str> = dir.split('/').filter(|d| !d.is_empty()).collect();
    let named = name_locale(stem);
    let in_japanese_dir = dirs.iter().rposition(|d| is_japanese(d));
    let bilingual = |kind| (named.is_some() || in_japanese_dir.is_some()).then_some(kind);
    let format = match ext {
        "po" => return bilingual(Catalogue::Bilingual(Bilingual::Po)),
        "xlf" | "xliff" => return bilingual(Catalogue::Bilingual(Bilingual::Xliff)),
        "xml" => return android(&dirs, name),
        "json" | "arb" => Format::Json,
        "yml" | "yaml" => Format::Yaml,
        "properties" => Format::Properties,
        "toml" => Format::Toml,
        "ftl" => Format::Fluent,
        // Laravel's language arrays' extension: not a language id.
        "php" => Format::Php,
        _ => return None,
    };
    let english: Vec<String> = if let Some((prefix, separator)) = named {
        let mut names: Vec<String> = ENGLISH
            .iter()
            .map(|en| match prefix {
                Some(prefix) => format!("{prefix}{separator}{en}.{ext}"),
                None => format!("{en}.{ext}"),
            })
            .collect();
        // Java's default bundle (`messages.properties`) is the English one in most projects.
        if let (Format::Properties, Some(prefix)) = (format, prefix) {
            names.push(format!("{prefix}.{ext}"));
        }
        names.iter().map(|name| join(dir, name)).collect()
    } else {
        // `locales/ja/common.json` pairs with `locales/en/common.json`.
        let at = in_japanese_dir?;
        ENGLISH
            .iter()
            .map(|en| {
                let mut parts = dirs.clone();
                parts[at] = en;
                join(&parts.join("/"), name)
            })
            .collect()
    };
    Some(Catalogue::Keyed { format, english })
}

/// The Japanese locale a file's name ends in: the whole stem (`ja`, `ja_JP`), or its last part
/// after a `.` or `_` (`devise.ja`, `messages_ja_JP`). With the part before it and the separator.
fn name_locale(stem: &str) -> Option<(Option<&str>, char)> {
    if is_japanese(stem) {
        return Some((None, '.'));
    }
    JAPANESE.iter().find_map(|locale| {
        let before = stem.strip_suffix(locale)?;
        let prefix = before.strip_suffix(['.', '_'])?;
        let separator = before.chars().next_back()?;
        (!prefix.is_empty()).then_some((Some(prefix), separator))
    })
}

/// Android's string resources in Japanese (`res/values-ja/strings.xml`, `values-ja-rJP`), with
/// the default resources beside them (`values`, the English in most apps) or `values-en`.
fn android(dirs: &[&str], name: &str) -> Option<Catalogue> {
    let (last, parents) = dirs.split_last()?;
    if !matches!(*last, "values-ja" | "values-ja-rJP") {
        return None;
    }
    let parent = parents.join("/");
    let english = ["values", "values-en", "values-en-rUS", "values-en-rGB"]
        .iter()
        .map(|values| join(&join(&parent, values), name))
        .collect();
    Some(Catalogue::Keyed {
        format: Format::Android,
        english,
    })
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
    let globs = [
        "*.po",
        "*.xlf",
        "*.xliff",
        "*.json",
        "*.arb",
        "*.yml",
        "*.yaml",
        "*.properties",
        "*.php",
        "*.xml",
        "*.toml",
        "*.ftl",
    ]
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
        let bytes = std::fs::read(&resolved.abs).ok()?;
        // Older Java bundles are Latin-1 (their Japanese is in `\u` escapes).
        Some(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| e.into_bytes().into_iter().map(char::from).collect()),
        )
    };
    let messages = |rel: &str, format: Format, stamps: &mut Vec<Stamp>| -> Option<Messages> {
        let text = text(rel, stamps)?;
        Some(match format {
            Format::Json => value_messages(&without_locale_root(serde_json::from_str(&text).ok()?)),
            Format::Yaml => {
                value_messages(&without_locale_root(serde_yaml_ng::from_str(&text).ok()?))
            }
            Format::Properties => formats::properties(&text),
            Format::Php => formats::php_array(&text),
            Format::Android => formats::android_strings(&text),
            Format::Toml => formats::toml(&text),
            Format::Fluent => formats::fluent(&text),
        })
    };
    for (rel, kind) in found {
        match kind {
            Catalogue::Bilingual(kind) => {
                if let Some(text) = text(rel, &mut stamps) {
                    out.extend(match kind {
                        Bilingual::Po => formats::from_po(&text),
                        Bilingual::Xliff => formats::from_xliff(&text),
                    });
                }
            }
            Catalogue::Keyed { format, english } => {
                let Some(japanese) = messages(rel, *format, &mut stamps) else {
                    continue;
                };
                // The first partner that is there and reads.
                let english = english
                    .iter()
                    .find_map(|en| messages(en, *format, &mut stamps));
                match english {
                    Some(english) => out.extend(pair(english, japanese)),
                    None if format.may_key_by_english() => out.extend(keyed_by_english(japanese)),
                    None => {}
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
/// renderings as the glosses of one sense, the most frequent first, and of those as frequent the
/// shortest (タグ is "Tag" before "Page Tags": the longer one names its context too).
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
        renderings.sort_by_key(|(english, n)| {
            (std::cmp::Reverse(*n), english.split_whitespace().count())
        });
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
    use super::formats::tests::pairs;
    use super::*;

    #[test]
    fn translation_files_are_known_by_their_paths() {
        let bilingual = |rel: &str| match catalogue(rel) {
            Some(Catalogue::Bilingual(kind)) => kind,
            other => panic!("{rel} holds both languages, not {other:?}"),
        };
        assert_eq!(
            bilingual("babybuddy/locale/ja/LC_MESSAGES/django.po"),
            Bilingual::Po
        );
        assert_eq!(bilingual("locale/ja_JP.po"), Bilingual::Po);
        assert_eq!(bilingual("translations/messages.ja.xlf"), Bilingual::Xliff);
        assert_eq!(bilingual("src/locale/messages.ja.xlf"), Bilingual::Xliff);
        assert_eq!(catalogue("locale/de/LC_MESSAGES/django.po"), None);
        assert_eq!(catalogue("translations/messages.fr.xlf"), None);
        let english = |rel: &str| match catalogue(rel) {
            Some(Catalogue::Keyed { english, format }) => (english, format),
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
        let (paired, format) = english("lib/l10n/app_ja.arb");
        assert_eq!(
            (paired[0].as_str(), format),
            ("lib/l10n/app_en.arb", Format::Json)
        );
        let (paired, format) = english("src/main/resources/messages/messages_ja.properties");
        assert_eq!(format, Format::Properties);
        assert_eq!(
            paired[0],
            "src/main/resources/messages/messages_en.properties"
        );
        assert!(paired.contains(&"src/main/resources/messages/messages.properties".to_string()));
        let (paired, _) = english("src/main/resources/i18n/messages_ja_JP.properties");
        assert!(paired.contains(&"src/main/resources/i18n/messages.properties".to_string()));
        let (paired, format) = english("resources/lang/ja/auth.php");
        assert_eq!(
            (paired[0].as_str(), format),
            ("resources/lang/en/auth.php", Format::Php)
        );
        let (paired, format) = english("app/src/main/res/values-ja/strings.xml");
        assert_eq!(
            (paired[0].as_str(), format),
            ("app/src/main/res/values/strings.xml", Format::Android)
        );
        let (paired, format) = english("i18n/ja.toml");
        assert_eq!((paired[0].as_str(), format), ("i18n/en.toml", Format::Toml));
        let (paired, format) = english("locales/ja/main.ftl");
        assert_eq!(format, Format::Fluent);
        assert!(paired.contains(&"locales/en-US/main.ftl".to_string()));
        assert_eq!(catalogue("config/locales/devise.fr.yml"), None);
        assert_eq!(catalogue("lang/fr/auth.php"), None);
        assert_eq!(catalogue("app/src/main/res/values-fr/strings.xml"), None);
        assert_eq!(catalogue("app/src/main/res/values/strings.xml"), None);
        assert_eq!(
            catalogue("src/main/resources/application_dev.properties"),
            None
        );
        assert_eq!(catalogue("pom.xml"), None);
        assert_eq!(catalogue("package.json"), None);
        assert_eq!(catalogue("src/java/App.json"), None);
    }

    /// Each keyed format pairs with its English file on disk: Java's default bundle, Laravel's
    /// `lang/en`, Android's default resources; a Laravel file without a partner gives nothing
    /// (its keys are identifiers, not English).
    #[test]
    fn keyed_formats_pair_with_their_english_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "src/main/resources/messages/messages.properties",
            "owner.find=Find Owner\nwelcome=Welcome\n",
        );
        write(
            "src/main/resources/messages/messages_ja.properties",
            "owner.find=\\u98FC\\u3044\\u4E3B\\u691C\\u7D22\n",
        );
        write("lang/en/orders.php", "<?php return ['title' => 'Orders'];");
        write("lang/ja/orders.php", "<?php return ['title' => '注文'];");
        write("lang/ja/alone.php", "<?php return ['Cart' => 'カート'];");
        write(
            "app/src/main/res/values/strings.xml",
            "<resources><string name=\"feed\">Feeding</string></resources>",
        );
        write(
            "app/src/main/res/values-ja/strings.xml",
            "<resources><string name=\"feed\">授乳</string></resources>",
        );
        write(
            "translations/messages.ja.xlf",
            "<xliff><file><trans-unit id=\"a\"><source>Invoice</source><target>請求書</target></trans-unit></file></xliff>",
        );
        write(
            "i18n/active.en.toml",
            "[OrderHistory]\nother = \"Order history\"\n",
        );
        write(
            "i18n/active.ja.toml",
            "[OrderHistory]\nother = \"注文履歴\"\n",
        );
        write("locales/en-US/main.ftl", "cart-title = Shopping cart\n");
        write("locales/ja/main.ftl", "cart-title = 買い物かご\n");
        let ws = Workspace::open(dir.path()).unwrap();
        let found = find(&ws);
        assert_eq!(found.len(), 7, "{found:?}");
        let (translations, _) = read(&ws, &found);
        let mut got = pairs(&translations);
        got.sort();
        assert_eq!(
            got,
            [
                ("授乳", "Feeding"),
                ("注文", "Orders"),
                ("注文履歴", "Order history"),
                ("請求書", "Invoice"),
                ("買い物かご", "Shopping cart"),
                ("飼い主検索", "Find Owner"),
            ]
        );
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
            t("タグ", "Page Tags"),
            t("タグ", "Tag"),
        ]);
        // As frequent, the shorter rendering first.
        assert_eq!(
            text,
            "タグ\tTag; Page Tags\n体重\tWeight\n授乳\tFeeding; Feedings\n"
        );
    }
}
