//! The project's names as the judge reads them: every definition's name, scope and path as a
//! bag of words ([`Bag`]), and the project's entities, the words its types and files are named
//! for ([`Lexicon`]). Kept per project and read again only for edited files.

use crate::analysis::Symbol;
use crate::index::{SeenEntries, Snapshot};
use crate::lexical;
use crate::search::loanword;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The names of every definition of the project (classes and callables outside tests), each with
/// its scope and file path, as lexical bags: what the term's words could have matched instead.
#[derive(Debug, Default)]
pub struct Lexicon {
    files: Vec<Arc<FileNames>>,
    /// The project's entities: the words that are by themselves the name of a class, struct,
    /// interface or type (`Owner`, `Vet`, `Message`), stemmed.
    pub(super) entities: BTreeSet<String>,
    /// Every word of the names with the number of names holding it, built the first time a
    /// term has a katakana word the glossary does not read ([`super::TermKeys::in_project`]).
    vocabulary: OnceLock<loanword::Vocabulary>,
}

impl Lexicon {
    pub(super) fn new(files: Vec<Arc<FileNames>>) -> Lexicon {
        // A word names an entity when it plays several of the project's roles, and a role is
        // one when several words play it. kutt's `link` has a handler, a model, queries and
        // routes (`links.handler.js`, `link.model.js`, ...); its `validators.handler.js` is one
        // file of the handlers' role, and node-express-boilerplate's `custom.validation.js`
        // one of the validations'.
        let mut players: HashMap<&Role, BTreeSet<&str>> = HashMap::new();
        for (word, role) in files.iter().flat_map(|file| file.roled.iter()) {
            players.entry(role).or_default().insert(word);
        }
        let mut roles: HashMap<&str, usize> = HashMap::new();
        for words in players.values().filter(|w| w.len() >= ROLE_PLAYERS) {
            for word in words {
                *roles.entry(word).or_default() += 1;
            }
        }
        let entities = files
            .iter()
            .flat_map(|file| file.entities.iter().cloned())
            .chain(
                roles
                    .into_iter()
                    .filter(|(_, n)| *n >= ENTITY_ROLES)
                    .map(|(word, _)| word.to_string()),
            )
            .collect();
        Lexicon {
            files,
            entities,
            vocabulary: OnceLock::new(),
        }
    }

    /// The words of the project's names and how many names hold each: where a request's
    /// loanword is looked for ([`loanword::find`]).
    pub(super) fn vocabulary(&self) -> &loanword::Vocabulary {
        self.vocabulary.get_or_init(|| {
            let mut counts: HashMap<&str, usize> = HashMap::new();
            for bag in self.files.iter().flat_map(|file| file.bags.iter()) {
                for word in &bag.0 {
                    *counts.entry(word.as_str()).or_default() += 1;
                }
            }
            loanword::Vocabulary::new(counts.into_iter().map(|(w, n)| (w.to_string(), n)))
        })
    }

    /// The bags of one file's definitions, and the entities it defines.
    pub(super) fn of_file(file: &str, symbols: &[Symbol]) -> FileNames {
        use crate::analysis::SymbolKind as K;
        let bags = symbols
            .iter()
            .filter(|s| is_judged(s))
            .map(|s| Bag::of(&named_text(&s.name, s.scope.as_deref(), file)))
            .collect();
        let types = symbols
            .iter()
            .filter(|s| matches!(s.kind, K::Class | K::Struct | K::Interface | K::Type));
        let entities = types
            .clone()
            .filter_map(|s| match lexical::split_identifier(&s.name).as_slice() {
                [word] if word.len() >= 3 => Some(lexical::stem(word)),
                _ => None,
            })
            .collect();
        // An entity with its role: a type named by two words (`ArticleController`), a file
        // named `<entity>.<role>.<extension>` (kutt's `links.handler.js`).
        let typed = types.filter_map(|s| match lexical::split_identifier(&s.name).as_slice() {
            [word, role] if word.len() >= 3 => {
                Some((lexical::stem(word), Role::Type(role.to_lowercase())))
            }
            _ => None,
        });
        let name = file.rsplit('/').next().unwrap_or(file);
        let filed = match name.split('.').collect::<Vec<_>>().as_slice() {
            [word, role, _extension]
                if word.len() >= 3 && lexical::split_identifier(word).len() == 1 =>
            {
                Some((
                    lexical::stem(&word.to_lowercase()),
                    Role::File(role.to_lowercase()),
                ))
            }
            _ => None,
        };
        FileNames {
            bags,
            entities,
            roled: typed.chain(filed).collect(),
        }
    }

