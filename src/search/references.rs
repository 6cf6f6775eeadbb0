//! Uses of names across the code: whole-identifier matches found with ripgrep's engine (fresh
//! by construction: the files as they are now), definition sites left out, each use with the
//! definition it sits in from the symbol index (see `Symbol::encloses_uses`). `find_references` answers with
//! one name; the relevance judge asks for several at once (what calls each claimed symbol), in
//! one pass over the files.

use super::text::{TextQuery, search};
use crate::analysis::{Symbol, innermost_at};
use crate::error::ToolResult;
use crate::index::Snapshot;
use crate::lexical;
use crate::workspace::{WalkOptions, Workspace};
use std::path::Path;
use std::time::Instant;

/// One use of a name.
#[derive(Debug, Clone)]
pub struct Use {
    /// Which of the names asked for.
    pub name: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub text: String,
    /// The innermost definition around the use that holds code ([`Symbol::encloses_uses`]).
    pub enclosing: Option<Symbol>,
}

#[derive(Debug, Default)]
pub struct Uses {
    pub uses: Vec<Use>,
    /// Definition sites that matched and were left out.
    pub definitions_excluded: usize,
    pub timed_out: bool,
}

/// The uses of `names` (bare identifiers) in the files under `base` that `walk` selects.
pub fn uses(
    ws: &Workspace,
    base: &Path,
    walk: &WalkOptions,
    snapshot: &Snapshot,
    names: &[&str],
    deadline: Option<Instant>,
) -> ToolResult<Uses> {
    let mut names: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return Ok(Uses::default());
    }
    let pattern = names
        .iter()
        .map(|n| regex::escape(n))
        .collect::<Vec<_>>()
        .join("|");
    let query = TextQuery {
        pattern,
        fixed_strings: false,
        case_sensitive: Some(true),
        word: true,
        max_results: usize::MAX,
        deadline,
        ..TextQuery::default()
    };
    let results = search(ws, base, walk, &query)?;
    let mut out = Uses {
        timed_out: results.timed_out,
        ..Uses::default()
    };
    for hit in results.hits {
        let symbols: &[Symbol] = snapshot
            .files
            .get(&hit.file)
            .map_or(&[], |e| e.symbols.symbols.as_slice());
        for name in &names {
            let count = word_occurrences(&hit.text, name);
            if count == 0 {
                continue;
            }
            // A definition's own line is a definition site unless the name also appears a
            // second time on it (`def f(): return f()`), which then counts as a use.
            if count == 1
                && symbols
                    .iter()
                    .any(|s| s.name == *name && s.line == hit.line)
            {
                out.definitions_excluded += 1;
                continue;
            }
            let column = if names.len() == 1 {
                hit.column
            } else {
                first_word_column(&hit.text, name).unwrap_or(hit.column)
            };
            out.uses.push(Use {
                name: name.to_string(),
                file: hit.file.clone(),
                line: hit.line,
                column,
                text: hit.text.clone(),
                enclosing: innermost_at(symbols, hit.line, Symbol::encloses_uses).cloned(),
            });
        }
    }
    Ok(out)
}

/// A word character as ripgrep's whole-word search sees it (Unicode letters and digits), plus
/// the `_` and `$` of identifiers.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn word_occurrences(line: &str, name: &str) -> usize {
    lexical::whole_word_starts(line, name, is_word).count()
}

/// 1-based column (in characters) of the first whole-word `name` in `line`.
fn first_word_column(line: &str, name: &str) -> Option<usize> {
    lexical::whole_word_starts(line, name, is_word)
        .next()
        .map(|i| line[..i].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::test_support::Indexed;

    #[test]
    fn several_names_in_one_pass_each_use_with_its_definition() {
        let project = Indexed::new(&[
            (
                "auth.py",
                "def check(p):\n    return p\n\ndef login(u, p):\n    return check(p)\n",
            ),
            (
                "api.py",
                "from auth import login, check\n\ndef route():\n    login(1, 2)\n    relogin()\n    return check(3) and check(4)\n",
            ),
        ]);
        let (ws, snapshot) = (&project.ws, project.snapshot());
        let walk = WalkOptions::default();
        let found = uses(ws, ws.root(), &walk, &snapshot, &["login", "check"], None).unwrap();
        let mut seen: Vec<(String, String, usize, Option<String>)> = found
            .uses
            .iter()
            .map(|u| {
                let enclosing = u.enclosing.as_ref().map(|s| s.name.clone());
                (u.name.clone(), u.file.clone(), u.line, enclosing)
            })
            .collect();
        seen.sort();
        let at = |name: &str, file: &str, line, within: Option<&str>| {
            (name.into(), file.into(), line, within.map(String::from))
        };
        assert_eq!(
            seen,
            vec![
                at("check", "api.py", 1, None),
                // Two uses on one line are one line's use.
                at("check", "api.py", 6, Some("route")),
                at("check", "auth.py", 5, Some("login")),
                at("login", "api.py", 1, None),
                // `relogin` is another name.
                at("login", "api.py", 4, Some("route")),
            ]
        );
        assert_eq!(found.definitions_excluded, 2);
        assert_eq!(
            found.uses[0].column,
            found.uses[0].text.find(&found.uses[0].name).unwrap() + 1
        );
    }
}
