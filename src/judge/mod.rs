//! The relevance judge: "does the request's term X really name what symbol S does?", answered
//! from the code and the project, as one calibrated score on which the seeds' tiers (> 0.6
//! fact, 0.3–0.6 gray, < 0.3 rejected) keep their meaning. Every session check that scores a
//! symbol against the request (`submit_understanding`, `validate_symbol_relevance`,
//! `confirm_symbol_relevance`, `submit_verification`) asks this one judge.
//!
//! A name and a doc line are too little evidence, and an absolute cosine cannot tell "about this
//! feature" from "about this project". So the judge gathers, per definition:
//!
//! - **dense, described**: the calibrated e5 score of the term against the symbol's
//!   [`SymbolContext`] (path, signature, doc summary or member names);
//! - **dense, with its body**: the same against that description plus what the body says — the
//!   string literals (route paths, messages, config keys) and the names it calls;
//! - **relative**: how the symbol stands against a fixed sample of the same project's symbols for
//!   the same term (margin above the sample's upper decile, share of the sample it beats), so a
//!   shop word does not approve every symbol of a shop;
//! - **the field**: where the project's own hybrid search puts the term's code ([`Field`]):
//!   the fused score of the hit that covers the definition, or none when the search does not
//!   show it among its best [`FIELD_SIZE`]; and the best standing there of the definitions that
//!   call it (a helper whose name says little belongs to the feature whose code calls it). Until
//!   every chunk is embedded, the search ranks by the project's words alone;
//! - **the field's leaders**: the definitions of the field's best hits ([`field_leaders`]), what
//!   the project holds closest to the term. How far the symbol's described score falls below
//!   theirs, and its name's share of the term's words below theirs: the neighbour that shares a
//!   word (`CommentsController.upvote` for "upvote a story") stands behind the definition the
//!   search puts first, where the right one stands level with it;
//! - **lexical**: which of the term's words — for a Japanese term, the English renderings of its
//!   words from [`glossary`], the project's words for its loanwords
//!   ([`crate::search::loanword`]), for its
//!   other kanji words the word of the field the model reads them as ([`bridge`]), and for the
//!   rest the English of their senses in the dictionary that the project's names hold
//!   ([`crate::search::dictionary`]) — occur in
//!   the symbol's name, its path, its doc and its body, whether another definition's name holds
//!   more of them ([`Lexicon`]), and how many the names of its callers hold ([`Caller`]: a
//!   helper belongs to the feature whose code calls it).
//! - **entities**: whether the name is about another of the project's entities than the term's
//!   ([`TermEntities`]: `VetRepository.findAll` for "search owners" does the term's action on
//!   something else; the entities are the words the project's types and files are named for,
//!   [`Lexicon`]);
//! - **actions**: whether the name does another of the common actions on data than the term's
//!   ([`other_action`]: `create` beside `edit` in the links' handler, for "edit link");
//! - **the name's other words**: the share of the name's words that are none of the term's
//!   ([`TermKeys::unexplained`]);
//! - **the words in between**: what the name's stray words and the term's missing words have
//!   said on the development split ([`word_odds`]: a stray `delete` is another action, a stray
//!   `save` what the right name says besides the term);
//! - **size**: whether the definition is a few lines only ([`TINY_LINES`]).
//!
//! [`Signals::combine`] weighs them with a logistic model fitted on the development split of
//! `tests/eval/relevance/pairs.jsonl`, plus small boosted trees for where two signals together
//! say more than their sum ([`trees`]); a field of words alone and no field at all (before the
//! first sync) each have their own linear fit (`code-intel eval-relevance --features` dumps the signals,
//! `tests/eval/relevance/fit_judge.py` fits and prints what each signal group adds) for the real
//! model only: the weights mean nothing for another scorer, so with any other scorer (the fake
//! of the logic tests) the judge's score is the scorer's own.
//!
//! The session tools run the judge in [`SESSION_MODE`], by agreement of the described score (the
//! closer of the two dense scores: [`Judge::described`]) and the fitted combination: see there
//! for why, and `bench/README.md` ("Relevance judge") for the
//! figures. Three rules on the name and the file then bound the agreed score ([`Signals::bound`]):
//! a name that says the reverse of the term's action is rejected; a symbol its file clearly
//! outranks, and one about another entity where another name holds more of the term, are gray
//! at most. A fourth looks across the project: a FACT that one of the field's leaders, judged as
//! a symbol of its own, outscores is gray ([`Judge::best_other_leader`]). The verdict names the
//! rule ([`Bound`]) so the agent learns why.
//!
//! The term's words are read in `terms.rs`, the project's names in `lexicon.rs`, the field in
//! `field.rs` and the model's bridge for kanji words in `bridge.rs`; this module gathers the
//! evidence and judges.

mod bridge;
mod field;
mod lexicon;
mod terms;
mod trees;
mod word_odds;

pub use field::{FIELD_SIZE, Field, FieldSearch, forget_kept};
pub use lexicon::{Bag, Lexicon, project_lexicon};
pub use terms::{TermEntities, TermKeys};

use lexicon::{is_judged, named_text, path_words};

use crate::analysis::Symbol;
use crate::index::{SeenEntries, Snapshot};
use crate::lexical;
use crate::relevance::{Relevance, RelevanceError, SymbolContext};
use crate::search::dictionary::Dictionary;
use crate::search::{glossary, references, roles};
use crate::workspace::{WalkOptions, Workspace};
use regex::Regex;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Symbols of the project the background sample holds.
const BACKGROUND_SIZE: usize = 64;
/// Lines of a definition read for its body evidence (a class's first methods say what it is).
const MAX_BODY_LINES: usize = 200;
/// Body strings and called names kept for the dense evidence text.
const MAX_BODY_ITEMS: usize = 24;
/// Upper bound on the evidence text handed to the model.
const MAX_EVIDENCE_CHARS: usize = 700;

/// One definition of a claimed symbol, with its code.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub context: SymbolContext,
    /// The definition's first line (1-based), where the field looks for it.
    pub line: usize,
    /// The definition's source lines.
    pub code: String,
    /// The other definitions of the same file (not its class, not its own members): a symbol
    /// that a sibling beats for the term is usually the neighbour of the right one.
    pub siblings: Vec<SymbolContext>,
    /// The definitions outside tests that use its name (filled by [`claimed`]): a helper is
    /// part of a feature when what calls it is named for the feature (`verify_password` is
    /// called by `authenticate`, which the login route calls).
    pub callers: Vec<Caller>,
}

/// A definition that uses a candidate's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub name: String,
    pub scope: Option<String>,
    pub file: String,
    /// The caller's definition line.
    pub line: usize,
}

impl Caller {
    /// Its name, scope and path, as the lexical checks read a definition ([`named_text`]).
    pub fn named_text(&self) -> String {
        named_text(&self.name, self.scope.as_deref(), &self.file)
    }
}

/// Callers kept per candidate.
const MAX_CALLERS: usize = 64;
/// How long the search for callers may take before the judge goes without them.
const CALLERS_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Siblings kept per candidate.
const MAX_SIBLINGS: usize = 24;

impl Candidate {
    /// The candidate for `symbol`, defined in `file` (text `source`, symbols `file_symbols`).
    pub fn new(file: &str, symbol: &Symbol, source: &str, file_symbols: &[Symbol]) -> Candidate {
        let start = symbol.line.saturating_sub(1);
        let end = symbol.end_line.max(symbol.line);
        let code = source
            .lines()
            .skip(start)
            .take(end - start)
            .collect::<Vec<_>>()
            .join("\n");
        let encloses = |outer: &Symbol, inner: &Symbol| {
            inner.scope.as_deref().is_some_and(|scope| {
                scope == outer.qualified_name
                    || scope == outer.name
                    || scope.starts_with(&format!("{}.", outer.qualified_name))
            })
        };
        let siblings = file_symbols
            .iter()
            .filter(|s| is_judged(s))
            .filter(|s| {
                let itself = s.line == symbol.line && s.name == symbol.name;
                !(itself || encloses(s, symbol) || encloses(symbol, s))
            })
            .take(MAX_SIBLINGS)
            .map(|s| SymbolContext::new(file, s, source).with_members(s, file_symbols))
            .collect();
        Candidate {
            context: SymbolContext::new(file, symbol, source).with_members(symbol, file_symbols),
            line: symbol.line,
            code,
            siblings,
            callers: Vec::new(),
        }
    }

    /// The description plus what the body says: string literals, then the names it calls.
    pub fn evidence_text(&self) -> String {
        let (strings, calls) = body_digest(&self.code, &self.context.name);
        let mut out = self.context.text();
        if !strings.is_empty() {
            out.push('\n');
            out.push_str(&strings.join("; "));
        }
        if !calls.is_empty() {
            out.push('\n');
            let words: Vec<String> = calls
                .iter()
                .map(|c| crate::relevance::identifier_words(c).join(" "))
                .collect();
            out.push_str(&words.join(", "));
        }
        match out.char_indices().nth(MAX_EVIDENCE_CHARS) {
            Some((cut, _)) => out[..cut].to_string(),
            None => out,
        }
    }
}

fn string_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#""([^"\\\n]{2,80})"|'([^'\\\n]{2,80})'|`([^`\\\n]{2,80})`"#)
            .expect("static regex")
    })
}

fn call_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"([A-Za-z_$][A-Za-z0-9_$]*)\s*\(").expect("static regex"))
}

/// Words that look like calls in every language and say nothing about a feature.
const NOT_CALLS: &[&str] = &[
    "if", "for", "while", "switch", "catch", "return", "function", "def", "fn", "func", "new",
    "super", "print", "len", "str", "int", "isset", "empty", "array", "list", "dict", "set",
    "range", "sizeof", "typeof", "await", "async", "elif", "and", "or", "not", "in", "with",
    "assert", "make", "append", "println", "printf", "Sprintf", "Errorf", "map", "filter",
];

/// String literals (with a letter in them) and called names of a definition's body, without
/// repeats, the symbol's own name left out.
pub fn body_digest(code: &str, own_name: &str) -> (Vec<String>, Vec<String>) {
    let body: String = code
        .lines()
        .take(MAX_BODY_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    let mut strings: Vec<String> = Vec::new();
    for cap in string_re().captures_iter(&body) {
        let Some(m) = cap.iter().skip(1).flatten().next() else {
            continue;
        };
        let s = m.as_str().trim();
        if s.chars().any(char::is_alphabetic)
            && !strings.iter().any(|x| x == s)
            && strings.len() < MAX_BODY_ITEMS
        {
            strings.push(s.to_string());
        }
    }
    let mut calls: Vec<String> = Vec::new();
    for cap in call_re().captures_iter(&body) {
        let name = &cap[1];
        if name == own_name
            || NOT_CALLS.contains(&name)
            || calls.iter().any(|c| c == name)
            || calls.len() >= MAX_BODY_ITEMS
        {
            continue;
        }
        calls.push(name.to_string());
    }
    (strings, calls)
}

/// A deterministic sample of the project's definitions (classes and callables outside tests),
/// spread evenly over the files in path order: the background a symbol is judged against.
pub fn background_sample<'a>(
    files: impl Iterator<Item = (&'a str, &'a [Symbol])>,
) -> Vec<(String, Symbol)> {
    // Borrowed until the sample is drawn: only the sampled definitions are copied.
    let mut all: Vec<(&str, &Symbol)> = Vec::new();
    for (file, symbols) in files {
        if roles::is_test_path(file) {
            continue;
        }
        all.extend(symbols.iter().filter(|s| is_judged(s)).map(|s| (file, s)));
    }
    all.sort_by(|a, b| a.0.cmp(b.0).then(a.1.line.cmp(&b.1.line)));
    let step = (all.len() as f64 / BACKGROUND_SIZE as f64).max(1.0);
    (0..all.len().min(BACKGROUND_SIZE))
        .map(|i| all[(i as f64 * step) as usize])
        .map(|(file, s)| (file.to_string(), s.clone()))
        .collect()
}

