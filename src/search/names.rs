//! Matching request words against the names code gives things: defined symbols and file paths.
//!
//! Both are strong signals on real repositories (a request word naming a class or a directory
//! is rarely a coincidence), but generic words (`get`, `index`, `src`) are everywhere. Matches
//! are therefore weighted by inverse document frequency: a name's match strength is the share of
//! its IDF mass that the request covers, so `OrderRepository` is a strong match for "order
//! repository" and a weak one for "repository". The indexes are built once per symbol snapshot
//! or file list and cached by the caller.

use crate::analysis::SymbolKind;
use crate::lexical::{split_identifier, stem};
use crate::search::dictionary::Dictionary;
use std::collections::{HashMap, HashSet};

/// Request terms as stems, with weights (1 for the request's own words, less for terms the
/// glossary added).
#[derive(Debug, Clone, Default)]
pub struct QueryStems {
    pub stems: HashMap<String, f32>,
    /// Whole identifiers written in the request (`AuthService`), lowercase.
    pub identifiers: HashSet<String>,
}

impl QueryStems {
    pub fn new(query: &str, expansions: &[&str], expansion_weight: f32) -> QueryStems {
        let mut out = QueryStems::default();
        for term in crate::lexical::query_terms(query) {
            out.add(&term, 1.0);
        }
        for term in expansions {
            out.add(term, expansion_weight);
        }
        for word in query.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.len() >= 4 {
                out.identifiers.insert(word.to_ascii_lowercase());
            }
        }
        out
    }

    fn add(&mut self, term: &str, weight: f32) {
        if !term.is_ascii() {
            return;
        }
        let s = stem(term);
        let entry = self.stems.entry(s).or_insert(0.0);
        *entry = entry.max(weight);
    }
}

