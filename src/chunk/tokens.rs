//! Counting tokens the way the embedding model will see them.
//!
//! Chunk size limits (`chunk_max_tokens`) are in tokens of the embedding model's tokenizer
//! (multilingual-e5-small, a SentencePiece Unigram model in `tokenizer.json`), because that is
//! what the model truncates at. When the provisioned `tokenizer.json` is not there, sizes fall
//! back to an estimate from the character count; the counter says which one it is so the CLI and
//! the index can report it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// The tokenizer file inside the model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Characters per token assumed by the estimate. Measured with the real tokenizer on the fixture
/// projects (code averages 3.0-3.6 characters per token, Japanese text about 1.5); the estimate
/// uses the low end for code so that it rarely under-counts.
const ESTIMATE_CHARS_PER_TOKEN: f64 = 3.0;

/// Counts tokens with the model's tokenizer, or estimates them.
#[derive(Clone)]
pub struct TokenCounter {
    inner: Counter,
}

#[derive(Clone)]
enum Counter {
    Model {
        tokenizer: Arc<tokenizers::Tokenizer>,
        path: PathBuf,
    },
    Estimate {
        reason: String,
    },
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl TokenCounter {
    /// The tokenizer of the model directory `dir` (when `None`, the embedding module's default
    /// lookup: `$CODE_INTEL_MODEL_DIR`, then `~/.cache/code-intel/models/multilingual-e5-small`);
    /// the estimate when the file is missing or unreadable. Loaded files are cached for the life
    /// of the process.
    pub fn load(dir: Option<&Path>) -> TokenCounter {
        let dir = match dir {
            Some(dir) => dir.to_path_buf(),
            None => match crate::embed::ModelDir::resolve(None, Path::new(".")) {
                Ok(found) => found.path,
                Err(err) => return TokenCounter::estimate(&err.to_string()),
            },
        };
        let path = dir.join(TOKENIZER_FILE);
        if !path.is_file() {
            return TokenCounter::estimate(&format!("{} not found", path.display()));
        }
        type Loaded = Vec<(PathBuf, Arc<tokenizers::Tokenizer>)>;
        static LOADED: LazyLock<Mutex<Loaded>> = LazyLock::new(Default::default);
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, tokenizer)) = loaded.iter().find(|(p, _)| *p == path) {
            return TokenCounter {
                inner: Counter::Model {
                    tokenizer: tokenizer.clone(),
                    path,
                },
            };
        }
        match tokenizers::Tokenizer::from_file(&path) {
            Ok(mut tokenizer) => {
                // Sizes are measured on whole texts: the file's own truncation and padding
                // settings (what the embedder uses) must not cap or pad the count.
                if tokenizer.with_truncation(None).is_err() {
                    return TokenCounter::estimate(&format!(
                        "{} has truncation that cannot be turned off",
                        path.display()
                    ));
                }
                tokenizer.with_padding(None);
                let tokenizer = Arc::new(tokenizer);
                loaded.push((path.clone(), tokenizer.clone()));
                TokenCounter {
                    inner: Counter::Model { tokenizer, path },
                }
            }
            Err(err) => TokenCounter::estimate(&format!("{} unreadable: {err}", path.display())),
        }
    }

    /// The character-based estimate; `reason` says why the tokenizer is not used.
    pub fn estimate(reason: &str) -> TokenCounter {
        TokenCounter {
            inner: Counter::Estimate {
                reason: reason.to_string(),
            },
        }
    }

    /// Tokens in `text`, without the `<s>`/`</s>` the model adds around a whole passage.
    pub fn count(&self, text: &str) -> usize {
        match &self.inner {
            Counter::Model { tokenizer, .. } => match tokenizer.encode_fast(text, false) {
                Ok(encoding) => encoding.len(),
                // The tokenizer never fails on valid UTF-8 in practice; an estimate keeps the
                // chunker going if it ever does.
                Err(_) => estimate(text),
            },
            Counter::Estimate { .. } => estimate(text),
        }
    }

    /// An upper bound that needs no tokenizer: every token covers at least one character.
    pub fn upper_bound(text: &str) -> usize {
        text.chars().count()
    }

    pub fn is_estimate(&self) -> bool {
        matches!(self.inner, Counter::Estimate { .. })
    }

    /// One line for reports: which counter is in use and, for the estimate, why.
    pub fn describe(&self) -> String {
        match &self.inner {
            Counter::Model { path, .. } => format!("model tokenizer ({})", path.display()),
            Counter::Estimate { reason } => format!(
                "ESTIMATE (characters / {ESTIMATE_CHARS_PER_TOKEN}; {reason}; run scripts/model/provision.sh for exact counts)"
            ),
        }
    }
}

fn estimate(text: &str) -> usize {
    (text.chars().count() as f64 / ESTIMATE_CHARS_PER_TOKEN).ceil() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tokenizer_falls_back_to_a_labelled_estimate() {
        let dir = tempfile::tempdir().unwrap();
        let counter = TokenCounter::load(Some(dir.path()));
        assert!(counter.is_estimate());
        assert!(counter.describe().starts_with("ESTIMATE"));
        assert!(counter.describe().contains("tokenizer.json not found"));
        assert_eq!(counter.count("abcdef"), 2);
        assert_eq!(counter.count(""), 0);
    }

    #[test]
    fn the_model_tokenizer_counts_when_provisioned() {
        // Like the embedding tests: a model test that passes without the model proves nothing.
        let counter = TokenCounter::load(None);
        assert!(
            !counter.is_estimate(),
            "this test needs the provisioned tokenizer (run scripts/model/provision.sh): {}",
            counter.describe()
        );
        let short = counter.count("def f(): pass");
        let long = counter.count(&"def f(): pass\n".repeat(50));
        assert!(short > 0 && long > 40 * short, "{short} {long}");
        // Truncation from tokenizer.json must not cap counts at the model's 512.
        assert!(counter.count(&"word ".repeat(2000)) > 1000);
    }
}
