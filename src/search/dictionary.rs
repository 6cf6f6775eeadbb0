//! A general Japanese → English dictionary: the meanings of the words of a request that the
//! glossary does not list.
//!
//! The glossary holds the vocabulary every project shares (ログイン, 注文, 権限). A project's own
//! domain words — 飼い主 in a veterinary clinic, 保管庫 in a password vault, 昼寝 in a baby
//! tracker — no hand-written list can hold, and a word the server cannot read is a word whose
//! absence nobody notices. The dictionary gives such a word its English senses; the caller then
//! keeps the ones the project's own names use ([`Entry::english_words`] lists the candidates in
//! the dictionary's order), so the project chooses among a word's meanings, not the dictionary.
//!
//! The file is `ja-en.tsv` in the model directory, written by `scripts/model/provision.sh` from
//! JMdict (the Electronic Dictionary Research and Development Group's dictionary, CC BY-SA 4.0)
//! as a registry package ships it: one line per written form, the form, then one field per sense
//! holding that sense's glosses separated by `; `. Without the file the judge reads what it read
//! before: the glossary, loanwords and the model's bridge.

use crate::search::glossary;
use crate::search::loanword::Vocabulary;
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The dictionary's file name in the model directory.
pub use crate::embed::model_dir::DICTIONARY as FILE;

/// Forms longer than this many characters are not looked for: JMdict's longest common compounds
/// are far shorter, and the scan tries every length up to it at every position.
const MAX_FORM_CHARS: usize = 12;

/// Senses of a word read for its English words: later senses drift to figurative and rare uses
/// (キャンペーン's third sense is a military campaign).
const MAX_SENSES: usize = 3;

/// English words a word stands for at most ([`Entry::english_words`]).
const MAX_WORDS: usize = 16;

/// Why the dictionary could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DictionaryError {
    #[error("cannot read the dictionary {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the dictionary {path} is not one (line {line}: no tab-separated senses)")]
    Malformed { path: PathBuf, line: usize },
}

/// Written forms and their senses.
#[derive(Debug, Default)]
pub struct Dictionary {
    /// The file's text: most of its 260,000 forms are never asked for, so nothing is split or
    /// copied until a lookup. Reading and indexing the file takes about 50 ms on a 2-core
    /// machine; a map of its forms took about 0.4 s to build, inside the first verdict that
    /// needed it.
    text: String,
    /// Where each line starts, ordered by the line's form, for a binary search.
    lines: Vec<u32>,
    /// For a project's translations ([`Dictionary::layered`]): the general dictionary, read for
    /// the forms the translations do not hold.
    base: Option<Arc<Dictionary>>,
    /// Whether this dictionary's own forms are a project's translations.
    project: bool,
}

/// A word of a request found in the dictionary ([`Dictionary::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'d, 't> {
    /// Byte offset of the word in the request.
    pub at: usize,
    /// The word as the request writes it.
    pub word: &'t str,
    senses: &'d str,
    /// Whether the project's translations hold the word ([`Dictionary::layered`]).
    pub project: bool,
}

