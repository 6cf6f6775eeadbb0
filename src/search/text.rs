//! Text search with ripgrep's own crates: the `ignore` parallel walker feeding one
//! `grep-searcher` per thread, so results match `rg` on the same input.

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::workspace::{WalkOptions, Workspace};
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::WalkState;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// How to match.
#[derive(Debug, Clone, Default)]
pub struct TextQuery {
    pub pattern: String,
    /// Treat the pattern as a literal string, not a regex.
    pub fixed_strings: bool,
    /// `None`: smart case (insensitive unless the pattern has an uppercase letter).
    pub case_sensitive: Option<bool>,
    /// Match only at word boundaries.
    pub word: bool,
    pub context_before: usize,
    pub context_after: usize,
    /// Matches kept in the result; counting continues past it.
    pub max_results: usize,
    /// Stop the search (not just the collection) at this deadline.
    pub deadline: Option<Instant>,
}

/// One matching line, 1-based line and column.
#[derive(Debug, Clone)]
pub struct LineHit {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub text: String,
    pub before: Vec<String>,
    pub after: Vec<String>,
}

#[derive(Debug, Default)]
pub struct TextResults {
    pub hits: Vec<LineHit>,
    /// Matching lines in all files, including those beyond `max_results`.
    pub total_matches: usize,
    pub files_with_matches: usize,
    pub files_searched: usize,
    pub truncated: bool,
    pub timed_out: bool,
}

/// Lines longer than this are cut in results (minified files would otherwise flood the answer).
const MAX_LINE_CHARS: usize = 400;

pub fn build_matcher(query: &TextQuery) -> ToolResult<RegexMatcher> {
    let mut builder = RegexMatcherBuilder::new();
    builder
        .line_terminator(Some(b'\n'))
        .fixed_strings(query.fixed_strings)
        .word(query.word);
    match query.case_sensitive {
        None => builder.case_smart(true),
        Some(sensitive) => builder.case_insensitive(!sensitive),
    };
    builder.build(&query.pattern).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParameter,
            format!("invalid regular expression: {err}"),
        )
        .with("pattern", query.pattern.clone())
        .with(
            "hint",
            "escape special characters, or set fixed_strings: true to search the text literally",
        )
    })
}

/// Searches the files under `base` (absolute, inside the workspace).
pub fn search(
    ws: &Workspace,
    base: &Path,
    walk: &WalkOptions,
    query: &TextQuery,
) -> ToolResult<TextResults> {
    let matcher = build_matcher(query)?;
    let walker = ws.walker(base, walk).map_err(ToolError::from)?;
    let total = AtomicUsize::new(0);
    let files_with_matches = AtomicUsize::new(0);
    let searched = AtomicUsize::new(0);
    let timed_out = AtomicBool::new(false);
    let kept = Mutex::new(Kept {
        files: BTreeMap::new(),
        matches: 0,
        limit: query.max_results,
    });

    walker.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(true)
            .before_context(query.context_before)
            .after_context(query.context_after)
            .build();
        let matcher = matcher.clone();
        let (kept, total, files_with_matches, searched, timed_out) =
            (&kept, &total, &files_with_matches, &searched, &timed_out);
        Box::new(move |entry| {
            if query.deadline.is_some_and(|d| Instant::now() > d) {
                timed_out.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            searched.fetch_add(1, Ordering::Relaxed);
            let rel = ws.relative(entry.path());
            let keep = kept.lock().unwrap().wants(&rel);
            let mut sink = Collect {
                matcher: &matcher,
                events: Vec::new(),
                matches: 0,
                keep,
                limit: query.max_results,
            };
            if search_path(&mut searcher, &matcher, entry.path(), &mut sink).is_err() {
                return WalkState::Continue;
            }
            if sink.matches > 0 {
                total.fetch_add(sink.matches, Ordering::Relaxed);
                files_with_matches.fetch_add(1, Ordering::Relaxed);
                if sink.keep {
                    kept.lock()
                        .unwrap()
                        .add(rel, sink.events, sink.matches.min(query.max_results));
                }
            }
            WalkState::Continue
        })
    });

    let files = kept.into_inner().unwrap().files;
    let mut results = TextResults {
        files_with_matches: files_with_matches.into_inner(),
        total_matches: total.into_inner(),
        files_searched: searched.into_inner(),
        timed_out: timed_out.into_inner(),
        ..TextResults::default()
    };
    for (file, (events, _)) in files {
        assemble(&file, events, query, &mut results.hits);
    }
    if results.hits.len() > query.max_results || results.hits.len() < results.total_matches {
        results.truncated = true;
        results.hits.truncate(query.max_results);
    }
    Ok(results)
}

