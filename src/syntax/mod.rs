//! Parsing: the one place that creates tree-sitter parsers and compiles queries.
//!
//! Broken source is not an error here: [`parse`] always returns a tree (tree-sitter recovers)
//! together with the syntax errors it found, so callers return partial results and say so.
//! Embedded languages are parsed with tree-sitter's included ranges, so positions in the
//! embedded tree are positions in the original file.

use crate::lang::{Embedding, LanguageDef, Parsing};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use tree_sitter::{Node, Parser, Query, Range, Tree};

/// A parsed file. `code_lang` is the language the tree is in: the file's own language, or for
/// an embedding host (Vue) the language of its script block.
pub struct Parsed {
    pub lang: &'static LanguageDef,
    pub code_lang: &'static LanguageDef,
    pub tree: Option<Tree>,
    pub errors: Vec<SyntaxError>,
}

/// A syntax error found by the parser; 1-based line and column.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// At most this many syntax errors are reported per file; the rest add nothing an agent uses.
const MAX_REPORTED_ERRORS: usize = 20;

thread_local! {
    // Parsers are not Sync and cost a few allocations to create: keep one per thread.
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// Parses `text` as `lang`. Never fails: a grammar that cannot load or a parse that returns no
/// tree is reported as a syntax error with `tree: None`.
pub fn parse(lang: &'static LanguageDef, text: &str) -> Parsed {
    parse_with_host(lang, text).0
}

/// [`parse`], plus for an embedding language (Vue) the host-grammar tree it found the embedded
/// code with: the `<template>`, `<script>` and `<style>` blocks, for callers that need the
/// blocks themselves. `None` for other languages.
pub fn parse_with_host(lang: &'static LanguageDef, text: &str) -> (Parsed, Option<Tree>) {
    match lang.parsing {
        Parsing::Grammar(grammar) => {
            let (tree, errors) = parse_with(grammar(), text, None);
            let parsed = Parsed {
                lang,
                code_lang: lang,
                tree,
                errors,
            };
            (parsed, None)
        }
        Parsing::Embedded {
            host,
            embed: Embedding::VueScript,
        } => parse_vue(lang, host(), text),
        Parsing::Scanner => {
            let parsed = Parsed {
                lang,
                code_lang: lang,
                tree: None,
                errors: Vec::new(),
            };
            (parsed, None)
        }
    }
}

/// Parses a shell command (bash). `None` only when the grammar cannot load; a command with
/// syntax errors still gets its partial tree.
pub fn parse_shell(text: &str) -> Option<Tree> {
    parse_with(tree_sitter_bash::LANGUAGE.into(), text, None).0
}

fn parse_with(
    grammar: tree_sitter::Language,
    text: &str,
    ranges: Option<&[Range]>,
) -> (Option<Tree>, Vec<SyntaxError>) {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        if let Err(err) = parser.set_language(&grammar) {
            return (
                None,
                vec![SyntaxError {
                    line: 1,
                    column: 1,
                    message: format!("grammar failed to load: {err}"),
                }],
            );
        }
        let ranges_ok = match ranges {
            Some(ranges) => parser.set_included_ranges(ranges).is_ok(),
            None => parser.set_included_ranges(&[]).is_ok(),
        };
        if !ranges_ok {
            return (
                None,
                vec![SyntaxError {
                    line: 1,
                    column: 1,
                    message: "invalid embedded ranges".into(),
                }],
            );
        }
        let tree = parser.parse(text, None);
        // Leave the parser clean for the next file on this thread.
        let _ = parser.set_included_ranges(&[]);
        match tree {
            Some(tree) => {
                let errors = collect_errors(tree.root_node(), text);
                (Some(tree), errors)
            }
            None => (
                None,
                vec![SyntaxError {
                    line: 1,
                    column: 1,
                    message: "the parser returned no tree".into(),
                }],
            ),
        }
    })
}

