//! Loanwords: a katakana word and the English word it was borrowed from, matched by sound.
//!
//! Software Japanese writes most technical nouns as the English word sounds, in katakana
//! (リンク link, ストーリー story, ドメイン domain, ペット pet). The glossary lists the common ones,
//! but every project has nouns of its own, and a request word the server cannot read is a word
//! whose absence nobody notices: 「ペットの登録」 would be judged as "register" alone, and the
//! owner's registration would match it as well as the pet's.
//!
//! Both sides are reduced to a [`Sound`]: the consonants in the classes katakana keeps apart
//! (l and r are one, so are b and v, s and z, g and j, sh and ch), with the vowels left out
//! because katakana adds one after every consonant (ストーリー is su-to-o-ri-i for "story"). An
//! English word is read the way it is borrowed: an r before no vowel is silent (ユーザー "user",
//! カード "card"), "tion" is ション, a soft c is s. The vowels are only asked where the consonants
//! are too few to tell words apart (ペット is "pet", not "put").
//!
//! A katakana word is then looked up among the project's own identifier words ([`find`]):
//! the bridge is the project's vocabulary, not a word list.

use std::collections::HashMap;

/// A word as the consonants and first vowel katakana would write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sound {
    /// Consonant classes in order (one byte each, see [`english`]).
    consonants: Vec<u8>,
    /// Whether the word starts with a vowel sound (オリジン "origin", not リージョン "region").
    starts_with_vowel: bool,
    /// The katakana vowels the first vowel may be written with (bit set over a, i, u, e, o and
    /// the two diphthongs [`AI`] and [`EI`]).
    first_vowels: u8,
}

const A: u8 = 1;
const I: u8 = 2;
const U: u8 = 4;
const E: u8 = 8;
const O: u8 = 16;
/// アイ, as katakana borrows an English long i (サイト "site", タイプ "type"): not the ア of a
/// short a, so that サイト is not "sort" or "store".
const AI: u8 = 32;
/// エイ, as katakana borrows an English long a (メイン "main", レイアウト "layout"): not the エ of
/// a short e, so that メイン is not "men".
const EI: u8 = 64;

/// Fewer consonants than this, and the first vowels must agree too.
const FEW_CONSONANTS: usize = 3;

impl Sound {
    /// Whether a katakana word's sound (`self`) may be the English word's (`english`).
    pub fn matches(&self, english: &Sound) -> bool {
        !self.consonants.is_empty()
            && consonants_match(&self.consonants, &english.consonants)
            && self.starts_with_vowel == english.starts_with_vowel
            && (self.consonants.len() >= FEW_CONSONANTS
                || self.first_vowels & english.first_vowels != 0)
    }
}

/// Whether katakana consonants `k` spell the English ones `e`, where an optional w (`W`) may be
/// written or not.
fn consonants_match(k: &[u8], e: &[u8]) -> bool {
    match (k.split_first(), e.split_first()) {
        (_, Some((b'W', e_rest))) => {
            consonants_match(k, e_rest)
                || (k.first() == Some(&b'w') && consonants_match(&k[1..], e_rest))
        }
        (Some((kc, k_rest)), Some((ec, e_rest))) => {
            spells(*ec, *kc) && consonants_match(k_rest, e_rest)
        }
        (None, None) => true,
        _ => false,
    }
}

/// Whether the English consonant class `e` may be written with the katakana class `k`. The
/// upper-case classes are the English sounds katakana writes two ways: `S` an s before an i
/// sound (サイン "sign", シーダー "seeder"), `Z` a voiced "si" (バージョン "version"), `D` a
/// "du" (モジュール "module"), `T` a "tu" (チュートリアル "tutorial").
fn spells(e: u8, k: u8) -> bool {
    match e {
        b'S' => matches!(k, b's' | b'x'),
        b'Z' => matches!(k, b's' | b'x' | b'g'),
        b'D' => matches!(k, b'd' | b'g'),
        b'T' => matches!(k, b't' | b'x'),
        _ => e == k,
    }
}

