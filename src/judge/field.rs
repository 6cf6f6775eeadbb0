//! The field: where the project's own hybrid search puts a term's code.
//!
//! A symbol's scores against the term say how close the two are; they do not say whether the
//! project holds something closer. The search already ranks every chunk of the project for a
//! request (dense similarity, BM25, definitions, paths, the glossary's bridges), so the judge asks
//! it once per term and reads where each claimed definition stands in that ranking: the fused
//! score of the hit that covers the definition, or none when the search does not show it at all.
//!
//! The field ranks by meaning when the index can (model loaded, every chunk embedded). Until
//! then — a project's first minutes, while its chunks are embedded — it ranks by the project's
//! words alone (BM25, definitions, paths, the glossary's bridges), which the first sync makes
//! ready within seconds: a half-embedded ranking would be neither, so the field is searched
//! lexically until the last chunk has its vector. The two fields stand on different scales, and
//! the judge weighs each with the weights fitted on it ([`Field::by_meaning`]).

use crate::index::semantic::{IndexStatus, SemanticIndex};
use crate::index::sync_state::SyncState;
use crate::index::{Snapshot, SymbolIndex};
use crate::search::semantic::{Collection, Mode, SearchCache, SearchHit, SearchRequest, search};
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Hits the field keeps: the most the search tool returns.
pub const FIELD_SIZE: usize = 50;

/// What the judge needs to search the project: the server's semantic index and search cache.
#[derive(Clone, Copy)]
pub struct FieldSearch<'a> {
    pub ws: &'a Workspace,
    pub symbols: &'a SymbolIndex,
    pub semantic: &'a SemanticIndex,
    pub cache: &'a SearchCache,
    /// Rank by the project's words even when the index can rank by meaning (what
    /// `code-intel eval-relevance --field words` measures the judge of a project's first
    /// minutes with).
    pub words_only: bool,
}

impl FieldSearch<'_> {
    /// The field of `term`, or `None` before the project's first sync has stored its chunks or
    /// when the search fails (the judge then goes without it; a verdict never waits for an
    /// index build).
    ///
    /// A session judges the same terms call after call (`validate_symbol_relevance`, then
    /// `confirm_symbol_relevance`, then `submit_understanding`), and the search is most of a
    /// verdict's time, so a field is kept for as long as what it was searched in stays the same
    /// ([`Searched`]).
    pub fn field(&self, term: &str) -> Option<Field> {
        let searched = Searched::now(self)?;
        let root = self.ws.root().to_path_buf();
        if let Some(field) = KeptFields::store()
            .get(&root)
            .and_then(|kept| kept.get(&searched, term))
        {
            return Some(field);
        }
        let field = self.search(term, searched.mode)?;
        KeptFields::store()
            .entry(root)
            .or_default()
            .keep(searched, term, &field);
        Some(field)
    }

    /// The word of `term`'s `field` that the Japanese `word` of the term means
    /// ([`super::bridge`]), with the real model only: another embedder's similarities say
    /// nothing about meaning. Kept with the term's field: it embeds a few hundred words, which a
    /// later call for the same term need not do again.
    pub fn meaning(&self, term: &str, word: &str, field: &Field) -> Option<String> {
        let embedder = self.semantic.embedder_if_ready()?;
        if !embedder.model_id().starts_with(crate::embed::MODEL_ID) {
            return None;
        }
        let searched = Searched::now(self)?;
        let root = self.ws.root().to_path_buf();
        if let Some(meaning) = KeptFields::store()
            .get(&root)
            .and_then(|kept| kept.meaning(&searched, term, word))
        {
            return meaning;
        }
        let meaning = super::bridge::bridge(embedder.as_ref(), word, &field.words());
        if let Some(kept) = KeptFields::store().get_mut(&root) {
            kept.keep_meaning(&searched, term, word, &meaning);
        }
        meaning
    }

    fn search(&self, term: &str, mode: Mode) -> Option<Field> {
        let mut request = SearchRequest::new(term, FIELD_SIZE, self.ws.config.search_weights);
        request.mode = mode;
        // Learned agreements are the map's business: the field is about the code.
        request.collection = Collection::Forest;
        let response = search(self.semantic, self.ws, self.symbols, self.cache, &request)
            .inspect_err(|err| tracing::debug!("no field for {term:?}: {err}"))
            .ok()?;
        let by_meaning = mode == Mode::Hybrid && response.signals.iter().any(|s| s == "vector");
        Some(Field::of_hits(&response.results, by_meaning))
    }
}

