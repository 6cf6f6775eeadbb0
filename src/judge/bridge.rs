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
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Least standard score of the best candidate's similarity among all candidates' (see the
/// module doc for how it was chosen).
pub const MIN_STANDING: f32 = 3.2;

/// Fewer candidates than this give no meaningful standard score.
pub const MIN_CANDIDATES: usize = 20;

/// Words embedded per batch.
const BATCH: usize = 32;

/// Words whose vectors are kept before the store starts over (384 floats each: about 24 MB).
const MAX_KEPT_WORDS: usize = 16_384;

/// The candidate among `candidates` (English words) that `word` (a Japanese word) means, if one
/// stands out; `None` with too few candidates or when the model fails.
pub fn bridge(embedder: &dyn Embedder, word: &str, candidates: &[String]) -> Option<String> {
    if candidates.len() < MIN_CANDIDATES {
        return None;
    }
    let query = embedder.embed_query(word).ok()?;
    let vectors = word_vectors(embedder, candidates)?;
    let similarities: Vec<f32> = vectors
        .iter()
        .map(|v| crate::embed::cosine(&query, v))
        .collect();
    let best = standing_out(&similarities)?;
    Some(candidates[best].clone())
}

/// The vectors of the project's words (the candidates of every bridge), by model, kept for the
/// process. A field holds a few hundred words and embedding them took most of a new Japanese
/// term's verdict (about 130 ms of 200); the fields of one project's terms share most of their
/// words, and [`warm`] embeds the project's vocabulary before the first term asks.
///
/// A word is embedded once, in a batch with other words missing at the time; the int8 model
/// quantises a batch's activations together, so its vector can differ in the last digits from
/// one process to the next. That is far below what moves a word's standing among a field's
/// candidates ([`MIN_STANDING`]).
#[derive(Default)]
struct KeptWords {
    model: String,
    by_word: HashMap<String, Vector>,
}

fn kept_words() -> std::sync::MutexGuard<'static, KeptWords> {
    static KEPT: OnceLock<Mutex<KeptWords>> = OnceLock::new();
    KEPT.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The vectors of `words` (request side), embedding those not kept yet; `None` when the model
/// fails.
fn word_vectors(embedder: &dyn Embedder, words: &[String]) -> Option<Vec<Vector>> {
    let missing: Vec<&str> = {
        let mut kept = kept_words();
        if kept.model != embedder.model_id() {
            *kept = KeptWords {
                model: embedder.model_id().to_string(),
                by_word: HashMap::new(),
            };
        }
        let mut missing: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| !kept.by_word.contains_key(*w))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    };
    // Embedded without holding the store: the warm-up embeds thousands of words at the lowest
    // priority while a verdict may need a few.
    let mut fresh: HashMap<&str, Vector> = HashMap::with_capacity(missing.len());
    for batch in missing.chunks(BATCH) {
        let vectors = embedder.embed_queries(batch).ok()?;
        fresh.extend(batch.iter().copied().zip(vectors));
    }
    let mut kept = kept_words();
    if kept.model != embedder.model_id() {
        // Another model was loaded meanwhile and started the store over: keep nothing, and
        // answer only if this call embedded every word itself.
        return words
            .iter()
            .map(|w| fresh.get(w.as_str()).cloned())
            .collect();
    }
    if kept.by_word.len() + fresh.len() > MAX_KEPT_WORDS {
        kept.by_word.clear();
    }
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let vector = match kept.by_word.get(word) {
            Some(v) => v.clone(),
            // Dropped by another thread's clearing since the first look: this call's own.
            None => fresh.get(word.as_str())?.clone(),
        };
        out.push(vector);
    }
    for (word, vector) in fresh {
        kept.by_word.entry(word.to_string()).or_insert(vector);
    }
    Some(out)
}

/// Embeds `words`, the project's vocabulary, so that a term's first bridge finds its field's
/// words embedded; at most [`MAX_KEPT_WORDS`] / 2 of them, the first first.
pub fn warm(embedder: &dyn Embedder, words: &[String]) {
    let words = &words[..words.len().min(MAX_KEPT_WORDS / 2)];
    for chunk in words.chunks(BATCH * 8) {
        if word_vectors(embedder, chunk).is_none() {
            return;
        }
    }
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
    fn a_words_vector_is_embedded_once_and_kept() {
        let fake = crate::embed::FakeEmbedder::new();
        let words: Vec<String> = ["dose", "weight", "dose"].map(String::from).into();
        let vectors = word_vectors(&fake, &words).unwrap();
        assert_eq!(vectors.len(), 3);
        assert_eq!(vectors[0], vectors[2]);
        assert_eq!(vectors[1], fake.embed_query("weight").unwrap());
        {
            let kept = kept_words();
            assert_eq!(kept.model, fake.model_id());
            assert!(kept.by_word.contains_key("dose"));
        }
        // Kept: the same vectors again, in the order asked.
        let again = word_vectors(&fake, &words[..2]).unwrap();
        assert_eq!(again[..], vectors[..2]);
    }

    #[test]
    fn too_few_candidates_bridge_nothing() {
        let fake = crate::embed::FakeEmbedder::new();
        let words: Vec<String> = (0..MIN_CANDIDATES - 1).map(|i| format!("w{i}")).collect();
        assert_eq!(bridge(&fake, "体重", &words), None);
    }
}
