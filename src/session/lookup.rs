//! Checking the agent's words against the code: does a symbol exist (the symbol index decides;
//! a name it cannot find is a hallucination), and does a piece of `code_evidence` name things
//! that really are in a symbol's code.
//!
//! Evidence is read for *code-like* names only (backticked, called `x()`, dotted or `::`
//! paths, snake_case, camelCase / PascalCase with two humps) and quoted phrases (「…」, "…"),
//! because ordinary words ("handles", "user") would match any code and prove nothing. A name
//! counts when it occurs as a whole identifier in the symbol's source span and is not the
//! symbol's own name or a language keyword.

use crate::analysis::{NAME_SEPARATORS, Symbol, split_qualified};
use crate::index::Snapshot;
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// A definition found for a name.
#[derive(Debug, Clone)]
pub struct SymbolDef {
    pub file: String,
    pub symbol: Symbol,
}

/// The name a symbol is defined by: `AuthService.login()` → `login`.
pub fn bare_name(name: &str) -> String {
    split_qualified(name).1.to_string()
}

/// Definitions of `name` (bare or qualified) in the index, in file order.
pub fn find_symbol(snapshot: &Snapshot, name: &str) -> Vec<SymbolDef> {
    let (qualifier, bare) = split_qualified(name);
    if bare.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (file, entry) in &snapshot.files {
        for s in &entry.symbols.symbols {
            if s.name != bare {
                continue;
            }
            if qualifier.as_ref().is_none_or(|q| s.answers_to(q, file)) {
                found.push(SymbolDef {
                    file: file.clone(),
                    symbol: s.clone(),
                });
            }
        }
    }
    found.sort_by(|a, b| a.file.cmp(&b.file).then(a.symbol.line.cmp(&b.symbol.line)));
    found
}

/// The classes and callables defined in `file` (at most `limit`, in line order): what a
/// hypothesis about a whole file is judged by.
pub fn defs_in_file(snapshot: &Snapshot, file: &str, limit: usize) -> Vec<SymbolDef> {
    snapshot.files.get(file).map_or_else(Vec::new, |entry| {
        entry
            .symbols
            .symbols
            .iter()
            .filter(|s| s.kind.is_callable() || s.kind.as_str() == "class")
            .take(limit)
            .map(|s| SymbolDef {
                file: file.to_string(),
                symbol: s.clone(),
            })
            .collect()
    })
}

/// The definitions among `defs` that lie in `files` (files, or directories ending in `/`, as the
/// agent reported reading them), or all of `defs` when none does. A name with several
/// definitions (`init`, `index`, `create_user`) means the one the agent read: judging the best
/// of all of them would let a same-named function elsewhere speak for it.
pub fn in_files(defs: Vec<SymbolDef>, files: &[String]) -> Vec<SymbolDef> {
    let read = |file: &str| {
        files.iter().any(|f| match f.strip_suffix('/') {
            Some(dir) => file.starts_with(&format!("{dir}/")),
            None => f == file,
        })
    };
    if defs.len() < 2 || !defs.iter().any(|d| read(&d.file)) {
        return defs;
    }
    defs.into_iter().filter(|d| read(&d.file)).collect()
}

/// Up to `limit` existing names close to `name` (same letters ignoring case, or one contains the
/// other), for "did you mean".
pub fn near_names(snapshot: &Snapshot, name: &str, limit: usize) -> Vec<String> {
    let (_, bare) = split_qualified(name);
    let wanted = bare.to_lowercase();
    if wanted.len() < 3 {
        return Vec::new();
    }
    let mut scored: BTreeSet<(usize, String)> = BTreeSet::new();
    for entry in snapshot.files.values() {
        for s in &entry.symbols.symbols {
            let lower = s.name.to_lowercase();
            let distance = edit_distance(&lower, &wanted);
            let close = distance <= 2
                || (lower.len() >= 4 && (lower.contains(&wanted) || wanted.contains(&lower)));
            if close && s.name != bare {
                scored.insert((distance, s.name.clone()));
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (_, name) in scored {
        if !out.contains(&name) {
            out.push(name);
        }
        if out.len() == limit {
            break;
        }
    }
    out
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Whether any symbol in the index has this bare name.
pub fn name_exists(snapshot: &Snapshot, bare: &str) -> bool {
    snapshot
        .files
        .values()
        .any(|e| e.symbols.symbols.iter().any(|s| s.name == bare))
}

/// The source lines of a definition (1-based inclusive span).
pub fn symbol_code(source: &str, symbol: &Symbol) -> String {
    let start = symbol.line.saturating_sub(1);
    let end = symbol.end_line.max(symbol.line);
    source
        .lines()
        .skip(start)
        .take(end - start)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Words that occur in any code and prove nothing.
const KEYWORDS: &[&str] = &[
    "self",
    "this",
    "cls",
    "super",
    "return",
    "def",
    "class",
    "function",
    "fn",
    "new",
    "public",
    "private",
    "protected",
    "static",
    "async",
    "await",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "let",
    "const",
    "var",
    "import",
    "from",
    "if",
    "else",
    "for",
    "while",
    "in",
    "is",
    "not",
    "and",
    "or",
    "str",
    "int",
    "bool",
    "string",
    "void",
];

/// Names that occur in most functions of any project (parameters, temporaries, accessors):
/// finding one in a symbol's code shows nothing about what the symbol does.
const GENERIC_NAMES: &[&str] = &[
    "get", "set", "data", "value", "values", "result", "args", "kwargs", "obj", "err", "ctx",
    "len", "list", "dict", "key", "item", "items", "name", "type", "init", "main", "run", "tmp",
];

/// Whether a cited name is specific enough to count as evidence: three characters or more, not
/// a keyword, not one of [`GENERIC_NAMES`].
fn is_telling(name: &str) -> bool {
    let lower = name.to_lowercase();
    let lower = lower.trim_start_matches(['_', '$']);
    lower.len() >= 3 && !KEYWORDS.contains(&lower) && !GENERIC_NAMES.contains(&lower)
}

fn identifier_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->|\\)[A-Za-z_$][A-Za-z0-9_$]*)*(?:\(\))?")
            .expect("static regex")
    })
}

