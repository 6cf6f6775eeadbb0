//! Counting tokens the way the embedding model will see them.
//!
//! Chunk size limits (`chunk_max_tokens`) are in tokens of the embedding model's tokenizer
//! (multilingual-e5-small, a SentencePiece Unigram model in `tokenizer.json`), because that is
//! what the model truncates at. When the provisioned `tokenizer.json` is not there, sizes fall
//! back to an estimate from the character count; the counter says which one it is so the CLI and
//! the index can report it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// The tokenizer file inside the model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Weights of the estimate, per character: ASCII letters and digits, other visible ASCII
/// (operators, punctuation), non-ASCII (Japanese counts about one token per character).
/// Calibrated with the real tokenizer on 29,538 texts (the fixtures and three Symfony
/// components): estimate/actual has median 0.99, 1st percentile 0.78, minimum 0.53, 99th
/// percentile 1.34.
const WEIGHT_ALNUM: f64 = 0.3;
const WEIGHT_SYMBOL: f64 = 0.8;
const WEIGHT_NON_ASCII: f64 = 1.3;

/// An estimate at most this share of a limit is under it for every text measured (minimum
/// ratio 0.53): no need to tokenize.
const SURELY_UNDER: f64 = 0.5;

/// Estimates divided by this are above the real count for 99% of texts (1st percentile of
/// estimate/actual).
const USUALLY_ABOVE: f64 = 0.78;

/// An estimate this far over a limit is over it for 99% of texts; when it is not, the cost is
/// a unit split that could have stayed whole.
const SURELY_OVER: f64 = 1.4;

/// Counts tokens with the model's tokenizer, or estimates them.
#[derive(Clone)]
pub struct TokenCounter {
    inner: Counter,
}

