//! Counting tokens the way the embedding model will see them.
//!
//! Chunk size limits (`chunk_max_tokens`) are in tokens of the embedding model's tokenizer
//! (multilingual-e5-small, a SentencePiece Unigram model in `tokenizer.json`), because that is
//! what the model truncates at. When the provisioned `tokenizer.json` is not there, sizes fall
//! back to an estimate from the character count; the counter says which one it is so the CLI and
//! the index can report it.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// The tokenizer file inside the model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Weights of the estimate in tenths of a token, per character: ASCII letters and digits,
/// other visible ASCII (operators, punctuation), non-ASCII (Japanese counts about one token per
/// character). Calibrated with the real tokenizer on 29,538 texts (the fixtures and three
/// Symfony components): estimate/actual has median 0.99, 1st percentile 0.78, minimum 0.53,
/// 99th percentile 1.34.
const WEIGHT_ALNUM: u8 = 3;
const WEIGHT_SYMBOL: u8 = 8;
const WEIGHT_NON_ASCII: u8 = 13;

/// The estimate's weight of each byte: a non-ASCII character weighs once, on its leading byte.
/// The chunker estimates every unit it renders, so this is a table lookup per byte rather than
/// a character decode.
const BYTE_WEIGHTS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() {
            WEIGHT_ALNUM
        } else if byte.is_ascii_whitespace() {
            0
        } else if byte.is_ascii() {
            WEIGHT_SYMBOL
        } else if byte >= 0xc0 {
            WEIGHT_NON_ASCII
        } else {
            // A continuation byte: its character is counted on the leading one.
            0
        };
        b += 1;
    }
    table
};

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
        /// With `pieces`, the model's tokenizer without its vocabulary (normaliser,
        /// pre-tokenizer and added tokens only; see [`load_file`]); without, the whole one.
        tokenizer: Arc<tokenizers::Tokenizer>,
        /// The Unigram vocabulary, which counts every word (`None` for a model it does not
        /// apply to).
        pieces: Option<Arc<Pieces>>,
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
        type Loaded = Vec<(PathBuf, Arc<tokenizers::Tokenizer>, Option<Arc<Pieces>>)>;
        static LOADED: LazyLock<Mutex<Loaded>> = LazyLock::new(Default::default);
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, tokenizer, pieces)) = loaded.iter().find(|(p, _, _)| *p == path) {
            return TokenCounter {
                inner: Counter::Model {
                    tokenizer: tokenizer.clone(),
                    pieces: pieces.clone(),
                    path,
                },
            };
        }
        // Loading allocates the 250,000-piece vocabulary as millions of small blocks. Done on
        // its own thread, they land in that thread's malloc arena instead of fragmenting the
        // caller's, where tree-sitter then spent half again as long allocating trees.
        let loaded_file = {
            let path = path.clone();
            std::thread::spawn(move || load_file(&path))
                .join()
                .unwrap_or_else(|_| Err("the tokenizer loader panicked".into()))
        };
        match loaded_file {
            Ok((mut tokenizer, pieces)) => {
                let pieces = pieces.map(Arc::new);
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
                loaded.push((path.clone(), tokenizer.clone(), pieces.clone()));
                TokenCounter {
                    inner: Counter::Model {
                        tokenizer,
                        pieces,
                        path,
                    },
                }
            }
            Err(err) => TokenCounter::estimate(&format!("{} unreadable: {err}", path.display())),
        }
    }

    /// The character-based estimate; `reason` says why the tokenizer is not used.
    /// The tokenizer of the model the workspace's configuration names (or the estimate).
    pub fn for_workspace(ws: &crate::workspace::Workspace) -> TokenCounter {
        match crate::embed::ModelDir::resolve(ws.config.model_dir.as_deref(), ws.root()) {
            Ok(dir) => TokenCounter::load(Some(&dir.path)),
            Err(err) => TokenCounter::estimate(&err.to_string()),
        }
    }

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
                tokenizer, pieces, ..
            } => count_words(tokenizer, pieces.as_deref(), text),
            Counter::Estimate { .. } => estimate(text),
        }
    }

    /// Tokens of `text` from running it whole through the tokenizer's pipeline (no word cache).
    pub fn count_exact(&self, text: &str) -> usize {
        match &self.inner {
            Counter::Model {
                tokenizer, pieces, ..
            } => encode_len(tokenizer, pieces.as_deref(), text),
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
        self.at_most_with(text, limit, || self.count(text))
    }

    /// [`at_most`](Self::at_most) with the exact count, when needed, from `exact` (the count of
    /// `text` taken another way).
    pub(crate) fn at_most_with(
        &self,
        text: &str,
        limit: usize,
        exact: impl FnOnce() -> usize,
    ) -> Option<usize> {
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
                    let exact = exact();
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

/// A stretch of text to count: bytes of the file, or text standing in for some (a body stub).
#[derive(Debug, Clone)]
pub(crate) enum Part<'p> {
    File(Range<usize>),
    Literal(&'p str),
}

/// What [`TextTokens::count`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counted {
    /// [`TokenCounter::count`] of the concatenated parts.
    pub tokens: usize,
    /// The concatenation is empty or whitespace only (`str::trim`).
    pub blank: bool,
}

/// Token counts of stretches of one text (the file being chunked). Splitting a unit asks for
/// many stretches, overlapping and nested (a piece, then its children, each with body stubs in
/// place): here each word of the file is looked up once and its count kept, so a stretch costs
/// a walk over its words' counts instead of hashing every word again — and stubbed text is
/// counted as its parts without building it. The result is exactly `count` of the
/// concatenation: words are the runs between model spaces, and a word running across a part's
/// edge is counted whole.
pub(crate) struct TextTokens<'a> {
    counter: &'a TokenCounter,
    text: &'a str,
    words: OnceCell<Words>,
}

