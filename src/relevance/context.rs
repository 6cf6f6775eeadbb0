//! The text that stands for a symbol when it is compared with a request's words.
//!
//! A bare identifier (`AuthService`) carries little meaning for a model; its doc comment
//! ("Handles user login and logout"), its signature and its file path (`auth/service.py`) carry
//! most of it. [`SymbolContext`] gathers them from the symbol index and the file's text;
//! [`doc_comment`] reads the comment that documents a definition (Python docstrings, comment
//! blocks above a declaration in the other languages).

use crate::analysis::Symbol;

/// Upper bound on the doc text kept for one symbol: the first sentences carry the meaning, and
/// the model truncates long inputs anyway.
const MAX_DOC_CHARS: usize = 400;
/// Doc text used for scoring (see [`SymbolContext::summary`]).
const SUMMARY_CHARS: usize = 160;
/// Member names listed for an undocumented class.
const MAX_MEMBERS: usize = 12;

/// What is known about one symbol, for relevance scoring.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolContext {
    pub name: String,
    pub kind: String,
    /// Enclosing class, namespace or module (`AuthService` for `AuthService.login`).
    pub scope: Option<String>,
    pub file: String,
    pub signature: String,
    pub doc: Option<String>,
    /// Method names of a class without a doc comment: what it does, when nothing says so.
    pub members: Vec<String>,
}

impl SymbolContext {
    /// Builds the context of `symbol`, defined in `file` whose text is `source`.
    pub fn new(file: &str, symbol: &Symbol, source: &str) -> SymbolContext {
        SymbolContext {
            name: symbol.name.clone(),
            kind: symbol.kind.as_str().to_string(),
            scope: symbol.scope.clone(),
            file: file.to_string(),
            signature: symbol.signature.clone(),
            doc: doc_comment(source, symbol),
            members: Vec::new(),
        }
    }

    /// Adds the member names (methods of a class) from the file's symbols, up to
    /// [`MAX_MEMBERS`], dunder methods left out.
    pub fn with_members(mut self, symbol: &Symbol, file_symbols: &[Symbol]) -> SymbolContext {
        self.members = file_symbols
            .iter()
            .filter(|s| {
                s.kind.is_callable()
                    && !s.name.starts_with("__")
                    && s.scope
                        .as_deref()
                        .is_some_and(|scope| scope == symbol.qualified_name || scope == symbol.name)
            })
            .map(|s| s.name.clone())
            .take(MAX_MEMBERS)
            .collect();
        self
    }

    /// The first sentences of the doc comment (at most [`SUMMARY_CHARS`]), markup backticks
    /// removed: the calibration's symbol texts carry one or two sentences, and long docstrings
    /// drift towards whatever they mention last.
    pub fn summary(&self) -> Option<String> {
        let doc = self.doc.as_deref()?.replace('`', "");
        let mut out = String::new();
        for sentence in doc.split_inclusive(". ") {
            if !out.is_empty() && out.len() + sentence.len() > SUMMARY_CHARS {
                break;
            }
            out.push_str(sentence);
        }
        let out = out.trim().to_string();
        (!out.is_empty()).then_some(out)
    }

    /// The text compared with a request's term, in the layout the calibration was fitted on
    /// (`embed/data/relevance_set.txt`, kind `symbol`): file path, signature, then the doc
    /// summary, or for an undocumented class its method names as words. The embedder splits
    /// identifiers itself (`AuthService` → `Auth Service`). Measured on labelled pairs (see
    /// `relevance::embedded` tests): the summary separates better than the whole docstring.
    pub fn text(&self) -> String {
        let signature = self
            .signature
            .trim()
            .trim_end_matches(['{', ':'])
            .trim_end();
        let signature = if signature.is_empty() {
            format!("{} {}", self.kind, self.name)
        } else {
            signature.to_string()
        };
        let mut out = format!("{}\n{signature}", self.file);
        if let Some(summary) = self.summary() {
            out.push('\n');
            out.push_str(&summary);
        } else if !self.members.is_empty() {
            let words: Vec<String> = self
                .members
                .iter()
                .map(|m| identifier_words(m).join(" "))
                .collect();
            out.push('\n');
            out.push_str(&words.join(", "));
        }
        out
    }
}

/// Words of a text with identifiers split: `AuthService.login` → `Auth`, `Service`, `login`;
/// `src/auth/user_repo.py` → `src`, `auth`, `user`, `repo`, `py`. Non-ASCII words are kept whole.
pub fn identifier_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = raw.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (p, c) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = c.is_ascii_uppercase()
                && (p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next_lower));
            if boundary {
                words.push(chars[start..i].iter().collect());
                start = i;
            }
        }
        if start < chars.len() {
            words.push(chars[start..].iter().collect());
        }
    }
    words
}

/// The comment documenting `symbol` in `source`: a Python docstring (first string statement of
/// the body), or the block of comment lines right above the declaration (decorators and
/// attributes in between are skipped). Whitespace is collapsed; `None` when there is none.
pub fn doc_comment(source: &str, symbol: &Symbol) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let decl = symbol.line.checked_sub(1)?;
    if decl >= lines.len() {
        return None;
    }
    let text = python_docstring(&lines, decl, symbol.end_line)
        .or_else(|| comment_block_above(&lines, decl))?;
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    Some(match collapsed.char_indices().nth(MAX_DOC_CHARS) {
        Some((cut, _)) => collapsed[..cut].to_string(),
        None => collapsed,
    })
}