    /// A lexicon of one file whose definitions' names, scopes and paths are `named`, without
    /// entities.
    #[cfg(test)]
    pub(super) fn of_names(named: &[&str]) -> Lexicon {
        Lexicon::new(vec![Arc::new(FileNames {
            bags: named.iter().map(|t| Bag::of(t)).collect(),
            ..FileNames::default()
        })])
    }

    /// Every definition's bag.
    pub(super) fn bags(&self) -> impl Iterator<Item = &Bag> {
        self.files.iter().flat_map(|file| file.bags.iter())
    }
}

/// One file's part of the [`Lexicon`].
#[derive(Debug, Default)]
pub(super) struct FileNames {
    pub(super) bags: Vec<Bag>,
    pub(super) entities: Vec<String>,
    /// Words with a role they play: entities if they play enough of the project's roles.
    roled: Vec<(String, Role)>,
}

/// What a word names an entity in: the second word of a type's name, or the middle part of a
/// file's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Role {
    Type(String),
    File(String),
}

/// How many words must play a role before it counts as one.
const ROLE_PLAYERS: usize = 3;
/// How many roles a word must play before it counts as an entity.
const ENTITY_ROLES: usize = 2;

/// The project's [`Lexicon`], kept per project root and file: a file's bags are read again only
/// when its entry in the snapshot is a new one (an edit), since reading every name of a large
/// project (some 20,000 definitions take 0.3 s) on every tool call would dominate the judge. With
/// no file changed, the same lexicon is given again, with the vocabulary it has built.
pub fn project_lexicon(root: &Path, snapshot: &Snapshot) -> Arc<Lexicon> {
    type Kept = (SeenEntries, HashMap<String, Arc<FileNames>>, Arc<Lexicon>);
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Kept>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some((seen, _, lexicon)) = cache.get(root)
        && seen.is_current(snapshot)
    {
        return lexicon.clone();
    }
    let (seen, kept, _) = cache.remove(root).unwrap_or_default();
    let mut files: HashMap<String, Arc<FileNames>> = HashMap::with_capacity(snapshot.files.len());
    for (file, entry) in &snapshot.files {
        if crate::search::roles::is_test_path(file) {
            continue;
        }
        let bags = match kept.get(file) {
            Some(bags) if seen.holds(file, entry) => bags.clone(),
            _ => Arc::new(Lexicon::of_file(file, &entry.symbols.symbols)),
        };
        files.insert(file.clone(), bags);
    }
    let lexicon = Arc::new(Lexicon::new(files.values().cloned().collect()));
    cache.insert(
        root.to_path_buf(),
        (SeenEntries::of(snapshot), files, lexicon.clone()),
    );
    lexicon
}

/// Whether a definition is one the judge weighs: a class or a callable.
pub(super) fn is_judged(s: &Symbol) -> bool {
    s.kind.is_callable() || s.kind.as_str() == "class"
}

/// A definition's name, its scope's and its file path, as the lexicon, the symbol's own share
/// of the term's words and its callers' read them.
pub(super) fn named_text(name: &str, scope: Option<&str>, file: &str) -> String {
    let path = path_words(file);
    match scope {
        Some(scope) => format!("{name} {scope} {path}"),
        None => format!("{name} {path}"),
    }
}

/// A file path without its extension, for the lexical checks.
pub(super) fn path_words(file: &str) -> &str {
    file.rsplit_once('.').map_or(file, |(p, _)| p)
}

/// The words of a piece of evidence, identifiers split and whole, stemmed and lower-case.
#[derive(Debug, Clone, Default)]
pub struct Bag(pub(super) BTreeSet<String>);

impl Bag {
    pub fn of(text: &str) -> Bag {
        Bag(lexical::index_terms(text)
            .into_iter()
            .map(|w| lexical::stem(&w.replace(['_', '$'], "")))
            .filter(|w| w.len() >= 2)
            .collect())
    }

    /// Whether a form occurs ([`forms_meet`]).
    pub(super) fn has(&self, form: &str) -> bool {
        if self.0.contains(form) {
            return true;
        }
        if form.len() >= 4
            && let Some(w) = self.0.range(form.to_string()..).next()
            && w.starts_with(form)
        {
            return true;
        }
        self.0
            .iter()
            .any(|w| w.len() >= 4 && form.starts_with(w.as_str()))
    }
}

/// Whether two stemmed words are one: equal, or one a prefix of the other when the shorter has
/// four letters or more (`auth` ~ `authenticat`, `user` ~ `usernam`).
pub(super) fn forms_meet(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 4 && long.starts_with(short))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bags_match_stems_and_prefixes() {
        let bag = Bag::of("def authenticate(session, email): return verify_password(pw)");
        for form in ["auth", "authenticat", "password", "email", "verify"] {
            assert!(bag.has(form), "{form}");
        }
        assert!(!bag.has("login"));
    }
}