fn vowel_bit(c: char) -> Option<u8> {
    Some(match c {
        'a' => A,
        'i' => I,
        'u' => U,
        'e' => E,
        'o' => O,
        _ => return None,
    })
}

/// One kana: the consonant classes of its onset and its vowel (`None` for ン).
fn kana(c: char) -> Option<(&'static [u8], Option<char>)> {
    const ROWS: [(&str, &[u8]); 22] = [
        ("アイウエオ", b""),
        ("カキクケコ", b"k"),
        ("ガギグゲゴ", b"g"),
        ("サ_スセソ", b"s"),
        ("ザ_ズゼゾ", b"s"),
        ("_シ___", b"x"),
        ("_ジ___", b"g"),
        ("タ__テト", b"t"),
        ("_チ___", b"x"),
        ("__ツ__", b"ts"),
        ("ダヂヅデド", b"d"),
        ("ナニヌネノ", b"n"),
        ("ハヒ_ヘホ", b"h"),
        ("__フ__", b"f"),
        ("バビブベボ", b"b"),
        ("パピプペポ", b"p"),
        ("マミムメモ", b"m"),
        ("ヤ_ユ_ヨ", b""),
        ("ラリルレロ", b"r"),
        ("ワ___ヲ", b"w"),
        ("ヴ", b"b"),
        ("ン", b"n"),
    ];
    for (row, onset) in ROWS {
        if let Some(i) = row.chars().position(|k| k == c && k != '_') {
            let vowel = match (row, c) {
                (_, 'ン') => None,
                (_, 'ヴ') => Some('u'),
                _ => Some(['a', 'i', 'u', 'e', 'o'][i]),
            };
            // ヂ and ヅ read as ジ and ズ.
            let onset: &'static [u8] = match c {
                'ヂ' => b"g",
                'ヅ' => b"s",
                _ => onset,
            };
            return Some((onset, vowel));
        }
    }
    None
}

/// The small kana that change the syllable before them: the vowel (ファ fa, ティ ti) or, for
/// ャュョ, the glide (キャ kya, written as its vowel).
fn small_vowel(c: char) -> Option<char> {
    Some(match c {
        'ァ' | 'ャ' => 'a',
        'ィ' => 'i',
        'ゥ' | 'ュ' => 'u',
        'ェ' => 'e',
        'ォ' | 'ョ' => 'o',
        _ => return None,
    })
}