/// The words of a text, found on first use.
struct Words {
    /// Byte range of each word (a run between model spaces), in order.
    spans: Vec<(u32, u32)>,
    /// Tokens of each word once counted (`u32::MAX`: not yet).
    counts: Vec<Cell<u32>>,
}

impl Words {
    fn scan(text: &str) -> Words {
        let bytes = text.as_bytes();
        let mut spans = Vec::new();
        let mut start: Option<usize> = None;
        let mut i = 0;
        while i < bytes.len() {
            let (space, len) = match bytes[i] {
                b if b < 0x80 => (matches!(b, b' ' | b'\t' | b'\n' | 0x0c | b'\r'), 1),
                _ => {
                    let c = text[i..].chars().next().unwrap_or(' ');
                    (is_model_space(c), c.len_utf8())
                }
            };
            match (space, start) {
                (true, Some(s)) => {
                    spans.push((s as u32, i as u32));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
            i += len;
        }
        if let Some(s) = start {
            spans.push((s as u32, bytes.len() as u32));
        }
        let counts = vec![Cell::new(u32::MAX); spans.len()];
        Words { spans, counts }
    }
}

/// Running state of a count over parts.
#[derive(Default)]
struct Tally {
    tokens: usize,
    /// The word still open at the end of the parts so far, and its index in the file's words
    /// when it is exactly one of them.
    open: String,
    open_word: Option<usize>,
    /// The parts so far end inside a word.
    in_word: bool,
    /// A non-whitespace character has been seen in a word.
    non_blank: bool,
    /// The last word counted has no tokens (the normaliser removes all of it).
    last_empty: bool,
}

impl Tally {
    /// One run of non-space text from a part; `at_start`/`at_end`: it touches the part's edges
    /// (so it may continue a word of the previous part, or be continued by the next).
    fn run(
        &mut self,
        text: &str,
        at_start: bool,
        at_end: bool,
        word: Option<usize>,
        count: &mut impl FnMut(&str, Option<usize>) -> usize,
    ) {
        if !self.non_blank {
            self.non_blank = text.chars().any(|c| !c.is_whitespace());
        }
        let continues = at_start && self.in_word;
        if !continues {
            self.close(count);
        }
        if continues || at_end {
            self.open_word = if continues { None } else { word };
            self.open.push_str(text);
            if !at_end {
                self.close(count);
            }
        } else {
            self.add(count(text, word));
        }
        self.in_word = at_end;
    }

    fn add(&mut self, tokens: usize) {
        self.tokens += tokens;
        self.last_empty = tokens == 0;
    }

    fn close(&mut self, count: &mut impl FnMut(&str, Option<usize>) -> usize) {
        if !self.open.is_empty() {
            let n = count(&self.open, self.open_word);
            self.add(n);
            self.open.clear();
        }
        self.open_word = None;
        self.in_word = false;
    }
}

impl<'a> TextTokens<'a> {
    pub fn new(counter: &'a TokenCounter, text: &'a str) -> TextTokens<'a> {
        TextTokens {
            counter,
            text,
            words: OnceCell::new(),
        }
    }

    /// Tokens of the concatenated parts.
    pub fn count(&self, parts: &[Part]) -> Counted {
        let Counter::Model {
            tokenizer, pieces, ..
        } = &self.counter.inner
        else {
            return self.count_rendered(parts);
        };
        if u32::try_from(self.text.len()).is_err() {
            return self.count_rendered(parts);
        }
        let words = self.words.get_or_init(|| Words::scan(self.text));
        let text = self.text;
        let mut added_token = false;
        let (tokens, non_blank) = with_cache(tokenizer, |cache| {
            let mut count = |run: &str, word: Option<usize>| {
                added_token |= holds_added_token(tokenizer, pieces.as_deref(), run);
                match word {
                    Some(i) if words.counts[i].get() != u32::MAX => words.counts[i].get() as usize,
                    Some(i) => {
                        let n = cached_word_len(cache, tokenizer, pieces.as_deref(), run);
                        words.counts[i].set(n as u32);
                        n
                    }
                    None => cached_word_len(cache, tokenizer, pieces.as_deref(), run),
                }
            };
            let mut tally = Tally::default();
            let mut ends_in_space = false;
            for part in parts {
                match part {
                    Part::File(range) => {
                        if range.is_empty() {
                            continue;
                        }
                        let first = words
                            .spans
                            .partition_point(|&(_, end)| end as usize <= range.start);
                        let mut touched_end = false;
                        for (i, &(start, end)) in words.spans.iter().enumerate().skip(first) {
                            let (start, end) = (start as usize, end as usize);
                            if start >= range.end {
                                break;
                            }
                            let (from, to) = (start.max(range.start), end.min(range.end));
                            let whole = from == start && to == end;
                            tally.run(
                                &text[from..to],
                                from == range.start,
                                to == range.end,
                                whole.then_some(i),
                                &mut count,
                            );
                            touched_end = to == range.end;
                        }
                        if !touched_end {
                            tally.close(&mut count);
                        }
                        ends_in_space = !touched_end;
                    }
                    Part::Literal(literal) => {
                        if literal.is_empty() {
                            continue;
                        }
                        let mut touched_end = false;
                        let mut start = None;
                        for (i, c) in literal
                            .char_indices()
                            .chain(std::iter::once((literal.len(), ' ')))
                        {
                            match (is_model_space(c) || i == literal.len(), start) {
                                (true, Some(s)) => {
                                    let at_end = i == literal.len();
                                    tally.run(&literal[s..i], s == 0, at_end, None, &mut count);
                                    touched_end = at_end;
                                    start = None;
                                }
                                (false, None) => start = Some(i),
                                _ => {}
                            }
                        }
                        if !touched_end {
                            tally.close(&mut count);
                        }
                        ends_in_space = !touched_end;
                    }
                }
            }
            tally.close(&mut count);
            (
                tally.tokens + usize::from(ends_in_space),
                tally.non_blank && !tally.last_empty,
            )
        });
        // A last word without tokens may stand between the text's last space and its end
        // (see `count_words`): rare, so settled on the text itself like a blank one.
        // So may a word holding an added token, whose count depends on the space before it.
        if non_blank && !added_token {
            Counted {
                tokens,
                blank: false,
            }
        } else {
            // No word with visible text: whitespace only, or text made of model spaces that
            // `trim` keeps (a zero-width space). Rare; settle it on the text itself.
            self.count_rendered(parts)
        }
    }

    /// [`count`](Self::count) by building the text.
    fn count_rendered(&self, parts: &[Part]) -> Counted {
        let mut text = String::new();
        for part in parts {
            match part {
                Part::File(range) => text.push_str(&self.text[range.clone()]),
                Part::Literal(literal) => text.push_str(literal),
            }
        }
        Counted {
            tokens: self.counter.count(&text),
            blank: text.trim().is_empty(),
        }
    }
}

/// Words a thread's cache keeps before starting over (16 MB at most).
const MAX_CACHED_WORDS: usize = 1 << 20;

/// Slots of the small front table of [`WordCounts`] (16 bytes each: 128 KB, within L2).
const FRONT_SLOTS: usize = 1 << 13;

/// Counts by a 64-bit hash of the word: no allocation per word. Storing millions of small
/// strings fragmented the heap enough to slow tree-sitter's own allocations down by half; a
/// hash collision (about one in 10^13 pairs at this size) would only misjudge one word.
///
/// A project's words run to hundreds of thousands, so a lookup in `all` mostly misses the CPU
/// caches, and it happens for every word of every chunk counted. Code repeats a few words
/// (`$this->`, `return`, `=`, `{`) most of the time: a direct-mapped front table that stays in
/// cache answers those, and `all` is asked only for the rest.
struct WordCounts {
    /// The tokenizer the counts are for (its address).
    owner: usize,
    /// `(hash, tokens)` by the hash's low bits; `u32::MAX` tokens marks an empty slot.
    front: Box<[(u64, u32)]>,
    all: HashMap<u64, u32, BuildHasherDefault<PreHashed>>,
}

impl WordCounts {
    fn new() -> WordCounts {
        WordCounts {
            owner: 0,
            front: vec![(0, u32::MAX); FRONT_SLOTS].into_boxed_slice(),
            all: HashMap::default(),
        }
    }