/// Vue single-file components: the host grammar finds `<script>` blocks, whose raw text is then
/// parsed as TypeScript or JavaScript (by the `lang` attribute) in place.
fn parse_vue(
    lang: &'static LanguageDef,
    host: tree_sitter::Language,
    text: &str,
) -> (Parsed, Option<Tree>) {
    let (host_tree, mut errors) = parse_with(host, text, None);
    let Some(host_tree) = host_tree else {
        let parsed = Parsed {
            lang,
            code_lang: crate::lang::vue_script_language(None),
            tree: None,
            errors,
        };
        return (parsed, None);
    };
    let mut ranges = Vec::new();
    let mut script_lang = None;
    {
        let root = host_tree.root_node();
        let mut cursor = root.walk();
        for element in root.children(&mut cursor) {
            if element.kind() != "script_element" {
                continue;
            }
            let mut inner = element.walk();
            for child in element.children(&mut inner) {
                match child.kind() {
                    "start_tag" => {
                        script_lang = script_lang.or_else(|| attribute(child, "lang", text))
                    }
                    "raw_text" => ranges.push(child.range()),
                    _ => {}
                }
            }
        }
    }
    let code_lang = crate::lang::vue_script_language(script_lang.as_deref());
    if ranges.is_empty() {
        let parsed = Parsed {
            lang,
            code_lang,
            tree: None,
            errors,
        };
        return (parsed, Some(host_tree));
    }
    let Parsing::Grammar(grammar) = code_lang.parsing else {
        unreachable!("script languages have grammars")
    };
    let (tree, script_errors) = parse_with(grammar(), text, Some(&ranges));
    errors.extend(script_errors);
    let parsed = Parsed {
        lang,
        code_lang,
        tree,
        errors,
    };
    (parsed, Some(host_tree))
}

fn attribute(start_tag: Node, name: &str, text: &str) -> Option<String> {
    let mut cursor = start_tag.walk();
    for attr in start_tag.children(&mut cursor) {
        if attr.kind() != "attribute" {
            continue;
        }
        let attr_name = attr.child(0).map(|n| node_text(n, text))?;
        if attr_name == name {
            let value = attr.child(attr.child_count().saturating_sub(1))?;
            return Some(node_text(value, text).trim_matches(['"', '\'']).to_string());
        }
    }
    None
}

fn collect_errors(root: Node, text: &str) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    if !root.has_error() {
        return errors;
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if errors.len() >= MAX_REPORTED_ERRORS {
            break;
        }
        if node.is_missing() {
            errors.push(error_at(node, format!("missing `{}`", node.kind())));
        } else if node.is_error() {
            let snippet: String = node_text(node, text).chars().take(40).collect();
            errors.push(error_at(
                node,
                format!("syntax error near `{}`", snippet.trim()),
            ));
        } else if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    errors.sort_by_key(|e| (e.line, e.column));
    errors
}

fn error_at(node: Node, message: String) -> SyntaxError {
    let pos = node.start_position();
    SyntaxError {
        line: pos.row + 1,
        column: pos.column + 1,
        message,
    }
}

/// The source text of a node (empty if the range is not on char boundaries).
pub fn node_text<'a>(node: Node, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

/// The compiled tags query of a language, compiled once per process. `None` when the language
/// has no tags query.
pub fn tags_query(lang: &'static LanguageDef) -> Option<&'static Query> {
    static CACHE: LazyLock<Mutex<HashMap<&'static str, Option<&'static Query>>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *cache.entry(lang.id).or_insert_with(|| {
        if lang.tags.is_empty() {
            return None;
        }
        let Parsing::Grammar(grammar) = lang.parsing else {
            return None;
        };
        match Query::new(&grammar(), lang.tags) {
            Ok(query) => Some(Box::leak(Box::new(query))),
            Err(err) => {
                // A broken built-in query is a bug caught by the query-compile test; at run time
                // the language degrades to "no symbols" instead of taking the server down.
                tracing::error!("tags query for {} does not compile: {err}", lang.id);
                None
            }
        }
    })
}

/// A grammar's node kind names by kind id, `None` for anonymous kinds (punctuation,
/// keywords). `Node::kind` and `Node::is_named` are foreign calls, and `kind` measures and
/// checks the name each time; walks that look at every node of a file read them from here.
pub struct KindNames(Vec<Option<&'static str>>);

impl KindNames {
    /// `node`'s kind if it is a named node.
    pub fn named<'t>(&self, node: Node<'t>) -> Option<&'t str> {
        match self.0.get(usize::from(node.kind_id())) {
            Some(name) => *name,
            // Not from this grammar: ask the node.
            None => node.is_named().then(|| node.kind()),
        }
    }

    /// `node`'s kind, named or not; `""` for no node.
    pub fn of<'t>(&self, node: Option<Node<'t>>) -> &'t str {
        node.map_or("", |node| match self.0.get(usize::from(node.kind_id())) {
            Some(Some(name)) => name,
            _ => node.kind(),
        })
    }
}