fn backtick_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"`([^`]+)`").expect("static regex"))
}

fn quoted_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"「([^」]{2,})」|『([^』]{2,})』|"([^"]{2,})"|“([^”]{2,})”"#)
            .expect("static regex")
    })
}

/// Whether a bare token looks like code rather than a word of prose.
fn looks_like_code(token: &str, followed_by_paren: bool, in_backticks: bool) -> bool {
    if in_backticks || followed_by_paren || token.ends_with("()") {
        return true;
    }
    let token = token.trim_end_matches("()");
    if NAME_SEPARATORS.iter().any(|s| token.contains(s)) || token.contains('_') {
        return true;
    }
    let chars: Vec<char> = token.chars().collect();
    let humps = chars
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    humps >= 1
}

/// The code-like names (split into their parts) and quoted phrases of a piece of evidence.
pub fn evidence_terms(evidence: &str) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut add = |token: &str| {
        for part in token
            .trim_end_matches("()")
            .split(['.', ':', '\\', '#', '-', '>'])
        {
            let part =
                part.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'));
            if part.len() >= 2 && !names.iter().any(|n| n == part) {
                names.push(part.to_string());
            }
        }
    };
    let mut backticked = String::new();
    for cap in backtick_re().captures_iter(evidence) {
        for m in identifier_re().find_iter(&cap[1]) {
            add(m.as_str());
        }
        backticked.push_str(&cap[1]);
        backticked.push(' ');
    }
    for m in identifier_re().find_iter(evidence) {
        let followed = evidence[m.end()..].starts_with('(');
        if looks_like_code(m.as_str(), followed, false) {
            add(m.as_str());
        }
    }
    let phrases: Vec<String> = quoted_re()
        .captures_iter(evidence)
        .filter_map(|c| {
            c.iter()
                .skip(1)
                .flatten()
                .next()
                .map(|m| m.as_str().trim().to_string())
        })
        .filter(|p| !p.is_empty())
        .collect();
    (names, phrases)
}

/// Whether `ident` occurs in `code` as a whole identifier.
pub fn contains_identifier(code: &str, ident: &str) -> bool {
    crate::lexical::whole_word_starts(code, ident, crate::lexical::is_word_char)
        .next()
        .is_some()
}

/// The result of reading evidence against one symbol's code.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvidenceCheck {
    /// Names and phrases of the evidence found in the symbol's code.
    pub verified: Vec<String>,
    /// Code-like names found neither in the symbol's code nor anywhere in the project.
    pub unknown: Vec<String>,
}

/// Reads `evidence` about `symbol` against what it may cite: the code of its definitions and the
/// names of what calls them (`candidates`, read with their callers). The symbol's own name and
/// its qualifier's parts prove nothing. `confirm_symbol_relevance` and `submit_verification` both
/// ask this, so the same evidence holds for the same symbol in either.
pub fn check_symbol_evidence(
    evidence: &str,
    symbol: &str,
    candidates: &[crate::judge::Candidate],
    exists_elsewhere: &dyn Fn(&str) -> bool,
) -> EvidenceCheck {
    let around: String = candidates
        .iter()
        .map(|c| c.code.as_str())
        .chain(
            candidates
                .iter()
                .flat_map(|c| c.callers.iter().map(|caller| caller.name.as_str())),
        )
        .collect::<Vec<_>>()
        .join("\n");
    let mut parts: Vec<&str> = symbol
        .split(['.', ':', '\\', '#'])
        .filter(|p| !p.is_empty())
        .collect();
    parts.push(symbol);
    check_evidence(evidence, &parts, &around, exists_elsewhere)
}