    fn clear(&mut self, owner: usize) {
        self.owner = owner;
        self.front.fill((0, u32::MAX));
        self.all.clear();
    }

    fn get(&mut self, hash: u64) -> Option<u32> {
        let slot = (hash ^ (hash >> 29)) as usize % FRONT_SLOTS;
        match self.front[slot] {
            (h, n) if h == hash && n != u32::MAX => Some(n),
            _ => {
                let n = *self.all.get(&hash)?;
                self.front[slot] = (hash, n);
                Some(n)
            }
        }
    }

    fn insert(&mut self, hash: u64, tokens: u32) {
        let slot = (hash ^ (hash >> 29)) as usize % FRONT_SLOTS;
        self.front[slot] = (hash, tokens);
        self.all.insert(hash, tokens);
    }
}

thread_local! {
    // Keyed by the tokenizer's address so two loaded tokenizers never share counts.
    static WORDS: RefCell<WordCounts> = RefCell::new(WordCounts::new());
}

/// The cache's keys are hashes already: hashing them again with SipHash cost more than the
/// lookup. The high bits are folded in because the table indexes by the low ones.
#[derive(Default)]
struct PreHashed(u64);

impl Hasher for PreHashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed with this; anything else still gets a usable hash.
        self.0 = fnv1a(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n ^ (n >> 29);
    }
}