/// The [`KindNames`] of a language's grammar, built once per process; empty for a language
/// without a grammar (every lookup then asks the node).
pub fn kind_names(lang: &'static LanguageDef) -> &'static KindNames {
    static CACHE: LazyLock<Mutex<HashMap<&'static str, &'static KindNames>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    cache.entry(lang.id).or_insert_with(|| {
        let names = match lang.parsing {
            Parsing::Grammar(grammar) => {
                // Kept for the process, as the names it hands out are: one per grammar.
                let grammar: &'static tree_sitter::Language = Box::leak(Box::new(grammar()));
                (0..grammar.node_kind_count())
                    .map(|id| {
                        let id = id as u16;
                        grammar
                            .node_kind_is_named(id)
                            .then(|| grammar.node_kind_for_id(id))
                            .flatten()
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Box::leak(Box::new(KindNames(names)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{LANGUAGES, by_id};

    /// The table gives what the nodes say themselves, aliased kinds included, for every node
    /// of a file in each grammar-parsed language of the fixtures.
    #[test]
    fn kind_names_agree_with_the_nodes() {
        let samples = [
            (
                "php",
                "<?php\nnamespace App;\nuse A\\B as C;\nclass Shop extends C { public function total(?int $n): int { return new D($n) ?? 0; } }\n",
            ),
            (
                "typescript",
                "export class Cart<T> { add(x: T): void { const y = new Set<T>(); } }\ntype Id = string | number;\n",
            ),
            (
                "python",
                "@dataclass\nclass Order:\n    def total(self) -> int:\n        return sum(x for x in self.items)\n",
            ),
            (
                "rust",
                "impl<T: Clone> Cart<T> { fn add(&mut self, x: T) -> Option<T> { Money::new(1); None } }\n",
            ),
        ];
        for (id, text) in samples {
            let lang = by_id(id).unwrap();
            let kinds = kind_names(lang);
            let parsed = parse(lang, text);
            let tree = parsed.tree.unwrap();
            let mut cursor = tree.walk();
            let mut nodes = 0;
            loop {
                let node = cursor.node();
                nodes += 1;
                assert_eq!(
                    kinds.named(node),
                    node.is_named().then(|| node.kind()),
                    "{id}"
                );
                assert_eq!(kinds.of(Some(node)), node.kind(), "{id}");
                if cursor.goto_first_child() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break;
                    }
                }
                if cursor.node() == tree.root_node() {
                    break;
                }
            }
            assert!(nodes > 20, "{id}: {nodes} nodes");
        }
    }

    /// Every built-in query compiles against its grammar (like helix's `xtask querycheck`).
    #[test]
    fn every_tags_query_compiles() {
        for lang in LANGUAGES {
            if let (Parsing::Grammar(grammar), false) = (lang.parsing, lang.tags.is_empty())
                && let Err(err) = Query::new(&grammar(), lang.tags)
            {
                panic!("{}: {err}", lang.id);
            }
        }
    }

    #[test]
    fn broken_code_parses_with_errors() {
        let parsed = parse(
            by_id("python").unwrap(),
            "def ok():\n    return 1\n\ndef broken(:\n    pass\n",
        );
        assert!(parsed.tree.is_some());
        assert!(!parsed.errors.is_empty());
        assert_eq!(parsed.errors[0].line, 4);
    }

    #[test]
    fn vue_script_blocks_parse_in_place() {
        let text = "<template><div/></template>\n<script setup lang=\"ts\">\nconst count: number = 1\nfunction inc() { return count + 1 }\n</script>\n";
        let parsed = parse(by_id("vue").unwrap(), text);
        assert_eq!(parsed.code_lang.id, "typescript");
        let tree = parsed.tree.unwrap();
        let func = tree
            .root_node()
            .descendant_for_byte_range(text.find("inc").unwrap(), text.find("inc").unwrap() + 3)
            .unwrap();
        assert_eq!(func.start_position().row, 3);
    }
}