/// Candidates for definitions `defs` (`(file, symbol)`), each file read once (a file that
/// cannot be read is left out), members taken from `snapshot`.
fn candidates(ws: &Workspace, snapshot: &Snapshot, defs: &[(&str, &Symbol)]) -> Vec<Candidate> {
    let mut sources: BTreeMap<&str, Option<String>> = BTreeMap::new();
    defs.iter()
        .filter_map(|(file, symbol)| {
            let source = sources
                .entry(*file)
                .or_insert_with(|| ws.read_text(file))
                .as_deref()?;
            let file_symbols = snapshot
                .files
                .get(*file)
                .map(|e| e.symbols.symbols.as_slice())
                .unwrap_or(&[]);
            Some(Candidate::new(file, symbol, source, file_symbols))
        })
        .collect()
}

/// Candidates for the definitions `defs` (`(file, symbol)`) a request's symbol is claimed by,
/// each with its callers: the definitions (outside tests) around the uses of its name, from
/// `cache` (see [`CallCache::expect`]).
pub fn claimed(
    ws: &Workspace,
    snapshot: &Snapshot,
    defs: &[(&str, &Symbol)],
    cache: &CallCache,
) -> Vec<Candidate> {
    let mut out = candidates(ws, snapshot, defs);
    let names: Vec<&str> = out.iter().map(|c| c.context.name.as_str()).collect();
    let uses = cache.uses(ws, snapshot, &names);
    for c in &mut out {
        let Some(Some(found)) = uses.get(&c.context.name) else {
            continue;
        };
        // A use inside the definition itself (a recursive call, a method naming its class) is
        // not a caller.
        let own = c.line..c.line + c.code.lines().count().max(1);
        for u in found.iter() {
            let Some(caller) = &u.enclosing else { continue };
            let inside = u.file == c.context.file && own.contains(&u.line);
            if inside || roles::is_test_path(&u.file) {
                continue;
            }
            let caller = Caller {
                name: caller.name.clone(),
                scope: caller.scope.clone(),
                file: u.file.clone(),
                line: caller.line,
            };
            if !c.callers.contains(&caller) && c.callers.len() < MAX_CALLERS {
                c.callers.push(caller);
            }
        }
    }
    out
}

/// The uses of each name, `None` for a name whose search failed or ran out of time.
type UsesByName = HashMap<String, Option<Arc<Vec<references::Use>>>>;

/// The uses found in a project, kept across tool calls for as long as none of its files changes:
/// a session judges the same symbols call after call (`validate_symbol_relevance`,
/// `confirm_symbol_relevance`, `submit_understanding`), and on a large tree each search reads
/// every source file. A search that failed or ran out of time is not kept.
#[derive(Default)]
struct KeptUses {
    /// The snapshot's file entries the uses were found in.
    seen: SeenEntries,
    by_name: HashMap<String, Arc<Vec<references::Use>>>,
}

/// Names whose uses are kept per project before the store starts over.
const MAX_KEPT_NAMES: usize = 512;

impl KeptUses {
    /// The kept uses of `root`, emptied first when `snapshot` is not the one they were found in.
    fn current<'s>(
        store: &'s mut HashMap<PathBuf, KeptUses>,
        root: &Path,
        snapshot: &Snapshot,
    ) -> &'s mut KeptUses {
        let kept = store.entry(root.to_path_buf()).or_default();
        if !kept.seen.is_current(snapshot) {
            *kept = KeptUses {
                seen: SeenEntries::of(snapshot),
                by_name: HashMap::new(),
            };
        }
        kept
    }

    fn store() -> std::sync::MutexGuard<'static, HashMap<PathBuf, KeptUses>> {
        static STORE: OnceLock<Mutex<HashMap<PathBuf, KeptUses>>> = OnceLock::new();
        STORE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

/// The project background of [`background_sample`] as candidates. The sample only changes when
/// the project's definitions do, so it is kept per project root: taken again only when a file
/// entry of the snapshot changed (sampling walks every definition of the project), and rebuilt
/// only when the sample then differs (reading some sixty files on every verdict would dominate
/// the judge's time).
pub fn project_background(ws: &Workspace, snapshot: &Snapshot) -> Arc<Vec<Candidate>> {
    struct Kept {
        seen: SeenEntries,
        sample: Vec<(String, Symbol)>,
        built: Arc<Vec<Candidate>>,
    }
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Kept>>> = OnceLock::new();
    let root = ws.root();
    let store = CACHE.get_or_init(Default::default);
    let lock = || store.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(kept) = lock().get(root)
        && kept.seen.is_current(snapshot)
    {
        return kept.built.clone();
    }
    let sample = background_sample(
        snapshot
            .files
            .iter()
            .map(|(f, e)| (f.as_str(), e.symbols.symbols.as_slice())),
    );
    let seen = SeenEntries::of(snapshot);
    if let Some(kept) = lock().get_mut(root)
        && kept.sample == sample
    {
        kept.seen = seen;
        return kept.built.clone();
    }
    let defs: Vec<(&str, &Symbol)> = sample.iter().map(|(f, s)| (f.as_str(), s)).collect();
    let built = Arc::new(candidates(ws, snapshot, &defs));
    let kept = Kept {
        seen,
        sample,
        built: built.clone(),
    };
    lock().insert(root.to_path_buf(), kept);
    built
}

/// What the judge measured for one definition.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Signals {
    /// Calibrated dense score against the description.
    pub dense: f32,
    /// Calibrated dense score against the description plus the body's strings and calls.
    pub dense_evidence: f32,
    /// Calibrated dense score of the term against the symbol's name (and its class's) as
    /// words, both embedded as requests.
    pub dense_name: f32,
    /// The better dense score (described or with its body) of the term's English rendering
    /// ([`glossary::render`]); for a term without one, the term's own.
    pub dense_rendered: f32,
    /// Best described dense score among the other definitions of the same file and sort, a
    /// class against classes, a callable against callables (`None` when the file has no other).
    pub sibling_top: Option<f32>,
    /// Upper decile of the calibrated dense scores of the project's background sample.
    pub background_top: f32,
    /// Share of the background sample whose dense score is below this symbol's best.
    pub rank: f32,
    /// Share of the term's words found in the symbol's name (and its class's).
    pub lex_name: f32,
    pub lex_path: f32,
    pub lex_doc: f32,
    pub lex_body: f32,
    /// Whether the term has any word the lexical signals can look for.
    pub has_keys: bool,
    /// Share of the term's words in the name, its scope and its path together.
    pub named: f32,
    /// The best share of the term's words among the names, scopes and paths of the definitions
    /// that use the symbol's name (none: 0).
    pub callers: f32,
    /// The best such share among all the project's definitions ([`Lexicon`]; `named` without
    /// one): a symbol that holds some of the term's words while another holds more is usually
    /// the neighbour that shares a word ("update" of `update_user` for 「アイテムの更新」).
    pub rival: f32,
    /// Whether the term is Japanese (has CJK characters).
    pub japanese: bool,
    /// Whether the symbol's name says the reverse of one of the term's actions and not the
    /// action itself ([`reverses`]).
    pub reversed: bool,
    /// The fused search score of the hit covering the definition in the term's [`Field`]
    /// (`Some(0.0)` when the field does not show it; `None` without a field).
    pub field: Option<f32>,
    /// Whether the field ranked by meaning ([`Field::by_meaning`]); a field of the project's
    /// words alone stands on its own scale and has its own weights.
    pub field_by_meaning: bool,
    /// The best standing of its callers in the term's [`Field`] (`Some(0.0)` when the field
    /// shows none of them; `None` without a field): a helper whose name says little is part of
    /// the feature when the project's search finds the feature's code calling it
    /// (`verify_password`, called by `authenticate`, for 「ログイン」).
    pub caller_field: Option<f32>,
    /// Whether the name is about another of the project's entities than the term's
    /// ([`TermEntities`]).
    pub other_entity: bool,
    /// Whether the name does another of the common actions on data than the term's and not the
    /// term's ([`other_action`]: `create` for "edit link").
    pub other_action: bool,
    /// Share of the name's words that are none of the term's ([`TermKeys::unexplained`]).
    pub unexplained: f32,
    /// The name's words that are none of the term's ([`TermKeys::stray_words`]), weighed by
    /// what they said on the development split ([`word_odds`]).
    pub stray: Vec<String>,
    /// The term's words that the name, its scope and its path do not hold
    /// ([`TermKeys::missing_in`]), weighed the same way.
    pub missing: Vec<String>,
    /// Whether the definition is [`TINY_LINES`] lines or fewer.
    pub tiny: bool,
    /// How far (log-odds) its described score, or its rendering's, stands above the best of the
    /// field's leaders ([`Ground::leaders`]); `None` without leaders. The neighbour that shares
    /// a word with the term stands below the definition the project's search puts first.
    pub leader_gap: Option<f32>,
    /// The best share of the term's words in a leader's name and scope (`None` without
    /// leaders): what [`Signals::lex_name`] is measured against.
    pub leader_named: Option<f32>,
}

/// A definition this short (a getter, a constant, a call passed on) is seldom what a request's
/// term names: on the development split, 34 % of the claimed definitions of three lines or fewer
/// are relevant, against 47 % of all.
pub const TINY_LINES: usize = 3;

fn logit(p: f32) -> f32 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

/// A yes/no signal as the fitted model reads it.
fn flag(on: bool) -> f32 {
    if on { 1.0 } else { 0.0 }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// How the judge turns its signals into a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The fitted combination of every signal alone.
    Fitted,
    /// The described dense score alone, the closer of the description's and the body's (with a
    /// Japanese term's English rendering, see [`Judge::rendered`]): the seeds' calibrated
    /// similarity.
    DescriptionOnly,
    /// The two views agreeing: a FACT needs both, the fitted view's rejection rejects, a
    /// described rejection the fitted view keeps is gray (see [`agree`]).
    #[default]
    Agreed,
}

