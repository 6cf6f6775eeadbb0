//! A deterministic stand-in for the model, for tests of logic around embeddings (store, sync,
//! ranking plumbing) that must not depend on a 600 MB model or on floating-point details.
//!
//! It hashes words (after the same identifier splitting the real pipeline does, lower-cased)
//! and CJK character bigrams into [`DIM`] signed buckets and L2-normalises, so texts that share
//! words are similar and texts that share none are near-orthogonal: enough to make ranking
//! tests meaningful. It never fails unless told to ([`FakeEmbedder::failing`]), and counts
//! calls so tests can check batching and caching.

use super::prepare::split_identifiers;
use super::{DIM, EmbedError, Embedder, Vector};
use std::sync::atomic::{AtomicUsize, Ordering};

/// See the module doc.
#[derive(Debug, Default)]
pub struct FakeEmbedder {
    fail_with: Option<String>,
    /// Time each text takes, to give crash tests a model-like pace.
    per_text: std::time::Duration,
    calls: AtomicUsize,
    texts: AtomicUsize,
}

impl FakeEmbedder {
    pub fn new() -> Self {
        Self::default()
    }

    /// An embedder whose every call fails with `reason` (to test error paths).
    pub fn failing(reason: impl Into<String>) -> Self {
        FakeEmbedder {
            fail_with: Some(reason.into()),
            ..Self::default()
        }
    }

    /// An embedder that spends `per_text` on each text, as a real model would.
    pub fn paced(per_text: std::time::Duration) -> Self {
        FakeEmbedder {
            per_text,
            ..Self::default()
        }
    }

    /// Number of `embed_*` calls so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// Number of texts embedded so far.
    pub fn texts(&self) -> usize {
        self.texts.load(Ordering::Relaxed)
    }

    /// The vector for one text (the same for queries and passages).
    pub fn vector(text: &str) -> Vector {
        let mut v = vec![0f32; DIM];
        let split = split_identifiers(text).to_lowercase();
        let mut add = |feature: &str| {
            let h = fnv1a(feature.as_bytes());
            let bucket = (h % DIM as u64) as usize;
            let sign = if (h >> 32) & 1 == 0 { 1.0 } else { -1.0 };
            v[bucket] += sign;
        };
        for word in split.split(|c: char| !c.is_alphanumeric()) {
            let chars: Vec<char> = word.chars().collect();
            if chars.iter().any(|c| !c.is_ascii()) {
                // CJK has no spaces: character bigrams stand in for words.
                for pair in chars.windows(2) {
                    add(&pair.iter().collect::<String>());
                }
                if chars.len() == 1 {
                    add(word);
                }
            } else if !word.is_empty() {
                add(word);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 {
            // Empty text: a fixed unit vector, so every output is unit length.
            v[0] = 1.0;
        } else {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if let Some(reason) = &self.fail_with {
            return Err(EmbedError::Inference(reason.clone()));
        }
        self.texts.fetch_add(texts.len(), Ordering::Relaxed);
        if !self.per_text.is_zero() {
            std::thread::sleep(self.per_text * texts.len() as u32);
        }
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Embedder for FakeEmbedder {
    fn model_id(&self) -> &str {
        "fake/hashed-words-384"
    }

    fn dims(&self) -> usize {
        DIM
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        self.embed(texts)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        self.embed(texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::cosine;

    #[test]
    fn shared_words_make_texts_similar() {
        let e = FakeEmbedder::new();
        let v = e
            .embed_passages(&[
                "AuthService handles login",
                "auth_service login",
                "ConfigLoader reads yaml",
                "ユーザー認証",
                "ユーザー認証の処理",
            ])
            .unwrap();
        assert!(v.iter().all(|x| x.len() == DIM));
        assert!(
            v.iter()
                .all(|x| (x.iter().map(|a| a * a).sum::<f32>() - 1.0).abs() < 1e-5)
        );
        let related = cosine(&v[0], &v[1]);
        let unrelated = cosine(&v[0], &v[2]);
        assert!(related > 0.6 && unrelated < 0.3, "{related} {unrelated}");
        assert!(cosine(&v[3], &v[4]) > 0.6);
        assert_eq!(e.calls(), 1);
        assert_eq!(e.texts(), 5);
    }

    #[test]
    fn deterministic_and_failing() {
        assert_eq!(
            FakeEmbedder::vector("same text"),
            FakeEmbedder::vector("same text")
        );
        let e = FakeEmbedder::failing("boom");
        assert_eq!(
            e.embed_query("x").unwrap_err(),
            EmbedError::Inference("boom".into())
        );
    }
}