#[derive(Clone)]
enum Counter {
    Model {
        tokenizer: Arc<tokenizers::Tokenizer>,
        /// The fast path for plain words (`None` for a model it does not apply to).
        plain: Option<Arc<PlainPieces>>,
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
        type Loaded = Vec<(
            PathBuf,
            Arc<tokenizers::Tokenizer>,
            Option<Arc<PlainPieces>>,
        )>;
        static LOADED: LazyLock<Mutex<Loaded>> = LazyLock::new(Default::default);
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, tokenizer, plain)) = loaded.iter().find(|(p, _, _)| *p == path) {
            return TokenCounter {
                inner: Counter::Model {
                    tokenizer: tokenizer.clone(),
                    plain: plain.clone(),
                    path,
                },
            };
        }
        // Loading allocates the 250,000-piece vocabulary as millions of small blocks. Done on
        // its own thread, they land in that thread's malloc arena instead of fragmenting the
        // caller's, where tree-sitter then spent half again as long allocating trees.
        let loaded_file = {
            let path = path.clone();
            std::thread::spawn(move || {
                tokenizers::Tokenizer::from_file(&path).map(|tokenizer| {
                    let plain = PlainPieces::build(&tokenizer).map(Arc::new);
                    (tokenizer, plain)
                })
            })
            .join()
            .unwrap_or_else(|_| Err("the tokenizer loader panicked".into()))
        };
        match loaded_file {
            Ok((mut tokenizer, plain)) => {
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
                loaded.push((path.clone(), tokenizer.clone(), plain.clone()));
                TokenCounter {
                    inner: Counter::Model {
                        tokenizer,
                        plain,
                        path,
                    },
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
    ///
    /// The model's pre-tokenizer (Metaspace) cuts the normalised text at spaces and the Unigram
    /// model then tokenizes each word on its own, so a text's count is the sum of its words'
    /// counts. Words are counted once per thread and cached: code repeats its identifiers and
    /// keywords so much that this is an order of magnitude faster than encoding every text,
    /// and it gives the same numbers (see the test against whole-text encoding).
    pub fn count(&self, text: &str) -> usize {
        match &self.inner {
            Counter::Model {
                tokenizer, plain, ..
            } => count_words(tokenizer, plain.as_deref(), text),
            Counter::Estimate { .. } => estimate(text),
        }
    }

    /// Tokens of `text` from encoding it whole (no cache): the reference [`count`] is checked
    /// against.
    pub fn count_exact(&self, text: &str) -> usize {
        match &self.inner {
            Counter::Model { tokenizer, .. } => encode_len(tokenizer, text),
            Counter::Estimate { .. } => estimate(text),
        }
    }

    /// An upper bound that needs no tokenizer: every token covers at least one character.
    pub fn upper_bound(text: &str) -> usize {
        text.chars().count()
    }

    /// Whether `text` has at most `limit` tokens, tokenizing only when the estimate is too
    /// close to the limit to tell.
    pub fn fits(&self, text: &str, limit: usize) -> bool {
        self.at_most(text, limit).is_some()
    }

    /// A size for packing pieces into parts: the exact count near `limit`, elsewhere an
    /// estimate that is above the real count for 99% of texts (parts are checked afterwards).
    pub fn packing_size(&self, text: &str, limit: usize) -> usize {
        let estimated = estimate(text);
        match &self.inner {
            Counter::Estimate { .. } => estimated,
            Counter::Model { .. } => {
                let limit_f = limit as f64;
                if estimated as f64 <= limit_f * SURELY_UNDER {
                    (estimated as f64 / USUALLY_ABOVE).ceil() as usize
                } else if estimated as f64 > limit_f * SURELY_OVER {
                    estimated
                } else {
                    self.count(text)
                }
            }
        }
    }

    /// The token count of `text` when it is at most `limit` (exact near the limit, the
    /// estimate well below it), `None` when it is over.
    pub fn at_most(&self, text: &str, limit: usize) -> Option<usize> {
        let estimated = estimate(text);
        match &self.inner {
            Counter::Estimate { .. } => (estimated <= limit).then_some(estimated),
            Counter::Model { .. } => {
                let limit_f = limit as f64;
                if estimated as f64 <= limit_f * SURELY_UNDER {
                    Some(estimated)
                } else if estimated as f64 > limit_f * SURELY_OVER {
                    None
                } else {
                    let exact = self.count(text);
                    (exact <= limit).then_some(exact)
                }
            }
        }
    }

    pub fn is_estimate(&self) -> bool {
        matches!(self.inner, Counter::Estimate { .. })
    }

    /// One line for reports: which counter is in use and, for the estimate, why.
    pub fn describe(&self) -> String {
        match &self.inner {
            Counter::Model { path, .. } => format!("model tokenizer ({})", path.display()),
            Counter::Estimate { reason } => format!(
                "ESTIMATE (weighted characters; {reason}; run scripts/model/provision.sh for exact counts)"
            ),
        }
    }
}

/// Words a thread's cache keeps before starting over (16 MB at most).
const MAX_CACHED_WORDS: usize = 1 << 20;

/// Counts by a 64-bit hash of the word: no allocation per word. Storing millions of small
/// strings fragmented the heap enough to slow tree-sitter's own allocations down by half; a
/// hash collision (about one in 10^13 pairs at this size) would only misjudge one word.
type WordCache = (usize, HashMap<u64, u32>);

thread_local! {
    // Keyed by the tokenizer's address so two loaded tokenizers never share counts.
    static WORDS: RefCell<WordCache> = RefCell::new((0, HashMap::new()));
}

fn count_words(
    tokenizer: &Arc<tokenizers::Tokenizer>,
    plain: Option<&PlainPieces>,
    text: &str,
) -> usize {
    let key = Arc::as_ptr(tokenizer) as usize;
    WORDS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (owner, cache) = &mut *cell;
        if *owner != key || cache.len() > MAX_CACHED_WORDS {
            *owner = key;
            cache.clear();
        }
        let words: usize = text
            .split(is_model_space)
            .filter(|w| !w.is_empty())
            .map(|word| {
                let hash = fnv1a(word.as_bytes());
                match cache.get(&hash) {
                    Some(n) => *n as usize,
                    None => {
                        let n = word_len(tokenizer, plain, word);
                        cache.insert(hash, n as u32);
                        n
                    }
                }
            })
            .sum();
        // A text ending in whitespace ends with a lone `▁` token.
        words + usize::from(text.ends_with(is_model_space))
    })
}

/// FNV-1a, 64 bits: fast on the short strings words are.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Tokens of one word. Printable ASCII is untouched by the normaliser and, unless it holds an
/// added token such as `<s>`, goes to the Unigram model alone: through [`PlainPieces`] when the
/// model allows it, else through the model's own tokenizer (the pipeline around the model costs
/// more than the model itself). Anything else goes through the whole encoder.
fn word_len(tokenizer: &tokenizers::Tokenizer, plain: Option<&PlainPieces>, word: &str) -> usize {
    if let Some(n) = plain.and_then(|p| p.count(word)) {
        return n;
    }
    let plain = word.bytes().all(|b| (0x21..0x7f).contains(&b) && b != b'<');
    if plain {
        use tokenizers::Model;
        if let Ok(tokens) = tokenizer.get_model().tokenize(&format!("\u{2581}{word}")) {
            return tokens.len();
        }
    }
    encode_len(tokenizer, word)
}