/// How far (in log-odds of the described score) another definition of the same file may score
/// above a symbol for the term before the symbol can no longer be a FACT, only gray. The reverse
/// action beside the right one (`unFollow` next to `follow`) and the sibling flow in the same
/// router are what the agreement approves most often wrongly; when the file holds a clearly
/// better match for the term, the server is not sure this one is what the term names. On the
/// development split (thirteen repositories, leave-one-repository-out), this turns 112 wrong
/// FACTs into 88 while the terms whose right exploration reaches FACT go from 74.5 % to
/// 70.4 %. Only a sibling of the same sort counts (a class against classes, a callable against
/// callables): a `LoginResult` class must not outrank the `login` method beside it.
pub const SIBLING_FACT_MARGIN: f32 = -0.3;

/// How far (log-odds) a field leader that is none of the symbol's definitions may score above
/// a symbol before the symbol can no longer be a FACT, only gray ([`Bound::OutrankedInProject`]):
/// not at all. The neighbour the agreement approves wrongly is seldom the best the project holds
/// for the term (`TaskDuplicate.Create` for 「タスクの作成」, where the project's search puts the
/// task creation first), while the definition an exploration is right to claim first usually is;
/// the helpers around it stay gray, which the code evidence of `confirm_symbol_relevance` lifts.
/// On the development split (thirty-six repositories, the field of the project's words), the
/// unrelated pairs above 0.6 go from 161 to 80 while the terms whose relevant pairs reach FACT
/// go from 69.3 % to 59.3 %; at 0.25, 121 and 65.1 %; at 0.5, 153 and 68.4 %; at -0.25, 51 and
/// 46.7 %. From 0.5 to 0, each point of terms buys seven to ten fewer wrong FACTs, more than the
/// FACT line itself buys where it was set (`fit_judge.py`, FALSE_FACT); below 0, two.
pub const LEADER_FACT_MARGIN: f32 = 0.0;

/// The score of a symbol whose name says the reverse of the term's action ([`Signals::reversed`]),
/// when the two views would score it higher: a clear rejection, with the reinvestigation
/// guidance, because the agent has most likely taken the neighbour for the feature (`logout` for
/// the login). On the development split (thirteen repositories, leave-one-repository-out), the
/// rule takes the sessions' accuracy from 0.618 to 0.632, the unrelated pairs rejected from
/// 31.6 % to 34.2 % and the wrong FACTs from 94 to 88, while the relevant pairs kept stay at
/// 95.5 %.
pub const REVERSED_CEILING: f32 = 0.15;

impl Signals {
    /// Whether another definition of the file scores clearly above this one for the term (see
    /// [`SIBLING_FACT_MARGIN`]).
    pub fn outranked_in_file(&self) -> bool {
        self.sibling_top
            .is_some_and(|top| logit(self.dense) - logit(top) < SIBLING_FACT_MARGIN)
    }

    /// Whether the name is about another of the project's entities than the term's
    /// ([`Signals::other_entity`]) while another definition's name holds more of the term:
    /// kutt's `ban` of the users' handler for "ban a link", where `banLink` exists.
    pub fn about_another_entity(&self) -> bool {
        self.other_entity && self.outnamed()
    }

    /// Whether the name, scope and path hold some of the term's words while another
    /// definition's hold more ([`Signals::rival`]).
    fn outnamed(&self) -> bool {
        self.named > 0.0 && self.rival > self.named
    }

    /// The [`Mode::Agreed`] score after the rules on the name and the file: a reversed action is
    /// rejected ([`REVERSED_CEILING`]), a symbol its file clearly outranks, or one about another
    /// entity where a name holds more of the term, is gray at most. With the rule that lowered
    /// the score, if one did.
    pub fn bound(&self, score: f32) -> (f32, Option<Bound>) {
        let (ceiling, bound) = if self.reversed {
            (REVERSED_CEILING, Bound::Reversed)
        } else if self.outranked_in_file() {
            (crate::relevance::FACT_THRESHOLD, Bound::OutrankedInFile)
        } else if self.about_another_entity() {
            (crate::relevance::FACT_THRESHOLD, Bound::AnotherEntity)
        } else {
            return (score, None);
        };
        if score > ceiling {
            (ceiling, Some(bound))
        } else {
            (score, None)
        }
    }
}

/// Whether the name says the reverse of one of the term's actions ([`glossary::opposites`]) and
/// not the action itself, nor another of the term's words: `logout` for 「ログイン」, `unFollow`
/// for "follow user", but not `logout` for "login and logout"; or whether it only takes away what
/// the term makes ([`undoes_what_term_makes`]). A term that negates by itself ([`negates`]) is
/// left alone: its action is the reverse. A name that says no action of
/// its own ([`says_no_action`]) is read with its scope's words: `UnlockTopic.post` unlocks.
fn reverses(keys: &TermKeys, name: &str, scope: Option<&str>) -> bool {
    if negates(keys) {
        return false;
    }
    let mut words = action_words(name);
    if let Some(scope) = scope.filter(|_| says_no_action(name)) {
        words.extend(action_words(scope));
    }
    let in_term = |w: &String| keys.keys.iter().flatten().any(|f| f == w);
    let opposite = keys.keys.iter().any(|forms| {
        !forms.iter().any(|f| words.contains(f))
            && forms.iter().any(|f| {
                // "un" before an action reverses it whatever the action (`unhide`, `unvote`).
                glossary::opposites(f)
                    .chain(std::iter::once(format!("un{f}")))
                    .any(|o| words.contains(&o) && !in_term(&o))
            })
    });
    opposite || undoes_what_term_makes(keys, &words)
}

/// Whether a term that makes something ([`glossary::makes`]: "upload ticket attachments",
/// 「APIキーの作成」) and takes nothing away meets a name that takes away
/// ([`glossary::undoes`]: `attachment_del`, `revokeApiKey`) and says none of the term's making
/// words. On the development split (twenty-seven repositories, 3,661 relevant pairs) no relevant
/// pair is such a name.
fn undoes_what_term_makes(keys: &TermKeys, words: &[String]) -> bool {
    if keys.keys.iter().flatten().any(|f| glossary::undoes(f)) {
        return false;
    }
    let mut making = keys
        .keys
        .iter()
        .filter(|forms| forms.iter().any(|f| glossary::makes(f)))
        .peekable();
    making.peek().is_some()
        && !making.flatten().any(|f| words.contains(f))
        && words.iter().any(|w| glossary::undoes(w))
}

/// Words a framework calls a class's one action by (`UnlockTopic.post`, `Logout.get`,
/// `PrivatizeSongsController.__invoke`, an admin action's `handle_record`).
const DISPATCH_WORDS: &[&str] = &[
    "get", "post", "put", "patch", "invoke", "handle", "record", "call", "execute", "perform",
    "run", "process",
];

/// Whether a name is made of [`DISPATCH_WORDS`] alone: its scope says what it does.
fn says_no_action(name: &str) -> bool {
    let parts = lexical::split_identifier(name);
    !parts.is_empty() && parts.iter().all(|p| DISPATCH_WORDS.contains(&p.as_str()))
}

/// A name's words as actions, stemmed: an "un" part joins the word after it (`unFollow` →
/// unfollow, not follow), a word that cancels ([`glossary::cancels`]) stays and makes the word
/// after it an "un" one
/// (`cancelInvite` → cancel, uninvite), and each two neighbours also count as one (`sign_out` →
/// signout).
fn action_words(name: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut pending_un = false;
    for part in lexical::split_identifier(name) {
        if part == "un" {
            pending_un = true;
            continue;
        }
        let negating = glossary::cancels(&part);
        parts.push(if std::mem::take(&mut pending_un) {
            format!("un{part}")
        } else {
            part
        });
        pending_un = negating;
    }
    let joined: Vec<String> = parts.windows(2).map(|w| w.concat()).collect();
    parts
        .into_iter()
        .chain(joined)
        .map(|w| lexical::stem(&w))
        .collect()
}

/// Whether the term negates by itself: フォロー解除 (解除 renders as "un"), "cancel an order",
/// "undo an import".
fn negates(keys: &TermKeys) -> bool {
    keys.keys
        .iter()
        .flatten()
        .any(|form| form == "un" || glossary::cancels(form))
}

/// Whether the name does another of the common actions on data ([`glossary::action_kinds`]:
/// create, read, update, delete) than the term names, and none the term names: `create` beside
/// `edit` in the links' handler for "edit link", `remove` for 「リンクの更新」. A term that names
/// none of them (「URLを短縮する」, "link click statistics") says nothing here, and neither does a
/// name without one.
fn other_action(keys: &TermKeys, name: &str) -> bool {
    let term: Vec<usize> = keys
        .keys
        .iter()
        .flatten()
        .flat_map(|stem| glossary::action_kinds(stem))
        .collect();
    if term.is_empty() {
        return false;
    }
    let own: Vec<usize> = action_words(name)
        .iter()
        .flat_map(|stem| glossary::action_kinds(stem))
        .collect();
    !own.is_empty() && !own.iter().any(|k| term.contains(k))
}

/// [`Mode::Agreed`]'s rule.
///
/// - the fitted combination below the rejection line: rejected, at the lower of the two (its
///   line is set on scores of projects it was not fitted on, see `fit_judge.py`);
/// - the described view clearly below the line ([`CLEAR_DESCRIBED_REJECTION`]) and the fitted
///   one barely above it ([`BARE_FITTED_KEEP`]): rejected too;
/// - otherwise the lower of the two, never below the rejection line: a FACT needs both views,
///   and a described rejection the fitted combination keeps is gray, at the line.
///
/// The described view once rejected on its own unless the fitted one reached 0.4; that cost
/// rejection (development split, twenty-four repositories: 42.3 % of the unrelated pairs
/// rejected against 43.0 % with the fitted view alone rejecting). The narrow band that remains
/// was measured in both fields, with its lines set before either measure: in the field of words
/// (twenty-seven dev repositories, leave-one-repository-out) 3 relevant pairs lost and 29
/// unrelated ones gained; in the field by meaning (the ten smallest dev repositories, 1,903
/// pairs, the fitted view with its trees) 1 lost and 8 gained, 97.8 % of the relevant pairs
/// kept. It is also where the trees had lifted the seeds' ConfigLoader once every chunk is
/// embedded (described 0.24, fitted 0.31).
pub fn agree(described: f32, fitted: f32) -> f32 {
    use crate::relevance::REJECT_THRESHOLD;
    if fitted < REJECT_THRESHOLD
        || (described < CLEAR_DESCRIBED_REJECTION && fitted < BARE_FITTED_KEEP)
    {
        return described.min(fitted);
    }
    described.min(fitted).max(REJECT_THRESHOLD)
}

/// A described score this far below the rejection line is a clear rejection ([`agree`]).
const CLEAR_DESCRIBED_REJECTION: f32 = 0.25;
/// A fitted score below this keeps a symbol only barely ([`agree`]).
const BARE_FITTED_KEEP: f32 = 0.35;

/// The described score read off the candidates' signals, which hold the same dense scores
/// [`Judge::described`] computes (their texts are scored on their own, whatever else a call
/// scores): the closest of description and body over the definitions, lifted by the rendering's
/// where it already keeps the symbol.
fn described_of(signals: &[Signals]) -> f32 {
    let best = signals
        .iter()
        .map(|s| s.dense.max(s.dense_evidence))
        .fold(0.0, f32::max);
    if best < crate::relevance::REJECT_THRESHOLD {
        return best;
    }
    signals
        .iter()
        .map(|s| s.dense_rendered)
        .fold(best, f32::max)
}

