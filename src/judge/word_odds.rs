//! What single words have said about relevance on the development split: for a word of a name
//! that the term does not explain ([`super::terms::TermKeys::stray_words`]), and for a word of
//! the term that the name, scope and path do not hold
//! ([`super::terms::TermKeys::missing_in`]), how much more or less often the pair was relevant
//! than pairs are on the whole (smoothed log-odds).
//!
//! The neighbour beside the right definition shares the term's words and most of its meaning
//! for the model; what gives it away is the word it has in their place. A stray `delete`,
//! `logout` or `refresh` in a name, whatever the term, has meant another action far more often
//! than the feature, where a stray `save` or `process` is what the right definition's
//! name says besides the term's words. Hand lists (the reverses and the common actions on data
//! in [`crate::search::glossary`]) name a few such words; these odds are read off the labelled
//! pairs for every word that occurs in enough repositories.
//!
//! Fitted, not written: `tests/eval/relevance/fit_judge.py --write-odds` rewrites the tables
//! in `word_odds.tsv` from the development split, counting only words seen in pairs of at least
//! five of its repositories, so that one project's entity names (`pet`, `ticket`) do not become
//! rules. A word the tables do not hold says nothing.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The fitted tables: one line per word, `list<TAB>word<TAB>log-odds`, the list `stray` or
/// `missing`; `#` starts a comment. Data, not code: the fit rewrites it whole.
const FITTED: &str = include_str!("word_odds.tsv");

/// Words to their odds, per list.
#[derive(Default)]
struct Tables {
    stray: HashMap<String, f32>,
    missing: HashMap<String, f32>,
}

impl Tables {
    /// The tables of `text`, or the first line that is not `list<TAB>word<TAB>odds` with a
    /// known list (1-based).
    fn parse(text: &str) -> Result<Tables, usize> {
        let mut tables = Tables::default();
        for (n, line) in text.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split('\t');
            let (Some(list), Some(word), Some(Ok(odds)), None) = (
                fields.next(),
                fields.next(),
                fields.next().map(str::parse::<f32>),
                fields.next(),
            ) else {
                return Err(n + 1);
            };
            let table = match list {
                "stray" => &mut tables.stray,
                "missing" => &mut tables.missing,
                _ => return Err(n + 1),
            };
            table.insert(word.to_string(), odds);
        }
        Ok(tables)
    }

    fn fitted() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(|| Tables::parse(FITTED).expect("the fitted word odds parse (tested)"))
    }
}

/// The least and the summed odds of `words` in `table` (both 0 when none is in it).
fn odds(table: &HashMap<String, f32>, words: &[String]) -> (f32, f32) {
    let found = words.iter().filter_map(|w| table.get(w).copied());
    found.fold((0.0, 0.0), |(min, sum), v| (f32::min(min, v), sum + v))
}

/// The odds of a name's stray words: the least and the sum.
pub fn stray(words: &[String]) -> (f32, f32) {
    odds(&Tables::fitted().stray, words)
}

/// The odds of the term's words the name does not hold: the least and the sum.
pub fn missing(words: &[String]) -> (f32, f32) {
    odds(&Tables::fitted().missing, words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_tables_parse_and_a_bad_line_is_named() {
        let tables = Tables::parse(FITTED).expect("the fitted tables parse");
        // Every line read, no word twice in a list.
        let lines = FITTED
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(tables.stray.len() + tables.missing.len(), lines);
        assert!(
            tables
                .stray
                .values()
                .chain(tables.missing.values())
                .all(|v| v.is_finite())
        );
        assert_eq!(
            Tables::parse("# odds\nstray\tdelet\t-3.5\nstray\tsav\n").err(),
            Some(3)
        );
        assert_eq!(Tables::parse("other\tdelet\t-3.5\n").err(), Some(1));
    }

    #[test]
    fn words_the_table_does_not_hold_say_nothing() {
        let table: HashMap<String, f32> = [("delete".to_string(), -2.0), ("save".to_string(), 1.0)]
            .into_iter()
            .collect();
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(odds(&table, &words(&["zzz"])), (0.0, 0.0));
        assert_eq!(
            odds(&table, &words(&["delete", "save", "zzz"])),
            (-2.0, -1.0)
        );
        assert_eq!(odds(&table, &words(&["save"])), (0.0, 1.0));
    }
}