/// The sound of a katakana word; `None` when it holds anything else.
pub fn katakana(word: &str) -> Option<Sound> {
    // Syllables as (onset classes, vowel); ン has no vowel.
    let mut syllables: Vec<(Vec<u8>, Option<char>)> = Vec::new();
    for c in word.chars() {
        match c {
            // The long mark and the small ッ lengthen what is there; they add no consonant.
            'ー' | 'ッ' => {}
            _ => {
                if let Some(v) = small_vowel(c) {
                    let last = syllables.last_mut()?;
                    // ウィ, ウェ, ウォ are wi, we, wo; イェ is ye.
                    if last.0.is_empty() && last.1 == Some('u') {
                        last.0 = b"w".to_vec();
                    }
                    last.1 = Some(v);
                } else {
                    let (onset, vowel) = kana(c)?;
                    syllables.push((onset.to_vec(), vowel));
                }
            }
        }
    }
    let first = syllables.first()?;
    let starts_with_vowel = first.0.is_empty();
    // The first vowel, and the next one too when the first may be katakana's own, added after a
    // consonant English ends or clusters (the ウ of ストーリー "story", the オ of トラック "track").
    // A bare イ after an ア or an エ makes it the diphthong ([`AI`], [`EI`]).
    let mut vowels = syllables.iter().enumerate().filter_map(|(at, (onset, v))| {
        let bit = v.and_then(vowel_bit)?;
        let before_i = syllables
            .get(at + 1)
            .is_some_and(|(next, v)| next.is_empty() && *v == Some('i'));
        let bit = match bit {
            A if before_i => AI,
            E if before_i => EI,
            _ => bit,
        };
        Some((onset, bit))
    });
    let first_vowels = match vowels.next() {
        Some((onset, v)) if v == U || (v == O && matches!(onset.as_slice(), b"t" | b"d")) => {
            v | vowels.next().map_or(0, |(_, next)| next)
        }
        Some((_, v)) => v,
        None => 0,
    };
    Some(Sound {
        consonants: syllables.into_iter().flat_map(|(onset, _)| onset).collect(),
        starts_with_vowel,
        first_vowels,
    })
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// The katakana vowels an English word's first vowel letters may be written with: "a" is ア or
/// エ (table テーブル), "o" オ or ア (color カラー), "oo" ウ (hook フック); "i" and "y" may be
/// the long i アイ (site サイト), as "ei", "ui" and "uy" may (height, guide, buy), and "a", "ei"
/// and "ey" the long a エイ (main メイン, eight エイト, survey サーベイ).
fn english_first_vowels(w: &[u8]) -> u8 {
    let Some(at) = w
        .iter()
        .enumerate()
        .position(|(i, &c)| is_vowel(c) || (c == b'y' && i > 0))
    else {
        return 0;
    };
    let next = w.get(at + 1).copied();
    // "er", "ir", "ur" before no vowel are アー (server サーバー, term ターム).
    let r_colored = matches!(w[at], b'e' | b'i' | b'u')
        && next == Some(b'r')
        && !w.get(at + 2).is_some_and(|&c| is_vowel(c) || c == b'y');
    let r_vowel = if r_colored { A } else { 0 };
    r_vowel
        | match (w[at], next) {
            (b'e', Some(b'w')) => U,
            (b'i', Some(b'e')) if w.get(at + 2) == Some(&b'w') => U,
            (b'o', Some(b'o')) => U,
            (b'e', Some(b'e')) => I,
            (b'a', Some(b'u' | b'w')) => O,
            (b'e', Some(b'i' | b'y')) => E | I | AI | EI,
            (b'u', Some(b'i' | b'y')) => A | U | O | AI,
            (b'a', _) => A | E | EI,
            (b'e', _) => E | I,
            (b'i' | b'y', _) => I | A | AI,
            (b'o', _) => O | A,
            (b'u', _) => A | U | O,
            _ => 0,
        }
}

/// Letter groups that always sound the same, longest first where one starts another
/// ("ssion" before "sion", "tch" and "sch" before "ch" and "sh").
const SPELLINGS: &[(&str, &[u8])] = &[
    ("ssion", b"xn"),
    ("tion", b"xn"),
    ("ture", b"x"),
    ("tch", b"x"),
    ("sch", b"sk"),
    ("sh", b"x"),
    ("ph", b"f"),
    ("th", b"s"),
    ("wh", b"w"),
    ("ck", b"k"),
    ("qu", b"k"),
    ("dg", b"g"),
];

/// The sound of an English word as katakana would borrow it; `None` for anything but ASCII
/// letters. Consonant classes: k, g (g, j), s (s, z, soft c), x (sh, ch, "tion"), t, d, n, h,
/// f, b (b, v), p, m, r (r, l), w.
pub fn english(word: &str) -> Option<Sound> {
    let w = word.to_ascii_lowercase().into_bytes();
    if w.is_empty() || !w.iter().all(u8::is_ascii_lowercase) {
        return None;
    }
    let at = |i: usize| w.get(i).copied();
    let vowel_at = |i: usize| at(i).is_some_and(|c| is_vowel(c) || c == b'y');
    let rest = |i: usize, s: &str| w[i..].starts_with(s.as_bytes());
    let mut out: Vec<u8> = Vec::new();
    // Doubled letters ("tt", "ss", "cc") are one consonant: a class repeated with no vowel
    // between is pushed once.
    let mut last_vowel = true;
    let push = |out: &mut Vec<u8>, classes: &[u8], last_vowel: &mut bool| {
        for &c in classes {
            if *last_vowel || out.last() != Some(&c) {
                out.push(c);
            }
            *last_vowel = false;
        }
    };
    let mut i = 0;
    while i < w.len() {
        let c = w[i];
        // Whether an i sound follows (i, y, ee, ea): katakana writes s, c, z, x before it as シ, ジ.
        let i_sound =
            |j: usize| matches!(at(j), Some(b'i' | b'y')) || rest(j, "ee") || rest(j, "ea");
        let before_consonant = |j: usize| at(j).is_none_or(|c| !is_vowel(c) && c != b'y');
        let spelled = SPELLINGS.iter().find(|(letters, _)| rest(i, letters));
        let (classes, step): (&[u8], usize) = if let Some((letters, classes)) = spelled {
            (classes, letters.len())
        } else if rest(i, "sion") {
            // Voiced after a vowel or r (version バージョン), not after a consonant (mansion).
            let voiced = i > 0 && (is_vowel(w[i - 1]) || w[i - 1] == b'r');
            (if voiced { b"Zn" } else { b"xn" }, 4)
        } else if rest(i, "ch") {
            // ク in words from Greek (chrome クローム, archive アーカイブ), チ elsewhere.
            let greek = at(i + 2) == Some(b'r')
                || (i >= 2 && &w[i - 2..i] == b"ar" && at(i + 2) == Some(b'i'));
            (if greek { b"k" } else { b"x" }, 2)
        } else if rest(i, "gn") && (before_consonant(i + 2) || (i == 2 && w.starts_with(b"sign"))) {
            // A g before n is silent at the end or before a consonant (design, signin).
            (b"n", 2)
        } else if (rest(i, "mn") || rest(i, "mb")) && before_consonant(i + 2) {
            // column カラム, thumbnail サムネイル.
            (b"m", 2)
        } else if rest(i, "hoo") {
            // Katakana has no "hu": hook フック.
            (b"f", 1)
        } else if rest(i, "gh") {
            // Written g at the start (ghost ゴースト), silent after a vowel (light ライト).
            (if i == 0 { b"g" } else { b"" }, 2)
        } else {
            let classes: &[u8] = match c {
                b'a' | b'e' | b'i' | b'o' | b'u' => {
                    last_vowel = true;
                    b""
                }
                // A leading y before a vowel is a glide (katakana's ユ, ヨ), otherwise a vowel.
                b'y' => {
                    last_vowel = true;
                    b""
                }
                b'c' if i_sound(i + 1) => b"S",
                b'c' if at(i + 1) == Some(b'e') => b"s",
                b'c' | b'q' | b'k' => b"k",
                b'g' | b'j' => b"g",
                b'x' if i_sound(i + 1) => b"kS",
                b'x' => b"ks",
                b's' if i_sound(i + 1) => b"S",
                b'z' if i_sound(i + 1) => b"Z",
                b'z' | b's' => b"s",
                b'v' | b'b' => b"b",
                b'l' => b"r",
                // An r before no vowel is not written (user ユーザー, card カード), nor one
                // before a final silent e (store ストア).
                b'r' if i > 0
                    && (!vowel_at(i + 1) || (at(i + 1) == Some(b'e') && i + 2 == w.len())) =>
                {
                    b""
                }
                b'r' => b"r",
                // A w before no vowel ends a vowel ("flow", "view").
                b'w' if !vowel_at(i + 1) => b"",
                // Between vowels, a w may be written (power パワー) or be part of the first
                // vowel (owner オーナー): optional.
                b'w' if i > 0 && is_vowel(w[i - 1]) => b"W",
                b'w' => b"w",
                b'm' if matches!(at(i + 1), Some(b'b' | b'p')) => b"n",
                b'm' => b"m",
                b'h' if i > 0 && !vowel_at(i + 1) => b"",
                b'h' => b"h",
                b't' if at(i + 1) == Some(b'u') => b"T",
                b't' => b"t",
                b'd' if at(i + 1) == Some(b'u') => b"D",
                b'd' => b"d",
                b'n' => b"n",
                b'f' => b"f",
                b'p' => b"p",
                _ => b"",
            };
            (classes, 1)
        };
        push(&mut out, classes, &mut last_vowel);
        i += step;
    }
    Some(Sound {
        consonants: out,
        starts_with_vowel: is_vowel(w[0]) || (w[0] == b'y' && !vowel_at(1)),
        first_vowels: english_first_vowels(&w),
    })
}

/// The words of a project's names a katakana word is looked for among, each with how many names
/// hold it and its sound, worked out once: a long katakana word is looked up in many splits.
#[derive(Debug, Default)]
pub struct Vocabulary {
    words: Vec<(String, usize, Sound)>,
    /// Each word's place in `words`: the dictionary asks for a dozen words at a time, on the
    /// search's path ([`Vocabulary::count`]).
    places: HashMap<String, usize>,
}

impl Vocabulary {
    /// From words and how many names hold each. Words shorter than three letters (`id`, `at`)
    /// sound like too much and are left out, as is anything but letters.
    pub fn new(words: impl IntoIterator<Item = (String, usize)>) -> Vocabulary {
        let mut words: Vec<(String, usize, Sound)> = words
            .into_iter()
            .filter(|(word, _)| word.len() >= 3)
            .filter_map(|(word, n)| english(&word).map(|sound| (word, n, sound)))
            .collect();
        // Most frequent first (then by word, so ties do not depend on the caller's order).
        words.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let places = words
            .iter()
            .enumerate()
            .map(|(i, (word, _, _))| (word.clone(), i))
            .collect();
        Vocabulary { words, places }
    }

    /// How many names hold `word` (0 for a word of fewer than three letters: see [`Vocabulary::new`]).
    pub fn count(&self, word: &str) -> usize {
        self.places.get(word).map_or(0, |&i| self.words[i].1)
    }
}

/// The words of `vocabulary` that `katakana_word` may have been borrowed from, most frequent
/// first (a project's own noun recurs in its names; an accidental match of sound rarely does).
/// Also a word split in two (カスタムドメイン: "custom" and "domain"), as the pair of their
/// lookups, when the whole finds nothing. Empty when nothing sounds like it.
pub fn find<'v>(katakana_word: &str, vocabulary: &'v Vocabulary) -> Vec<Vec<&'v str>> {
    let whole = lookup(katakana_word, vocabulary);
    if !whole.is_empty() {
        return vec![whole];
    }
    let chars: Vec<(usize, char)> = katakana_word.char_indices().collect();
    // Each half at least two kana long, the longest first half first.
    for split in (2..chars.len().saturating_sub(1)).rev() {
        let (at, c) = chars[split];
        if matches!(c, 'ー' | 'ッ') || small_vowel(c).is_some() {
            continue;
        }
        let left = lookup(&katakana_word[..at], vocabulary);
        if left.is_empty() {
            continue;
        }
        let right = lookup(&katakana_word[at..], vocabulary);
        if !right.is_empty() {
            return vec![left, right];
        }
    }
    Vec::new()
}

