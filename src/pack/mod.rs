//! Repository packing (`repo_pack`): a set of files turned into one document for a language
//! model, as Repomix does — a directory-tree header, then every file in XML, Markdown or plain
//! text — with real token counts (tiktoken's `o200k_base` or `cl100k_base`, compiled into the
//! binary: nothing is downloaded), an optional compress mode (signatures and doc comments only,
//! `compress`), secrets masked (`secrets`), and a token budget that either fails fast naming the
//! largest files or splits the pack into parts that each fit.
//!
//! Files come from the workspace walk, so `.gitignore`, hidden files and dependency directories
//! are respected; binary and oversized files are skipped with a reason.

mod compress;
mod render;
mod secrets;

pub use compress::compress;
pub use secrets::mask;

use crate::workspace::{WalkOptions, WalkedFile, Workspace, read_source, walk_files};
use rayon::prelude::*;
use render::{header, wrap_file};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    #[default]
    Xml,
    Markdown,
    Plain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// GPT-4o / o-series and Claude-sized estimates.
    #[default]
    O200k,
    Cl100k,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k_base",
            Encoding::Cl100k => "cl100k_base",
        }
    }

    /// Tokens in `text` with this encoding.
    pub fn count(self, text: &str) -> usize {
        let bpe = match self {
            Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len()
    }
}

#[derive(Debug, Clone, Default)]
pub struct PackOptions {
    /// Globs (gitignore syntax, relative to the root) of files to pack; empty = everything.
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub style: Style,
    pub compress: bool,
    pub max_tokens: Option<usize>,
    pub split: bool,
    pub encoding: Encoding,
}

#[derive(Debug, Clone)]
pub struct PackedFile {
    pub path: String,
    pub tokens: usize,
    pub lines: usize,
    pub masked_secrets: usize,
}

#[derive(Debug, Clone)]
pub struct Part {
    pub tokens: usize,
    pub files: Vec<String>,
    pub content: String,
}

#[derive(Debug, Clone)]
pub struct Packed {
    pub total_tokens: usize,
    pub files: Vec<PackedFile>,
    pub parts: Vec<Part>,
    pub skipped: Vec<(String, String)>,
}

#[derive(Debug)]
pub enum PackError {
    InvalidGlob(String),
    NoFiles,
    /// The files need more tokens than allowed; the largest files by tokens.
    OverBudget {
        total: usize,
        max: usize,
        largest: Vec<(String, usize)>,
    },
    /// One file alone does not fit in a part.
    FileOverBudget {
        path: String,
        tokens: usize,
        max: usize,
    },
}

/// Files reported as the largest when a budget is exceeded.
const LARGEST_REPORTED: usize = 10;

/// One file, ready to render.
struct Item {
    path: String,
    content: String,
    tokens: usize,
    /// Tokens around the content: the file's wrapper (tags or fences) in the chosen style and
    /// its line in the directory tree (counted as its whole path, which is never less).
    overhead: usize,
    lines: usize,
    masked: usize,
}