/// How a field is searched in an index that stands at `status`: by meaning too once the model
/// is loaded and every chunk embedded, by the project's words alone before (or when
/// `words_only`), and not at all before the first sync has ended — the full-text index is built
/// at its end, and a search before it would only see the names.
fn ranking(status: &IndexStatus, words_only: bool) -> Option<Mode> {
    if status.chunks == 0 || status.last_sync.is_none() {
        return None;
    }
    // The fits were made on vectors of whole chunks: heads alone do not count.
    let embedded =
        status.model == "ready" && status.embedded >= status.chunks && status.head_only == 0;
    Some(if embedded && !words_only {
        Mode::Hybrid
    } else {
        Mode::Lexical
    })
}

/// Words of a field a Japanese word is bridged to at most ([`Field::words`]).
const MAX_WORDS: usize = 300;

/// What a field was searched in: the index's last sync, the symbols, how much of the index was
/// embedded and how the search ranked ([`ranking`]). The same four give the same field; an edit
/// changes the symbols at once and the index at its next sync, and a model that finishes loading
/// over an index embedded before changes the ranking, any of which searches again.
#[derive(Clone)]
struct Searched {
    state: Arc<SyncState>,
    symbols: Arc<Snapshot>,
    chunks: usize,
    /// Chunks embedded whole.
    embedded: usize,
    mode: Mode,
}

impl Searched {
    /// Where `search` stands now, read from one status of the index; `None` while there is no
    /// field to search ([`ranking`]).
    fn now(search: &FieldSearch) -> Option<Searched> {
        let status = search.semantic.status();
        Some(Searched {
            mode: ranking(&status, search.words_only)?,
            state: search.semantic.sync_state(),
            symbols: search.symbols.snapshot(),
            chunks: status.chunks,
            embedded: status.embedded - status.head_only,
        })
    }

    fn is(&self, other: &Searched) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
            && Arc::ptr_eq(&self.symbols, &other.symbols)
            && (self.chunks, self.embedded, self.mode) == (other.chunks, other.embedded, other.mode)
    }
}

/// Drops the fields kept for the project at `root`, so the next verdict searches again (what
/// `code-intel eval-relevance` does to time a term's first verdict).
pub fn forget_kept(root: &std::path::Path) {
    KeptFields::store().remove(root);
}

/// Terms whose fields are kept per project before the store starts over.
const MAX_KEPT_FIELDS: usize = 256;

/// The fields of one project, all searched in the same [`Searched`].
#[derive(Default)]
struct KeptFields {
    searched: Option<Searched>,
    by_term: HashMap<String, KeptField>,
}

/// A term's field and the meanings of the term's words found in it ([`FieldSearch::meaning`]),
/// `None` for a word that bridged to nothing.
struct KeptField {
    field: Field,
    meanings: HashMap<String, Option<String>>,
}

impl KeptFields {
    fn store() -> std::sync::MutexGuard<'static, HashMap<PathBuf, KeptFields>> {
        static STORE: OnceLock<Mutex<HashMap<PathBuf, KeptFields>>> = OnceLock::new();
        STORE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn current(&self, searched: &Searched) -> bool {
        self.searched.as_ref().is_some_and(|s| s.is(searched))
    }