fn search_path(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    sink: &mut Collect,
) -> std::io::Result<()> {
    searcher.search_path(matcher, path, sink)
}

/// The matches kept for the answer: always those of the first files in path order, whatever
/// order the parallel walk visits them in, so answers are deterministic and memory is bounded.
struct Kept {
    files: BTreeMap<String, (Vec<Event>, usize)>,
    matches: usize,
    limit: usize,
}

impl Kept {
    /// Whether a file's lines could still make it into the answer.
    fn wants(&self, path: &str) -> bool {
        self.matches < self.limit
            || self
                .files
                .last_key_value()
                .is_some_and(|(last, _)| path < last.as_str())
    }

    fn add(&mut self, path: String, events: Vec<Event>, matches: usize) {
        self.files.insert(path, (events, matches));
        self.matches += matches;
        // Drop the last files while the rest still fill the answer.
        while let Some((_, (_, last))) = self.files.last_key_value() {
            if self.matches - last < self.limit {
                break;
            }
            self.matches -= last;
            self.files.pop_last();
        }
    }
}

#[derive(Debug)]
struct Event {
    line: usize,
    is_match: bool,
    column: usize,
    text: String,
}

struct Collect<'m> {
    matcher: &'m RegexMatcher,
    events: Vec<Event>,
    matches: usize,
    keep: bool,
    limit: usize,
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let start = m.line_number().unwrap_or(0) as usize;
        // A multi-line match reports several lines at once; each counts like `rg --count`.
        for (i, line) in m.lines().enumerate() {
            self.matches += 1;
            if self.keep && self.matches <= self.limit {
                let column = self
                    .matcher
                    .find(line)
                    .ok()
                    .flatten()
                    .map_or(1, |found| char_column(line, found.start()));
                self.events.push(Event {
                    line: start + i,
                    is_match: true,
                    column,
                    text: clip(line),
                });
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if self.keep && matches!(c.kind(), SinkContextKind::Before | SinkContextKind::After) {
            self.events.push(Event {
                line: c.line_number().unwrap_or(0) as usize,
                is_match: false,
                column: 0,
                text: clip(c.bytes()),
            });
        }
        Ok(true)
    }
}

/// Turns a file's ordered events into hits, each carrying its own context lines (shared lines
/// between close matches appear in both, so every hit reads on its own).
fn assemble(file: &str, events: Vec<Event>, query: &TextQuery, out: &mut Vec<LineHit>) {
    let by_line: BTreeMap<usize, &Event> = events.iter().map(|e| (e.line, e)).collect();
    for event in events.iter().filter(|e| e.is_match) {
        let before = (event.line.saturating_sub(query.context_before)..event.line)
            .filter_map(|l| by_line.get(&l).map(|e| e.text.clone()))
            .collect();
        let after = (event.line + 1..=event.line + query.context_after)
            .filter_map(|l| by_line.get(&l).map(|e| e.text.clone()))
            .collect();
        out.push(LineHit {
            file: file.to_string(),
            line: event.line,
            column: event.column,
            text: event.text.clone(),
            before,
            after,
        });
    }
}

fn clip(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    if text.chars().count() > MAX_LINE_CHARS {
        let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// 1-based column in characters of a byte offset within a line.
fn char_column(line: &[u8], byte: usize) -> usize {
    String::from_utf8_lossy(&line[..byte.min(line.len())])
        .chars()
        .count()
        + 1
}