/// The fitted combination of the definition it scores best, with that definition's signals.
fn best_fitted(signals: Vec<Signals>) -> (f32, Signals) {
    let mut best: Option<(f32, Signals)> = None;
    for signals in signals {
        let score = signals.combine();
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, signals));
        }
    }
    best.expect("signals of at least one definition")
}

/// The mode the session tools use: [`Mode::Agreed`].
///
/// Neither view alone holds the seeds' promise. On the development split (twenty-seven
/// repositories, leave-one-repository-out), the described score keeps the seeds' scenario and
/// most right explorations (96.2 % of the terms reach FACT with their relevant symbols) but
/// approves more than half of the wrong symbols as FACT (1,766 of 3,264), most of them a
/// neighbour of the right one. The fitted combination separates better (AUC 0.87 against 0.77)
/// but is flat: most pairs land in the gray zone, so the seeds' own pair and the login of a real
/// FastAPI project fall short of FACT. Agreeing, with the rules on names and files, the two
/// approve 138 wrong symbols instead of 1,766 and 71 % of the terms still reach FACT; the
/// fitted view's rejection rejects, which keeps 96.8 % of the relevant pairs and rejects 45.5 %
/// of the unrelated ones (the described score alone: 98.5 % and 14.0 %), while the seeds'
/// ConfigLoader stays rejected.
/// `code-intel eval-relevance` prints the figures of all three.
pub const SESSION_MODE: Mode = Mode::Agreed;

impl Signals {
    /// The features of the fitted model, in [`WEIGHTS`] order.
    pub fn features(&self) -> [f32; FEATURES] {
        let best = logit(self.dense.max(self.dense_evidence));
        let (stray_min, stray_sum) = word_odds::stray(&self.stray);
        let (missing_min, missing_sum) = word_odds::missing(&self.missing);
        [
            logit(self.dense),
            logit(self.dense_evidence),
            best - logit(self.background_top),
            self.rank,
            self.lex_name,
            self.lex_path,
            self.lex_doc,
            self.lex_body,
            flag(!self.has_keys),
            flag(self.japanese),
            // Margin over the file's best other definition (none: as if level with it).
            self.sibling_top
                .map_or(0.0, |top| logit(self.dense) - logit(top)),
            flag(self.sibling_top.is_none()),
            logit(self.dense_name),
            logit(self.dense_rendered),
            self.field.unwrap_or(0.0),
            flag(self.field == Some(0.0)),
            flag(self.outnamed()),
            self.callers,
            flag(self.other_entity),
            flag(self.tiny),
            self.caller_field.unwrap_or(0.0),
            flag(self.caller_field.is_some_and(|s| s > 0.0)),
            self.leader_gap.unwrap_or(0.0),
            self.leader_named.map_or(0.0, |top| self.lex_name - top),
            flag(self.other_action),
            self.unexplained,
            stray_min,
            stray_sum,
            missing_min,
            missing_sum,
        ]
    }

    /// The calibrated score: the fitted model's log-odds through the curve that puts the
    /// development set's operating points on the seeds' thresholds (0.3 where the sessions'
    /// verdict keeps 97 % of the relevant out-of-fold pairs, see `fit_judge.py`).
    ///
    /// With the field ranked by meaning, the fitted trees ([`trees`]) add to the linear
    /// combination. Before the index is embedded, a linear fit on the field of the project's
    /// words scores alone, and before the first sync the linear fit without the field's
    /// features.
    pub fn combine(&self) -> f32 {
        let features = self.features();
        let linear = |weights: &[f32; FEATURES], bias: f32| -> f32 {
            features
                .iter()
                .zip(weights)
                .map(|(f, w)| f * w)
                .sum::<f32>()
                + bias
        };
        let z = match self.field {
            Some(_) if self.field_by_meaning => {
                linear(&WEIGHTS, BIAS) + trees::correction(&features)
            }
            Some(_) => linear(&WEIGHTS_WORD_FIELD, BIAS_WORD_FIELD),
            None => linear(&WEIGHTS_WITHOUT_FIELD, BIAS_WITHOUT_FIELD),
        };
        sigmoid(z).clamp(0.0, 1.0)
    }
}

/// Number of features in [`Signals::features`].
pub const FEATURES: usize = 30;
/// Fitted on the development split (twenty-seven repositories; see the module doc), together
/// with the trees of [`trees`]; names in [`FEATURE_NAMES`].
const WEIGHTS: [f32; FEATURES] = [
    -0.2037, 0.1287, 0.1844, -0.0910, -0.2392, -0.0689, 0.0777, 0.8046, 0.0000, 0.0562, -0.0297,
    -0.0186, -0.0302, 0.0665, 0.5716, 0.1150, -0.2425, 0.4611, -0.2335, -0.0585, 0.4447, -0.2179,
    0.1276, 0.5256, -0.3481, 0.3273, 0.1644, 0.1379, -0.2986, 0.3174,
];
const BIAS: f32 = -0.5782;
/// The same fit without the field's features, for a project whose index cannot rank by meaning
/// yet (the field's weights are zero). A fitted weight can land near a mathematical constant
/// (1/π), which is chance, not the constant.
#[allow(clippy::approx_constant)]
const WEIGHTS_WITHOUT_FIELD: [f32; FEATURES] = [
    -0.1766, 0.1128, 0.2250, 0.0714, 0.0796, 0.0042, 0.0962, 0.7426, 0.0000, 0.1168, 0.0446,
    0.0164, -0.0124, 0.1119, 0.0000, 0.0000, -0.3921, 0.5046, -0.3174, -0.0843, 0.0000, 0.0000,
    0.0000, 0.0000, -0.3443, 0.1270, 0.1676, 0.1625, -0.2955, 0.3639,
];
const BIAS_WITHOUT_FIELD: f32 = -0.7443;
/// The linear fit with the field of the project's words ([`Field::by_meaning`] false), for a
/// project whose chunks are stored and not yet embedded.
const WEIGHTS_WORD_FIELD: [f32; FEATURES] = [
    -0.2050, 0.1420, 0.1851, -0.1126, -0.2130, -0.1212, 0.0937, 0.7858, 0.0000, 0.0658, -0.0075,
    -0.0087, -0.0248, 0.0575, 0.5715, 0.0569, -0.2439, 0.5037, -0.2445, -0.1017, 0.2303, -0.0767,
    0.1357, 0.4681, -0.3283, 0.3393, 0.1554, 0.1497, -0.2138, 0.2629,
];
const BIAS_WORD_FIELD: f32 = -0.5538;
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "dense",
    "dense_evidence",
    "margin_top",
    "rank",
    "lex_name",
    "lex_path",
    "lex_doc",
    "lex_body",
    "no_keys",
    "japanese",
    "sibling_margin",
    "no_siblings",
    "dense_name",
    "dense_rendered",
    "field_score",
    "field_missing",
    "rival_partial",
    "caller_named",
    "other_entity",
    "tiny",
    "field_caller",
    "field_caller_found",
    "field_leader_gap",
    "field_leader_named",
    "other_action",
    "unexplained",
    "stray_min",
    "stray_sum",
    "missing_min",
    "missing_sum",
];

/// A verdict on one claimed symbol: the best of its definitions.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Verdict {
    pub score: f32,
    /// The signals of the definition that scored best (`None` without definitions).
    pub signals: Option<Signals>,
    /// The rule on the name or the file that lowered the score, if one did.
    pub bound_by: Option<Bound>,
    /// The definition that held it below FACT, for [`Bound::OutrankedInProject`]: its name and
    /// where it is defined.
    pub outscored_by: Option<String>,
}

impl Verdict {
    /// The verdict on a symbol without definitions: nothing links it to any term.
    pub fn undefined() -> Verdict {
        Verdict {
            score: 0.0,
            signals: None,
            bound_by: None,
            outscored_by: None,
        }
    }

    /// Why a rule held the score down, as the agent is told: the rule's explanation, and the
    /// definition that outscored the symbol where one did.
    pub fn why(&self) -> Option<String> {
        let bound = self.bound_by?;
        Some(match &self.outscored_by {
            Some(leader) => format!("{}: {leader}", bound.explain()),
            None => bound.explain().to_string(),
        })
    }
}

/// A rule of [`Mode::Agreed`] that holds a symbol below what its scores alone would give, so an
/// agent told "rejected" or "gray" learns why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Bound {
    /// The name says the reverse of the term's action ([`Signals::reversed`]).
    Reversed,
    /// Another definition of the same file matches the term clearly better
    /// ([`Signals::outranked_in_file`]).
    OutrankedInFile,
    /// The name is about another entity and another name holds more of the term
    /// ([`Signals::about_another_entity`]).
    AnotherEntity,
    /// A definition the project's search puts among the term's best, judged on its own, scores
    /// higher ([`LEADER_FACT_MARGIN`]).
    OutrankedInProject,
}

impl Bound {
    /// What the agent is told.
    pub fn explain(self) -> &'static str {
        match self {
            Bound::Reversed => {
                "its name says the reverse of the requested action; look for the symbol that does the action itself"
            }
            Bound::OutrankedInFile => {
                "another definition in the same file matches the request clearly better; check whether that one is what the request names"
            }
            Bound::OutrankedInProject => {
                "another definition the project's search finds for the request matches it better; check whether that one is what the request names"
            }
            Bound::AnotherEntity => {
                "it belongs to another of the project's entities than the request names, and another definition's name holds more of the request; look for the one that does this to the request's entity"
            }
        }
    }
}

/// Where the project stands for the judge: what [`CallCache::grounds`] reads.
#[derive(Clone, Copy)]
pub struct Project<'p> {
    pub ws: &'p Workspace,
    pub snapshot: &'p Snapshot,
    /// The project's search, for the term's [`Field`] (none: the judge goes without it).
    pub search: Option<FieldSearch<'p>>,
}

/// What one tool call reuses across the verdicts it asks for: the project's background (sampled
/// once per call, not once per symbol: the sample walks every definition of the project), its
/// [`Lexicon`], and per term the field and the best share of the term's words any definition's
/// name holds (one pass over every name, not one per symbol).
#[derive(Default)]
pub struct CallCache {
    background: OnceLock<Arc<Vec<Candidate>>>,
    lexicon: OnceLock<Arc<Lexicon>>,
    terms: Mutex<BTreeMap<String, Arc<TermGround>>>,
    /// The uses of the names asked for so far ([`Self::expect`]).
    uses: Mutex<UsesByName>,
}

/// What a term is judged against in one call.
struct TermGround {
    field: Option<Field>,
    /// The definitions of the field's best hits ([`field_leaders`]).
    leaders: Vec<Candidate>,
    /// The leaders' own verdicts, in `leaders` order, judged the first time a symbol for the
    /// term would be a FACT ([`Judge::leader_scores`]).
    leader_scores: OnceLock<Vec<Option<f32>>>,
    keys: TermKeys,
    rival: f32,
    entities: TermEntities,
}