/// Reads `evidence` against `code` (the symbol's source span, and what the caller counts as
/// around it: the names of its callers). `symbol_parts` are the symbol's
/// own name and qualifier parts, which prove nothing; `exists_elsewhere` says whether a name is
/// a symbol somewhere in the project.
pub fn check_evidence(
    evidence: &str,
    symbol_parts: &[&str],
    code: &str,
    exists_elsewhere: &dyn Fn(&str) -> bool,
) -> EvidenceCheck {
    let (names, phrases) = evidence_terms(evidence);
    let mut check = EvidenceCheck::default();
    for name in names {
        if symbol_parts.contains(&name.as_str()) || !is_telling(&name) {
            continue;
        }
        if contains_identifier(code, &name) {
            check.verified.push(name);
        } else if !exists_elsewhere(&name) {
            check.unknown.push(name);
        }
    }
    let code_lower = code.to_lowercase();
    for phrase in phrases {
        let lower = phrase.to_lowercase();
        if symbol_parts.iter().any(|p| p.eq_ignore_ascii_case(&phrase))
            || phrase.chars().count() < 2
            || (phrase.is_ascii() && !is_telling(&phrase))
        {
            continue;
        }
        if code_lower.contains(&lower) && !check.verified.contains(&phrase) {
            check.verified.push(phrase);
        }
    }
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH: &str = "class AuthService:\n    \"\"\"Handles user login and logout (認証処理).\"\"\"\n    def login(self, email, password):\n        user = self._users.get_by_email(email)\n        return self.verify_password(password, user.password_hash)\n";

    #[test]
    fn evidence_must_name_code_of_the_symbol() {
        let nowhere = |_: &str| false;
        let project = |n: &str| n == "ConfigLoader" || n == "load";
        // (evidence, verified, unknown)
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("AuthService.login() がユーザー認証を処理", &["login"], &[]),
            (
                "login checks `verify_password` against the stored hash",
                &["verify_password"],
                &[],
            ),
            (
                "it calls self._users.get_by_email(email)",
                &["_users", "get_by_email"],
                &[],
            ),
            ("クラスコメントに「認証処理」と記載", &["認証処理"], &[]),
            ("AuthService handles login", &[], &[]),
            ("AuthService.authenticate() does it", &[], &["authenticate"]),
            ("ConfigLoader.load() reads settings", &[], &[]),
            ("the password is hashed", &[], &[]),
            // Names every function has prove nothing, even when they are in the code.
            (
                "it reads `email` and returns `user`, see `self` and `get()`",
                &["email", "user"],
                &[],
            ),
            ("uses `id`, `data` and `result`; \"get\"", &[], &[]),
        ];
        for (evidence, verified, unknown) in cases {
            let exists: &dyn Fn(&str) -> bool = if evidence.contains("ConfigLoader") {
                &project
            } else {
                &nowhere
            };
            let got = check_evidence(evidence, &["AuthService"], AUTH, exists);
            assert_eq!(got.verified, *verified, "{evidence}");
            assert_eq!(got.unknown, *unknown, "{evidence}");
        }
    }

    #[test]
    fn a_name_defined_twice_means_the_definition_in_the_files_read() {
        let lang = crate::lang::detect("a.py").unwrap();
        let symbol =
            crate::analysis::analyze_source(lang, "def init():\n    pass\n").symbols[0].clone();
        let def = |file: &str| SymbolDef {
            file: file.into(),
            symbol: symbol.clone(),
        };
        let files = |defs: &[SymbolDef]| defs.iter().map(|d| d.file.clone()).collect::<Vec<_>>();
        let defs = vec![def("app/pre_start.py"), def("app/initial_data.py")];
        let read = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            files(&in_files(defs.clone(), &read(&["app/initial_data.py"]))),
            ["app/initial_data.py"]
        );
        // A directory read covers its files; nothing read in common keeps every definition.
        assert_eq!(files(&in_files(defs.clone(), &read(&["app/"]))).len(), 2);
        assert_eq!(
            files(&in_files(defs.clone(), &read(&["other.py"]))).len(),
            2
        );
        assert_eq!(files(&in_files(defs, &[])).len(), 2);
    }

    #[test]
    fn a_typo_is_one_edit() {
        assert_eq!(edit_distance("authservise", "authservice"), 1);
    }
}