impl Dictionary {
    /// Reads a dictionary file (see the module's documentation for the format).
    pub fn load(path: &Path) -> Result<Dictionary, DictionaryError> {
        let text = std::fs::read_to_string(path).map_err(|source| DictionaryError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Dictionary::parse(text).map_err(|line| DictionaryError::Malformed {
            path: path.to_path_buf(),
            line,
        })
    }

    /// Parses the file's text; the error is the 1-based number of the first malformed line.
    /// One pass over the bytes with `memchr`: this runs inside the first verdict that needs the
    /// dictionary, and line iterators over 13 MB at this crate's optimisation level took 0.1 s
    /// (20 ms now).
    pub fn parse(text: String) -> Result<Dictionary, usize> {
        if u32::try_from(text.len()).is_err() {
            return Err(1);
        }
        let bytes = text.as_bytes();
        let mut lines: Vec<u32> = Vec::with_capacity(bytes.len() / 48);
        let mut sorted = true;
        let mut previous: &[u8] = b"";
        let (mut at, mut number) = (0, 0);
        while at < bytes.len() {
            number += 1;
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let mut line = &bytes[at..end];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            if !line.is_empty() {
                match memchr::memchr(b'\t', line) {
                    Some(tab)
                        if tab > 0 && line[tab + 1..].iter().any(|b| !b.is_ascii_whitespace()) =>
                    {
                        let form = &line[..tab];
                        sorted &= previous <= form;
                        previous = form;
                        lines.push(at as u32);
                    }
                    _ => return Err(number),
                }
            }
            at = end + 1;
        }
        let mut dictionary = Dictionary {
            text,
            lines,
            ..Dictionary::default()
        };
        // The provisioner writes the forms in order; a file in another order is still read.
        if !sorted {
            let mut lines = std::mem::take(&mut dictionary.lines);
            lines.sort_by(|a, b| dictionary.form_at(*a).cmp(dictionary.form_at(*b)));
            dictionary.lines = lines;
        }
        Ok(dictionary)
    }

    /// A project's translations (`text`, in the file's format: see
    /// [`crate::search::translations`]) over the general dictionary `base`. A form the
    /// translations hold has their senses first and then the general one's; any other form is
    /// looked up in `base`. The error is the 1-based number of the first malformed line.
    pub fn layered(text: String, base: Option<Arc<Dictionary>>) -> Result<Dictionary, usize> {
        let mut merged = String::with_capacity(text.len());
        for line in text.lines() {
            merged.push_str(line);
            // A line without senses stays malformed: `parse` reports it.
            let form = line.split_once('\t').map(|(form, _)| form);
            if let Some(senses) = form.zip(base.as_deref()).and_then(|(f, b)| b.senses(f)) {
                merged.push('\t');
                merged.push_str(senses);
            }
            merged.push('\n');
        }
        let mut dictionary = Dictionary::parse(merged)?;
        dictionary.base = base;
        dictionary.project = true;
        Ok(dictionary)
    }

    /// The senses of `form` and whether they are the project's: its own, or its base's.
    fn lookup(&self, form: &str) -> Option<(&str, bool)> {
        match self.senses(form) {
            Some(senses) => Some((senses, self.project)),
            None => self.base.as_deref()?.senses(form).map(|s| (s, false)),
        }
    }

    /// The form of the line starting at `at`.
    fn form_at(&self, at: u32) -> &str {
        let line = &self.text[at as usize..];
        &line[..line.find('\t').unwrap_or(line.len())]
    }

    /// The senses of `form`, tab-separated, if the dictionary has it.
    fn senses(&self, form: &str) -> Option<&str> {
        let i = self
            .lines
            .binary_search_by(|&at| self.form_at(at).cmp(form))
            .ok()?;
        let line = &self.text[self.lines[i] as usize..];
        let line = &line[..line.find(['\n', '\r']).unwrap_or(line.len())];
        line.split_once('\t').map(|(_, senses)| senses)
    }

    /// The dictionary next to the model in `model_dir`, read once per directory; `None` when it
    /// is not there or cannot be read (said once in the log).
    pub fn installed(model_dir: &Path) -> Option<Arc<Dictionary>> {
        type Loaded = Mutex<HashMap<PathBuf, Option<Arc<Dictionary>>>>;
        static LOADED: OnceLock<Loaded> = OnceLock::new();
        let loaded = LOADED.get_or_init(Default::default);
        if let Some(found) = loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(model_dir)
        {
            return found.clone();
        }
        // Read outside the lock: another project's lookup need not wait for this file.
        let path = model_dir.join(FILE);
        let started = std::time::Instant::now();
        let found = match Dictionary::load(&path) {
            Ok(dictionary) => {
                tracing::info!(
                    "read the Japanese dictionary {}: {} forms in {:.0?}",
                    path.display(),
                    dictionary.len(),
                    started.elapsed()
                );
                Some(Arc::new(dictionary))
            }
            Err(err) => {
                tracing::info!("no Japanese dictionary: {err}");
                None
            }
        };
        loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(model_dir.to_path_buf())
            .or_insert(found)
            .clone()
    }

    /// The dictionary next to the model the project uses (its `model_dir` setting, the
    /// environment, the default location: [`crate::embed::ModelDir::resolve`]), under the
    /// project's own translations when it has some ([`crate::search::translations`]), for looking up
    /// `request`'s words. `None` also when no word of the dictionary could start in the request
    /// ([`may_hold_words`]): an English request, or a Japanese one the glossary reads word by
    /// word, neither reads the file nor makes the caller build what it looks words up in. A
    /// project's translations may still hold one of the glossary's words
    /// ([`ProjectWord::over`]), so for such a request only a project that has some
    /// gets its dictionary.
    pub fn for_request(ws: &Workspace, request: &str) -> Option<Arc<Dictionary>> {
        if may_hold_words(request) {
            Dictionary::for_project(ws)
        } else if request.chars().any(starts_word) {
            Dictionary::for_project(ws).filter(|d| d.project)
        } else {
            None
        }
    }

    /// The dictionary for `ws`'s requests: the general one under the project's translations.
    pub fn for_project(ws: &Workspace) -> Option<Arc<Dictionary>> {
        let general = crate::embed::ModelDir::resolve(ws.config.model_dir.as_deref(), ws.root())
            .ok()
            .and_then(|dir| Dictionary::installed(&dir.path));
        crate::search::translations::layered(ws, general)
    }

    /// Number of written forms.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The dictionary's words in `text`, left to right, longest form first, where `readable(at)`
    /// allows a word to cover the character at byte `at` (the caller leaves out what it reads
    /// otherwise). A word starts at a kanji or katakana character, or at hiragana that is no
    /// particle when a kanji or katakana follows in the word ([`is_word`]: ごみ箱, "trash can",
    /// whose kana is its own). Hiragana alone is a particle or an ending far more often than a
    /// word of the request (の, から, による), a word starting at a particle is one the request
    /// does not hold (からメール, "blank e-mail", in 「ログイン画面からメールで」), and a lone
    /// kanji (時, 数, 用) is usually a suffix. Hiragana inside a word is read with it (飼い主,
    /// 引き継ぐ).
    pub fn words<'d, 't>(
        &'d self,
        text: &'t str,
        readable: impl Fn(usize) -> bool,
    ) -> Vec<Entry<'d, 't>> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let (at, c) = chars[i];
            if !(starts_word(c) || starts_native_word(&text[at..])) || !readable(at) {
                i += 1;
                continue;
            }
            // The readable run from here, as far as a form may reach.
            let mut end = i;
            while end < chars.len()
                && end - i < MAX_FORM_CHARS
                && readable(chars[end].0)
                && crate::lexical::is_cjk(chars[end].1)
            {
                end += 1;
            }
            let found = (i + 2..=end).rev().find_map(|stop| {
                if !is_word(&chars[i..stop]) {
                    return None;
                }
                let until = chars.get(stop).map_or(text.len(), |&(b, _)| b);
                let word = &text[at..until];
                self.lookup(word)
                    .map(|(senses, project)| (stop, word, senses, project))
            });
            match found {
                Some((stop, word, senses, project)) => {
                    out.push(Entry {
                        at,
                        word,
                        senses,
                        project,
                    });
                    i = stop;
                }
                None => i += 1,
            }
        }
        out
    }
}