/// Runs `f` with this thread's word cache for `tokenizer` (emptied when it grows too large).
fn with_cache<R>(
    tokenizer: &Arc<tokenizers::Tokenizer>,
    f: impl FnOnce(&mut WordCounts) -> R,
) -> R {
    let key = Arc::as_ptr(tokenizer) as usize;
    WORDS.with(|cell| {
        let mut cache = cell.borrow_mut();
        if cache.owner != key || cache.all.len() > MAX_CACHED_WORDS {
            cache.clear(key);
        }
        f(&mut cache)
    })
}

/// Tokens of one word (no model space inside), through the cache.
fn cached_word_len(
    cache: &mut WordCounts,
    tokenizer: &tokenizers::Tokenizer,
    pieces: Option<&Pieces>,
    word: &str,
) -> usize {
    let hash = fnv1a(word.as_bytes());
    match cache.get(hash) {
        Some(n) => n as usize,
        None => {
            let n = word_len(tokenizer, pieces, word);
            cache.insert(hash, n as u32);
            n
        }
    }
}

fn count_words(
    tokenizer: &Arc<tokenizers::Tokenizer>,
    pieces: Option<&Pieces>,
    text: &str,
) -> usize {
    with_cache(tokenizer, |cache| {
        let mut tokens = 0;
        // A text whose normalised form ends in whitespace ends with a lone `▁` token: a model
        // space after the last word that keeps any text (a word of characters the normaliser
        // removes, such as control characters, has no tokens and does not end the space).
        let mut trailing_space = false;
        // The end of the last word with tokens: what lies between it and the next word are model
        // spaces and words the normaliser removes whole.
        let mut last_end = 0;
        for (i, word) in text.split(is_model_space).enumerate() {
            trailing_space |= i > 0;
            if word.is_empty() {
                continue;
            }
            let start = word.as_ptr() as usize - text.as_ptr() as usize;
            let end = start + word.len();
            // The encoder normalises the text before an added token (`<s>`, `<mask>` …) on its
            // own, so the spaces just before a word holding one end that text: a `▁` token of
            // their own, unless the token strips them (`<mask>` takes the whitespace on its
            // left, but not U+FFFD). Such a word is counted with what lies before it.
            let counted = if start > last_end && holds_added_token(tokenizer, pieces, word) {
                &text[last_end..end]
            } else {
                word
            };
            let n = cached_word_len(cache, tokenizer, pieces, counted);
            tokens += n;
            if n > 0 {
                trailing_space = false;
                last_end = end;
            }
        }
        tokens + usize::from(trailing_space)
    })
}

/// Whether `word` holds one of the tokenizer's added tokens.
fn holds_added_token(
    tokenizer: &tokenizers::Tokenizer,
    pieces: Option<&Pieces>,
    word: &str,
) -> bool {
    word.contains('<')
        && match pieces {
            Some(pieces) => pieces.holds_special(word),
            None => tokenizer
                .get_added_tokens_decoder()
                .values()
                .any(|t| word.contains(t.content.as_str())),
        }
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

/// Tokens of one word. With [`Pieces`], a word the normaliser leaves as it is (printable
/// ASCII; other text already in NFKC without the characters the normaliser removes) and that
/// holds no added token such as `<s>` goes straight to the vocabulary; anything else through
/// the normaliser and pre-tokenizer first. Without, the whole encoder counts it (plain ASCII
/// through the model alone: the pipeline around the model costs more than the model itself).
fn word_len(tokenizer: &tokenizers::Tokenizer, pieces: Option<&Pieces>, word: &str) -> usize {
    if let Some(pieces) = pieces {
        return pieces
            .count(word)
            .unwrap_or_else(|| pieces.count_through(tokenizer, word));
    }
    let plain = word.bytes().all(|b| (0x21..0x7f).contains(&b) && b != b'<');
    if plain {
        use tokenizers::Model;
        if let Ok(tokens) = tokenizer.get_model().tokenize(&format!("\u{2581}{word}")) {
            return tokens.len();
        }
    }
    encode_len(tokenizer, None, word)
}

fn encode_len(tokenizer: &tokenizers::Tokenizer, pieces: Option<&Pieces>, text: &str) -> usize {
    if let Some(pieces) = pieces {
        return pieces.count_through(tokenizer, text);
    }
    match tokenizer.encode_fast(text, false) {
        Ok(encoding) => encoding.len(),
        // The tokenizer does not fail on valid UTF-8 in practice; an estimate keeps the
        // chunker going if it ever does.
        Err(_) => estimate(text),
    }
}

/// Reads `tokenizer.json`. For a Unigram model without byte fallback (multilingual-e5's), the
/// vocabulary goes into [`Pieces`] and the tokenizer kept for the rest of the pipeline gets
/// only the pieces up to its unknown token: the `tokenizers` crate keeps its vocabulary in a
/// trie of hash maps, about 290 MiB resident for this model, and the embedder holds one
/// already. Any other model is loaded whole.
fn load_file(path: &Path) -> Result<(tokenizers::Tokenizer, Option<Pieces>), String> {
    let bytes = std::fs::read(path).map_err(|err| err.to_string())?;
    let whole = |bytes: &[u8]| tokenizers::Tokenizer::from_bytes(bytes).map_err(|e| e.to_string());
    let mut json: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|err| err.to_string())?;
    let model = &mut json["model"];
    if model["type"] != "Unigram" || model["byte_fallback"] == true {
        return whole(&bytes).map(|t| (t, None));
    }
    let unk_id = model["unk_id"].as_u64().map(|id| id as usize);
    let vocab: Vec<(String, f64)> =
        serde_json::from_value(model["vocab"].take()).map_err(|err| err.to_string())?;
    let keep = unk_id.map_or(1, |id| id + 1).min(vocab.len());
    model["vocab"] = serde_json::to_value(&vocab[..keep]).map_err(|err| err.to_string())?;
    let front: tokenizers::Tokenizer = json
        .to_string()
        .parse()
        .map_err(|e: tokenizers::Error| e.to_string())?;
    drop(json);
    match Pieces::build(&front, &vocab, unk_id) {
        Some(pieces) => Ok((front, Some(pieces))),
        None => whole(&bytes).map(|t| (t, None)),
    }
}