/// The owned parts of a [`Ground`], from [`CallCache::grounds`].
pub struct Grounds {
    background: Arc<Vec<Candidate>>,
    term: Arc<TermGround>,
}

impl Grounds {
    pub fn ground(&self) -> Ground<'_> {
        Ground {
            background: &self.background,
            field: self.term.field.as_ref(),
            leaders: &self.term.leaders,
            leader_scores: Some(&self.term.leader_scores),
            keys: Some(&self.term.keys),
            rival: Some(self.term.rival),
            entities: Some(&self.term.entities),
        }
    }
}

impl CallCache {
    /// Finds the uses of every name in `names` not asked for before, in one pass over the
    /// project's files: a call that judges ten symbols reads the project once, not ten times,
    /// when it names them all here first. A search that fails or runs past
    /// [`CALLERS_DEADLINE`] leaves its names without callers rather than with some: a verdict
    /// must not depend on how far a search got.
    pub fn expect(&self, ws: &Workspace, snapshot: &Snapshot, names: &[&str]) {
        let mut uses = self.uses.lock().unwrap_or_else(|p| p.into_inner());
        let mut missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !n.is_empty() && !uses.contains_key(*n))
            .collect();
        // An overloaded name comes once per definition.
        missing.sort_unstable();
        missing.dedup();
        {
            let mut store = KeptUses::store();
            let kept = KeptUses::current(&mut store, ws.root(), snapshot);
            missing.retain(|name| match kept.by_name.get(*name) {
                Some(found) => {
                    uses.insert(name.to_string(), Some(found.clone()));
                    false
                }
                None => true,
            });
        }
        if missing.is_empty() {
            return;
        }
        let walk = WalkOptions {
            globs: Vec::new(),
            types: crate::lang::ids().into_iter().map(String::from).collect(),
        };
        let deadline = std::time::Instant::now() + CALLERS_DEADLINE;
        let found = references::uses(ws, ws.root(), &walk, snapshot, &missing, Some(deadline));
        let mut by_name: HashMap<String, Vec<references::Use>> = HashMap::new();
        let complete = match found {
            Ok(found) if !found.timed_out => {
                for u in found.uses {
                    by_name.entry(u.name.clone()).or_default().push(u);
                }
                true
            }
            _ => false,
        };
        let mut store = KeptUses::store();
        let kept = KeptUses::current(&mut store, ws.root(), snapshot);
        for name in missing {
            let found = complete.then(|| Arc::new(by_name.remove(name).unwrap_or_default()));
            if let Some(found) = &found {
                if kept.by_name.len() >= MAX_KEPT_NAMES {
                    kept.by_name.clear();
                }
                kept.by_name.insert(name.to_string(), found.clone());
            }
            uses.insert(name.to_string(), found);
        }
    }

    /// The uses of `names` ([`Self::expect`]ed now where they were not before).
    fn uses(&self, ws: &Workspace, snapshot: &Snapshot, names: &[&str]) -> UsesByName {
        self.expect(ws, snapshot, names);
        let uses = self.uses.lock().unwrap_or_else(|p| p.into_inner());
        names
            .iter()
            .filter_map(|n| uses.get(*n).map(|u| (n.to_string(), u.clone())))
            .collect()
    }

    /// What `term` is judged against in `project`, each part built the first time it is asked.
    pub fn grounds(&self, project: Project, term: &str) -> Grounds {
        let background = self
            .background
            .get_or_init(|| project_background(project.ws, project.snapshot))
            .clone();
        let mut terms = self.terms.lock().unwrap_or_else(|p| p.into_inner());
        let term = terms
            .entry(term.to_string())
            .or_insert_with(|| {
                let mut phases = crate::timing::Phases::start("term ground");
                let lexicon = self
                    .lexicon
                    .get_or_init(|| project_lexicon(project.ws.root(), project.snapshot));
                phases.done("lexicon");
                let search = project.search;
                let field = search.and_then(|search| search.field(term));
                phases.done("field");
                let meaning = |word: &str| search?.meaning(term, word, field.as_ref()?);
                let dictionary = Dictionary::for_request(project.ws, term);
                phases.done("dictionary");
                let keys = TermKeys::bridged(term, Some(lexicon), dictionary.as_deref(), meaning);
                phases.done("keys");
                let leaders = field.as_ref().map_or_else(Vec::new, |field| {
                    field_leaders(project.ws, project.snapshot, field)
                });
                phases.done("leaders");
                Arc::new(TermGround {
                    field,
                    leaders,
                    leader_scores: OnceLock::new(),
                    rival: keys.best_in(lexicon),
                    entities: TermEntities::new(&keys, lexicon),
                    keys,
                })
            })
            .clone();
        Grounds { background, term }
    }
}

/// Embeds the words of `snapshot`'s names and paths for the model's bridges from a term's
/// Japanese words to its field's words ([`bridge`]), so that a term's first verdict does not
/// (server start, in the background). The real model only, as the bridges.
pub fn warm_bridges(ws: &Workspace, embedder: &dyn crate::embed::Embedder, snapshot: &Snapshot) {
    // The dictionary and the project's translations are read once, here rather than inside the
    // first verdict on a Japanese term.
    let _ = Dictionary::for_project(ws);
    if embedder.model_id().starts_with(crate::embed::MODEL_ID) {
        bridge::warm(embedder, &field::vocabulary(snapshot));
    }
}

/// Definitions taken from the top of a term's field ([`field_leaders`]).
const FIELD_LEADERS: usize = 8;

/// The definitions (classes and callables outside tests) of the best hits of `field`, up to
/// [`FIELD_LEADERS`], each once: for each hit, the first definition that starts in it, or else
/// the innermost one that encloses it.
fn field_leaders(ws: &Workspace, snapshot: &Snapshot, field: &Field) -> Vec<Candidate> {
    let mut defs: Vec<(&str, &Symbol)> = Vec::new();
    for (file, lines) in field.spans() {
        if defs.len() >= FIELD_LEADERS {
            break;
        }
        if roles::is_test_path(file) {
            continue;
        }
        let Some((file, entry)) = snapshot.files.get_key_value(file) else {
            continue;
        };
        let symbols = &entry.symbols.symbols;
        let def = symbols
            .iter()
            .find(|s| is_judged(s) && lines.contains(&s.line))
            .or_else(|| {
                crate::analysis::innermost_at(symbols, *lines.start(), |s| {
                    is_judged(s) && *lines.end() <= s.end_line
                })
            });
        if let Some(def) = def
            && !defs
                .iter()
                .any(|(f, d)| *f == file.as_str() && d.line == def.line)
        {
            defs.push((file.as_str(), def));
        }
    }
    candidates(ws, snapshot, &defs)
}

/// What a symbol is judged against besides the term: the project's background sample
/// ([`project_background`]), when the index can rank by meaning the term's [`Field`], and the
/// best share of the term's words any definition of the project holds in its name ([`Lexicon`]).
#[derive(Clone, Copy, Default)]
pub struct Ground<'g> {
    pub background: &'g [Candidate],
    pub field: Option<&'g Field>,
    /// The definitions of the field's best hits: what the project holds closest to the term,
    /// which a symbol is measured against ([`Signals::leader_gap`], [`Signals::leader_named`]).
    pub leaders: &'g [Candidate],
    /// Where the leaders' own verdicts are kept once judged ([`Judge::leader_scores`]; none:
    /// judged on each call that needs them).
    pub leader_scores: Option<&'g OnceLock<Vec<Option<f32>>>>,
    /// The term's words as looked up in the project ([`TermKeys::in_project`]; without a
    /// project, [`TermKeys::of`]).
    pub keys: Option<&'g TermKeys>,
    /// A symbol that holds some of the term's words while another definition holds more is
    /// usually the neighbour that shares a word.
    pub rival: Option<f32>,
    /// The term's entities among the project's.
    pub entities: Option<&'g TermEntities>,
}

impl Ground<'_> {
    /// The term's keys as the project reads them, or without a project ([`TermKeys::of`]).
    fn term_keys(&self, term: &str) -> std::borrow::Cow<'_, TermKeys> {
        match self.keys {
            Some(keys) => std::borrow::Cow::Borrowed(keys),
            None => std::borrow::Cow::Owned(TermKeys::of(term)),
        }
    }
}

/// The judge over one scorer.
pub struct Judge<'a> {
    relevance: &'a dyn Relevance,
    mode: Mode,
}

impl<'a> Judge<'a> {
    pub fn new(relevance: &'a dyn Relevance) -> Judge<'a> {
        Judge {
            relevance,
            mode: Mode::default(),
        }
    }

    pub fn with_mode(mut self, mode: Mode) -> Judge<'a> {
        self.mode = mode;
        self
    }

    /// Whether the scorer is the real model, the only one the weights and renderings are for.
    fn real_model(&self) -> bool {
        self.relevance.id().starts_with(crate::embed::MODEL_ID)
    }

    /// The English rendering of a Japanese term ([`glossary::render`]) that this judge also
    /// scores. The model links an English request to English code far more reliably than a
    /// Japanese one (on the development split, the described score's AUC is higher for the
    /// English form of the same terms against the same symbols), so a Japanese term that its
    /// own score keeps (gray or fact) is given the better of its own score and its rendering's.
    /// Only for the real model: another scorer's scores are its own.
    /// The term's loanwords found in the project ([`TermKeys::loanwords`]) are rendered too.
    fn rendered(&self, term: &str, keys: &TermKeys) -> Option<String> {
        self.real_model()
            .then(|| glossary::render_outside(term, &keys.loanwords, &keys.covered))
            .flatten()
    }

    /// The verdict on a symbol with definitions `candidates`, against the project's `ground`.
    /// The fitted combination only applies to the real model, whose calibrated scores it was
    /// fitted on: with any other scorer the verdict is the described score.
    pub fn verdict(
        &self,
        term: &str,
        candidates: &[Candidate],
        ground: Ground,
    ) -> Result<Verdict, RelevanceError> {
        if candidates.is_empty() {
            return Ok(Verdict::undefined());
        }
        let keys = ground.term_keys(term);
        let keys = keys.as_ref();
        match self.mode {
            _ if !self.real_model() => self.described(term, candidates, keys),
            Mode::DescriptionOnly => self.described(term, candidates, keys),
            Mode::Fitted => {
                let (score, signals) = best_fitted(self.signals(term, candidates, ground)?);
                Ok(Verdict {
                    score,
                    signals: Some(signals),
                    bound_by: None,
                    outscored_by: None,
                })
            }
            Mode::Agreed => {
                let all = self.signals(term, candidates, ground)?;
                let described = described_of(&all);
                let (fitted, signals) = best_fitted(all);
                let (mut score, mut bound_by) = signals.bound(agree(described, fitted));
                let mut outscored_by = None;
                if score > crate::relevance::FACT_THRESHOLD
                    && let Some((top, leader)) = self.best_other_leader(term, candidates, ground)?
                    && logit(top) - logit(score) > LEADER_FACT_MARGIN
                {
                    score = crate::relevance::FACT_THRESHOLD;
                    bound_by = Some(Bound::OutrankedInProject);
                    let ctx = &leader.context;
                    let name = match &ctx.scope {
                        Some(scope) => format!("{scope}.{}", ctx.name),
                        None => ctx.name.clone(),
                    };
                    outscored_by = Some(format!("{name} ({}:{})", ctx.file, leader.line));
                }
                Ok(Verdict {
                    score,
                    signals: Some(signals),
                    bound_by,
                    outscored_by,
                })
            }
        }
    }