/// A word of a request the glossary does not read, found in the dictionary and in the
/// project's names ([`in_project`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectWord {
    /// Byte span of the word in the request.
    pub at: usize,
    pub end: usize,
    /// The English words of its senses that the project's names hold, in the dictionary's order
    /// (at most `limit` of [`in_project`]), each as written and as its stem.
    pub english: Vec<(String, String)>,
    /// Whether the project's own translations hold the word: then it is read before any other
    /// bridge ([`crate::search::translations`]).
    pub project: bool,
    /// Whether it is the project's translation of glossary words it lies over: a compound of
    /// them (編集履歴 as "Revisions"), read instead of them, or one of them (記事 as "Entry" in a
    /// feed reader, where the glossary says "post" and "article"), read beside the glossary's
    /// renderings: the project has said which English its code uses for the word. `None` for a
    /// word the glossary does not read.
    pub over: Option<glossary::Cover>,
}

/// The words of `request` that the glossary does not read ([`crate::search::glossary::read`]),
/// that `dictionary` knows, and some of whose English the project's names hold (`vocabulary`,
/// by stem): each with the first `limit` such English words. A word none of whose English words
/// any name holds is left out: the dictionary cannot tell which of its meanings the request
/// has (飼い主 is "owner" and "keeper"), and the project can. Also the compounds over the
/// glossary's words that the project's own translations hold, and the glossary's words they hold
/// ([`ProjectWord::over`]), and the loanwords that hold a shorter one of the glossary's.
pub fn in_project(
    request: &str,
    dictionary: &Dictionary,
    vocabulary: &Vocabulary,
    limit: usize,
) -> Vec<ProjectWord> {
    let read = glossary::read(request);
    let unread = dictionary.words(request, |at| !read[at]);
    // A second look over the whole request, for the project's own words only: the first stops
    // at the glossary's words, so it never sees 編集履歴 whole, nor the project's 記事.
    let over_glossary: Vec<(Entry, Option<glossary::Cover>)> = if read.iter().any(|&r| r) {
        dictionary
            .words(request, |_| true)
            .into_iter()
            // The project's own translations, and the katakana words that may be loanwords.
            .filter(|entry| entry.project || entry.word.chars().all(crate::lexical::is_katakana))
            .filter_map(|entry| {
                let cover = glossary::cover(request, entry.at, entry.at + entry.word.len())?;
                // A loanword the glossary reads through a shorter one inside it (プリセット
                // through リセット, "reset") is the loanword: JMdict glosses it by the English it
                // came from. Not one made of two of the glossary's words (メールサーバー), whose
                // entry would give "mail" and "server" as one word's two forms; other compounds
                // only as the project's own translations say.
                let loanword =
                    cover == glossary::Cover::Compound && !glossary::has_adjacent_words(entry.word);
                (entry.project || loanword).then_some((entry, Some(cover)))
            })
            .collect()
    } else {
        Vec::new()
    };
    unread
        .into_iter()
        .map(|entry| (entry, None))
        .chain(over_glossary)
        .filter(|(entry, _)| !glossary::is_light(entry.word))
        .filter_map(|(entry, over)| {
            // One of the glossary's words is read as the word of the project's most frequent
            // rendering: its other renderings are the word in context (タグ is "Tag" and "Page
            // Tags"), where the glossary already gives the word's usual senses.
            let (words, limit) = match over {
                Some(glossary::Cover::Word) => (entry.first_gloss_words(), 1),
                _ => (entry.english_words(), limit),
            };
            let english: Vec<(String, String)> = words
                .into_iter()
                .map(|word| {
                    let stem = crate::lexical::stem(&word);
                    (word, stem)
                })
                .filter(|(_, stem)| vocabulary.count(stem) > 0)
                .take(limit)
                .collect();
            (!english.is_empty()).then(|| ProjectWord {
                at: entry.at,
                end: entry.at + entry.word.len(),
                english,
                project: entry.project,
                over,
            })
        })
        .collect()
}