/// How many of the best matches a katakana word keeps.
const MAX_MATCHES: usize = 3;

fn lookup<'v>(katakana_word: &str, vocabulary: &'v Vocabulary) -> Vec<&'v str> {
    let Some(sound) = katakana(katakana_word) else {
        return Vec::new();
    };
    vocabulary
        .words
        .iter()
        .filter(|(_, _, english)| sound.matches(english))
        .take(MAX_MATCHES)
        .map(|(word, _, _)| word.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sounds_like(katakana_word: &str, english_word: &str) -> bool {
        let k = katakana(katakana_word).expect("katakana");
        let e = english(english_word).expect("english");
        k.matches(&e)
    }

    #[test]
    fn common_loanwords_match_their_english_word() {
        // Nouns and verbs of software Japanese, across the sounds the rules handle: silent r,
        // "tion", soft c and g, l as r, v as b, doubled letters, glides and small kana.
        let pairs = [
            ("ユーザー", "user"),
            ("パスワード", "password"),
            ("メール", "mail"),
            ("ファイル", "file"),
            ("リンク", "link"),
            ("ストーリー", "story"),
            ("ペット", "pet"),
            ("ドメイン", "domain"),
            ("カスタム", "custom"),
            ("プロモーション", "promotion"),
            ("エンティティ", "entity"),
            ("キー", "key"),
            ("オリジン", "origin"),
            ("プライベート", "private"),
            ("クリック", "click"),
            ("チェック", "check"),
            ("アカウント", "account"),
            ("プロフィール", "profile"),
            ("セッション", "session"),
            ("トークン", "token"),
            ("キャッシュ", "cache"),
            ("テーブル", "table"),
            ("クエリ", "query"),
            ("フィルター", "filter"),
            ("ページ", "page"),
            ("メッセージ", "message"),
            ("テンプレート", "template"),
            ("イベント", "event"),
            ("サーバー", "server"),
            ("リクエスト", "request"),
            ("ボタン", "button"),
            ("フォーム", "form"),
            ("ダッシュボード", "dashboard"),
            ("ウィジェット", "widget"),
            ("スレッド", "thread"),
            ("オーダー", "order"),
            ("カート", "cart"),
            ("インデックス", "index"),
            ("バッジ", "badge"),
            ("ピクチャー", "picture"),
            ("グループ", "group"),
            ("ウェブ", "web"),
            ("プラグイン", "plugin"),
            ("アクティビティ", "activity"),
            ("バッチ", "batch"),
            ("レジスター", "register"),
            ("アクセス", "access"),
            ("キュー", "queue"),
            ("サインイン", "signin"),
            ("カラム", "column"),
            ("スキーマ", "schema"),
            ("ビュー", "view"),
            ("フック", "hook"),
            ("シーダー", "seeder"),
            ("プロキシ", "proxy"),
            ("バージョン", "version"),
            ("アーカイブ", "archive"),
            ("サムネイル", "thumbnail"),
            ("モジュール", "module"),
            ("プライバシー", "privacy"),
            ("サイト", "site"),
            ("タイプ", "type"),
            ("ガイド", "guide"),
            ("メイン", "main"),
            ("レイアウト", "layout"),
            ("アイテム", "item"),
            ("エイト", "eight"),
        ];
        for (k, e) in pairs {
            assert!(sounds_like(k, e), "{k} should sound like {e}");
        }
    }

    #[test]
    fn words_that_only_share_consonants_do_not_match() {
        for (k, e) in [
            ("ペット", "put"),
            ("ペット", "pot"),
            ("オリジン", "region"),
            ("リンク", "lock"),
            ("ストーリー", "store"),
            ("キー", "ok"),
            ("ドメイン", "admin"),
            ("サイト", "sort"),
            ("サイト", "store"),
            ("サイト", "set"),
            ("メイン", "men"),
            ("タイプ", "tap"),
        ] {
            assert!(!sounds_like(k, e), "{k} should not sound like {e}");
        }
    }

    #[test]
    fn a_word_is_found_in_the_project_vocabulary_most_frequent_first() {
        let vocabulary = Vocabulary::new(
            [("pet", 40), ("put", 12), ("pat", 1), ("owner", 30)].map(|(w, n)| (w.to_string(), n)),
        );
        assert_eq!(find("ペット", &vocabulary), vec![vec!["pet", "pat"]]);
        assert!(find("オーナー", &vocabulary).len() == 1);
        assert!(find("ドメイン", &vocabulary).is_empty());
    }

    #[test]
    fn a_compound_is_split_into_two_words() {
        let vocabulary =
            Vocabulary::new([("custom", 3), ("domain", 9)].map(|(w, n)| (w.to_string(), n)));
        assert_eq!(
            find("カスタムドメイン", &vocabulary),
            vec![vec!["custom"], vec!["domain"]]
        );
    }

    #[test]
    fn anything_but_katakana_or_letters_has_no_sound() {
        assert_eq!(katakana("ログイン機能"), None);
        assert_eq!(english("user_name"), None);
        assert_eq!(katakana(""), None);
    }
}
