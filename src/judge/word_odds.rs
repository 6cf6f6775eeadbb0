//! What single words have said about relevance on the development split: for a word of a name
//! that the term does not explain ([`super::terms::TermKeys::stray_words`]), and for a word of
//! the term that the name, scope and path do not hold
//! ([`super::terms::TermKeys::missing_in`]), how much more or less often the pair was relevant
//! than pairs are on the whole (smoothed log-odds).
//!
//! The neighbour beside the right definition shares the term's words and most of its meaning
//! for the model; what gives it away is the word it has in their place. A stray `delete`,
//! `logout` or `refresh` in a name, whatever the term, has meant another action far more often
//! than the feature, where a stray `save`, `process` or `handler` is what the right definition's
//! name says besides the term's words. Hand lists (the reverses and the common actions on data
//! in [`crate::search::glossary`]) name a few such words; these odds are read off the labelled
//! pairs for every word that occurs in enough repositories.
//!
//! Fitted, not written: `tests/eval/relevance/fit_judge.py --write-odds` rewrites the tables
//! below from the development split, counting only words seen in pairs of at least three of its
//! repositories, so that one project's entity names (`pet`, `ticket`) do not become rules. A word
//! the tables do not hold says nothing.

/// The least and the summed odds of `words` in `table` (both 0 when none is in it).
fn odds(table: &[(&str, f32)], words: &[String]) -> (f32, f32) {
    let found = words.iter().filter_map(|w| {
        table
            .binary_search_by(|(k, _)| (*k).cmp(w.as_str()))
            .ok()
            .map(|at| table[at].1)
    });
    found.fold((0.0, 0.0), |(min, sum), v| (f32::min(min, v), sum + v))
}

/// The odds of a name's stray words: the least and the sum.
pub fn stray(words: &[String]) -> (f32, f32) {
    odds(STRAY, words)
}

/// The odds of the term's words the name does not hold: the least and the sum.
pub fn missing(words: &[String]) -> (f32, f32) {
    odds(MISSING, words)
}

// BEGIN fitted by fit_judge.py --write-odds
const STRAY: &[(&str, f32)] = &[];
const MISSING: &[(&str, f32)] = &[];
// END fitted

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sorted_for_the_binary_search() {
        for table in [STRAY, MISSING] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    #[test]
    fn words_the_table_does_not_hold_say_nothing() {
        let table = [("delete", -2.0), ("save", 1.0)];
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(odds(&table, &words(&["zzz"])), (0.0, 0.0));
        assert_eq!(
            odds(&table, &words(&["delete", "save", "zzz"])),
            (-2.0, -1.0)
        );
        assert_eq!(odds(&table, &words(&["save"])), (0.0, 1.0));
    }
}
