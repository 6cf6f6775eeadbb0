//! Symbol search over the symbol index (seed 002's `search_symbol`): names matched exactly, by
//! prefix, suffix or substring; case-sensitively or not; and, as an option, by identifier words
//! so that `getUserById`, `get_user_by_id`, `GetUserByID` and `GET_USER_BY_ID` are one name.
//!
//! Word-aware matching compares word sequences: `prefix` means the query's words start the
//! name's words, `contains` that they appear contiguously in them (`user_service` finds
//! `CreateUserService`).

use crate::analysis::{Symbol, SymbolKind};
use crate::index::Snapshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchType {
    Exact,
    Prefix,
    Suffix,
    Contains,
}

#[derive(Debug, Clone)]
pub struct NameMatcher {
    query: String,
    match_type: MatchType,
    case_sensitive: bool,
    word_aware: bool,
    query_folded: String,
    query_words: Vec<String>,
}

impl NameMatcher {
    pub fn new(
        query: &str,
        match_type: MatchType,
        case_sensitive: bool,
        word_aware: bool,
    ) -> NameMatcher {
        NameMatcher {
            query: query.to_string(),
            match_type,
            case_sensitive,
            word_aware,
            query_folded: query.to_lowercase(),
            query_words: split_words(query),
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        if self.word_aware {
            return self.matches_words(&split_words(name));
        }
        let folded;
        let (name, query) = if self.case_sensitive {
            (name, self.query.as_str())
        } else {
            folded = name.to_lowercase();
            (folded.as_str(), self.query_folded.as_str())
        };
        match self.match_type {
            MatchType::Exact => name == query,
            MatchType::Prefix => name.starts_with(query),
            MatchType::Suffix => name.ends_with(query),
            MatchType::Contains => name.contains(query),
        }
    }

    fn matches_words(&self, words: &[String]) -> bool {
        let q = &self.query_words;
        if q.is_empty() || q.len() > words.len() {
            return false;
        }
        match self.match_type {
            MatchType::Exact => words == q.as_slice(),
            MatchType::Prefix => words.starts_with(q),
            MatchType::Suffix => words.ends_with(q),
            MatchType::Contains => words.windows(q.len()).any(|w| w == q.as_slice()),
        }
    }

    /// How good a match is, lower first: the exact spelling, then exact ignoring case, then
    /// the rest.
    pub fn rank(&self, name: &str) -> u8 {
        if name == self.query {
            0
        } else if name.to_lowercase() == self.query_folded {
            1
        } else {
            2
        }
    }
}

/// Lower-case words of an identifier: `getHTTPResponse2` → `get`, `http`, `response2`;
/// `user_service` → `user`, `service`.
pub fn split_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    // The last capital of an acronym starts the next word: `HTTPServer`.
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Seed 002's `type` filter: `function`, `class`, `type`, `variable`, `all`, or any symbol kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindFilter {
    All,
    Kinds(Vec<SymbolKind>),
}

impl KindFilter {
    pub fn parse(name: &str) -> Option<KindFilter> {
        use SymbolKind::*;
        Some(match name.to_ascii_lowercase().as_str() {
            "all" => KindFilter::All,
            "function" => KindFilter::Kinds(vec![Function, Method]),
            "class" => KindFilter::Kinds(vec![Class, Struct, Trait]),
            "type" => KindFilter::Kinds(vec![Interface, Type, Enum]),
            "variable" => KindFilter::Kinds(vec![Variable, Constant, Property]),
            other => KindFilter::Kinds(vec![SymbolKind::parse(other)?]),
        })
    }

    pub fn accepts(&self, kind: SymbolKind) -> bool {
        match self {
            KindFilter::All => true,
            KindFilter::Kinds(kinds) => kinds.contains(&kind),
        }
    }
}

/// A matching symbol and the file it is in.
#[derive(Debug, Clone)]
pub struct Hit {
    pub file: String,
    pub language: String,
    pub symbol: Symbol,
}

/// Every symbol under `scope` (a relative directory or file, `""` for all) that matches, best
/// first: spelling rank, exported, type-like before members, then path and line. Returns the
/// hits and the number of files scanned.
pub fn search(
    snapshot: &Snapshot,
    scope: &str,
    language: Option<&str>,
    matcher: &NameMatcher,
    kinds: &KindFilter,
) -> (Vec<Hit>, usize) {
    let mut hits = Vec::new();
    let mut scanned = 0;
    for (file, entry) in &snapshot.files {
        if !in_scope(file, scope) || language.is_some_and(|l| l != entry.symbols.language) {
            continue;
        }
        scanned += 1;
        for symbol in &entry.symbols.symbols {
            if kinds.accepts(symbol.kind) && matcher.matches(&symbol.name) {
                hits.push(Hit {
                    file: file.clone(),
                    language: entry.symbols.language.clone(),
                    symbol: symbol.clone(),
                });
            }
        }
    }
    hits.sort_by(|a, b| {
        let key = |h: &Hit| {
            (
                matcher.rank(&h.symbol.name),
                !h.symbol.exported,
                !h.symbol.kind.is_type_like() && !h.symbol.kind.is_callable(),
            )
        };
        key(a)
            .cmp(&key(b))
            .then_with(|| a.file.cmp(&b.file))
            .then(a.symbol.line.cmp(&b.symbol.line))
    });
    (hits, scanned)
}