/// The Unigram pieces in a compact byte trie, for counting a word's tokens without the model's
/// general path (which allocates a string per lattice candidate and per token, behind a
/// normaliser and pre-tokenizer that allocate too). It runs the same best-path search as the
/// model's `encode_optimized`: character starts in order, candidate pieces by increasing length,
/// a candidate replaces a path only with a strictly better score, a character without a piece of
/// its own becomes the unknown token (scored below every piece), and unknown tokens next to each
/// other are fused into one — so it picks the same path and gives the same count (checked
/// against the model on the fixtures' words and on words of many scripts). [`Pieces::count`]
/// declines (`None`) what the normaliser would change and added tokens;
/// [`Pieces::count_through`] runs those through the tokenizer's pipeline first.
struct Pieces {
    /// Node `n`'s children: `edge_bytes[first_edge[n]..first_edge[n + 1]]`, sorted, leading to
    /// the same range of `edge_nodes`. Nodes are numbered breadth first, so ranges follow each
    /// other.
    first_edge: Vec<u32>,
    edge_bytes: Vec<u8>,
    edge_nodes: Vec<u32>,
    /// Score of the piece ending at each node, NaN when none does.
    scores: Vec<f64>,
    /// The node of the unknown token's own piece (`<unk>`), `u32::MAX` when none: the model
    /// fuses it like an unknown character.
    unk_node: u32,
    /// The model's score for an unknown character: the lowest piece score minus 10.
    unk_score: f64,
    /// Added tokens (`<s>`, `<mask>` …): a word containing one goes through the pipeline.
    specials: Vec<String>,
    /// Whether the normaliser leaves NFKC text without removed characters as it is (checked
    /// on probes when building); without it only printable ASCII is counted directly.
    nfkc_words: bool,
}

/// The Unigram model's penalty for an unknown character, below the lowest piece score.
const UNK_PENALTY: f64 = 10.0;

impl Pieces {
    /// The trie of `vocab` (pieces and scores, in id order) for the tokenizer whose pipeline is
    /// `front`; `None` unless its normaliser leaves printable ASCII as it is.
    fn build(
        front: &tokenizers::Tokenizer,
        vocab: &[(String, f64)],
        unk_id: Option<usize>,
    ) -> Option<Pieces> {
        // Sorted by bytes (stable: equal pieces keep vocabulary order), every node's pieces are
        // one run of `order`, and its children's runs follow each other.
        let mut order: Vec<u32> = (0..vocab.len() as u32).collect();
        order.sort_by(|a, b| {
            vocab[*a as usize]
                .0
                .as_bytes()
                .cmp(vocab[*b as usize].0.as_bytes())
        });
        let bytes_of = |i: usize| vocab[order[i] as usize].0.as_bytes();
        let mut first_edge = Vec::new();
        let mut edge_bytes = Vec::new();
        let mut edge_nodes = Vec::new();
        let mut scores = vec![f64::NAN];
        let mut unk_node = u32::MAX;
        // Breadth first: (node, its run of `order`, depth).
        let mut queue = std::collections::VecDeque::from([(0usize, 0..order.len(), 0usize)]);
        while let Some((node, run, depth)) = queue.pop_front() {
            first_edge.push(edge_bytes.len() as u32);
            let mut i = run.start;
            // Pieces ending here sort first; like the model's piece-to-id map, a later
            // duplicate wins. (No piece ends at the root: empty pieces are never matched.)
            while i < run.end && bytes_of(i).len() == depth {
                if depth > 0 {
                    let id = order[i] as usize;
                    scores[node] = vocab[id].1;
                    if Some(id) == unk_id {
                        unk_node = node as u32;
                    } else if unk_node == node as u32 {
                        unk_node = u32::MAX;
                    }
                }
                i += 1;
            }
            while i < run.end {
                let byte = bytes_of(i)[depth];
                let mut j = i + 1;
                while j < run.end && bytes_of(j)[depth] == byte {
                    j += 1;
                }
                let child = scores.len();
                edge_bytes.push(byte);
                edge_nodes.push(child as u32);
                scores.push(f64::NAN);
                queue.push_back((child, i..j, depth + 1));
                i = j;
            }
        }
        first_edge.push(edge_bytes.len() as u32);
        let normalizes = |probe: &str| match front.get_normalizer() {
            None => true,
            Some(normalizer) => {
                use tokenizers::Normalizer;
                let mut normalized = tokenizers::NormalizedString::from(probe);
                normalizer.normalize(&mut normalized).is_ok() && normalized.get() == probe
            }
        };
        let ascii: String = (0x21u8..0x7f).map(char::from).collect();
        if !normalizes(&ascii) {
            return None;
        }
        let min_score = vocab.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
        Some(Pieces {
            first_edge,
            edge_bytes,
            edge_nodes,
            scores,
            unk_node,
            unk_score: min_score - UNK_PENALTY,
            specials: front
                .get_added_tokens_decoder()
                .into_values()
                .map(|t| t.content)
                .filter(|c| !c.is_empty())
                .collect(),
            nfkc_words: NFKC_PROBES.iter().all(|p| normalizes(p)),
        })
    }

    fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let from = self.first_edge[node as usize] as usize;
        let to = self.first_edge[node as usize + 1] as usize;
        let bytes = &self.edge_bytes[from..to];
        let at = if bytes.len() <= 16 {
            bytes.iter().position(|b| *b == byte)?
        } else {
            bytes.binary_search(&byte).ok()?
        };
        Some(self.edge_nodes[from + at])
    }

    /// Tokens of `word` (with the `▁` the pre-tokenizer puts before it), or `None` when the
    /// word must go through the pipeline first.
    fn count(&self, word: &str) -> Option<usize> {
        let printable_ascii = word.bytes().all(|b| (0x21..0x7f).contains(&b));
        let unchanged = printable_ascii || (self.nfkc_words && normalizes_to_itself(word));
        if !unchanged {
            return None;
        }
        if self.holds_special(word) {
            return None;
        }
        let mut text = Vec::with_capacity(word.len() + 3);
        text.extend_from_slice("\u{2581}".as_bytes());
        text.extend_from_slice(word.as_bytes());
        Some(self.best_path(&text))
    }

    fn holds_special(&self, word: &str) -> bool {
        word.contains('<') && self.specials.iter().any(|s| word.contains(s.as_str()))
    }

    /// Tokens of `text` run through `front`'s pipeline as the encoder runs it: added tokens
    /// split out (one token each), the rest normalised and pre-tokenized, each piece of that
    /// counted here.
    fn count_through(&self, front: &tokenizers::Tokenizer, text: &str) -> usize {
        use tokenizers::{OffsetReferential, OffsetType, PreTokenizer};
        let mut pretokenized = front
            .get_added_vocabulary()
            .extract_and_normalize(front.get_normalizer(), text);
        if let Some(pre) = front.get_pre_tokenizer()
            && pre.pre_tokenize(&mut pretokenized).is_err()
        {
            // Pre-tokenizers do not fail on valid UTF-8 in practice.
            return estimate(text);
        }
        pretokenized
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .into_iter()
            .map(|(split, _, tokens)| match tokens {
                Some(tokens) => tokens.len(),
                None => self.best_path(split.as_bytes()),
            })
            .sum()
    }

    /// Tokens on the best path through `text` (already normalised and pre-tokenized).
    fn best_path(&self, text: &[u8]) -> usize {
        let size = text.len();
        // Best path ending at each position: score, start of its last token (`usize::MAX`:
        // none), and whether that token is the unknown one.
        let mut best: Vec<(f64, usize, bool)> = vec![(0.0, usize::MAX, false); size + 1];
        // A token from `start` reaching a position replaces its path only with a strictly
        // better score, as in the model.
        let offer = |slot: &mut (f64, usize, bool), score: f64, start: usize, unknown: bool| {
            if slot.1 == usize::MAX || score > slot.0 {
                *slot = (score, start, unknown);
            }
        };
        let mut start = 0;
        while start < size {
            let char_len = utf8_len(text[start]).min(size - start);
            let till_here = best[start].0;
            let mut single = false;
            let mut node = 0;
            for (offset, byte) in text[start..].iter().enumerate() {
                let Some(next) = self.child(node, *byte) else {
                    break;
                };
                node = next;
                let score = self.scores[node as usize];
                if score.is_nan() {
                    continue;
                }
                let end = start + offset + 1;
                offer(
                    &mut best[end],
                    score + till_here,
                    start,
                    node == self.unk_node,
                );
                single |= offset + 1 == char_len;
            }
            if !single {
                offer(
                    &mut best[start + char_len],
                    self.unk_score + till_here,
                    start,
                    true,
                );
            }
            start += char_len;
        }
        let mut tokens = 0;
        let mut end = size;
        let mut after_unknown = false;
        while end > 0 {
            let (_, start, unknown) = best[end];
            // Unknown tokens next to each other are one token.
            if !(unknown && after_unknown) {
                tokens += 1;
            }
            after_unknown = unknown;
            end = start;
        }
        tokens
    }
}

/// Length of the UTF-8 sequence a lead byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0..0x80 => 1,
        0xc0..0xe0 => 2,
        0xe0..0xf0 => 3,
        _ => 4,
    }
}

/// Words in NFKC that the normaliser must leave as they are for [`Pieces`] to count such words:
/// scripts, emoji with modifiers, punctuation, Japanese.
const NFKC_PROBES: &[&str] = &[
    "ログイン機能を修正したい",
    "кожа',",
    "بلون",
    "👩🏿",
    "❤️",
    "Größe",
    "ελληνικά",
    "한국어",
    "中文字符",
    "naïve—“quoted”",
    "עברית",
    "हिन्दी",
];