/// Stems of a name's parts (`calculateOrderTotal` → `calculat`, `order`, `total`).
pub fn name_stems(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in name.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')) {
        for part in split_identifier(word) {
            if part.len() >= 2 && !part.bytes().all(|b| b.is_ascii_digit()) {
                let s = stem(&part);
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
    }
    out
}

struct Named {
    file: u32,
    name: String,
    line: u32,
    end_line: u32,
    kind_weight: f32,
    stems: Vec<String>,
}

/// An inverted index over defined symbols.
pub struct SymbolTerms {
    files: Vec<String>,
    entries: Vec<Named>,
    by_stem: HashMap<String, Vec<u32>>,
    by_name: HashMap<String, Vec<u32>>,
    idf: HashMap<String, f32>,
    /// The words of the names with how many names hold each, where a request's loanwords and
    /// dictionary words are looked for ([`SymbolTerms::bridged_words`]); built the first time a
    /// request has a word the glossary lacks.
    vocabulary: std::sync::OnceLock<crate::search::loanword::Vocabulary>,
}

/// A symbol the request names.
#[derive(Debug, Clone, PartialEq)]
pub struct NameMatch {
    pub file: String,
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub strength: f32,
}

fn kind_weight(kind: SymbolKind) -> f32 {
    use SymbolKind::*;
    match kind {
        Class | Interface | Trait | Struct | Enum | Module | Namespace => 1.0,
        Function | Method | Type | Macro => 0.9,
        Rule | Keyframes | Section | Element => 0.6,
        Constant => 0.5,
        Variable | Property => 0.35,
    }
}

fn idf_of(df: usize, n: usize) -> f32 {
    ((1.0 + n as f32) / (1.0 + df as f32)).ln() + 0.1
}

impl SymbolTerms {
    pub fn build<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a [crate::analysis::Symbol])>,
    ) -> SymbolTerms {
        let mut out = SymbolTerms {
            files: Vec::new(),
            entries: Vec::new(),
            by_stem: HashMap::new(),
            by_name: HashMap::new(),
            idf: HashMap::new(),
            vocabulary: Default::default(),
        };
        for (file, symbols) in files {
            let file_id = out.files.len() as u32;
            out.files.push(file.to_string());
            for s in symbols {
                let stems = name_stems(&s.name);
                if stems.is_empty() {
                    continue;
                }
                let id = out.entries.len() as u32;
                for st in &stems {
                    out.by_stem.entry(st.clone()).or_default().push(id);
                }
                out.by_name
                    .entry(s.name.to_ascii_lowercase())
                    .or_default()
                    .push(id);
                out.entries.push(Named {
                    file: file_id,
                    name: if s.qualified_name.is_empty() {
                        s.name.clone()
                    } else {
                        s.qualified_name.clone()
                    },
                    line: s.line as u32,
                    end_line: s.end_line as u32,
                    kind_weight: kind_weight(s.kind),
                    stems,
                });
            }
        }
        let n = out.entries.len();
        out.idf = out
            .by_stem
            .iter()
            .map(|(s, ids)| (s.clone(), idf_of(ids.len(), n)))
            .collect();
        out
    }

    /// The project's words for the words of `query` the glossary does not read
    /// ([`crate::search::glossary::unread`]): for a katakana word, the best-known word that
    /// sounds like it ([`crate::search::loanword::find`]), so 「ペット一覧」 also looks for `pet` in
    /// a clinic's code; for a word of `dictionary`, the first English word of its senses the
    /// project's names hold ([`crate::search::dictionary::in_project`]), so 「飼い主の検索」 looks
    /// for `owner`; before both, the project's own translation of a word
    /// ([`crate::search::translations`]). A katakana word the loanwords find is not looked up again, and one inside a
    /// longer dictionary word is not taken for a loanword.
    pub fn bridged_words(&self, query: &str, dictionary: Option<&Dictionary>) -> Vec<String> {
        use crate::search::dictionary::{in_project, unread_runs};
        if dictionary.is_none() && crate::search::glossary::unread(query).is_empty() {
            // Nothing to look up: the vocabulary need not be built.
            return Vec::new();
        }
        let vocabulary = self.vocabulary.get_or_init(|| {
            let words = self.by_stem.iter().map(|(s, ids)| (s.clone(), ids.len()));
            crate::search::loanword::Vocabulary::new(words)
        });
        let in_dictionary = match dictionary {
            Some(dictionary) => in_project(query, dictionary, vocabulary, 1),
            None => Vec::new(),
        };
        let runs = unread_runs(query, &in_dictionary, Some(vocabulary));
        let mut out: Vec<String> = Vec::new();
        let mut push = |word: &str| {
            if !out.iter().any(|w| w == word) {
                out.push(word.to_string());
            }
        };
        // The project's own translations first: a run they read is not taken by its sound.
        let translated = |at: usize, end: usize| {
            in_dictionary
                .iter()
                .any(|w| w.project && w.overlaps(at, end))
        };
        for word in in_dictionary.iter().filter(|w| w.project) {
            push(&word.english[0].0);
        }
        for run in &runs {
            let (at, end) = run.span();
            if translated(at, end) {
                continue;
            }
            for best in run.loanwords.iter().filter_map(|forms| forms.first()) {
                push(best);
            }
        }
        for word in in_dictionary.iter().filter(|w| !w.project) {
            let by_loanword = runs.iter().any(|run| {
                let (at, end) = run.span();
                !run.loanwords.is_empty() && at <= word.at && word.end <= end
            });
            if !by_loanword {
                push(&word.english[0].0);
            }
        }
        out
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Symbols the request names, strongest first (at most `limit`).
    pub fn matches(&self, q: &QueryStems, limit: usize) -> Vec<NameMatch> {
        let mut scores: HashMap<u32, f32> = HashMap::new();
        let mut touched: HashSet<u32> = HashSet::new();
        for stem in q.stems.keys() {
            if let Some(ids) = self.by_stem.get(stem) {
                // Stems shared by a large part of the code base carry no information.
                if ids.len() > self.entries.len() / 3 + 50 {
                    continue;
                }
                touched.extend(ids.iter().copied());
            }
        }
        for id in touched {
            let e = &self.entries[id as usize];
            let mut total = 0.0;
            let mut hit = 0.0;
            let mut hits = 0;
            for st in &e.stems {
                let idf = self.idf.get(st).copied().unwrap_or(1.0);
                total += idf;
                if let Some(w) = q.stems.get(st) {
                    hit += idf * w;
                    hits += 1;
                }
            }
            if hits == 0 || total <= 0.0 {
                continue;
            }
            let coverage = hit / total;
            // One generic word matching a one-word name is weaker than two words matching.
            let breadth = if hits >= 2 { 1.0 } else { 0.75 };
            scores.insert(id, coverage * breadth * e.kind_weight);
        }
        for ident in &q.identifiers {
            if let Some(ids) = self.by_name.get(ident) {
                for id in ids {
                    let e = &self.entries[*id as usize];
                    scores.insert(*id, 1.5 * e.kind_weight.max(0.8));
                }
            }
        }
        let mut out: Vec<NameMatch> = scores
            .into_iter()
            .filter(|(_, s)| *s >= 0.45)
            .map(|(id, strength)| {
                let e = &self.entries[id as usize];
                NameMatch {
                    file: self.files[e.file as usize].clone(),
                    name: e.name.clone(),
                    line: e.line,
                    end_line: e.end_line,
                    strength,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then_with(|| a.file.cmp(&b.file))
                .then_with(|| a.line.cmp(&b.line))
        });
        out.truncate(limit);
        out
    }

    /// Definitions of exactly `name` (case-insensitive), for placing agreement symbols.
    pub fn definitions_of(&self, name: &str) -> Vec<NameMatch> {
        let short = name
            .rsplit(['\\', ':', '.', '/'])
            .next()
            .unwrap_or(name)
            .to_ascii_lowercase();
        self.by_name
            .get(&short)
            .into_iter()
            .flatten()
            .map(|id| {
                let e = &self.entries[*id as usize];
                NameMatch {
                    file: self.files[e.file as usize].clone(),
                    name: e.name.clone(),
                    line: e.line,
                    end_line: e.end_line,
                    strength: 1.0,
                }
            })
            .collect()
    }
}

/// An inverted index over file paths: directory names and the file name's parts.
pub struct PathTerms {
    files: Vec<(String, Vec<String>, Vec<String>)>,
    by_stem: HashMap<String, Vec<u32>>,
    idf: HashMap<String, f32>,
}

impl PathTerms {
    pub fn build<'a>(paths: impl IntoIterator<Item = &'a str>) -> PathTerms {
        let mut out = PathTerms {
            files: Vec::new(),
            by_stem: HashMap::new(),
            idf: HashMap::new(),
        };
        for path in paths {
            let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
            let file_stem = file.split('.').next().unwrap_or(file);
            let name = name_stems(file_stem);
            let dirs: Vec<String> = name_stems(&dir.replace('/', " "))
                .into_iter()
                .filter(|s| !name.contains(s))
                .collect();
            let id = out.files.len() as u32;
            for s in name.iter().chain(&dirs) {
                out.by_stem.entry(s.clone()).or_default().push(id);
            }
            out.files.push((path.to_string(), name, dirs));
        }
        let n = out.files.len();
        out.idf = out
            .by_stem
            .iter()
            .map(|(s, ids)| (s.clone(), idf_of(ids.len(), n)))
            .collect();
        out
    }

    /// Files whose path matches the request, strongest first, with strength in (0, 1].
    pub fn matches(&self, q: &QueryStems, limit: usize) -> Vec<(String, f32)> {
        let query_mass: f32 = q
            .stems
            .iter()
            .map(|(s, w)| self.idf.get(s).copied().unwrap_or(0.0) * w)
            .sum();
        if query_mass <= 0.0 {
            return Vec::new();
        }
        let mut touched: HashSet<u32> = HashSet::new();
        for stem in q.stems.keys() {
            if let Some(ids) = self.by_stem.get(stem) {
                touched.extend(ids.iter().copied());
            }
        }
        let mut out: Vec<(String, f32)> = touched
            .into_iter()
            .filter_map(|id| {
                let (path, name, dirs) = &self.files[id as usize];
                let mut hit = 0.0;
                let mut name_hits = 0;
                for s in name {
                    if let Some(w) = q.stems.get(s) {
                        hit += self.idf[s] * w;
                        name_hits += 1;
                    }
                }
                for s in dirs {
                    if let Some(w) = q.stems.get(s) {
                        hit += 0.5 * self.idf[s] * w;
                    }
                }
                // A file name fully spelled out by the request is the strongest path match.
                let whole_name = !name.is_empty() && name_hits == name.len();
                let strength = (hit / query_mass).min(1.0) * if whole_name { 1.0 } else { 0.8 };
                (strength >= 0.15).then(|| (path.clone(), strength))
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.truncate(limit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Symbol;

    fn sym(name: &str, kind: SymbolKind, line: usize) -> Symbol {
        Symbol {
            name: name.into(),
            kind,
            line,
            column: 1,
            end_line: line + 5,
            scope: None,
            qualified_name: name.into(),
            signature: String::new(),
            exported: true,
        }
    }

    #[test]
    fn symbols_named_by_the_request_rank_by_specificity() {
        let a = [
            sym("OrderRepository", SymbolKind::Class, 1),
            sym("save", SymbolKind::Method, 10),
        ];
        let b = [sym("UserRepository", SymbolKind::Class, 1)];
        let c = [sym("calculateOrderTotal", SymbolKind::Function, 3)];
        let index = SymbolTerms::build([
            ("orders/repo.py", &a[..]),
            ("users/repo.py", &b[..]),
            ("cart.py", &c[..]),
        ]);
        let q = QueryStems::new("where are orders saved in the repository", &[], 0.5);
        let got = index.matches(&q, 10);
        assert_eq!(got[0].name, "OrderRepository", "{got:?}");
        assert!(
            got.iter()
                .all(|m| m.name != "UserRepository" || m.strength < got[0].strength)
        );

        let q = QueryStems::new("calculateOrderTotal", &[], 0.5);
        let got = index.matches(&q, 10);
        assert_eq!(got[0].name, "calculateOrderTotal");
        assert!(
            got[0].strength > 1.0,
            "exact names are the strongest matches"
        );

        let q = QueryStems::new("ログイン", &["order"], 0.5);
        let got = index.matches(&q, 10);
        assert!(got.iter().all(|m| m.strength < 1.0));
        assert_eq!(
            index.definitions_of("App\\Orders\\OrderRepository")[0].file,
            "orders/repo.py"
        );
    }

    #[test]
    fn a_requests_words_the_glossary_lacks_are_looked_for_as_the_projects_words() {
        let owner = [
            sym("Owner", SymbolKind::Class, 1),
            sym("findOwners", SymbolKind::Method, 10),
        ];
        let pet = [sym("PetController", SymbolKind::Class, 1)];
        let index = SymbolTerms::build([
            ("owner/Owner.java", &owner[..]),
            ("owner/Pet.java", &pet[..]),
        ]);
        let dictionary =
            Dictionary::parse("飼い主\t(pet) owner; keeper\nペット\tpet\n".to_string()).unwrap();
        // ペット by its sound, 飼い主 through the dictionary; the glossary reads 検索 itself.
        assert_eq!(
            index.bridged_words("ペットと飼い主の検索", Some(&dictionary)),
            vec!["pet".to_string(), "owner".to_string()]
        );
        assert_eq!(
            index.bridged_words("飼い主の検索", None),
            Vec::<String>::new()
        );
        // ペット inside a longer dictionary word is that word, not the loanword.
        let compound = Dictionary::parse("ペット飼い主\towner of a pet\n".to_string()).unwrap();
        assert_eq!(
            index.bridged_words("ペット飼い主の検索", Some(&compound)),
            vec!["owner".to_string()]
        );
        // The project's translations come before the word's sound: its UI calls a pet's owner
        // ペットオーナー, which by sound would be `pet`.
        let translated = Dictionary::layered(
            "ペットオーナー\tOwner\n".to_string(),
            Some(std::sync::Arc::new(dictionary)),
        )
        .unwrap();
        assert_eq!(
            index.bridged_words("ペットオーナーの検索", Some(&translated)),
            vec!["owner".to_string()]
        );
    }

    #[test]
    fn paths_match_on_file_names_more_than_directories() {
        let index = PathTerms::build([
            "app/Services/PaymentService.php",
            "app/Payment/Gateway.php",
            "app/Services/MailService.php",
            "README.md",
        ]);
        let q = QueryStems::new("payment service", &[], 0.5);
        let got = index.matches(&q, 10);
        assert_eq!(got[0].0, "app/Services/PaymentService.php");
        assert!(got.iter().any(|(p, _)| p == "app/Payment/Gateway.php"));
        assert!(QueryStems::new("the", &[], 0.5).stems.is_empty());
        assert!(
            index
                .matches(&QueryStems::new("the", &[], 0.5), 10)
                .is_empty()
        );
    }
}