fn in_scope(file: &str, scope: &str) -> bool {
    scope.is_empty()
        || file == scope
        || (file.starts_with(scope) && file.as_bytes().get(scope.len()) == Some(&b'/'))
}

/// A function's signature from its name on (`getUserById(id: string): User | undefined`), as
/// seed 002 shows it: declaration keywords, `= … =>` bindings and trailing `:` / `{` removed.
pub fn call_signature(name: &str, declaration: &str) -> String {
    let Some(at) = find_word(declaration, name) else {
        return declaration.to_string();
    };
    let rest = &declaration[at + name.len()..];
    // `useCart = async (a: T): R =>` → `useCart(a: T): R`
    let rest = match rest.trim_start().strip_prefix('=') {
        Some(value) if !value.starts_with('=') => {
            let value = value.trim_start();
            let value = value.strip_prefix("async ").unwrap_or(value).trim_start();
            let value = value
                .strip_prefix("function*")
                .or_else(|| value.strip_prefix("function"))
                .unwrap_or(value)
                .trim_start();
            value.trim_end().trim_end_matches("=>").trim_end()
        }
        _ => rest,
    };
    let signature = format!("{name}{rest}");
    signature
        .trim_end()
        .trim_end_matches(['{', ':'])
        .trim_end()
        .to_string()
}

/// Byte offset of `word` in `text` as a whole identifier.
pub fn find_word(text: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut from = 0;
    while let Some(i) = text[from..].find(word).map(|i| i + from) {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_words() {
        for (name, words) in [
            ("getUserById", "get user by id"),
            ("get_user_by_id", "get user by id"),
            ("GetUserByID", "get user by id"),
            ("GET_USER_BY_ID", "get user by id"),
            ("HTTPServer2", "http server2"),
            ("parseJSONResponse", "parse json response"),
        ] {
            assert_eq!(split_words(name).join(" "), words, "{name}");
        }
    }

    #[test]
    fn match_types_cases_and_styles() {
        let cases = [
            ("User", MatchType::Exact, true, false, "User", true),
            ("User", MatchType::Exact, true, false, "user", false),
            ("User", MatchType::Exact, false, false, "user", true),
            ("User", MatchType::Prefix, true, false, "UserService", true),
            (
                "Service",
                MatchType::Suffix,
                true,
                false,
                "AuthService",
                true,
            ),
            (
                "User",
                MatchType::Contains,
                true,
                false,
                "getCurrentUser",
                true,
            ),
            ("User", MatchType::Prefix, true, false, "getUser", false),
            (
                "get_user_by_id",
                MatchType::Exact,
                true,
                true,
                "getUserById",
                true,
            ),
            (
                "user_service",
                MatchType::Contains,
                true,
                true,
                "CreateUserService",
                true,
            ),
            (
                "user_serv",
                MatchType::Contains,
                true,
                true,
                "CreateUserService",
                false,
            ),
            (
                "UserService",
                MatchType::Suffix,
                true,
                true,
                "create_user_service",
                true,
            ),
        ];
        for (query, match_type, case_sensitive, words, name, expected) in cases {
            let matcher = NameMatcher::new(query, match_type, case_sensitive, words);
            assert_eq!(
                matcher.matches(name),
                expected,
                "{query} {match_type:?} {name}"
            );
        }
    }

    #[test]
    fn signatures_from_the_name_on() {
        for (name, declaration, expected) in [
            (
                "getUserById",
                "function getUserById(id: string): User | undefined",
                "getUserById(id: string): User | undefined",
            ),
            (
                "login",
                "async def login(self, email: str) -> str:",
                "login(self, email: str) -> str",
            ),
            (
                "useCart",
                "useCart = async (a: T): R =>",
                "useCart(a: T): R",
            ),
            ("slug", "private function slug(): string", "slug(): string"),
            ("Total", "func (c *Cart) Total() int", "Total() int"),
        ] {
            assert_eq!(call_signature(name, declaration), expected);
        }
    }
}