    fn term(&self, searched: &Searched, term: &str) -> Option<&KeptField> {
        self.current(searched)
            .then(|| self.by_term.get(term))
            .flatten()
    }

    fn get(&self, searched: &Searched, term: &str) -> Option<Field> {
        self.term(searched, term).map(|kept| kept.field.clone())
    }

    /// The meaning of `term`'s `word` kept with its field: `Some(None)` when the word bridged
    /// to nothing.
    fn meaning(&self, searched: &Searched, term: &str, word: &str) -> Option<Option<String>> {
        self.term(searched, term)?.meanings.get(word).cloned()
    }

    /// Keeps `field`, dropping the fields searched in anything else first.
    fn keep(&mut self, searched: Searched, term: &str, field: &Field) {
        if !self.current(&searched) || self.by_term.len() >= MAX_KEPT_FIELDS {
            self.by_term.clear();
        }
        self.searched = Some(searched);
        let kept = KeptField {
            field: field.clone(),
            meanings: HashMap::new(),
        };
        self.by_term.insert(term.to_string(), kept);
    }

    /// Keeps the meaning of `term`'s `word` with the term's field, if that field is kept from
    /// `searched`.
    fn keep_meaning(
        &mut self,
        searched: &Searched,
        term: &str,
        word: &str,
        meaning: &Option<String>,
    ) {
        if !self.current(searched) {
            return;
        }
        if let Some(kept) = self.by_term.get_mut(term) {
            kept.meanings.insert(word.to_string(), meaning.clone());
        }
    }
}

/// The words of `names` (identifiers and paths) a Japanese word can be bridged to: three
/// letters or more, lower-case, each once, the most frequent first (equal counts in the order
/// of first appearance).
fn bridgeable_words<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for name in names {
        for word in crate::relevance::identifier_words(name) {
            let word = word.to_ascii_lowercase();
            if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
                continue;
            }
            match at.get(&word) {
                Some(&i) => counts[i].1 += 1,
                None => {
                    at.insert(word.clone(), counts.len());
                    counts.push((word, 1));
                }
            }
        }
    }
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts.into_iter().map(|(w, _)| w).collect()
}

/// The words of every definition's name and every file's path in `snapshot` that a bridge can
/// take ([`Field::words`] takes them from its hits), the most frequent first.
pub fn vocabulary(snapshot: &Snapshot) -> Vec<String> {
    let mut files: Vec<(&String, &Arc<crate::index::FileEntry>)> = snapshot.files.iter().collect();
    // The snapshot's map has no order; the counts' ties keep the first appearance.
    files.sort_unstable_by_key(|(f, _)| f.as_str());
    // The name lists, not the symbols: a store loaded from disk decodes a file's symbols only
    // when a question touches the file, and this one touches them all.
    let names = files
        .into_iter()
        .flat_map(|(file, entry)| std::iter::once(file.as_str()).chain(entry.symbols.name_list()));
    bridgeable_words(names)
}

/// One hit of the field.
#[derive(Debug, Clone, PartialEq)]
struct FieldHit {
    file: String,
    line_start: usize,
    line_end: usize,
    /// The symbol the hit is about, if the search names one.
    symbol: Option<String>,
    /// Fused score, 1 for the search's best hit.
    score: f32,
}

/// The search's hits for one term, best first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Field {
    hits: Vec<FieldHit>,
    /// Whether the search ranked by meaning too, or by the project's words alone (the index
    /// not embedded yet, or [`FieldSearch::words_only`]).
    pub by_meaning: bool,
}

impl Field {
    pub fn of_hits(hits: &[SearchHit], by_meaning: bool) -> Field {
        Field {
            by_meaning,
            hits: hits
                .iter()
                .map(|h| FieldHit {
                    file: h.file.clone(),
                    line_start: h.line_start as usize,
                    line_end: h.line_end as usize,
                    symbol: h.symbol.clone(),
                    score: h.score,
                })
                .collect(),
        }
    }