/// The docstring of a Python `def`/`class` whose header starts on line index `decl`.
fn python_docstring(lines: &[&str], decl: usize, end_line: usize) -> Option<String> {
    let header = lines[decl].trim_start();
    let is_def = ["def ", "class ", "async def "]
        .iter()
        .any(|k| header.starts_with(k));
    if !is_def {
        return None;
    }
    // The header may span several lines; it ends at the first line ending with ':'.
    let last = end_line.max(decl + 1).min(lines.len());
    let header_end = (decl..last).find(|&i| strip_trailing_comment(lines[i]).ends_with(':'))?;
    let body = (header_end + 1..last).find(|&i| !lines[i].trim().is_empty())?;
    let first = lines[body].trim();
    let first = first.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B']);
    let quote = ["\"\"\"", "'''"]
        .into_iter()
        .find(|q| first.starts_with(q))?;
    let rest = &first[quote.len()..];
    if let Some(end) = rest.find(quote) {
        return Some(rest[..end].to_string());
    }
    let mut doc = vec![rest.to_string()];
    for line in &lines[body + 1..last] {
        if let Some(end) = line.find(quote) {
            doc.push(line[..end].to_string());
            return Some(doc.join(" "));
        }
        doc.push(line.to_string());
    }
    Some(doc.join(" "))
}

fn strip_trailing_comment(line: &str) -> &str {
    match line.find(" #") {
        Some(i) => line[..i].trim_end(),
        None => line.trim_end(),
    }
}

/// Comment lines directly above line index `decl`, skipping decorators and attributes.
fn comment_block_above(lines: &[&str], decl: usize) -> Option<String> {
    let mut i = decl;
    let mut block: Vec<String> = Vec::new();
    while i > 0 {
        i -= 1;
        let line = lines[i].trim();
        if block.is_empty() && (line.starts_with('@') || line.starts_with("#[")) {
            continue;
        }
        let Some(text) = comment_text(line) else {
            break;
        };
        block.push(text);
    }
    block.reverse();
    let joined = block.join(" ");
    (!joined.trim().is_empty()).then_some(joined)
}

/// The text of one comment line, markers removed; `None` when the line is not a comment.
fn comment_text(line: &str) -> Option<String> {
    crate::lang::walk::comment_line(line).map(|text| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_source;

    fn contexts(path: &str, source: &str) -> Vec<SymbolContext> {
        let lang = crate::lang::detect(path).unwrap();
        analyze_source(lang, source)
            .symbols
            .iter()
            .map(|s| SymbolContext::new(path, s, source))
            .collect()
    }

    #[test]
    fn doc_comments_per_language() {
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            (
                "auth/service.py",
                "class AuthService:\n    \"\"\"Handles user login\n    and logout.\"\"\"\n\n    def login(self, email,\n              password):\n        '''Check credentials.'''\n        pass\n\n    def logout(self):\n        pass\n",
                "login",
                Some("Check credentials."),
            ),
            (
                "auth/service.py",
                "class AuthService:\n    \"\"\"Handles user login\n    and logout.\"\"\"\n    pass\n",
                "AuthService",
                Some("Handles user login and logout."),
            ),
            (
                "auth/service.py",
                "# not a docstring\ndef plain():\n    return 1\n",
                "plain",
                Some("not a docstring"),
            ),
            (
                "src/auth.ts",
                "/**\n * Signs users in.\n */\n@Injectable()\nexport class AuthService {}\n",
                "AuthService",
                Some("Signs users in."),
            ),
            (
                "src/lib.rs",
                "/// Loads the configuration.\n#[derive(Debug)]\npub struct ConfigLoader;\n",
                "ConfigLoader",
                Some("Loads the configuration."),
            ),
            ("src/lib.rs", "let x = 1;\npub struct Bare;\n", "Bare", None),
        ];
        for (path, source, name, want) in cases {
            let ctx = contexts(path, source)
                .into_iter()
                .find(|c| c.name == *name)
                .unwrap_or_else(|| panic!("{name} not found in {path}"));
            assert_eq!(ctx.doc.as_deref(), *want, "{path} {name}");
        }
    }

    #[test]
    fn context_text_has_the_calibrated_layout() {
        let ctx = contexts(
            "src/orderly/auth/service.py",
            "class AuthService:\n    \"\"\"Handles user login.\"\"\"\n",
        )
        .remove(0);
        assert_eq!(
            ctx.text(),
            "src/orderly/auth/service.py\nclass AuthService\nHandles user login."
        );
        let source = "class OrderService:\n    def __init__(self):\n        pass\n\n    def place_order(self):\n        pass\n\n    def cancel_order(self):\n        pass\n";
        let lang = crate::lang::detect("svc.py").unwrap();
        let symbols = analyze_source(lang, source).symbols;
        let class = symbols.iter().find(|s| s.name == "OrderService").unwrap();
        let ctx = SymbolContext::new("svc.py", class, source).with_members(class, &symbols);
        assert_eq!(
            ctx.text(),
            "svc.py\nclass OrderService\nplace order, cancel order"
        );
        assert_eq!(
            identifier_words("HTTPServer.get_user2Name ログイン"),
            ["HTTP", "Server", "get", "user2", "Name", "ログイン"]
        );
    }
}