fn encode_len(tokenizer: &tokenizers::Tokenizer, text: &str) -> usize {
    match tokenizer.encode_fast(text, false) {
        Ok(encoding) => encoding.len(),
        // The tokenizer does not fail on valid UTF-8 in practice; an estimate keeps the
        // chunker going if it ever does.
        Err(_) => estimate(text),
    }
}

/// The Unigram pieces made only of printable ASCII and a leading `▁`, in a compact trie, for
/// counting plain words without the model's general path (which allocates a string per lattice
/// candidate and per token). It runs the same best-path search as the model's
/// `encode_optimized`: positions in order, candidate pieces by increasing length, a candidate
/// replaces a path only with a strictly better score — so it picks the same path, and gives the
/// same count (checked against the model on every fixture word).
struct PlainPieces {
    nodes: Vec<TrieNode>,
    /// Children of every node, sorted by byte within each node's slice.
    edges: Vec<(u8, u32)>,
    /// Added tokens (`<s>`, `<mask>` …): a word containing one goes through the whole encoder.
    specials: Vec<String>,
}

#[derive(Clone, Copy)]
struct TrieNode {
    first_edge: u32,
    edge_count: u32,
    /// Score of the piece ending here, NaN when none does.
    score: f64,
}

/// `▁` in the trie: a plain word holds no space, so the byte is free.
const SPACE_MARK: u8 = b' ';

impl PlainPieces {
    /// `None` unless the model is a Unigram model with a piece for every printable ASCII
    /// character (then a plain word never meets the unknown token, which this path cannot fuse).
    fn build(tokenizer: &tokenizers::Tokenizer) -> Option<PlainPieces> {
        let tokenizers::models::ModelWrapper::Unigram(model) = tokenizer.get_model() else {
            return None;
        };
        // Children per node while building, flattened afterwards.
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut scores: Vec<f64> = vec![f64::NAN];
        for (piece, score) in model.iter() {
            let bytes: Option<Vec<u8>> = piece
                .char_indices()
                .map(|(i, c)| match c {
                    '\u{2581}' if i == 0 => Some(SPACE_MARK),
                    c if (0x21..0x7f).contains(&(c as u32)) => Some(c as u8),
                    _ => None,
                })
                .collect();
            let Some(bytes) = bytes.filter(|b| !b.is_empty()) else {
                continue;
            };
            let mut node = 0usize;
            for byte in bytes {
                node = match children[node].iter().find(|(b, _)| *b == byte) {
                    Some((_, next)) => *next as usize,
                    None => {
                        let next = children.len();
                        children[node].push((byte, next as u32));
                        children.push(Vec::new());
                        scores.push(f64::NAN);
                        next
                    }
                };
            }
            // Like the model's piece-to-id map, a later duplicate piece wins.
            scores[node] = *score;
        }
        let mut nodes = Vec::with_capacity(children.len());
        let mut edges = Vec::new();
        for (kids, score) in children.iter_mut().zip(&scores) {
            kids.sort_unstable_by_key(|(b, _)| *b);
            nodes.push(TrieNode {
                first_edge: edges.len() as u32,
                edge_count: kids.len() as u32,
                score: *score,
            });
            edges.extend_from_slice(kids);
        }
        let pieces = PlainPieces {
            nodes,
            edges,
            specials: tokenizer
                .get_added_tokens_decoder()
                .into_values()
                .map(|t| t.content)
                .filter(|c| !c.is_empty())
                .collect(),
        };
        // Every single character must be a piece (true of XLM-R's vocabulary).
        let complete = std::iter::once(SPACE_MARK).chain(0x21..0x7f).all(|b| {
            pieces
                .child(0, b)
                .is_some_and(|n| !pieces.nodes[n].score.is_nan())
        });
        complete.then_some(pieces)
    }

    fn child(&self, node: usize, byte: u8) -> Option<usize> {
        let n = &self.nodes[node];
        let edges = &self.edges[n.first_edge as usize..(n.first_edge + n.edge_count) as usize];
        edges
            .binary_search_by_key(&byte, |(b, _)| *b)
            .ok()
            .map(|i| edges[i].1 as usize)
    }