    /// The best verdict among the term's field leaders ([`Ground::leaders`]) that are none of
    /// `candidates`' definitions, each judged as a symbol of its own (kept in
    /// [`Ground::leader_scores`] once judged); `None` without such a leader.
    pub fn best_other_leader<'g>(
        &self,
        term: &str,
        candidates: &[Candidate],
        ground: Ground<'g>,
    ) -> Result<Option<(f32, &'g Candidate)>, RelevanceError> {
        if ground.leaders.is_empty() {
            return Ok(None);
        }
        let judged;
        let scores = match ground.leader_scores {
            Some(cell) => match cell.get() {
                Some(kept) => kept,
                None => {
                    let scores = self.leader_scores(term, ground)?;
                    cell.get_or_init(|| scores)
                }
            },
            None => {
                judged = self.leader_scores(term, ground)?;
                &judged
            }
        };
        let is_candidate = |l: &Candidate| {
            candidates
                .iter()
                .any(|c| c.line == l.line && c.context.file == l.context.file)
        };
        Ok(ground
            .leaders
            .iter()
            .zip(scores)
            .filter(|(l, _)| !is_candidate(l))
            .filter_map(|(l, s)| Some((s.as_ref().copied()?, l)))
            .max_by(|a, b| a.0.total_cmp(&b.0)))
    }

    /// Each of the term's field leaders judged as the agreement judges a claimed symbol, its
    /// rules on the name included, without its siblings and callers. Its callers would cost
    /// another pass over the project's files, and their absence only lowers a leader's score.
    /// Its siblings would let the file's better definition hold it below FACT, but cost the
    /// model up to [`MAX_SIBLINGS`] more texts per leader: on the development split (the field
    /// of words), judging the leaders with them left 87 unrelated pairs above 0.6 instead of 80
    /// and 61.2 % of the terms at FACT instead of 59.3 % (four wrong FACTs a point, the FACT
    /// line's own rate), while a verdict on a new term took 86 ms instead of 50.
    ///
    /// `None` for a leader outside the project's code, which is not judged: a migration's step
    /// of the schema shares the feature's words, never its code.
    fn leader_scores(
        &self,
        term: &str,
        ground: Ground,
    ) -> Result<Vec<Option<f32>>, RelevanceError> {
        let in_code = |l: &Candidate| roles::role_of(&l.context.file) == roles::FileRole::Code;
        let judged: Vec<Candidate> = ground
            .leaders
            .iter()
            .filter(|l| in_code(l))
            .map(|l| Candidate {
                siblings: Vec::new(),
                ..l.clone()
            })
            .collect();
        let mut scores = self.signals(term, &judged, ground)?.into_iter().map(|s| {
            let described = described_of(std::slice::from_ref(&s));
            s.bound(agree(described, s.combine())).0
        });
        Ok(ground
            .leaders
            .iter()
            .map(|l| if in_code(l) { scores.next() } else { None })
            .collect())
    }

    /// The described dense score: the best definition's, each scored against its description
    /// and against its description with what its body says, whichever is closer. A long body
    /// dilutes a name that says it all; a name that says little (`handle`, `fn`) leaves the
    /// body to say it. For the modes without signals; [`Mode::Agreed`] reads the same score off
    /// them ([`described_of`]).
    fn described(
        &self,
        term: &str,
        candidates: &[Candidate],
        keys: &TermKeys,
    ) -> Result<Verdict, RelevanceError> {
        let texts: Vec<String> = candidates
            .iter()
            .flat_map(|c| [c.context.text(), c.evidence_text()])
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut score = self
            .relevance
            .score_many(term, &refs)?
            .into_iter()
            .fold(0.0, f32::max);
        // The rendering lifts a kept verdict, never a rejection: it is a bridge for the
        // model's weak side, not a second chance for code the term itself is far from.
        if score >= crate::relevance::REJECT_THRESHOLD
            && let Some(rendered) = self.rendered(term, keys)
        {
            let scores = self.relevance.score_many(&rendered, &refs)?;
            score = scores.into_iter().fold(score, f32::max);
        }
        Ok(Verdict {
            score,
            signals: None,
            bound_by: None,
            outscored_by: None,
        })
    }

    /// The signals of every candidate, scored in one call to the model.
    pub fn signals(
        &self,
        term: &str,
        candidates: &[Candidate],
        ground: Ground,
    ) -> Result<Vec<Signals>, RelevanceError> {
        let texts = DenseTexts::of(candidates, ground.leaders, ground.background);
        let refs: Vec<&str> = texts.texts.iter().map(String::as_str).collect();
        let scores = self.relevance.score_many(term, &refs)?;
        let (own, bg) = scores.split_at(texts.own_end);
        let background = BackgroundScores::new(bg);
        // The name alone, as words, on the request side: siblings share a file's path and doc
        // style, their names are what differs.
        let names: Vec<String> = candidates.iter().map(name_words).collect();
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let name_scores = self.relevance.score_nl_many(term, &name_refs)?;
        let keys = ground.term_keys(term);
        // The rendering against each candidate's description and evidence (the first
        // `2 * candidates` texts) and against the leaders' descriptions, in one call (their
        // vectors are cached by now).
        let own_texts = 2 * candidates.len();
        let rendered = match self.rendered(term, &keys) {
            Some(r) => {
                let mut scored = refs[..own_texts].to_vec();
                scored.extend_from_slice(&refs[texts.leaders.clone()]);
                Some(self.relevance.score_many(&r, &scored)?)
            }
            None => None,
        };
        // The leaders' described scores, each the better of the term's and its rendering's.
        let mut leader_scores = own[texts.leaders.clone()].to_vec();
        if let Some(r) = &rendered {
            for (l, s) in leader_scores.iter_mut().zip(&r[own_texts..]) {
                *l = l.max(*s);
            }
        }
        let leader_top = leader_scores.into_iter().reduce(f32::max);
        let leader_named = ground
            .leaders
            .iter()
            .map(|l| keys.coverage(&Bag::of(&name_text(&l.context))))
            .reduce(f32::max);
        let japanese = term.chars().any(lexical::is_cjk);
        Ok(candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let (dense, dense_evidence) = (own[2 * i], own[2 * i + 1]);
                let best = dense.max(dense_evidence);
                let ctx = &c.context;
                let is_class = |kind: &str| kind == "class";
                let sibling_top = own[texts.siblings[i].clone()]
                    .iter()
                    .zip(&c.siblings)
                    .filter(|(_, sib)| is_class(&sib.kind) == is_class(&ctx.kind))
                    .map(|(s, _)| *s)
                    .fold(None, |a: Option<f32>, s| Some(a.map_or(s, |a| a.max(s))));
                let path = path_words(&ctx.file);
                let named_bag = Bag::of(&named_text(&ctx.name, ctx.scope.as_deref(), &ctx.file));
                let named = keys.coverage(&named_bag);
                let name_bag = Bag::of(&name_text(ctx));
                Signals {
                    dense,
                    dense_evidence,
                    dense_name: name_scores[i],
                    dense_rendered: rendered
                        .as_ref()
                        .map_or(best, |r| r[2 * i].max(r[2 * i + 1])),
                    sibling_top,
                    background_top: background.top(),
                    rank: background.rank(best),
                    lex_name: keys.coverage(&name_bag),
                    lex_path: keys.coverage(&Bag::of(path)),
                    lex_doc: keys.coverage(&Bag::of(ctx.doc.as_deref().unwrap_or(""))),
                    lex_body: keys.coverage(&Bag::of(&c.code)),
                    has_keys: !keys.keys.is_empty(),
                    named,
                    callers: c
                        .callers
                        .iter()
                        .map(|caller| keys.coverage(&Bag::of(&caller.named_text())))
                        .fold(0.0, f32::max),
                    rival: ground.rival.unwrap_or(named).max(named),
                    japanese,
                    reversed: reverses(&keys, &ctx.name, ctx.scope.as_deref()),
                    field: ground
                        .field
                        .map(|f| f.standing(&ctx.file, c.line).unwrap_or(0.0)),
                    field_by_meaning: ground.field.is_some_and(|f| f.by_meaning),
                    caller_field: ground.field.map(|f| {
                        c.callers
                            .iter()
                            .filter_map(|k| f.standing(&k.file, k.line))
                            .fold(0.0, f32::max)
                    }),
                    other_entity: ground
                        .entities
                        .is_some_and(|e| e.other_in(&Bag::of(&owned_text(ctx)), &named_bag)),
                    other_action: other_action(&keys, &ctx.name),
                    unexplained: keys.unexplained(&ctx.name),
                    stray: keys.stray_words(&ctx.name),
                    missing: keys.missing_in(&named_bag),
                    tiny: c.code.lines().count() <= TINY_LINES,
                    leader_gap: leader_top.map(|top| {
                        let own = rendered.as_ref().map_or(dense, |r| dense.max(r[2 * i]));
                        logit(own) - logit(top)
                    }),
                    leader_named,
                }
            })
            .collect())
    }
}

/// The texts the term is scored against in one call to the model: each candidate's
/// description and evidence, then every candidate's siblings, then the background.
struct DenseTexts {
    texts: Vec<String>,
    /// Where each candidate's siblings lie in `texts`.
    siblings: Vec<std::ops::Range<usize>>,
    /// Where the field's leaders lie in `texts`.
    leaders: std::ops::Range<usize>,
    /// Where the background starts.
    own_end: usize,
}

impl DenseTexts {
    fn of(candidates: &[Candidate], leaders: &[Candidate], background: &[Candidate]) -> DenseTexts {
        let mut texts: Vec<String> = Vec::new();
        for c in candidates {
            texts.push(c.context.text());
            texts.push(c.evidence_text());
        }
        let mut siblings = Vec::new();
        for c in candidates {
            let start = texts.len();
            texts.extend(c.siblings.iter().map(SymbolContext::text));
            siblings.push(start..texts.len());
        }
        let start = texts.len();
        texts.extend(leaders.iter().map(|l| l.context.text()));
        let leaders = start..texts.len();
        let own_end = texts.len();
        texts.extend(background.iter().map(|b| b.context.text()));
        DenseTexts {
            texts,
            siblings,
            leaders,
            own_end,
        }
    }
}

/// The background sample's scores for the term, sorted.
struct BackgroundScores(Vec<f32>);

impl BackgroundScores {
    fn new(scores: &[f32]) -> BackgroundScores {
        let mut sorted = scores.to_vec();
        sorted.sort_by(f32::total_cmp);
        BackgroundScores(sorted)
    }

    /// The upper decile (0.5 without a background).
    fn top(&self) -> f32 {
        match self.0.len() {
            0 => 0.5,
            n => self.0[((n as f32 * 0.9) as usize).min(n - 1)],
        }
    }

