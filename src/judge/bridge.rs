//! The model's bridge from a Japanese word to the project's own words.
//!
//! The glossary reads the software vocabulary every project shares (ログイン, 注文); a domain's
//! own kanji words (体重, 投薬, 緊急) it cannot list, and a term holding one has a word no name
//! can match by its letters. The model does read such a word, but poorly on its own: against a
//! whole project's vocabulary its nearest English word is often a neighbour (体重 stands about
//! as close to `height` as to `weight`). Two things make it usable:
//!
//! - the candidates are the words of the term's [`Field`](super::Field), the names and paths the
//!   project's own search shows for the term, so the right word is usually among a few hundred
//!   words about the feature;
//! - a word is taken only when it stands out from those candidates: its similarity's standard
//!   score among them is at least [`MIN_STANDING`]. A word that fits many candidates equally
//!   (次回 against `before`, `next`, `rest`) bridges nothing.
//!
//! On the development split's Japanese terms, of the 31 kanji words the glossary does not read,
//! the nearest field word alone was the right English word for 14. At a standing of 3.2, 15
//! words were bridged and 13 of them rightly (the two wrong ones are near: 不正 as `error`, 自分
//! as `username`); the rest stay words no name holds, as before.

use crate::embed::{Embedder, Vector};

/// Least standard score of the best candidate's similarity among all candidates' (see the
/// module doc for how it was chosen).
pub const MIN_STANDING: f32 = 3.2;

/// Fewer candidates than this give no meaningful standard score.
pub const MIN_CANDIDATES: usize = 20;

/// Candidates embedded per batch. Each call embeds the same words in the same batches, so a
/// word's vector (which the int8 model quantises with its batch) is the same for the same field.
const BATCH: usize = 32;

/// The candidate among `candidates` (English words) that `word` (a Japanese word) means, if one
/// stands out; `None` with too few candidates or when the model fails.
pub fn bridge(embedder: &dyn Embedder, word: &str, candidates: &[String]) -> Option<String> {
    if candidates.len() < MIN_CANDIDATES {
        return None;
    }
    let query = embedder.embed_query(word).ok()?;
    let mut vectors: Vec<Vector> = Vec::with_capacity(candidates.len());
    for batch in candidates.chunks(BATCH) {
        let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
        vectors.extend(embedder.embed_queries(&texts).ok()?);
    }
    let similarities: Vec<f32> = vectors
        .iter()
        .map(|v| crate::embed::cosine(&query, v))
        .collect();
    let best = standing_out(&similarities)?;
    Some(candidates[best].clone())
}

/// The index of the highest of `values` when its standard score among them reaches
/// [`MIN_STANDING`].
fn standing_out(values: &[f32]) -> Option<usize> {
    let n = values.len() as f32;
    let mean = values.iter().sum::<f32>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n).sqrt();
    let (best, top) = values
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))?;
    (sd > 0.0 && (top - mean) / sd >= MIN_STANDING).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_candidate_that_stands_out_is_taken() {
        let mut values = vec![0.80; 30];
        for (i, v) in values.iter_mut().enumerate() {
            *v += (i % 5) as f32 * 0.01;
        }
        assert_eq!(standing_out(&values), None);
        values[7] = 0.95;
        assert_eq!(standing_out(&values), Some(7));
        // Two candidates about as close share the standing: neither is taken.
        values[12] = 0.95;
        values[13] = 0.95;
        values[14] = 0.95;
        assert_eq!(standing_out(&values), None);
        assert_eq!(standing_out(&[0.5; 25]), None);
    }

    #[test]
    fn too_few_candidates_bridge_nothing() {
        let fake = crate::embed::FakeEmbedder::new();
        let words: Vec<String> = (0..MIN_CANDIDATES - 1).map(|i| format!("w{i}")).collect();
        assert_eq!(bridge(&fake, "体重", &words), None);
    }
}
