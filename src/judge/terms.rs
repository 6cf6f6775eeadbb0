//! A request term's words as the judge matches them against the code: its keys, each the forms
//! that count as the word being present ([`TermKeys`]), and the keys that name one of the
//! project's entities ([`TermEntities`]).

use super::lexicon::{Bag, Lexicon, forms_meet};
use crate::lexical;
use crate::search::dictionary::{self, Dictionary, ProjectWord};
use crate::search::glossary;
use std::collections::BTreeSet;

/// English renderings of a Japanese word that count as the word being present. The glossary
/// lists more for search recall (ログイン: login, auth, signin, session); its later ones name
/// neighbours of the word (every FastAPI route takes a `session`), which proves nothing about a
/// symbol. On the development split, the first two beat all of them and the first alone.
pub(super) const MAX_RENDERINGS: usize = 2;

/// A request term's words as lexical keys: each key is the set of forms that count as that word
/// being present (stemmed, lower-case). An English word stands for itself and the words the
/// glossary renders the same Japanese word by; a Japanese word the glossary knows stands for its
/// first English renderings, light words (処理) for nothing. A Japanese word the glossary does not
/// read is a key with no form, which nothing matches (see [`TermKeys::in_project`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermKeys {
    pub keys: Vec<Vec<String>>,
    /// The words found for the term's loanwords, each with its byte offset in the term: what
    /// [`glossary::render`] adds to the term's English rendering.
    pub loanwords: Vec<(usize, String)>,
    /// The byte spans of the compounds the project's translations read instead of the
    /// glossary's words ([`glossary::Cover`]), which the rendering leaves to `loanwords`.
    pub covered: Vec<(usize, usize)>,
}

impl TermKeys {
    /// The keys of `term` with no project to look its loanwords up in.
    pub fn of(term: &str) -> TermKeys {
        TermKeys::in_project(term, None)
    }

    /// The keys of `term`, with the Japanese words the glossary does not read
    /// ([`glossary::unread`]) looked up in the project's names: a katakana word by its sound
    /// ([`crate::search::loanword::find`]: ペット is `pet` in a clinic's code), each word it
    /// splits into a key. A word found nowhere, katakana or a kanji word of two or more
    /// characters, is a key with no form: the term has a word the server cannot see in any name,
    /// so a name holding the term's other words holds only part of it (「ペットの登録」 is not
    /// "register" alone, which the owner's registration holds as well). A lone kanji (時, 数, 用)
    /// is a suffix more often than a word and counts for nothing.
    pub fn in_project(term: &str, lexicon: Option<&Lexicon>) -> TermKeys {
        TermKeys::bridged(term, lexicon, None, |_| None)
    }