impl ProjectWord {
    /// Whether this word holds the span `at..end` of the request and more besides.
    pub fn contains(&self, at: usize, end: usize) -> bool {
        self.at <= at && end <= self.end && self.end - self.at > end - at
    }

    /// Whether this word shares any of the span `at..end` of the request (飼い主 overlaps the
    /// runs 飼 and 主).
    pub fn overlaps(&self, at: usize, end: usize) -> bool {
        self.at < end && at < self.end
    }
}

/// A run of a request that the glossary does not read ([`glossary::unread`]), with the
/// project's words that sound like it when it is a loanword.
#[derive(Debug)]
pub struct UnreadRun<'q, 'v> {
    pub unread: glossary::Unread<'q>,
    /// [`crate::search::loanword::find`]'s answer for a katakana run that is a word of its own;
    /// empty for any other run.
    pub loanwords: Vec<Vec<&'v str>>,
}

impl UnreadRun<'_, '_> {
    /// The byte span of the run in the request.
    pub fn span(&self) -> (usize, usize) {
        (self.unread.at, self.unread.at + self.unread.word.len())
    }
}

/// The runs of `request` that the glossary does not read, each with its loanwords: the words of
/// `vocabulary` (the project's names; none without one) that a katakana run sounds like. The
/// search and the judge read the rest of a run through `in_dictionary` ([`in_project`]'s words
/// of the same request), and both take a run's loanwords before its dictionary words: the
/// loanwords are the project's own. A katakana run inside a longer dictionary word is part of a
/// native compound, not a loanword (ゴミ箱 is "trash can"; by its sound ゴミ is `dummy`).
pub fn unread_runs<'q, 'v>(
    request: &'q str,
    in_dictionary: &[ProjectWord],
    vocabulary: Option<&'v Vocabulary>,
) -> Vec<UnreadRun<'q, 'v>> {
    glossary::unread(request)
        .into_iter()
        .map(|unread| {
            let (at, end) = (unread.at, unread.at + unread.word.len());
            let loanwords = match vocabulary {
                Some(vocabulary)
                    if unread.script == glossary::Script::Katakana
                        && !in_dictionary.iter().any(|w| w.contains(at, end)) =>
                {
                    crate::search::loanword::find(unread.word, vocabulary)
                }
                _ => Vec::new(),
            };
            UnreadRun { unread, loanwords }
        })
        .collect()
}