    /// Share of the background below `score` (0.5 without a background).
    fn rank(&self, score: f32) -> f32 {
        if self.0.is_empty() {
            return 0.5;
        }
        self.0.iter().filter(|s| **s < score).count() as f32 / self.0.len() as f32
    }
}

/// A candidate's name and its scope's, as words (`AuthService.login` → "login auth service").
fn name_words(c: &Candidate) -> String {
    let mut words = crate::relevance::identifier_words(&c.context.name);
    if let Some(scope) = &c.context.scope {
        words.extend(crate::relevance::identifier_words(scope));
    }
    words.join(" ")
}

/// A candidate's name and its scope's, as written, for the lexical check.
fn name_text(ctx: &SymbolContext) -> String {
    match &ctx.scope {
        Some(scope) => format!("{} {scope}", ctx.name),
        None => ctx.name.clone(),
    }
}

/// A definition's name with what it belongs to: its scope, or for a definition outside any (a
/// module's function) its file's name, which stands in for the scope (`ban` in
/// `users.handler.js` bans users, not links).
fn owned_text(ctx: &SymbolContext) -> String {
    match &ctx.scope {
        Some(_) => name_text(ctx),
        None => {
            let file = ctx.file.rsplit('/').next().unwrap_or(&ctx.file);
            format!("{} {}", ctx.name, file.split('.').next().unwrap_or(file))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The neighbour that does another of the common actions on data is told from the names
    /// that do the term's, in either language; a term or a name without such an action says
    /// nothing.
    #[test]
    fn a_name_doing_another_action_on_data_is_found() {
        let other = |term: &str, name: &str| other_action(&TermKeys::of(term), name);
        assert!(other("edit link", "create"));
        assert!(other("delete link", "updateLink"));
        assert!(other("リンクの削除", "edit"));
        assert!(other("list owners", "removeOwner"));
        // The term's action in any of its words.
        assert!(!other("delete link", "remove"));
        assert!(!other("リンクの編集", "update"));
        assert!(!other("edit link", "linkEdit"));
        assert!(!other("add a pet", "createPet"));
        // No such action on one side.
        assert!(!other("shorten a URL", "create"));
        assert!(!other("delete link", "ban"));
        assert!(!other("link click statistics", "find"));
    }

    #[test]
    fn a_name_that_reverses_the_terms_action_is_found() {
        let reversed = |term: &str, name: &str| reverses(&TermKeys::of(term), name, None);
        assert!(reversed("login", "logout"));
        assert!(reversed("ログイン", "Logout"));
        assert!(reversed("customer login", "sign_out"));
        assert!(reversed("follow user", "unFollow"));
        assert!(reversed("unfollow", "follow"));
        assert!(reversed("hide a story", "unhide_story_for_user"));
        assert!(reversed("vote on a story", "unvote"));
        assert!(reversed("enable a plugin", "DisablePlugin"));
        assert!(reversed("プラグインの無効化", "EnablePlugin"));
        assert!(reversed("delete comment", "addComment"));
        // Ruby's bang and predicate marks are no part of the word.
        assert!(reversed("block a user", "unblock!"));
        assert!(reversed("lock the account", "unlocked?"));
        // The action itself, or a term that negates by itself, is not reversed.
        assert!(!reversed("login", "login_access_token"));
        assert!(!reversed("follow user", "follow"));
        assert!(!reversed("フォロー解除", "unFollow"));
        assert!(!reversed("login and logout", "logout"));
        assert!(!reversed("password reset", "reset_password"));
        // An importer reads the other side's export: the two are one feature.
        assert!(!reversed("import contacts", "parseCsvExport"));
        // A name that only takes away what the term makes, whichever making action it is.
        assert!(reversed("add ticket dependency", "ticket_dependency_del"));
        assert!(reversed("upload an image", "destroy"));
        assert!(reversed("APIキーの作成", "revokeApiKey"));
        assert!(reversed("invite users", "revokeByEmail"));
        assert!(reversed("attach a file to a task", "removeFile"));
        // Not when the name also says the making action, the term takes away too, or the term
        // makes nothing (a noun such as "post" is no action).
        assert!(!reversed("upload an image", "deleteOldAndUploadNew"));
        assert!(!reversed("replace and remove tags", "removeTag"));
        assert!(!reversed("blog post settings", "destroy"));
        assert!(!reversed("link expiration", "batchRemove"));
        // A name that says no action of its own is read with its scope.
        let scoped =
            |term: &str, name: &str, scope: &str| reverses(&TermKeys::of(term), name, Some(scope));
        assert!(scoped("lock a topic", "post", "UnlockTopic"));
        assert!(scoped("log in", "get", "Logout"));
        assert!(scoped(
            "block a user",
            "handle_record",
            "Avo::Actions::UnblockUser::ActionHandler"
        ));
        assert!(!scoped("lock a topic", "post", "LockTopic"));
        assert!(!scoped("lock a topic", "toggle", "UnlockTopic"));
        // Cancelling an action reverses it as "un" does, unless the term cancels itself.
        assert!(reversed("invite a team member", "cancelInvite"));
        assert!(reversed("RSVP to an event", "cancelRsvpAction"));
        assert!(reversed("アカウントの削除", "cancelAccountDeletionAction"));
        assert!(!reversed("cancel an invitation", "cancelInvite"));
        assert!(!reversed("undo an import", "revertImport"));
        assert!(!reversed("インポートを取り消す", "revertImport"));
        // A reversed name is rejected whatever the two views say; a name that only shares a file
        // with a better match is gray at most.
        let signals = Signals {
            reversed: true,
            ..Signals::default()
        };
        let (score, bound) = signals.bound(0.9);
        assert!(score < crate::relevance::REJECT_THRESHOLD);
        assert_eq!(bound, Some(Bound::Reversed));
        let outranked = Signals {
            dense: 0.5,
            sibling_top: Some(0.9),
            ..Signals::default()
        };
        assert_eq!(
            outranked.bound(0.9),
            (
                crate::relevance::FACT_THRESHOLD,
                Some(Bound::OutrankedInFile)
            )
        );
        // `ban` in the users' handler, for "ban a link" where `banLink` holds both words.
        let elsewhere = Signals {
            other_entity: true,
            named: 0.5,
            rival: 1.0,
            ..Signals::default()
        };
        assert_eq!(
            elsewhere.bound(0.9),
            (crate::relevance::FACT_THRESHOLD, Some(Bound::AnotherEntity))
        );
        let alone = Signals {
            rival: 0.5,
            ..elsewhere.clone()
        };
        assert_eq!(alone.bound(0.9), (0.9, None));
        // A rule that does not lower the score is not what decided it.
        assert_eq!(outranked.bound(0.4), (0.4, None));
        assert_eq!(Signals::default().bound(0.9), (0.9, None));
    }

    /// A module's function belongs to its file as a method to its class: `ban` in
    /// `users_handler.py` is about users.
    #[test]
    fn a_function_outside_any_scope_belongs_to_its_file() {
        let free = candidate("server/users_handler.py", "def ban():\n    pass\n", "ban");
        assert_eq!(owned_text(&free.context), "ban users_handler");
        let source = "class Links:\n    def ban(self):\n        pass\n";
        let member = candidate("server/users_handler.py", source, "ban");
        assert_eq!(owned_text(&member.context), name_text(&member.context));
    }

    fn candidate(file: &str, source: &str, name: &str) -> Candidate {
        let lang = crate::lang::detect(file).unwrap();
        let symbols = crate::analysis::analyze_source(lang, source).symbols;
        let symbol = symbols.iter().find(|s| s.name == name).unwrap();
        Candidate::new(file, symbol, source, &symbols)
    }

    const SOURCE: &str = "class AuthService:\n    \"\"\"Handles user login.\"\"\"\n\n    def login(self, email):\n        return self.check(email)\n\n    def logout(self):\n        pass\n\n\ndef load_config(path):\n    return open(path)\n";

    #[test]
    fn another_scorer_than_the_fitted_model_is_taken_as_it_is() {
        let fake = crate::relevance::FakeRelevance::new()
            .with("login", "def login", 0.9)
            .with("login", "class authservice", 0.7);
        let judge = Judge::new(&fake);
        let login = candidate("auth.py", SOURCE, "login");
        let class = candidate("auth.py", SOURCE, "AuthService");
        let verdict = judge
            .verdict("login", &[class, login], Ground::default())
            .unwrap();
        assert_eq!(verdict.score, 0.9);
        assert_eq!(verdict.signals, None);
        let none = judge.verdict("login", &[], Ground::default()).unwrap();
        assert_eq!(none.score, 0.0);
    }

    #[test]
    fn a_helper_stands_where_its_callers_stand_in_the_field() {
        let fake = crate::relevance::FakeRelevance::new();
        let judge = Judge::new(&fake);
        let mut helper = candidate("auth.py", SOURCE, "load_config");
        let field = Field::of_hits(
            &[
                field::hit("routes.py", 1, 9, 1.0),
                field::hit("auth.py", 4, 5, 0.8),
            ],
            true,
        );
        let ground = || Ground {
            field: Some(&field),
            ..Ground::default()
        };
        let standing = |c: &Candidate, ground: Ground| {
            judge
                .signals("login", std::slice::from_ref(c), ground)
                .unwrap()[0]
                .caller_field
        };
        // No caller: nothing stands for it.
        assert_eq!(standing(&helper, ground()), Some(0.0));
        // Called by `AuthService.login`, which the field shows at 0.8.
        helper.callers.push(Caller {
            name: "login".into(),
            scope: Some("AuthService".into()),
            file: "auth.py".into(),
            line: 4,
        });
        assert_eq!(standing(&helper, ground()), Some(0.8));
        // A caller the field does not show adds nothing; without a field there is no standing.
        helper.callers[0].line = 7;
        assert_eq!(standing(&helper, ground()), Some(0.0));
        assert_eq!(standing(&helper, Ground::default()), None);
    }

    #[test]
    fn the_fields_leaders_are_the_definitions_of_its_best_hits() {
        let project = crate::index::test_support::Indexed::new(&[
            (
                "app/links.py",
                "class Links:\n    def ban(self, link):\n        pass\n\n    def unban(self, link):\n        pass\n",
            ),
            ("app/users.py", "def ban(user):\n    pass\n"),
            ("tests/test_links.py", "def test_ban():\n    pass\n"),
        ]);
        let (ws, snapshot) = (&project.ws, project.snapshot());
        let field = Field::of_hits(
            &[
                // A test's hit is no leader; a hit inside a method stands for the method.
                field::hit("tests/test_links.py", 1, 2, 1.0),
                field::hit("app/links.py", 3, 3, 0.9),
                field::hit("app/users.py", 1, 2, 0.8),
                // The same definition again, and a file the snapshot does not hold.
                field::hit("app/links.py", 2, 3, 0.7),
                field::hit("app/gone.py", 1, 2, 0.6),
            ],
            true,
        );
        let leaders: Vec<(String, String)> = field_leaders(ws, &snapshot, &field)
            .into_iter()
            .map(|c| (c.context.file, c.context.name))
            .collect();
        assert_eq!(
            leaders,
            [
                ("app/links.py".to_string(), "ban".to_string()),
                ("app/users.py".to_string(), "ban".to_string()),
            ]
        );
    }

    /// A scorer that links "login" to `login` and hardly to `load_config`, with the two
    /// definitions of [`SOURCE`].
    fn login_and_config() -> (crate::relevance::FakeRelevance, Candidate, Candidate) {
        let fake = crate::relevance::FakeRelevance::new()
            .with("login", "def login", 0.8)
            .with("login", "def load_config", 0.2);
        let login = candidate("auth.py", SOURCE, "login");
        let config = candidate("auth.py", SOURCE, "load_config");
        (fake, login, config)
    }

    #[test]
    fn a_symbol_is_measured_against_the_fields_leaders() {
        let (fake, login, config) = login_and_config();
        let judge = Judge::new(&fake);
        let leaders = [login.clone()];
        let ground = Ground {
            leaders: &leaders,
            ..Ground::default()
        };
        let signals = |c: &Candidate, ground: Ground| {
            judge
                .signals("login", std::slice::from_ref(c), ground)
                .unwrap()[0]
                .clone()
        };
        // The leader itself stands level with the best; another falls behind, by its
        // described score and by the term's words in its name.
        let own = signals(&login, ground);
        assert_eq!(own.leader_gap, Some(0.0));
        assert_eq!(own.leader_named, Some(1.0));
        let other = signals(&config, ground);
        assert!(other.leader_gap.unwrap() < -2.0, "{:?}", other.leader_gap);
        let at = |name: &str| FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
        let (gap, named) = (at("field_leader_gap"), at("field_leader_named"));
        assert_eq!(other.features()[named], -1.0);
        // Without leaders (no field), nothing is measured.
        let alone = signals(&config, Ground::default());
        assert_eq!((alone.leader_gap, alone.leader_named), (None, None));
        assert_eq!([alone.features()[gap], alone.features()[named]], [0.0, 0.0]);
    }

    #[test]
    fn a_symbol_meets_the_best_leader_that_is_not_itself() {
        let (fake, login, config) = login_and_config();
        let judge = Judge::new(&fake);
        let leaders = [login.clone(), config.clone()];
        let kept = OnceLock::new();
        let ground = Ground {
            leaders: &leaders,
            leader_scores: Some(&kept),
            ..Ground::default()
        };
        let best = |c: &Candidate| {
            judge
                .best_other_leader("login", std::slice::from_ref(c), ground)
                .unwrap()
        };
        // The config loader meets the login, which the term names; the login meets only the
        // config loader.
        let (for_config, for_login) = (best(&config).unwrap(), best(&login).unwrap());
        assert_eq!(for_config.1.context.name, "login");
        assert_eq!(for_login.1.context.name, "load_config");
        assert!(
            for_config.0 > for_login.0,
            "{} vs {}",
            for_config.0,
            for_login.0
        );
        // The leaders are judged once for the term.
        assert_eq!(kept.get().map(Vec::len), Some(2));
        // The only leader meets none.
        let alone = [login.clone()];
        let ground = Ground {
            leaders: &alone,
            ..Ground::default()
        };
        let only = judge.best_other_leader("login", std::slice::from_ref(&login), ground);
        assert!(only.unwrap().is_none());
    }

    #[test]
    fn a_verdict_held_down_by_a_leader_names_it() {
        let held = Verdict {
            score: crate::relevance::FACT_THRESHOLD,
            signals: None,
            bound_by: Some(Bound::OutrankedInProject),
            outscored_by: Some("TaskService.create (pkg/tasks.go:12)".into()),
        };
        let why = held.why().unwrap();
        assert!(
            why.starts_with(Bound::OutrankedInProject.explain()),
            "{why}"
        );
        assert!(
            why.ends_with(": TaskService.create (pkg/tasks.go:12)"),
            "{why}"
        );
        let reversed = Verdict {
            bound_by: Some(Bound::Reversed),
            outscored_by: None,
            ..held
        };
        assert_eq!(reversed.why().as_deref(), Some(Bound::Reversed.explain()));
        assert_eq!(Verdict::undefined().why(), None);
    }

    #[test]
    fn agreement_needs_both_views_for_a_fact_and_the_fitted_one_to_reject() {
        use crate::relevance::REJECT_THRESHOLD;
        // Both above 0.6: a fact, at the lower of the two.
        assert_eq!(agree(0.8, 0.7), 0.7);
        // The fitted view vetoes a described fact, down to gray.
        assert_eq!(agree(0.8, 0.45), 0.45);
        assert_eq!(agree(0.8, 0.3), REJECT_THRESHOLD);
        // Its rejection rejects, from any tier.
        assert_eq!(agree(0.8, 0.27), 0.27);
        assert_eq!(agree(0.8, 0.1), 0.1);
        assert_eq!(agree(0.5, 0.2), 0.2);
        assert_eq!(agree(0.1, 0.2), 0.1);
        // It never lifts a gray described score to a fact.
        assert_eq!(agree(0.5, 0.9), 0.5);
        // A described rejection the fitted view keeps is gray, at the line.
        assert_eq!(agree(0.2, 0.35), REJECT_THRESHOLD);
        assert_eq!(agree(0.2, 0.9), REJECT_THRESHOLD);
        assert_eq!(agree(0.27, 0.3), REJECT_THRESHOLD);
        // Unless the described view rejects clearly and the fitted one keeps barely.
        assert_eq!(agree(0.2, 0.3), 0.2);
        assert_eq!(agree(0.24, 0.31), 0.24);
    }

    #[test]
    fn a_symbol_clearly_beaten_in_its_file_is_outranked() {
        let with = |dense: f32, top: Option<f32>| Signals {
            dense,
            sibling_top: top,
            ..Signals::default()
        };
        assert!(!with(0.7, None).outranked_in_file());
        assert!(with(0.7, Some(0.9)).outranked_in_file());
        // Level, or a little below: still its own.
        assert!(!with(0.7, Some(0.7)).outranked_in_file());
        assert!(!with(0.7, Some(0.75)).outranked_in_file());
    }

    #[test]
    fn siblings_leave_out_the_class_and_its_members() {
        let login = candidate("auth.py", SOURCE, "login");
        let names: Vec<&str> = login.siblings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["logout", "load_config"]);
        let class = candidate("auth.py", SOURCE, "AuthService");
        let names: Vec<&str> = class.siblings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["load_config"]);
    }

    #[test]
    fn the_background_sample_is_spread_and_skips_tests() {
        let lang = crate::lang::detect("a.py").unwrap();
        let many: String = (0..200)
            .map(|i| format!("def f{i}():\n    pass\n"))
            .collect();
        let symbols = crate::analysis::analyze_source(lang, &many).symbols;
        let tests = symbols.clone();
        let sample = background_sample(
            [
                ("src/a.py", symbols.as_slice()),
                ("tests/test_a.py", tests.as_slice()),
            ]
            .into_iter(),
        );
        assert_eq!(sample.len(), BACKGROUND_SIZE);
        assert!(sample.iter().all(|(f, _)| f == "src/a.py"));
        assert_eq!(sample[0].1.name, "f0");
        assert!(sample.last().unwrap().1.name.as_str() > "f190");
    }

    #[test]
    fn body_digest_keeps_strings_and_calls() {
        let code = "@router.post(\"/login/access-token\")\ndef login_access_token(form):\n    user = crud.authenticate(session=s, email=form.username)\n    if not user:\n        raise HTTPException(status_code=400, detail=\"Incorrect email or password\")\n";
        let (strings, calls) = body_digest(code, "login_access_token");
        assert_eq!(
            strings,
            ["/login/access-token", "Incorrect email or password"]
        );
        assert_eq!(calls, ["post", "authenticate", "HTTPException"]);
    }

    #[test]
    fn a_claimed_symbol_carries_the_definitions_that_call_it_outside_tests() {
        let project = crate::index::test_support::Indexed::new(&[
            (
                "app/security.py",
                "def verify_password(p, h):\n    return verify_password(p, h) if h else False\n",
            ),
            (
                "app/crud.py",
                "from app.security import verify_password\n\nclass Users:\n    def authenticate(self, p, h):\n        return verify_password(p, h)\n",
            ),
            (
                "tests/test_security.py",
                "def test_verify():\n    assert verify_password('a', 'b')\n",
            ),
        ]);
        let (ws, snapshot) = (&project.ws, project.snapshot());
        let symbol = snapshot.files["app/security.py"].symbols.symbols[0].clone();
        let cache = CallCache::default();
        // Named twice, as an overloaded name is (once per definition).
        cache.expect(ws, &snapshot, &["verify_password", "verify_password"]);
        let claimed = claimed(ws, &snapshot, &[("app/security.py", &symbol)], &cache);
        // Not the test, not its own recursive call: the method of `Users` in app/crud.
        let callers: Vec<String> = claimed[0].callers.iter().map(Caller::named_text).collect();
        assert_eq!(callers, ["authenticate Users app/crud"]);
        let keys = TermKeys::of("ログイン");
        let caller = Bag::of(&callers[0]);
        assert!(keys.coverage(&caller) > 0.99, "auth in authenticate");

        // The uses are kept across calls until a file changes: a new caller is seen after an
        // edit, by the next call.
        std::fs::write(
            project.dir.path().join("app/api.py"),
            "from app.security import verify_password\n\ndef login_route(p):\n    return verify_password(p, 'h')\n",
        )
        .unwrap();
        let snapshot = project.snapshot();
        let symbol = snapshot.files["app/security.py"].symbols.symbols[0].clone();
        let cache = CallCache::default();
        let after_edit = super::claimed(ws, &snapshot, &[("app/security.py", &symbol)], &cache);
        let mut callers: Vec<String> = after_edit[0]
            .callers
            .iter()
            .map(Caller::named_text)
            .collect();
        callers.sort();
        assert_eq!(
            callers,
            ["authenticate Users app/crud", "login_route app/api"]
        );
    }

    #[test]
    fn the_lexicon_is_given_again_until_a_file_changes() {
        let project = crate::index::test_support::Indexed::new(&[(
            "app/pets.py",
            "class PetController:\n    def register(self):\n        pass\n",
        )]);
        let root = project.ws.root();
        let snapshot = project.snapshot();
        let first = project_lexicon(root, &snapshot);
        let keys = TermKeys::in_project("ペットの登録", Some(&first));
        assert_eq!(keys.best_in(&first), 1.0);
        // Nothing changed: the same lexicon, with the vocabulary it built.
        assert!(Arc::ptr_eq(&first, &project_lexicon(root, &snapshot)));
        // An added file is read by the next call, and its words are looked for.
        std::fs::write(
            project.dir.path().join("app/vets.py"),
            "class VeterinarianList:\n    def show(self):\n        pass\n",
        )
        .unwrap();
        let after = project_lexicon(root, &project.snapshot());
        assert!(!Arc::ptr_eq(&first, &after));
        let keys = TermKeys::in_project("ベテリナリアン", Some(&after));
        assert_eq!(keys.loanwords, vec![(0, "veterinarian".to_string())]);
    }
}