    /// The words of the hits' symbols and files (three letters or more, lower-case), each once,
    /// the most frequent first: what the term's code is called in this project.
    pub fn words(&self) -> Vec<String> {
        let named = self
            .hits
            .iter()
            .flat_map(|hit| hit.symbol.iter().chain(std::iter::once(&hit.file)));
        let mut words = bridgeable_words(named.map(String::as_str));
        words.truncate(MAX_WORDS);
        words
    }

    /// The files and line ranges of the hits, best first.
    pub fn spans(&self) -> impl Iterator<Item = (&str, std::ops::RangeInclusive<usize>)> {
        self.hits
            .iter()
            .map(|h| (h.file.as_str(), h.line_start..=h.line_end))
    }

    /// The fused score of the best hit covering the definition line `line` of `file`, `None`
    /// when no hit does. The hits' lines come from the index and the definition's from the
    /// symbol snapshot: after an edit they can disagree until the next sync, and a definition
    /// then stands outside the field, never on another symbol's hit.
    pub fn standing(&self, file: &str, line: usize) -> Option<f32> {
        self.hits
            .iter()
            .find(|h| h.file == file && h.line_start <= line && line <= h.line_end)
            .map(|h| h.score)
    }
}

/// A search hit over lines `start..=end` of `file`, for tests that build a field by hand.
#[cfg(test)]
pub(crate) fn hit(file: &str, start: u32, end: u32, score: f32) -> SearchHit {
    SearchHit {
        file: file.into(),
        line_start: start,
        line_end: end,
        symbol: None,
        chunk_type: "function".into(),
        snippet: String::new(),
        score,
        components: Default::default(),
        changed_since_indexed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_ranks_by_meaning_once_every_chunk_is_embedded_and_by_words_before() {
        let cases = [
            // Before the first sync has stored and indexed the chunks: no field.
            (("ready", 0, 0, false), false, None),
            (("loading", 40, 0, false), false, None),
            // Stored, not (all) embedded, or the model not loaded: the project's words.
            (("loading", 40, 0, true), false, Some(Mode::Lexical)),
            (("ready", 40, 39, true), false, Some(Mode::Lexical)),
            (("unavailable", 40, 40, true), false, Some(Mode::Lexical)),
            // Every chunk embedded whole: by meaning, unless asked for the words alone.
            (("ready", 40, 40, true), false, Some(Mode::Hybrid)),
            (("ready", 40, 40, true), true, Some(Mode::Lexical)),
        ];
        for ((model, chunks, embedded, synced), words_only, want) in cases {
            let status = IndexStatus {
                model: model.into(),
                model_error: None,
                chunks,
                embedded,
                head_only: 0,
                agreements: 0,
                embedding_running: false,
                syncing: false,
                last_sync: synced.then_some(1),
                stale: false,
                config_problems: Vec::new(),
                vector_cache: None,
                store: Default::default(),
                remote_cache: None,
            };
            assert_eq!(
                ranking(&status, words_only),
                want,
                "{status:?}, words only: {words_only}"
            );
            // Vectors of chunk heads only: the fits were made on whole chunks.
            if want == Some(Mode::Hybrid) {
                let heads = IndexStatus {
                    head_only: 3,
                    ..status
                };
                assert_eq!(ranking(&heads, words_only), Some(Mode::Lexical));
            }
        }
    }

    #[test]
    fn a_definition_stands_on_the_best_hit_covering_its_line() {
        let field = Field::of_hits(
            &[
                hit("a.py", 10, 20, 1.0),
                hit("b.py", 1, 5, 0.7),
                hit("a.py", 1, 30, 0.4),
            ],
            true,
        );
        assert_eq!(field.standing("a.py", 12), Some(1.0));
        assert_eq!(field.standing("a.py", 25), Some(0.4));
        assert_eq!(field.standing("b.py", 6), None);
        assert_eq!(field.standing("c.py", 1), None);
    }

    #[test]
    fn a_fields_words_come_from_its_symbols_and_files_most_frequent_first() {
        let mut first = hit("app/medication.py", 1, 9, 1.0);
        first.symbol = Some("MedicationAdd".into());
        let mut second = hit("app/models.py", 10, 20, 0.5);
        second.symbol = Some("Medication.next_dose".into());
        let words = Field::of_hits(&[first, second], true).words();
        assert_eq!(words[0], "medication");
        for word in ["app", "add", "models", "next", "dose"] {
            assert!(words.contains(&word.to_string()), "{word} in {words:?}");
        }
        assert!(!words.contains(&"py".to_string()));
    }

    #[test]
    fn the_vocabulary_is_every_name_and_path_most_frequent_first() {
        let project = crate::index::test_support::Indexed::new(&[
            (
                "app/medication.py",
                "class Medication:\n    def next_dose(self):\n        pass\n",
            ),
            ("app/weight.py", "def add_weight(value):\n    pass\n"),
        ]);
        let words = vocabulary(&project.snapshot());
        // `app` is in both paths, `medication` and `weight` in a path and a name.
        assert_eq!(words[0], "app");
        assert_eq!(words[1..3], ["medication", "weight"]);
        for word in ["next", "dose", "add"] {
            assert!(words.contains(&word.to_string()), "{word} in {words:?}");
        }
        assert!(!words.contains(&"py".to_string()));
    }

    #[test]
    fn a_field_is_kept_while_the_index_and_the_symbols_stay_the_same() {
        let searched = Searched {
            state: Arc::new(SyncState::default()),
            symbols: Arc::new(Snapshot::default()),
            chunks: 10,
            embedded: 10,
            mode: Mode::Hybrid,
        };
        let field = Field::of_hits(&[hit("a.py", 1, 5, 1.0)], true);
        let mut kept = KeptFields::default();
        kept.keep(searched.clone(), "login", &field);
        assert_eq!(kept.get(&searched, "login"), Some(field.clone()));
        assert_eq!(kept.get(&searched, "logout"), None);

        // Equal contents are not enough: a new sync or snapshot is another index.
        let synced = Searched {
            state: Arc::new(SyncState::default()),
            ..searched.clone()
        };
        assert_eq!(kept.get(&synced, "login"), None);
        let edited = Searched {
            symbols: Arc::new(Snapshot::default()),
            ..searched.clone()
        };
        assert_eq!(kept.get(&edited, "login"), None);
        let embedding = Searched {
            embedded: 9,
            ..searched.clone()
        };
        assert_eq!(kept.get(&embedding, "login"), None);
        // A field of words is not kept once the model could rank the same index by meaning.
        let by_words = Searched {
            mode: Mode::Lexical,
            ..searched.clone()
        };
        assert_eq!(kept.get(&by_words, "login"), None);

        // A meaning is kept for its word with its term's field, a word that bridged to nothing
        // too; a term without a kept field keeps none.
        kept.keep_meaning(&searched, "login", "体重", &Some("weight".into()));
        kept.keep_meaning(&searched, "login", "次回", &None);
        kept.keep_meaning(&searched, "logout", "体重", &Some("weight".into()));
        assert_eq!(
            kept.meaning(&searched, "login", "体重"),
            Some(Some("weight".into()))
        );
        assert_eq!(kept.meaning(&searched, "login", "次回"), Some(None));
        assert_eq!(kept.meaning(&searched, "logout", "体重"), None);
        assert_eq!(kept.get(&searched, "login"), Some(field.clone()));

        // Keeping a field searched in another index drops the old ones, and their meanings.
        kept.keep(synced.clone(), "logout", &field);
        assert_eq!(kept.get(&synced, "login"), None);
        assert_eq!(kept.get(&synced, "logout"), Some(field.clone()));
        assert_eq!(kept.meaning(&synced, "login", "体重"), None);
    }
}