/// Whether XLM-R's normaliser leaves `word` as it is: it turns model spaces into spaces,
/// removes control characters, keeps `～` out of NFKC, and applies NFKC. Unicode keeps NFKC stable for
/// assigned characters, so a quick check from a newer Unicode version than the normaliser's
/// only says yes where that one leaves the text alone too.
fn normalizes_to_itself(word: &str) -> bool {
    use unicode_normalization::{IsNormalized, is_nfkc_quick};
    !word.chars().any(|c| {
        matches!(
            c,
            '\u{1}'..='\u{8}'
                | '\u{b}'
                | '\u{e}'..='\u{1f}'
                | '\u{7f}'
                | '\u{8f}'
                | '\u{9f}'
                | '\u{ff5e}'
        ) || is_model_space(c)
    }) && is_nfkc_quick(word.chars()) == IsNormalized::Yes
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
    let tenths: usize = text
        .bytes()
        .map(|b| usize::from(BYTE_WEIGHTS[usize::from(b)]))
        .sum();
    tenths.div_ceil(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_counts_answer_from_the_front_table_or_behind_it() {
        let mut counts = WordCounts::new();
        assert_eq!(counts.get(42), None);
        counts.insert(42, 3);
        assert_eq!(counts.get(42), Some(3));
        // Another hash in the same front slot takes it over; both are still answered.
        let rival = 42 + FRONT_SLOTS as u64 * (1 << 30);
        let slot = |h: u64| (h ^ (h >> 29)) as usize % FRONT_SLOTS;
        assert_eq!(slot(rival), slot(42));
        counts.insert(rival, 7);
        assert_eq!(counts.get(42), Some(3));
        assert_eq!(counts.get(rival), Some(7));
        // A hash equal to an empty slot's placeholder is not mistaken for a count.
        assert_eq!(counts.get(0), None);
        counts.clear(1);
        assert_eq!((counts.get(42), counts.owner), (None, 1));
    }

    /// The model's whole tokenizer, as the embedder loads it: the reference for counts.
    fn whole_tokenizer(counter: &TokenCounter) -> tokenizers::Tokenizer {
        let Counter::Model { path, .. } = &counter.inner else {
            panic!("needs the provisioned tokenizer: {}", counter.describe());
        };
        let mut whole = tokenizers::Tokenizer::from_file(path).unwrap();
        whole.with_truncation(None).unwrap();
        whole.with_padding(None);
        whole
    }

    fn encoded_len(whole: &tokenizers::Tokenizer, text: &str) -> usize {
        whole.encode_fast(text, false).unwrap().len()
    }

    /// The counter's pipeline tokenizer and vocabulary trie.
    fn model_parts(counter: &TokenCounter) -> (&tokenizers::Tokenizer, &Pieces) {
        let Counter::Model {
            tokenizer,
            pieces: Some(pieces),
            ..
        } = &counter.inner
        else {
            panic!(
                "needs the provisioned tokenizer, whose Unigram vocabulary allows the trie: {}",
                counter.describe()
            );
        };
        (tokenizer, pieces)
    }

    #[test]
    fn the_estimate_weighs_each_character_once() {
        let by_char = |text: &str| -> usize {
            let tenths: usize = text
                .chars()
                .map(|c| match c {
                    c if c.is_ascii_alphanumeric() => 3,
                    c if c.is_ascii_whitespace() => 0,
                    c if c.is_ascii() => 8,
                    _ => 13,
                })
                .sum();
            tenths.div_ceil(10)
        };
        for text in [
            "",
            "fn total(&self) -> u64 { 0 }",
            "注文を保存する — café ✓ 😀",
            "\t\n\x0c  ",
        ] {
            assert_eq!(estimate(text), by_char(text), "{text:?}");
        }
        assert_eq!(estimate("abc"), 1);
        assert_eq!(estimate("注文"), 3);
    }

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

    /// A space ends the text the encoder normalises at the end of the text and before an added
    /// token, where it is a `▁` token of its own, also when characters the normaliser removes
    /// (control characters) follow it: counted word by word, `"\u{fffd}\u{1}"` gave 0 tokens
    /// and `" <s>"` 1, against the encoder's 1 and 2 (both found by fuzzing).
    #[test]
    fn a_space_before_removed_characters_still_ends_the_text() {
        let counter = TokenCounter::load(None);
        let whole = whole_tokenizer(&counter);
        for text in [
            "\u{fffd}\u{1}",
            "a \u{1}",
            "a\u{1} \u{1}\u{2}",
            "a \u{1} b",
            " \u{1}",
            // A space before an added token ends the text normalised before it (`<s>` is also
            // HTML's strikethrough).
            " <s>",
            "x <s>old</s> new",
            "a  <mask>",
            "\u{fffd}<mask>",
            "x\u{fffd}\u{1}<mask>",
            "\u{fffd}\u{1}\u{c}<mask>",
            "<s> a",
        ] {
            let expected = encoded_len(&whole, text);
            assert_eq!(counter.count(text), expected, "{text:?}");
            assert_eq!(counter.count_exact(text), expected, "{text:?}");
            let parts = [Part::File(0..text.len())];
            assert_eq!(
                TextTokens::new(&counter, text).count(&parts).tokens,
                expected,
                "{text:?}"
            );
        }
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

    /// The trie gives the model's own count for every word of the fixtures it answers for (and
    /// for words built to have many equal-looking segmentations), and the whole encoder's count
    /// for words of many scripts; it declines what the normaliser would change.
    #[test]
    fn pieces_count_like_the_model() {
        use tokenizers::Model;
        let counter = TokenCounter::load(None);
        let whole = whole_tokenizer(&counter);
        let (front, pieces) = model_parts(&counter);
        assert!(
            NFKC_PROBES.iter().all(|p| normalizes_to_itself(p)),
            "probes are NFKC words"
        );
        assert!(
            pieces.nfkc_words,
            "the normaliser leaves the probes as they are"
        );
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
        for word in words.iter().filter(|w| !w.is_empty() && w.is_ascii()) {
            let Some(fast) = pieces.count(word) else {
                continue;
            };
            let model = whole
                .get_model()
                .tokenize(&format!("\u{2581}{word}"))
                .unwrap()
                .len();
            assert_eq!(fast, model, "{word}");
            compared += 1;
        }
        assert!(compared > 5000, "{compared}");
        assert_eq!(pieces.count("x<s>y"), None);

        let scripts = [
            "ログイン機能を修正したい",
            "認証サービス",
            "'👩🏿",
            "👨🏻'",
            "♂'",
            "❤",
            "💋",
            "🧑🏽",
            "кожа',",
            "тон",
            "kože',",
            "بلون",
            "Größe",
            "naïve",
            "ελληνικά",
            "한국어",
            "עברית",
            "हिन्दी",
            "ภาษาไทย",
            "«guillemets»",
            "—",
            "€100",
            "\u{e000}",
            "\u{10ffff}x",
            "\u{0}",
        ];
        let mut non_ascii = 0;
        for word in words
            .iter()
            .map(String::as_str)
            .filter(|w| !w.is_empty() && !w.is_ascii())
            .chain(scripts)
        {
            let Some(fast) = pieces.count(word) else {
                continue;
            };
            assert_eq!(fast, encoded_len(&whole, word), "{word}");
            non_ascii += 1;
        }
        assert!(non_ascii > 20, "{non_ascii}");
        // What the normaliser changes goes through the pipeline first: full-width letters,
        // ligatures, decomposed accents, `～`, removed control characters; so do added tokens.
        for word in [
            "ＡＢＣ",
            "ﬁle",
            "e\u{301}",
            "a～b",
            "a\u{7}b",
            "ｶﾀｶﾅ",
            "x<s>y",
        ] {
            assert_eq!(pieces.count(word), None, "{word}");
            assert_eq!(
                pieces.count_through(front, word),
                encoded_len(&whole, word),
                "{word}"
            );
        }
    }

    /// Characters without a piece become the unknown token, and unknown tokens next to each
    /// other are one token, as in the model; text with added tokens, model spaces and
    /// normalisation counts as the whole encoder counts it.
    #[test]
    fn unknown_characters_and_the_pipeline_count_like_the_model() {
        let counter = TokenCounter::load(None);
        let whole = whole_tokenizer(&counter);
        let (front, pieces) = model_parts(&counter);
        let unknown = "\u{e000}";
        assert_eq!(
            encoded_len(&whole, unknown),
            2,
            "a private-use character is the unknown token (after `▁`)"
        );
        for text in [
            unknown,
            "\u{e000}\u{e001}\u{e002}",
            "a\u{e000}b\u{e001}\u{e002}c",
            "\u{10ffff}x",
            "<unk>\u{e000}",
            "<s> a </s>b<mask> c <pad>",
            "<div><s>struck</s></div>",
            "ＡＢＣ ﬁle e\u{301} a～b ｶﾀｶﾅ\u{3000}ログイン",
            "tab\tand\u{a0}nbsp  double  spaces\r\nend ",
            "",
            "   ",
        ] {
            let want = encoded_len(&whole, text);
            assert_eq!(pieces.count_through(front, text), want, "{text:?}");
            assert_eq!(counter.count_exact(text), want, "{text:?}");
        }
        // Words without added tokens: the word sum agrees too.
        for text in ["\u{e000}\u{e001}", "a\u{e000}b", "x \u{10ffff}y  z"] {
            assert_eq!(counter.count(text), encoded_len(&whole, text), "{text:?}");
        }
    }

    /// The counter does not hold a second copy of the vocabulary in the `tokenizers` crate's
    /// trie: its tokenizer keeps only the pieces up to the unknown token.
    #[test]
    fn the_counter_keeps_one_vocabulary() {
        use tokenizers::Model;
        let counter = TokenCounter::load(None);
        let (tokenizer, _) = model_parts(&counter);
        assert!(
            tokenizer.get_model().get_vocab_size() <= 4,
            "{}",
            tokenizer.get_model().get_vocab_size()
        );
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
        let whole = whole_tokenizer(&counter);
        for text in &texts {
            let want = encoded_len(&whole, text);
            let head = &text[..text.floor_char_boundary(80)];
            assert_eq!(counter.count(text), want, "{head}");
            assert_eq!(counter.count_exact(text), want, "{head}");
            compared += 1;
        }
        assert!(compared > 150);
    }
}