pub fn pack(ws: &Workspace, opts: &PackOptions) -> Result<Packed, PackError> {
    let mut globs = opts.include.clone();
    globs.extend(opts.exclude.iter().map(|g| {
        if g.starts_with('!') {
            g.clone()
        } else {
            format!("!{g}")
        }
    }));
    let walked = walk_files(
        ws,
        ws.root(),
        &WalkOptions {
            globs,
            types: Vec::new(),
        },
    )
    .map_err(|e| PackError::InvalidGlob(e.to_string()))?;
    let project = ws
        .root()
        .file_name()
        .map_or("project".to_string(), |n| n.to_string_lossy().into_owned());
    let (mut items, skipped) = read_items(&walked, ws.config.max_file_bytes, opts);
    if items.is_empty() {
        return Err(PackError::NoFiles);
    }
    items.sort_by(|a, b| a.path.cmp(&b.path));
    let files: Vec<PackedFile> = items
        .iter()
        .map(|i| PackedFile {
            path: i.path.clone(),
            tokens: i.tokens,
            lines: i.lines,
            masked_secrets: i.masked,
        })
        .collect();
    // Additive, so parts can be filled in one pass: the header without files, plus each
    // file's content and overhead. Part numbering adds a few tokens: hence the margin in `split`.
    let base = opts.encoding.count(&header(
        opts.style,
        &project,
        &[],
        opts.compress,
        opts.encoding,
        None,
    )) + opts.encoding.count(render::footer(opts.style));
    let estimate = |group: &[&Item]| -> usize {
        base + group.iter().map(|i| i.tokens + i.overhead).sum::<usize>()
    };
    let all: Vec<&Item> = items.iter().collect();
    let over_budget = |total: usize, max: usize| {
        let mut largest: Vec<(String, usize)> =
            items.iter().map(|i| (i.path.clone(), i.tokens)).collect();
        largest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        largest.truncate(LARGEST_REPORTED);
        PackError::OverBudget {
            total,
            max,
            largest,
        }
    };
    let groups: Vec<Vec<&Item>> = match (opts.max_tokens, opts.split) {
        (Some(max), false) => {
            // Fail fast: the estimate is known before anything is rendered.
            let total = estimate(&all);
            if total > max {
                return Err(over_budget(total, max));
            }
            vec![all]
        }
        (Some(max), true) => split(&all, max, base)?,
        (None, _) => vec![all],
    };
    let count = groups.len();
    let mut parts = Vec::new();
    for (index, group) in groups.into_iter().enumerate() {
        let numbering = (count > 1).then_some((index + 1, count));
        let (content, paths) = render_part(&group, &project, opts, numbering);
        let tokens = opts.encoding.count(&content);
        if let Some(max) = opts.max_tokens
            && tokens > max
        {
            // The estimate counts pieces separately; the whole may differ by a few tokens.
            return Err(over_budget(tokens, max));
        }
        parts.push(Part {
            tokens,
            files: paths,
            content,
        });
    }
    Ok(Packed {
        total_tokens: parts.iter().map(|p| p.tokens).sum(),
        files,
        parts,
        skipped,
    })
}

/// Each walked file read (compressed when asked), its secrets masked and its tokens counted, in
/// parallel; the files that cannot be read, with why.
fn read_items(
    walked: &[WalkedFile],
    max_bytes: u64,
    opts: &PackOptions,
) -> (Vec<Item>, Vec<(String, String)>) {
    let results: Vec<Result<Item, (String, String)>> = walked
        .par_iter()
        .map(|file| {
            let source = read_source(&file.abs, &file.rel, max_bytes)
                .map_err(|e| (file.rel.clone(), e.message))?;
            let mut text = source.text;
            if opts.compress
                && let Some(lang) = crate::lang::detect(&file.rel)
            {
                text = compress(lang, &text);
            }
            let (content, masked) = mask(&file.rel, &text);
            let overhead = opts.encoding.count(&wrap_file(opts.style, &file.rel, ""))
                + opts.encoding.count(&format!("{}\n", file.rel));
            Ok(Item {
                tokens: opts.encoding.count(&content),
                lines: crate::workspace::count_lines(&content),
                path: file.rel.clone(),
                content,
                overhead,
                masked,
            })
        })
        .collect();
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for result in results {
        match result {
            Ok(item) => items.push(item),
            Err(skip) => skipped.push(skip),
        }
    }
    (items, skipped)
}

/// One part's document: the header (numbered when there are several parts), each file, the
/// footer; with the part's paths.
fn render_part(
    group: &[&Item],
    project: &str,
    opts: &PackOptions,
    numbering: Option<(usize, usize)>,
) -> (String, Vec<String>) {
    let paths: Vec<&str> = group.iter().map(|i| i.path.as_str()).collect();
    let mut content = header(
        opts.style,
        project,
        &paths,
        opts.compress,
        opts.encoding,
        numbering,
    );
    for item in group {
        content.push_str(&wrap_file(opts.style, &item.path, &item.content));
    }
    content.push_str(render::footer(opts.style));
    (content, paths.iter().map(|p| p.to_string()).collect())
}

/// Consecutive files (in path order, so directories stay together) grouped into parts that
/// each fit in `max` tokens, keeping a 2% margin for token boundaries between pieces and the
/// part numbers in the headers.
fn split<'a>(items: &[&'a Item], max: usize, base: usize) -> Result<Vec<Vec<&'a Item>>, PackError> {
    let budget = max - max / 50;
    let mut groups: Vec<Vec<&Item>> = Vec::new();
    let mut current: Vec<&Item> = Vec::new();
    let mut used = base;
    for item in items {
        let cost = item.tokens + item.overhead;
        if base + cost > budget {
            return Err(PackError::FileOverBudget {
                path: item.path.clone(),
                tokens: item.tokens,
                max,
            });
        }
        if used + cost > budget && !current.is_empty() {
            groups.push(std::mem::take(&mut current));
            used = base;
        }
        current.push(item);
        used += cost;
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Ok(groups)
}

#[cfg(test)]
mod tests;