impl<'d> Entry<'d, '_> {
    /// The English words of the word's first senses, in the dictionary's order, without
    /// repeats: each gloss without its parenthesised notes ("(pet) owner" → owner), split into
    /// words, lower-case, words of grammar left out ("to take over" → take, over).
    pub fn english_words(&self) -> Vec<String> {
        let glosses = self
            .senses
            .split('\t')
            .take(MAX_SENSES)
            .flat_map(|sense| sense.split("; "));
        let mut words = distinct_words(glosses);
        words.truncate(MAX_WORDS);
        words
    }

    /// The English words of the first gloss alone: for a project's translation, its most
    /// frequent rendering ([`crate::search::translations::dictionary_text`]).
    pub fn first_gloss_words(&self) -> Vec<String> {
        distinct_words(self.senses.split(['\t', ';']).take(1))
    }
}

/// The words of `glosses` in order, without repeats: each gloss without its notes, split into
/// words, lower-case, words of grammar left out.
fn distinct_words<'s>(glosses: impl Iterator<Item = &'s str>) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for gloss in glosses {
        for word in without_notes(gloss)
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| w.len() >= 3)
            .map(str::to_ascii_lowercase)
        {
            if !GRAMMAR_WORDS.contains(&word.as_str()) && !words.contains(&word) {
                words.push(word);
            }
        }
    }
    words
}

/// English words of a gloss that name nothing a program could be about.
const GRAMMAR_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "from",
    "into",
    "onto",
    "one",
    "someone",
    "something",
    "oneself",
    "etc",
    "not",
    "that",
    "this",
    "which",
    "such",
    "being",
    "very",
    "some",
    "any",
    "its",
    "their",
    "thing",
    "things",
];

/// Whether a word of the dictionary could start anywhere in `request`: at a kanji or katakana
/// character the glossary does not read, or as a compound of two glossary words side by side
/// that the project's translations may hold ([`glossary::Cover::Compound`]).
fn may_hold_words(request: &str) -> bool {
    let read = glossary::read(request);
    request
        .char_indices()
        .any(|(at, c)| !read[at] && starts_word(c))
        || glossary::has_adjacent_words(request)
}

/// Whether a word of the dictionary may start with `c` ([`Dictionary::words`]).
fn starts_word(c: char) -> bool {
    crate::lexical::is_kanji(c) || crate::lexical::is_katakana(c)
}

/// Whether a word of the dictionary may start at hiragana here: where no particle does (を, に,
/// の, が, は, で, と, へ, も, や, か and the particles they start, から, まで, より), and a kanji or
/// katakana follows within the word ([`is_word`]).
fn starts_native_word(rest: &str) -> bool {
    const PARTICLES: &[&str] = &[
        "を", "に", "の", "が", "は", "で", "と", "へ", "も", "や", "か", "まで", "より",
    ];
    rest.chars().next().is_some_and(is_hiragana) && !PARTICLES.iter().any(|p| rest.starts_with(p))
}