    /// [`TermKeys::in_project`], with more bridges for the words the glossary does not read, in
    /// this order: the project's own translation of the word, which `dictionary` holds when the
    /// project has some ([`crate::search::translations`]: 授乳 is `feeding` in a baby tracker
    /// translated into Japanese); a katakana word by its sound
    /// ([`crate::search::loanword::find`]); a kanji word of two or more characters by `meaning`,
    /// the model's bridge to the words of the term's field ([`super::FieldSearch::meaning`]: 体重
    /// is `weight` in a baby tracker whose search shows weight code for the term); then any word
    /// through `dictionary`, as the English words of its senses that the project's names use
    /// ([`dictionary::in_project`]: 飼い主 is `owner` in a clinic's code). The first three come
    /// first because each has read the project itself.
    pub fn bridged(
        term: &str,
        lexicon: Option<&Lexicon>,
        dictionary: Option<&Dictionary>,
        meaning: impl Fn(&str) -> Option<String>,
    ) -> TermKeys {
        let mut keys: Vec<Vec<String>> = Vec::new();
        let mut loanwords: Vec<(usize, String)> = Vec::new();
        let in_dictionary = match (dictionary, lexicon) {
            (Some(dictionary), Some(lexicon)) => {
                dictionary::in_project(term, dictionary, lexicon.vocabulary(), MAX_RENDERINGS)
            }
            _ => Vec::new(),
        };
        let runs = dictionary::unread_runs(term, &in_dictionary, lexicon.map(Lexicon::vocabulary));
        let as_found = |w: &ProjectWord| {
            let stems = w.english.iter().map(|(_, stem)| stem.clone()).collect();
            (w.at, w.english[0].0.clone(), stems)
        };
        for run in runs {
            let glossary::Unread { at, word, script } = run.unread;
            let end = at + word.len();
            let overlapping = |w: &&ProjectWord| w.overlaps(at, end);
            // Each find as the word the rendering uses and the forms that count as present. The
            // project's own translations first: the project has said what the word means.
            let mut found: Vec<(usize, String, Vec<String>)> = in_dictionary
                .iter()
                .filter(|w| w.project)
                .filter(overlapping)
                .map(as_found)
                .collect();
            if found.is_empty() {
                found = run
                    .loanwords
                    .into_iter()
                    .map(|forms| {
                        (
                            at,
                            forms[0].to_string(),
                            forms.into_iter().map(str::to_string).collect(),
                        )
                    })
                    .collect();
            }
            // Not for a katakana word the loanwords miss: by its sound the model bridges it
            // wrongly more often than not (デモ as `theme`, ホット as `hats` on the development
            // split). Before the dictionary: the model answers only when one of the field's
            // words stands out, and then it has read the project (二段階 as `twofactor`, where
            // the dictionary's senses give `level`).
            if found.is_empty() && script == glossary::Script::Kanji && word.chars().count() >= 2 {
                found = meaning(word)
                    .map(|english| (at, english.clone(), vec![lexical::stem(&english)]))
                    .into_iter()
                    .collect();
            }
            if found.is_empty() {
                // The dictionary's words that overlap this run (飼い主 overlaps 飼 and 主).
                found = in_dictionary
                    .iter()
                    .filter(overlapping)
                    .map(as_found)
                    .collect();
            }
            // A word the dictionary found is not a lone kanji, whatever run it starts in
            // (飼い主 is the runs 飼 and 主).
            if found.is_empty() && script == glossary::Script::Kanji && word.chars().count() < 2 {
                continue;
            }
            tracing::debug!("term {term:?}: unread word {word:?} found as {found:?}");
            if found.is_empty() {
                keys.push(Vec::new());
            }
            for (at, rendered, forms) in found {
                if !loanwords.contains(&(at, rendered.clone())) {
                    loanwords.push((at, rendered));
                }
                if !keys.contains(&forms) {
                    keys.push(forms);
                }
            }
        }
        // The project's translations of compounds over the glossary's words, read instead of
        // those words: 編集履歴 is `revision` in a wiki whose catalogue says "Revisions", where the
        // glossary reads "edit" and "history", which the wiki's editor and its audit log hold.
        // A glossary word the project translates is read both ways, the project's word first
        // (in the rendering too): 記事 is `entry` in a feed reader, and still `article`.
        let mut covered: Vec<(usize, usize)> = Vec::new();
        for word in in_dictionary.iter().filter(|w| w.over.is_some()) {
            covered.push((word.at, word.end));
            let (at, rendered, mut forms) = as_found(word);
            if word.over == Some(glossary::Cover::Word) {
                for (_, english) in glossary::expand_groups(&term[word.at..word.end]) {
                    for stem in english
                        .iter()
                        .take(MAX_RENDERINGS)
                        .map(|e| lexical::stem(e))
                    {
                        if !forms.contains(&stem) {
                            forms.push(stem);
                        }
                    }
                }
            }
            if !loanwords.contains(&(at, rendered.clone())) {
                loanwords.push((at, rendered));
            }
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        for (japanese, english) in glossary::expand_groups_outside(term, &covered) {
            if glossary::is_light(japanese) {
                continue;
            }
            let forms: Vec<String> = english
                .iter()
                .take(MAX_RENDERINGS)
                .map(|e| lexical::stem(e))
                .collect();
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        // Stop words stay until the pairs are read: "log in" is `login`, not a log.
        let words: Vec<String> = lexical::index_terms(term)
            .into_iter()
            .filter(|w| w.bytes().all(|b| b.is_ascii_alphanumeric()) && w.len() >= 2)
            .filter(|w| !w.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        let mut i = 0;
        while i < words.len() {
            // Two words the glossary knows as one ("sign up" → signup) make one key.
            let pair = words.get(i + 1).map(|next| format!("{}{next}", words[i]));
            let (word, step) = match pair {
                Some(p) if !glossary::english_synonyms(&p, MAX_RENDERINGS).is_empty() => (p, 2),
                _ => (words[i].clone(), 1),
            };
            i += step;
            if step == 1 && lexical::is_stop_word(&word) {
                continue;
            }
            // An English word counts as present in its glossary synonyms too ("sign up" in
            // `register`, "delete" in `remove`): the same bridge Japanese words get.
            let mut forms = vec![lexical::stem(&word)];
            for synonym in glossary::english_synonyms(&word, MAX_RENDERINGS) {
                let stem = lexical::stem(synonym);
                if !forms.contains(&stem) {
                    forms.push(stem);
                }
            }
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        TermKeys {
            keys,
            loanwords,
            covered,
        }
    }

    /// Share of a name's words that none of the keys' forms is, leaving out the words that
    /// say nothing by themselves ([`is_function_word`]); zero for a name without other words.
    /// With the other signals held, the fit weighs it up: a name made of the term's words
    /// alone (`ban`, `remove`, `update`) is as often the neighbour that does the term's action
    /// to another thing, while the right definition's name says more (`banLink`).
    pub fn unexplained(&self, name: &str) -> f32 {
        let words: Vec<String> = lexical::split_identifier(name)
            .into_iter()
            .filter(|w| !is_function_word(w))
            .map(|w| lexical::stem(&w))
            .collect();
        if words.is_empty() {
            return 0.0;
        }
        let stray = words
            .iter()
            .filter(|w| !self.keys.iter().flatten().any(|f| forms_meet(f, w)))
            .count();
        stray as f32 / words.len() as f32
    }

    /// The best share of the term's words any definition's name, scope and path hold.
    pub fn best_in(&self, lexicon: &Lexicon) -> f32 {
        lexicon
            .bags()
            .map(|bag| self.coverage(bag))
            .fold(0.0, f32::max)
    }

    /// Share of the keys present in `bag` (a key with no form is never present).
    pub fn coverage(&self, bag: &Bag) -> f32 {
        if self.keys.is_empty() {
            return 0.0;
        }
        let hit = self
            .keys
            .iter()
            .filter(|forms| forms.iter().any(|f| bag.has(f)))
            .count();
        hit as f32 / self.keys.len() as f32
    }
}

/// The term's words that name one of the project's entities ([`Lexicon`]), with the project's
/// entities: a definition named for another entity and not for the term's (`VetRepository.findAll`
/// for 「飼い主の検索」, "owner search") does the term's action on something else.
#[derive(Debug, Clone, Default)]
pub struct TermEntities {
    /// The term's keys that are one of the project's entities.
    keys: Vec<Vec<String>>,
    /// The project's entities that are no form of the term's words.
    others: BTreeSet<String>,
}

impl TermEntities {
    pub(super) fn new(keys: &TermKeys, lexicon: &Lexicon) -> TermEntities {
        let in_term = |w: &String| keys.keys.iter().flatten().any(|f| f == w);
        TermEntities {
            keys: keys
                .keys
                .iter()
                .filter(|forms| forms.iter().any(|f| lexicon.entities.contains(f)))
                .cloned()
                .collect(),
            others: lexicon
                .entities
                .iter()
                .filter(|e| !in_term(e))
                .cloned()
                .collect(),
        }
    }

    /// Whether a definition whose name and scope are `name` (outside any scope, its file's name
    /// stands in: [`super::owned_text`]) and whose name, scope and path are `named` holds none of the
    /// term's entities while `name` holds another of the project's.
    pub(super) fn other_in(&self, name: &Bag, named: &Bag) -> bool {
        !self.keys.is_empty()
            && !self.keys.iter().flatten().any(|f| named.has(f))
            && name.0.iter().any(|w| self.others.contains(w))
    }
}

/// Whether a word of a name says nothing by itself: an article, a preposition or a
/// conjunction, or an accessor's prefix (`get`, `set`, `is`, `has`).
pub(super) fn is_function_word(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "a", "an", "and", "at", "by", "for", "from", "get", "has", "in", "is", "of", "on", "or",
        "set", "the", "to", "with",
    ];
    WORDS.contains(&word)
}