    /// Tokens of `word` (with the `▁` the pre-tokenizer puts before it), or `None` when the word
    /// is not plain printable ASCII free of added tokens.
    fn count(&self, word: &str) -> Option<usize> {
        let plain = word.bytes().all(|b| (0x21..0x7f).contains(&b));
        if !plain || (word.contains('<') && self.specials.iter().any(|s| word.contains(s.as_str())))
        {
            return None;
        }
        let mut text = Vec::with_capacity(word.len() + 1);
        text.push(SPACE_MARK);
        text.extend_from_slice(word.as_bytes());
        let size = text.len();
        // Best path ending at each position: score, start of its last piece (`usize::MAX`: none).
        let mut best: Vec<(f64, usize)> = vec![(0.0, usize::MAX); size + 1];
        for start in 0..size {
            let till_here = best[start].0;
            let mut node = 0;
            for (offset, byte) in text[start..].iter().enumerate() {
                let Some(next) = self.child(node, *byte) else {
                    break;
                };
                node = next;
                let score = self.nodes[node].score;
                if score.is_nan() {
                    continue;
                }
                let end = start + offset + 1;
                let candidate = score + till_here;
                if best[end].1 == usize::MAX || candidate > best[end].0 {
                    best[end] = (candidate, start);
                }
            }
        }
        let mut tokens = 0;
        let mut end = size;
        while end > 0 {
            end = best[end].1;
            tokens += 1;
        }
        Some(tokens)
    }
}

/// The characters the model's normaliser turns into a space (XLM-R's list), where the
/// pre-tokenizer cuts words.
fn is_model_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{0c}' | '\r' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{2581}'
                | '\u{3000}'
                | '\u{feff}'
                | '\u{fffd}'
    )
}

fn estimate(text: &str) -> usize {
    let mut total = 0.0;
    for c in text.chars() {
        total += if c.is_ascii_alphanumeric() {
            WEIGHT_ALNUM
        } else if c.is_ascii_whitespace() {
            0.0
        } else if c.is_ascii() {
            WEIGHT_SYMBOL
        } else {
            WEIGHT_NON_ASCII
        };
    }
    total.ceil() as usize
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
        assert_eq!(counter.count("a = b;"), 3);
        assert_eq!(counter.count("ログイン"), 6);
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

    /// The plain-word trie gives the model's own count for every plain word of the fixtures
    /// (and for words built to have many equal-looking segmentations).
    #[test]
    fn plain_pieces_count_like_the_model() {
        use tokenizers::Model;
        let counter = TokenCounter::load(None);
        let Counter::Model {
            tokenizer, plain, ..
        } = &counter.inner
        else {
            panic!("needs the provisioned tokenizer: {}", counter.describe());
        };
        let plain = plain
            .as_deref()
            .expect("the model's Unigram vocabulary allows the fast path");
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let ws = crate::workspace::Workspace::open(&root).unwrap();
        let mut words = std::collections::BTreeSet::new();
        for file in crate::workspace::walk_files(&ws, &root, &Default::default()).unwrap() {
            if let Ok(text) = std::fs::read_to_string(&file.abs) {
                words.extend(text.split(is_model_space).map(str::to_string));
            }
        }
        words.extend(
            [
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "~`^|\\{}",
                "<div>",
                "x<s>y",
                "a</s>",
            ]
            .map(String::from),
        );
        let mut compared = 0;
        for word in words.iter().filter(|w| !w.is_empty()) {
            let Some(fast) = plain.count(word) else {
                continue;
            };
            let model = tokenizer
                .get_model()
                .tokenize(&format!("\u{2581}{word}"))
                .unwrap()
                .len();
            assert_eq!(fast, model, "{word}");
            compared += 1;
        }
        assert!(compared > 5000, "{compared}");
        assert_eq!(plain.count("x<s>y"), None);
        assert_eq!(plain.count("ログイン"), None);
    }

    /// Summing cached word counts gives what encoding the whole text gives, on every fixture
    /// file (code, Blade, CSS, JSON, Japanese text). (A literal special token such as `<s>`
    /// right after a space can differ by one: the whole-text encoder keeps a lone `▁` there.)
    #[test]
    fn word_sums_equal_whole_text_encoding() {
        let counter = TokenCounter::load(None);
        assert!(
            !counter.is_estimate(),
            "needs the provisioned tokenizer: {}",
            counter.describe()
        );
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let ws = crate::workspace::Workspace::open(&root).unwrap();
        let mut compared = 0;
        let mut texts: Vec<String> = vec![
            "ログイン機能を修正したい\u{3000}認証サービス".into(),
            "tab\tand\u{a0}nbsp  double  spaces\r\nend".into(),
        ];
        for file in crate::workspace::walk_files(&ws, &root, &Default::default()).unwrap() {
            if let Ok(text) = std::fs::read_to_string(&file.abs) {
                texts.push(text);
            }
        }
        for text in &texts {
            assert_eq!(
                counter.count(text),
                counter.count_exact(text),
                "{}",
                &text[..text.len().min(80)]
            );
            compared += 1;
        }
        assert!(compared > 150);
    }
}