/// Whether a form found in the dictionary reads as a word of a request: two kanji or katakana at
/// least (飼い主, 獣医), one kanji with the ending of a verb or an adjective (変える, 開く,
/// 新しい), or one kanji or katakana after the word's own kana (ごみ箱; see [`Dictionary::words`]
/// for where such a word may start). One kanji with any other ending is the same suffix a lone
/// kanji is (済み, 時の).
fn is_word(form: &[(usize, char)]) -> bool {
    let strong = form.iter().filter(|&&(_, c)| !is_hiragana(c)).count();
    match (strong, form.first(), form.last()) {
        (0, _, _) => false,
        (1, Some(&(_, first)), Some(&(_, last))) => {
            (is_hiragana(first) && !is_hiragana(last))
                || (form.len() > 1 && is_hiragana(last) && "うくぐすつぬぶむるい".contains(last))
        }
        _ => true,
    }
}

fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// A gloss with its parenthesised notes removed.
fn without_notes(gloss: &str) -> String {
    let mut out = String::with_capacity(gloss.len());
    let mut depth = 0usize;
    for c in gloss.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "飼い主\t(pet) owner; keeper\n\
        獣医\tveterinarian; veterinary surgeon; vet\n\
        検索\tlooking up (e.g. a word in a dictionary); search\n\
        キャンペーン\tpromotion (e.g. sales, etc.); marketing campaign\tcampaign (election, etc.); drive\tmilitary campaign\tfourth\n\
        引き継ぐ\tto take over; to hand over\n\
        から\tfrom\n\
        時\ttime; hour\n\
        時の\tcurrent\n\
        済み\tfinished\n\
        変える\tto change\n\
        ごみ箱\tgarbage can; rubbish bin; trash can\n\
        からメール\tblank email\n\
        メール\temail\n";

    fn sample() -> Dictionary {
        Dictionary::parse(SAMPLE.to_string()).unwrap()
    }

    fn words(d: &Dictionary, text: &str) -> Vec<(usize, String)> {
        d.words(text, |_| true)
            .into_iter()
            .map(|e| (e.at, e.word.to_string()))
            .collect()
    }

    #[test]
    fn finds_the_longest_words_with_their_hiragana() {
        let d = sample();
        assert_eq!(
            words(&d, "飼い主の検索"),
            vec![(0, "飼い主".to_string()), (12, "検索".to_string())]
        );
        assert_eq!(
            words(&d, "仕事を引き継ぐ"),
            vec![(9, "引き継ぐ".to_string())]
        );
    }

    /// A word may start with its own kana (ごみ箱), never at a particle: からメール is a word of
    /// the dictionary ("blank e-mail") but 「画面からメールで」 holds メール.
    #[test]
    fn a_word_may_start_with_its_own_kana_but_not_at_a_particle() {
        let d = sample();
        assert_eq!(words(&d, "ごみ箱から復元"), vec![(0, "ごみ箱".to_string())]);
        assert_eq!(
            words(&d, "ページのごみ箱"),
            vec![(12, "ごみ箱".to_string())]
        );
        assert_eq!(
            words(&d, "画面からメールで"),
            vec![(12, "メール".to_string())]
        );
    }

    #[test]
    fn leaves_out_hiragana_words_lone_kanji_and_what_the_caller_reads() {
        let d = sample();
        // から is in the dictionary, 時 and 時の too: none is read as a word of the request.
        assert_eq!(
            words(&d, "登録時からの獣医"),
            vec![(18, "獣医".to_string())]
        );
        assert_eq!(words(&d, "時の獣医"), vec![(6, "獣医".to_string())]);
        // One kanji with a verb's ending is a word; with a noun's or a particle's it is not.
        assert_eq!(words(&d, "色を変える"), vec![(6, "変える".to_string())]);
        assert!(words(&d, "削除済み").is_empty());
        // The caller reads 検索 itself (the glossary knows it).
        let found: Vec<&str> = d
            .words("飼い主の検索", |at| at < 12)
            .into_iter()
            .map(|e| e.word)
            .collect();
        assert_eq!(found, vec!["飼い主"]);
    }

    #[test]
    fn english_words_follow_the_senses_without_notes_or_grammar() {
        let d = sample();
        let english = |text: &'static str| d.words(text, |_| true)[0].english_words();
        assert_eq!(english("飼い主"), vec!["owner", "keeper"]);
        assert_eq!(
            english("獣医"),
            vec!["veterinarian", "veterinary", "surgeon", "vet"]
        );
        assert_eq!(english("引き継ぐ"), vec!["take", "over", "hand"]);
        // Three senses at most: the fourth's word is not read.
        let campaign = english("キャンペーン");
        assert_eq!(campaign[..3], ["promotion", "marketing", "campaign"]);
        assert!(campaign.contains(&"military".to_string()));
        assert!(!campaign.contains(&"fourth".to_string()));
    }

    /// A project's translations come first for the forms they hold, with the general senses
    /// after theirs; every other form is the general dictionary's.
    #[test]
    fn translations_layer_over_the_general_dictionary() {
        let general = Arc::new(
            Dictionary::parse("授乳\tbreastfeeding; nursing\n飼い主\t(pet) owner\n".into())
                .unwrap(),
        );
        let layered = Dictionary::layered("授乳\tFeeding\n".into(), Some(general)).unwrap();
        let vocabulary = Vocabulary::new(
            [("feed", 4), ("nurs", 1), ("owner", 2)].map(|(w, n)| (w.to_string(), n)),
        );
        let words = in_project("授乳と飼い主", &layered, &vocabulary, 3);
        let english =
            |w: &ProjectWord| w.english.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>();
        assert_eq!(english(&words[0]), ["feeding", "nursing"]);
        assert!(words[0].project);
        assert_eq!(english(&words[1]), ["owner"]);
        assert!(!words[1].project);
        // Without a general dictionary the translations stand alone.
        let alone = Dictionary::layered("授乳\tFeeding\n".into(), None).unwrap();
        assert_eq!(in_project("授乳と飼い主", &alone, &vocabulary, 3).len(), 1);
    }

    /// A compound of the glossary's words is found when the project's translations hold it,
    /// never from the general dictionary, and never for one glossary word with its okurigana.
    #[test]
    fn the_projects_compounds_over_glossary_words_are_found() {
        let general = Arc::new(Dictionary::parse("編集履歴\tedit history\n".into()).unwrap());
        let vocabulary = Vocabulary::new(
            [("revision", 3), ("edit", 5), ("history", 1), ("login", 2)]
                .map(|(w, n)| (w.to_string(), n)),
        );
        let words = in_project("編集履歴の一覧", &general, &vocabulary, 2);
        assert!(words.is_empty(), "{words:?}");
        let layered = Dictionary::layered(
            "編集履歴\tRevisions\nログインする\tLog in\n".into(),
            Some(general),
        )
        .unwrap();
        let words = in_project("編集履歴の一覧", &layered, &vocabulary, 2);
        assert_eq!(words.len(), 1, "{words:?}");
        assert_eq!(words[0].english[0].0, "revisions");
        assert_eq!((words[0].at, words[0].end), (0, "編集履歴".len()));
        assert!(words[0].project && words[0].over == Some(glossary::Cover::Compound));
        assert!(in_project("ログインする", &layered, &vocabulary, 2).is_empty());
        // A phrase of two glossary words is not a compound.
        let phrase = Dictionary::layered("記事を保存\tSave entry\n".into(), None).unwrap();
        let vocabulary =
            Vocabulary::new([("save", 2), ("entry", 3)].map(|(w, n)| (w.to_string(), n)));
        assert!(in_project("記事を保存する", &phrase, &vocabulary, 2).is_empty());
    }

    /// One of the glossary's words that the project translates is found with the project's
    /// English (記事 is "Entry" in a feed reader), marked to be read beside the glossary's; the
    /// general dictionary's senses of a glossary word are not.
    #[test]
    fn a_glossary_word_the_project_translates_is_found() {
        let vocabulary =
            Vocabulary::new([("entry", 3), ("articl", 1)].map(|(w, n)| (w.to_string(), n)));
        let general = Arc::new(Dictionary::parse("記事	article; news story\n".into()).unwrap());
        assert!(in_project("記事の一覧", &general, &vocabulary, 2).is_empty());
        let layered = Dictionary::layered("記事\tEntries\n".into(), Some(general)).unwrap();
        let words = in_project("記事の一覧", &layered, &vocabulary, 2);
        assert_eq!(words.len(), 1, "{words:?}");
        assert_eq!(words[0].english[0].0, "entries");
        assert!(words[0].project && words[0].over == Some(glossary::Cover::Word));
        // Only the most frequent rendering's word: the others name the word in context.
        let vocabulary = Vocabulary::new([("tag", 3), ("pag", 9)].map(|(w, n)| (w.to_string(), n)));
        let layered = Dictionary::layered("タグ\tTag; Page Tags\n".into(), None).unwrap();
        let words = in_project("タグの検索", &layered, &vocabulary, 2);
        let english: Vec<&str> = words[0].english.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(english, ["tag"]);
    }

    #[test]
    fn a_katakana_run_is_a_loanword_unless_a_dictionary_word_holds_it() {
        let d = Dictionary::parse("ゴミ箱\ttrash can\n飼い主\t(pet) owner\n".to_string()).unwrap();
        let vocabulary = Vocabulary::new(
            [("pet", 3), ("dummy", 2), ("trash", 1), ("owner", 1)].map(|(w, n)| (w.to_string(), n)),
        );
        let request = "ゴミ箱とペットの飼い主";
        let in_dictionary = in_project(request, &d, &vocabulary, 1);
        let runs = unread_runs(request, &in_dictionary, Some(&vocabulary));
        let loanwords = |word: &str| {
            let run = runs.iter().find(|r| r.unread.word == word).unwrap();
            run.loanwords.clone()
        };
        // ゴミ is part of ゴミ箱 ("trash can"), not `dummy`; ペット is the project's `pet`.
        assert!(loanwords("ゴミ").is_empty());
        assert_eq!(loanwords("ペット"), vec![vec!["pet"]]);
        assert!(loanwords("箱").is_empty());
        // Without the project's names there are no loanwords.
        let alone = unread_runs(request, &in_dictionary, None);
        assert!(alone.iter().all(|r| r.loanwords.is_empty()));
        assert_eq!(alone.len(), runs.len());
    }

    #[test]
    fn a_malformed_file_is_an_error_with_its_line() {
        let parse = |text: &str| Dictionary::parse(text.to_string());
        assert_eq!(parse("飼い主\towner\n獣医\n").unwrap_err(), 2);
        assert_eq!(parse("\tx\n").unwrap_err(), 1);
        // Out of order, or with Windows line ends, it is still read.
        let d = parse("獣医\tvet\r\n飼い主\towner\r\n").unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d.senses("飼い主"), Some("owner"));
        assert_eq!(d.senses("獣医"), Some("vet"));
        assert_eq!(d.senses("医"), None);
        let missing = Dictionary::load(Path::new("/nonexistent/ja-en.tsv")).unwrap_err();
        assert!(missing.to_string().contains("/nonexistent/ja-en.tsv"));
    }

    #[test]
    fn only_a_request_with_a_word_the_glossary_leaves_unread_needs_the_dictionary() {
        assert!(!may_hold_words("search owners by last name"));
        // The glossary reads ログイン and パスワード; の is hiragana.
        assert!(!may_hold_words("ログインのパスワード"));
        assert!(may_hold_words("飼い主の検索"));
        // 編集 and 履歴 side by side: the project's translations may hold 編集履歴.
        assert!(may_hold_words("編集履歴の一覧"));
        assert!(may_hold_words("ゴミ箱"));
    }

    #[test]
    fn a_missing_dictionary_is_none() {
        assert!(Dictionary::installed(Path::new("/nonexistent-model-dir")).is_none());
    }
}
