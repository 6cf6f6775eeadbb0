//! Symbol extraction driven by each language's tags query.
//!
//! The query says *what* is a definition; the rules that are the same for every language live
//! here: scopes come from nesting (a variable whose value holds definitions, as a JavaScript
//! object literal holds its methods, scopes them too), a function directly inside a class-like
//! is a method, an UPPER_CASE variable is a constant, a PHP `namespace X;` statement scopes the
//! rest of its file.

use crate::lang::{LanguageDef, Parsing};
use crate::syntax::{self, SyntaxError, node_text};
use memchr::memmem::Finder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Query, QueryCursor, StreamingIterator};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Interface,
    Trait,
    Enum,
    Struct,
    Type,
    Constant,
    Variable,
    Property,
    Module,
    Namespace,
    Macro,
    /// A CSS/SCSS rule set, named by its selectors.
    Rule,
    Keyframes,
    /// A Blade `@section`, `@push` or slot.
    Section,
    /// An HTML element with an `id`.
    Element,
}

impl SymbolKind {
    pub fn parse(name: &str) -> Option<SymbolKind> {
        serde_json::from_value(serde_json::Value::String(name.to_ascii_lowercase())).ok()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Enum => "enum",
            SymbolKind::Struct => "struct",
            SymbolKind::Type => "type",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "variable",
            SymbolKind::Property => "property",
            SymbolKind::Module => "module",
            SymbolKind::Namespace => "namespace",
            SymbolKind::Macro => "macro",
            SymbolKind::Rule => "rule",
            SymbolKind::Keyframes => "keyframes",
            SymbolKind::Section => "section",
            SymbolKind::Element => "element",
        }
    }

    /// Kinds whose members are methods and properties.
    pub fn is_type_like(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Trait
                | SymbolKind::Enum
                | SymbolKind::Struct
        )
    }

    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

/// One definition. Lines and columns are 1-based; `end_line` is inclusive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    /// Enclosing class / namespace / module / function, outermost first (`App\Models\Product`,
    /// `AuthService`, `Outer.inner`); null at top level. (Not skipped when empty: the index
    /// stores symbols in a format that is not self-describing.)
    pub scope: Option<String>,
    /// Scope and name joined: for PHP classes the FQCN (`App\Models\Product`), for members
    /// `App\Models\Product::save`.
    pub qualified_name: String,
    /// The declaration up to its body, whitespace collapsed.
    pub signature: String,
    /// Visible outside its file or module by the language's rules.
    pub exported: bool,
}

/// What analysis knows about one file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileSymbols {
    pub language: String,
    pub symbols: Vec<Symbol>,
    pub errors: Vec<SymbolError>,
}

/// A qualified name with one separator: `App\Models\Product::save`, `Product->save`,
/// `Product#save` and `Product.save` all read `….Product.save`, so any spelling finds the same
/// definition.
pub fn dotted(qualified: &str) -> String {
    let mut out = qualified.to_string();
    for sep in NAME_SEPARATORS.iter().filter(|sep| **sep != ".") {
        out = out.replace(sep, ".");
    }
    out
}

/// The separators a written name may join its qualifier with, in any language's spelling.
pub const NAME_SEPARATORS: [&str; 5] = ["::", "->", "\\", ".", "#"];

/// A name as written by a person or an agent, split at its last separator into its qualifier
/// ([`dotted`]) and the name a definition has: `AuthService.login()` → (`AuthService`, `login`),
/// `\App\Models\Product` → (`App.Models`, `Product`), `Product->save` and `Product#save` →
/// (`Product`, `save`). A call's `()` and a leading global-scope `\` or `::` say nothing about
/// which definition is meant. A separator that ends the name is part of it (`operator->`).
pub fn split_qualified(name: &str) -> (Option<String>, &str) {
    let name = name
        .trim()
        .trim_end_matches("()")
        .trim_start_matches('\\')
        .trim_start_matches("::");
    let split = NAME_SEPARATORS
        .iter()
        .filter_map(|sep| name.rfind(sep).map(|i| (i, sep.len())))
        .max();
    match split {
        Some((i, len)) if i > 0 && i + len < name.len() => {
            (Some(dotted(&name[..i])), &name[i + len..])
        }
        _ => (None, name),
    }
}

impl Symbol {
    /// Whether this definition, in `file`, answers to `qualifier` ([`dotted`]): its scope is the
    /// qualifier or ends with it; or it is a method whose container has no name (`export default
    /// class extends BaseModel { duplicate() {…} }`, an exported object literal) and `file` is
    /// the module the qualifier names. Importers call such a container by its module (`import
    /// Card from './models/Card'`), and so does an agent (`Card.duplicate`).
    pub fn answers_to(&self, qualifier: &str, file: &str) -> bool {
        let scope = dotted(self.scope.as_deref().unwrap_or(""));
        if scope == qualifier || scope.ends_with(&format!(".{qualifier}")) {
            return true;
        }
        let module = std::path::Path::new(file)
            .file_stem()
            .and_then(|stem| stem.to_str());
        self.scope.is_none()
            && self.kind == SymbolKind::Method
            && module.is_some_and(|m| qualifier.rsplit('.').next() == Some(m))
    }

    /// Whether a name used inside this definition is used by it: a function, a method or a
    /// type, or a variable whose value spans lines, which holds code the same way
    /// (`const login = catchAsync(async (req, res) => { … })`, a route table). A one-line
    /// variable is a value, not a place where code runs.
    pub fn encloses_uses(&self) -> bool {
        self.kind.is_callable()
            || self.kind.is_type_like()
            || (matches!(self.kind, SymbolKind::Variable | SymbolKind::Constant)
                && self.end_line > self.line)
    }
}

/// The innermost of `symbols` that `keep` accepts and whose lines hold `line`.
pub fn innermost_at(
    symbols: &[Symbol],
    line: usize,
    keep: impl Fn(&Symbol) -> bool,
) -> Option<&Symbol> {
    symbols
        .iter()
        .filter(|s| keep(s) && s.line <= line && line <= s.end_line)
        .min_by_key(|s| s.end_line - s.line)
}

/// A syntax error in stored form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl From<SyntaxError> for SymbolError {
    fn from(e: SyntaxError) -> Self {
        SymbolError {
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// Parses and extracts the symbols of one file.
pub fn analyze_source(lang: &'static LanguageDef, text: &str) -> FileSymbols {
    // A language without a grammar is scanned; Blade is the one such.
    if matches!(lang.parsing, Parsing::Scanner) {
        return FileSymbols {
            language: lang.id.into(),
            symbols: super::blade::symbols(text),
            errors: Vec::new(),
        };
    }
    if !may_define_symbols(lang, text) {
        return FileSymbols {
            language: lang.id.into(),
            symbols: Vec::new(),
            errors: Vec::new(),
        };
    }
    let parsed = syntax::parse(lang, text);
    let symbols = match (&parsed.tree, syntax::tags_query(parsed.code_lang)) {
        (Some(tree), Some(query)) => {
            extract(parsed.code_lang, query, tree.root_node(), text, Reach::ALL)
        }
        _ => Vec::new(),
    };
    FileSymbols {
        language: lang.id.into(),
        symbols,
        errors: parsed.errors.into_iter().map(SymbolError::from).collect(),
    }
}

/// How much of a tree [`symbols_in_tree`] looks at for definitions.
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    /// Definitions nested deeper than this many levels below the root are skipped.
    pub max_start_depth: Option<u32>,
    /// Whether definitions inside a function or method are wanted. The chunker keeps closures
    /// and local helpers inside their function's chunk, and walking every body cost more than
    /// the rest of the definition search.
    pub inside_functions: bool,
}

impl Reach {
    /// Every definition, however deep.
    pub const ALL: Reach = Reach {
        max_start_depth: None,
        inside_functions: true,
    };
}

/// The symbols of an already parsed tree, for callers that need the tree as well (the chunker)
/// and must not parse the file twice. `code_lang` is [`syntax::Parsed::code_lang`].
pub fn symbols_in_tree(
    code_lang: &'static LanguageDef,
    root: Node,
    text: &str,
    reach: Reach,
) -> Vec<Symbol> {
    match syntax::tags_query(code_lang) {
        Some(query) => extract(code_lang, query, root, text, reach),
        None => Vec::new(),
    }
}

/// False when none of the language's declaration keywords occurs in `text` as a word, so
/// parsing can be skipped (see `LanguageDef::declaration_keywords`).
fn may_define_symbols(lang: &'static LanguageDef, text: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    // Compiled once and shared, never cloned: a cloned regex starts with an empty cache, which
    // it would then rebuild for every file.
    static HINTS: LazyLock<Mutex<HashMap<&'static str, Option<&'static regex::Regex>>>> =
        LazyLock::new(Default::default);
    if lang.declaration_keywords.is_empty() {
        return true;
    }
    let hint = *HINTS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(lang.id)
        .or_insert_with(|| {
            let words = lang.declaration_keywords.join("|");
            regex::Regex::new(&format!(r"\b({words})\b"))
                .ok()
                .map(|regex| &*Box::leak(Box::new(regex)))
        });
    hint.is_none_or(|hint| hint.is_match(text))
}

/// A definition as the query found it, before scopes are known.
struct Raw {
    kind: Option<SymbolKind>, // None: a scope-only container
    name: String,
    start: usize,
    end: usize,
    name_start: usize,
    pattern: usize,
    line: usize,
    column: usize,
    end_line: usize,
    signature: String,
    exported: bool,
    explicit_scope: Option<String>,
}

fn extract(
    lang: &'static LanguageDef,
    query: &'static Query,
    root: Node,
    text: &str,
    reach: Reach,
) -> Vec<Symbol> {
    let plan = TagsPlan::of(lang, query);
    let mut raws = Vec::new();
    match &plan.roots {
        Some(roots) => collect_by_walk(lang, plan, roots, root, text, reach, &mut raws),
        None => {
            let mut cursor = QueryCursor::new();
            cursor.set_max_start_depth(reach.max_start_depth);
            collect_matches(lang, plan, &mut cursor, root, text, &mut raws);
        }
    }
    if !reach.inside_functions {
        // The walk skips most of them already; this catches the rest (a pattern whose
        // definition is below the node it is rooted at, or the whole-tree query).
        drop_inside_functions(&mut raws);
    }
    finish(lang, raws, text)
}

/// Orders the matches, drops the duplicates and gives every definition its scope.
fn finish(lang: &LanguageDef, mut raws: Vec<Raw>, text: &str) -> Vec<Symbol> {
    // One definition per name node: the earliest pattern in the query wins (it is the most
    // specific, e.g. "function bound to a name" before "module-level variable").
    raws.sort_by_key(|r| (r.name_start, r.pattern));
    raws.dedup_by_key(|r| r.name_start);
    extend_statement_namespaces(&mut raws, text);
    raws.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    resolve_scopes(lang, raws)
}

/// What extraction needs to know about a language's tags query, worked out once per language.
struct TagsPlan {
    query: &'static Query,
    /// What each capture (by index) stands for.
    roles: Vec<Role>,
    /// Where matches can start; `None` when the query must run over the whole tree.
    roots: Option<PatternRoots>,
}

/// The meaning of a capture name in a tags query.
#[derive(Clone, Copy)]
enum Role {
    /// `@definition.<kind>`; `None` for a kind this module does not know (the match is dropped).
    Definition(Option<SymbolKind>),
    Container,
    Name,
    Scope,
    Other,
}

impl TagsPlan {
    fn of(lang: &'static LanguageDef, query: &'static Query) -> &'static TagsPlan {
        use std::collections::HashMap;
        use std::sync::{LazyLock, Mutex};
        static CACHE: LazyLock<Mutex<HashMap<&'static str, &'static TagsPlan>>> =
            LazyLock::new(Default::default);
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.entry(lang.id).or_insert_with(|| {
            let roles = query
                .capture_names()
                .iter()
                .map(|name| match *name {
                    "container" => Role::Container,
                    "name" => Role::Name,
                    "scope" => Role::Scope,
                    name => match name.strip_prefix("definition.") {
                        Some(kind) => Role::Definition(SymbolKind::parse(kind)),
                        None => Role::Other,
                    },
                })
                .collect();
            Box::leak(Box::new(TagsPlan {
                query,
                roles,
                roots: PatternRoots::of(lang, query),
            }))
        })
    }
}

/// The node kinds a match of a tags query can start at, as a flag per kind id.
///
/// Why: a query cursor run over a whole tree tries every pattern at every node, which costs
/// nearly half as much as parsing. The definitions are a few nodes per file, so walking the tree
/// once and running the query only at the nodes of a root kind finds the same matches for a
/// fraction of that.
struct PatternRoots(Vec<bool>);

impl PatternRoots {
    /// `None` when some pattern's root is not one plain node kind (a wildcard, an alternation, a
    /// supertype, a sibling sequence).
    fn of(lang: &'static LanguageDef, query: &Query) -> Option<PatternRoots> {
        let crate::lang::Parsing::Grammar(grammar) = lang.parsing else {
            return None;
        };
        let grammar = grammar();
        let mut flags = vec![false; grammar.node_kind_count()];
        for pattern in 0..query.pattern_count() {
            if !query.is_pattern_rooted(pattern) || query.is_pattern_non_local(pattern) {
                return None;
            }
            let source = &lang.tags
                [query.start_byte_for_pattern(pattern)..query.end_byte_for_pattern(pattern)];
            let name = root_kind_name(source)?;
            let id = grammar.id_for_node_kind(name, true);
            if id == 0 || grammar.node_kind_is_supertype(id) {
                return None;
            }
            // Every kind id spelled this way (aliases share a name): a node flagged needlessly
            // only costs a query run that matches nothing, a node missed would lose definitions.
            let mut found = false;
            for (kind, flag) in flags.iter_mut().enumerate() {
                let kind = kind as u16;
                if grammar.node_kind_is_named(kind) && grammar.node_kind_for_id(kind) == Some(name)
                {
                    *flag = true;
                    found = true;
                }
            }
            if !found {
                return None;
            }
        }
        Some(PatternRoots(flags))
    }

    fn contains(&self, node: Node) -> bool {
        self.0
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false)
    }
}

/// The node kind a pattern starts with: `(kind …)`, or `((kind …) @capture (#predicate …))`.
/// `None` for anything else (wildcards, alternations, anonymous nodes).
fn root_kind_name(pattern: &str) -> Option<&str> {
    let rest = pattern.trim_start().strip_prefix('(')?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (name.starts_with(|c: char| c.is_ascii_alphabetic())).then_some(name)
}

/// Walks the tree once and runs the query, anchored, at each node of a pattern root kind. A
/// query cursor limited to start depth 0 matches only patterns rooted at that very node and
/// descends only as far as those patterns reach, so every match is found exactly once.
fn collect_by_walk(
    lang: &'static LanguageDef,
    plan: &TagsPlan,
    roots: &PatternRoots,
    root: Node,
    text: &str,
    reach: Reach,
    raws: &mut Vec<Raw>,
) {
    let mut anchored = QueryCursor::new();
    anchored.set_max_start_depth(Some(0));
    let keywords = declaration_finders(lang);
    let mut walk = root.walk();
    let mut depth = 0u32;
    loop {
        let node = walk.node();
        let mut defines_function = false;
        if roots.contains(node) {
            defines_function = collect_matches(lang, plan, &mut anchored, node, text, raws);
        }
        let descend = reach.max_start_depth.is_none_or(|max| depth < max)
            && (reach.inside_functions || !defines_function)
            && may_define(keywords, node, text);
        if descend && walk.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if walk.goto_next_sibling() {
                break;
            }
            walk.goto_parent();
            depth -= 1;
        }
    }
}

/// Whether a definition can lie below `node`. A language whose definitions all start with a
/// keyword (PHP) has none in a statement whose text holds none of them, and the walk need not
/// step through it: data files (Symfony's Intl tables are one `return [...]` of thousands of
/// elements) otherwise cost as much as all the classes of a project. A keyword inside a string
/// or `Foo::class` only means the statement is walked.
fn may_define(keywords: &[Finder<'static>], node: Node, text: &str) -> bool {
    if keywords.is_empty() || !node.kind().ends_with("_statement") {
        return true;
    }
    let code = &text.as_bytes()[node.start_byte()..node.end_byte()];
    keywords.iter().any(|k| k.find(code).is_some())
}

/// Searchers for a language's declaration keywords, built once per language and shared.
fn declaration_finders(lang: &'static LanguageDef) -> &'static [Finder<'static>] {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    static FINDERS: LazyLock<Mutex<HashMap<&'static str, &'static [Finder<'static>]>>> =
        LazyLock::new(Default::default);
    FINDERS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(lang.id)
        .or_insert_with(|| {
            let finders: Vec<Finder> = lang
                .declaration_keywords
                .iter()
                .map(|k| Finder::new(k.as_bytes()))
                .collect();
            Box::leak(finders.into_boxed_slice())
        })
}

/// Turns the matches of `query` run from `node` into raw definitions; returns whether one of
/// them is a function or method defined by `node` itself.
fn collect_matches(
    lang: &'static LanguageDef,
    plan: &TagsPlan,
    cursor: &mut QueryCursor,
    at: Node,
    text: &str,
    raws: &mut Vec<Raw>,
) -> bool {
    let mut defines_function = false;
    let mut matches = cursor.matches(plan.query, at, text.as_bytes());
    while let Some(m) = matches.next() {
        let mut def: Option<(Node, Option<SymbolKind>)> = None;
        let mut name_node = None;
        let mut scope = None;
        for capture in m.captures() {
            match plan.roles[capture.index as usize] {
                Role::Definition(kind) => def = kind.map(|k| (capture.node, Some(k))),
                Role::Container => def = Some((capture.node, None)),
                Role::Name => name_node = Some(capture.node),
                Role::Scope => scope = Some(node_text(capture.node, text).to_string()),
                Role::Other => {}
            }
        }
        let (Some((node, kind)), Some(name_node)) = (def, name_node) else {
            continue;
        };
        let mut name = clean_name(node_text(name_node, text));
        if kind.is_none() {
            name = strip_generics(&name);
        }
        if name.is_empty() {
            continue;
        }
        let start = node.start_position();
        let end = node.end_position();
        defines_function |= node.id() == at.id() && kind.is_some_and(SymbolKind::is_callable);
        raws.push(Raw {
            kind,
            exported: kind.is_some() && (lang.exported)(node, &name, text),
            signature: signature(node, text),
            name,
            start: node.start_byte(),
            end: node.end_byte(),
            name_start: name_node.start_byte(),
            pattern: m.pattern_index,
            line: start.row + 1,
            column: start.column + 1,
            end_line: end.row + 1 - usize::from(end.column == 0 && end.row > start.row),
            explicit_scope: scope,
        });
    }
    defines_function
}

/// Drops the definitions that lie inside a function or method (not the functions themselves).
fn drop_inside_functions(raws: &mut Vec<Raw>) {
    let mut functions: Vec<(usize, usize)> = raws
        .iter()
        .filter(|r| r.kind.is_some_and(SymbolKind::is_callable))
        .map(|r| (r.start, r.end))
        .collect();
    if functions.is_empty() {
        return;
    }
    functions.sort_unstable();
    // `furthest[i]`: the furthest end of the functions up to the i-th; a function starting
    // before a definition encloses it exactly when one of them reaches its end.
    let furthest: Vec<usize> = functions
        .iter()
        .scan(0, |far, (_, end)| {
            *far = (*far).max(*end);
            Some(*far)
        })
        .collect();
    raws.retain(|r| {
        let before = functions.partition_point(|(start, _)| *start < r.start);
        let enclosed_from_before = before > 0 && furthest[before - 1] >= r.end;
        let enclosed_from_same_start = functions[before..]
            .iter()
            .take_while(|(start, _)| *start == r.start)
            .any(|(_, end)| *end > r.end);
        !(enclosed_from_before || enclosed_from_same_start)
    });
}

/// `namespace App\Models;` has no body: it scopes everything up to the next namespace.
fn extend_statement_namespaces(raws: &mut [Raw], text: &str) {
    let starts: Vec<(usize, usize)> = raws
        .iter()
        .filter(|r| r.kind == Some(SymbolKind::Namespace))
        .map(|r| (r.start, r.line))
        .collect();
    for raw in raws
        .iter_mut()
        .filter(|r| r.kind == Some(SymbolKind::Namespace) && r.signature.ends_with(';'))
    {
        match starts.iter().find(|(start, _)| *start > raw.start) {
            Some((start, line)) => {
                (raw.end, raw.end_line) = (*start, line.saturating_sub(1).max(raw.line))
            }
            None => {
                (raw.end, raw.end_line) = (
                    text.len(),
                    crate::workspace::count_lines(text).max(raw.line),
                )
            }
        }
    }
}

fn resolve_scopes(lang: &LanguageDef, raws: Vec<Raw>) -> Vec<Symbol> {
    let mut out = Vec::with_capacity(raws.len());
    // Stack of (end byte, name, kind) of the definitions enclosing the current one.
    let mut stack: Vec<(usize, String, Option<SymbolKind>)> = Vec::new();
    for raw in raws {
        while stack.last().is_some_and(|(end, _, _)| *end <= raw.start) {
            stack.pop();
        }
        let parent_kind = stack.last().map(|(_, _, kind)| *kind);
        let mut kind = raw.kind;
        if kind == Some(SymbolKind::Function)
            && parent_kind.is_some_and(|k| k.is_none_or(SymbolKind::is_type_like))
        {
            kind = Some(SymbolKind::Method);
        }
        if kind == Some(SymbolKind::Variable) && is_screaming_case(&raw.name) {
            kind = Some(SymbolKind::Constant);
        }
        // A written qualifier (Go's receiver, Ruby's `class Admin::Users`) lies inside whatever
        // encloses the definition.
        let scope = match (join_scope(lang, &stack), raw.explicit_scope.clone()) {
            (Some(outer), Some(own)) => Some(format!("{outer}{}{own}", lang.member_separator)),
            (outer, own) => own.or(outer),
        };
        if let Some(kind) = kind {
            let qualified_name = match &scope {
                None => raw.name.clone(),
                Some(scope)
                    if stack
                        .last()
                        .is_some_and(|(_, _, k)| *k == Some(SymbolKind::Namespace))
                        && let Some(separator) = lang.namespace_separator =>
                {
                    format!("{scope}{separator}{}", raw.name)
                }
                Some(scope) => format!("{scope}{}{}", lang.member_separator, raw.name),
            };
            out.push(Symbol {
                name: raw.name.clone(),
                kind,
                line: raw.line,
                column: raw.column,
                end_line: raw.end_line,
                scope,
                qualified_name,
                signature: raw.signature,
                exported: raw.exported,
            });
        }
        // Only things that can contain definitions become scopes: a variable does when its
        // value holds them (a JavaScript object literal's functions are its methods).
        let is_scope = match kind {
            None => true,
            Some(k) => {
                k.is_type_like()
                    || k.is_callable()
                    || matches!(
                        k,
                        SymbolKind::Namespace
                            | SymbolKind::Module
                            | SymbolKind::Variable
                            | SymbolKind::Constant
                    )
            }
        };
        if is_scope {
            // What a qualified class or module holds is scoped by its whole written name.
            let name = match &raw.explicit_scope {
                Some(own) if kind.is_some_and(|k| k.is_type_like() || k == SymbolKind::Module) => {
                    format!("{own}{}{}", lang.member_separator, raw.name)
                }
                _ => raw.name,
            };
            stack.push((raw.end, name, kind));
        }
    }
    out
}

fn join_scope(lang: &LanguageDef, stack: &[(usize, String, Option<SymbolKind>)]) -> Option<String> {
    let mut scope = String::new();
    for (i, (_, name, kind)) in stack.iter().enumerate() {
        if i > 0 {
            let separator = match lang.namespace_separator {
                Some(separator) if stack[i - 1].2 == Some(SymbolKind::Namespace) => separator,
                _ => lang.member_separator,
            };
            scope.push_str(separator);
        }
        let _ = kind;
        scope.push_str(name);
    }
    (!scope.is_empty()).then_some(scope)
}

fn clean_name(raw: &str) -> String {
    // Selectors and names may span lines; keep them on one.
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_generics(name: &str) -> String {
    name.split('<').next().unwrap_or(name).trim().to_string()
}

fn is_screaming_case(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Longest signature kept; longer declarations are cut at a character boundary.
const MAX_SIGNATURE_CHARS: usize = 240;

/// The declaration text before the body (`def login(self, email: str) -> Token:`), on one line.
fn signature(node: Node, text: &str) -> String {
    let body = node.child_by_field_name("body").or_else(|| {
        node.child_by_field_name("value")
            .and_then(|v| v.child_by_field_name("body"))
    });
    let head = match body {
        Some(body) if body.start_byte() > node.start_byte() => {
            &text[node.start_byte()..body.start_byte()]
        }
        _ => node_text(node, text).lines().next().unwrap_or(""),
    };
    let collapsed = head.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = collapsed.trim_end_matches(['{', ' ']).to_string();
    if trimmed.chars().count() > MAX_SIGNATURE_CHARS {
        let cut: String = trimmed.chars().take(MAX_SIGNATURE_CHARS).collect();
        format!("{cut}…")
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::by_id;

    /// Every language's way of writing a member finds the same qualifier and name; a call's
    /// parentheses and a global-scope prefix are dropped, a separator that ends a name is part
    /// of it.
    #[test]
    fn written_names_split_into_qualifier_and_name() {
        let cases = [
            ("AuthService", None, "AuthService"),
            ("AuthService.login()", Some("AuthService"), "login"),
            ("\\App\\Models\\Product", Some("App.Models"), "Product"),
            (
                "App\\Models\\Product::save",
                Some("App.Models.Product"),
                "save",
            ),
            ("CartService::add", Some("CartService"), "add"),
            ("::add", None, "add"),
            ("Product->save", Some("Product"), "save"),
            (
                "Story#save_suggested_title!",
                Some("Story"),
                "save_suggested_title!",
            ),
            ("Outer.Inner.method", Some("Outer.Inner"), "method"),
            ("operator->", None, "operator->"),
            (" login ", None, "login"),
        ];
        for (input, qualifier, name) in cases {
            let (q, n) = split_qualified(input);
            assert_eq!((q.as_deref(), n), (qualifier, name), "{input}");
        }
    }

    #[test]
    fn a_method_of_an_unnamed_class_answers_to_its_module() {
        let lang = crate::lang::detect("Card.js").unwrap();
        let source = "export default class extends BaseModel {\n  duplicate(id) {\n    return id;\n  }\n}\n\nclass Named {\n  duplicate() {}\n}\n";
        let symbols = analyze_source(lang, source).symbols;
        let method = |named: bool| {
            symbols
                .iter()
                .find(|s| s.name == "duplicate" && s.scope.is_some() == named)
                .expect("both methods")
        };
        let file = "client/src/models/Card.js";
        assert!(method(false).answers_to("Card", file));
        assert!(method(false).answers_to("models.Card", file));
        assert!(!method(false).answers_to("List", file));
        // A named container answers to its own name only, not to its file's.
        assert!(method(true).answers_to("Named", file));
        assert!(!method(true).answers_to("Card", file));
        assert_eq!(
            dotted("App\\Models\\Product::save"),
            "App.Models.Product.save"
        );
    }

    /// Renders symbols one per line: `kind name @line-end_line scope=… exported`.
    fn check(lang: &str, text: &str, expected: &str) {
        let result = analyze_source(by_id(lang).unwrap(), text);
        let actual: Vec<String> = result
            .symbols
            .iter()
            .map(|s| {
                format!(
                    "{} {} @{}-{}{}{}",
                    s.kind.as_str(),
                    s.name,
                    s.line,
                    s.end_line,
                    s.scope
                        .as_deref()
                        .map(|sc| format!(" in {sc}"))
                        .unwrap_or_default(),
                    if s.exported { " pub" } else { "" }
                )
            })
            .collect();
        let expected: Vec<&str> = expected.trim().lines().map(str::trim).collect();
        assert_eq!(actual, expected, "\nactual:\n{}", actual.join("\n"));
    }

    /// `class Admin::UsersController` is `UsersController` in `Admin`, inside what encloses it; its
    /// members are scoped by the whole name, so `UsersController.index` and
    /// `Admin::UsersController#index` both find them.
    #[test]
    fn ruby_compact_class_names() {
        check(
            "ruby",
            "module Shop\n  class Admin::UsersController\n    def index; end\n  end\nend\n",
            "
            module Shop @1-5 pub
            class UsersController @2-4 in Shop::Admin pub
            method index @3-3 in Shop::Admin::UsersController pub
            ",
        );
    }

    #[test]
    fn python() {
        check(
            "python",
            r#"
MAX_ATTEMPTS = 5
cache = {}

class AuthService(Base):
    realm = "shop"

    def login(self, email: str) -> str:
        def inner():
            return 1
        return inner()

async def _helper():
    pass
"#,
            "
            constant MAX_ATTEMPTS @2-2 pub
            variable cache @3-3 pub
            class AuthService @5-11 pub
            property realm @6-6 in AuthService pub
            method login @8-11 in AuthService pub
            function inner @9-10 in AuthService.login pub
            function _helper @13-14
            ",
        );
    }

    #[test]
    fn php_namespaces_give_fqcns() {
        let text = r#"<?php
namespace App\Models;

use Illuminate\Database\Eloquent\Model;

class Product extends Model
{
    protected $fillable = ['name'];
    const STATUS_ACTIVE = 'active';

    public function __construct(private readonly Pricing $pricing) {}

    private function slug(): string
    {
        return 'x';
    }
}
"#;
        check(
            "php",
            text,
            r"
            namespace App\Models @2-17 pub
            class Product @6-17 in App\Models pub
            property fillable @8-8 in App\Models\Product
            constant STATUS_ACTIVE @9-9 in App\Models\Product pub
            method __construct @11-11 in App\Models\Product pub
            property pricing @11-11 in App\Models\Product::__construct
            method slug @13-16 in App\Models\Product
            ",
        );
        let symbols = analyze_source(by_id("php").unwrap(), text).symbols;
        assert_eq!(symbols[1].qualified_name, r"App\Models\Product");
        assert_eq!(symbols[6].qualified_name, r"App\Models\Product::slug");
        assert_eq!(symbols[6].signature, "private function slug(): string");
    }

    #[test]
    fn typescript() {
        check(
            "typescript",
            r#"
export interface User { id: number }
export type Id = string;
export const useCart = () => {
  const total = 0;
  return total;
};
export default class ApiClient {
  private base = "/api";
  async get<T>(path: string): Promise<T> { return fetch(path) as any; }
}
enum Color { Red }
"#,
            "
            interface User @2-2 pub
            property id @2-2 in User
            type Id @3-3 pub
            function useCart @4-7 pub
            class ApiClient @8-11 pub
            property base @9-9 in ApiClient
            method get @10-10 in ApiClient
            enum Color @12-12
            ",
        );
    }

    /// A class field whose value is a function is a method, in TypeScript and in JavaScript.
    #[test]
    fn function_valued_class_fields_are_methods() {
        let source = r#"
class Store {
  count = 0;
  increment = () => { this.count += 1; };
  static load = async function (id) { return id; };
  #reset = () => {};
  render() { return null; }
}
"#;
        for lang in ["typescript", "javascript"] {
            check(
                lang,
                source,
                "
                class Store @2-8
                property count @3-3 in Store
                method increment @4-4 in Store
                method load @5-5 in Store
                method #reset @6-6 in Store
                method render @7-7 in Store
                ",
            );
        }
    }

    /// Functions an object literal holds are methods of the name it is bound to, also inside
    /// a module pattern's wrapping function; an object passed as an argument defines nothing.
    #[test]
    fn javascript_object_literal_methods() {
        check(
            "javascript",
            r#"
App.Dashboard = (function ($) {
  var Dashboard = {
    watch: function (id) { $(id).on("focus", Dashboard.update); },
    update: () => location.reload(),
  };
  $.ajax({ success: function (data) {} });
  return Dashboard;
})(jQuery);
const api = {
  fetchUser: async (id) => id,
  saveUser(user) { return user; },
  limit: 3,
};
module.exports = { helper: function () {} };
"#,
            "
            variable Dashboard @3-6
            method watch @4-4 in Dashboard
            method update @5-5 in Dashboard
            variable api @10-14
            method fetchUser @11-11 in api
            method saveUser @12-12 in api
            method helper @15-15
            ",
        );
    }

    /// A router or store made by a call and bound to a name: its procedures are its methods,
    /// whether written as functions or as a builder's call that takes one (tRPC's
    /// `.mutation(async () => …)`); a property that holds no function is none.
    #[test]
    fn typescript_procedures_of_a_bound_router() {
        check(
            "typescript",
            r#"
export const polls = router({
  make: publicProcedure.input(schema).mutation(async ({ ctx, input }) => {
    return ctx.db.poll.create({ data: input });
  }),
  list: async () => [],
  limit: 3,
  options: z.object({ id: z.string() }),
});
$.ajax({ success: function (data) {} });
"#,
            "
            variable polls @2-9 pub
            method make @3-5 in polls
            method list @6-6 in polls
            ",
        );
    }

    /// A constructor function's prototype members are its methods, its own properties its
    /// functions; a module's exports are no one's members.
    #[test]
    fn javascript_prototype_members() {
        check(
            "javascript",
            r#"
function Widget(el) { this.el = el; }
Widget.prototype.render = function () { return this.el; };
Widget.prototype = { show: function () {}, hide() {} };
Widget.create = (el) => new Widget(el);
exports.helper = () => 1;
module.exports.other = function () {};
"#,
            "
            function Widget @2-2
            method render @3-3 in Widget
            method show @4-4 in Widget
            method hide @4-4 in Widget
            function create @5-5 in Widget
            function helper @6-6
            function other @7-7
            ",
        );
    }

    #[test]
    fn go_rust_java() {
        check(
            "go",
            "package shop\n\ntype Cart struct {\n\tItems []Item\n}\n\nfunc (c *Cart) Total() int {\n\treturn 0\n}\n\nfunc helper() {}\n",
            "
            struct Cart @3-5 pub
            property Items @4-4 in Cart pub
            method Total @7-9 in Cart pub
            function helper @11-11
            ",
        );
        check(
            "rust",
            "pub struct Cart { items: Vec<u8> }\n\nimpl<T> Store<T> {\n    pub fn total(&self) -> u32 { 0 }\n}\n",
            "
            struct Cart @1-1 pub
            property items @1-1 in Cart
            method total @4-4 in Store pub
            ",
        );
        check(
            "java",
            "package com.example;\n\npublic class Stock {\n    private int count;\n    public int level() { return count; }\n}\n",
            "
            namespace com.example @1-6
            class Stock @3-6 in com.example pub
            property count @4-4 in com.example.Stock
            method level @5-5 in com.example.Stock pub
            ",
        );
    }

    /// The query run over the whole tree, as the anchored walk must reproduce it.
    fn by_whole_tree_query(
        lang: &'static LanguageDef,
        root: Node,
        text: &str,
        reach: Reach,
    ) -> Vec<Symbol> {
        let plan = TagsPlan::of(lang, syntax::tags_query(lang).unwrap());
        let mut cursor = QueryCursor::new();
        cursor.set_max_start_depth(reach.max_start_depth);
        let mut raws = Vec::new();
        collect_matches(lang, plan, &mut cursor, root, text, &mut raws);
        if !reach.inside_functions {
            drop_inside_functions(&mut raws);
        }
        finish(lang, raws, text)
    }

    /// Every file under `dir` (recursively) that a tree-sitter grammar with a tags query parses.
    fn parsed_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                parsed_files(&path, out);
            } else if let Some(lang) = crate::lang::detect(&path.to_string_lossy())
                && matches!(lang.parsing, crate::lang::Parsing::Grammar(_))
                && syntax::tags_query(lang).is_some()
            {
                out.push(path);
            }
        }
    }

    /// The anchored walk finds exactly what the tags query run over the whole tree finds, with
    /// and without a depth limit, on every fixture file (and on the files under
    /// `$SYMBOLS_CHECK_DIR`, for a large project).
    #[test]
    fn the_walk_finds_what_the_whole_tree_query_finds() {
        let mut files = Vec::new();
        parsed_files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
            &mut files,
        );
        let fixtures = files.len();
        if let Some(dir) = std::env::var_os("SYMBOLS_CHECK_DIR") {
            parsed_files(std::path::Path::new(&dir), &mut files);
        }
        let mut languages = std::collections::BTreeSet::new();
        let mut symbols = 0;
        for path in &files {
            let lang = crate::lang::detect(&path.to_string_lossy()).unwrap();
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let parsed = syntax::parse(lang, &text);
            let root = parsed.tree.as_ref().unwrap().root_node();
            for max_start_depth in [None, Some(0), Some(1), Some(3), Some(9)] {
                for inside_functions in [true, false] {
                    let reach = Reach {
                        max_start_depth,
                        inside_functions,
                    };
                    let expected = by_whole_tree_query(lang, root, &text, reach);
                    let actual = symbols_in_tree(lang, root, &text, reach);
                    assert_eq!(actual, expected, "{} with {reach:?}", path.display());
                    symbols += actual.len();
                }
            }
            languages.insert(lang.id);
        }
        assert!(
            fixtures > 50 && symbols > 500,
            "{fixtures} files, {symbols} symbols"
        );
        // Every language with a tags query takes the walk, not the whole-tree fallback.
        for lang in crate::lang::LANGUAGES {
            if let (Some(query), crate::lang::Parsing::Grammar(_)) =
                (syntax::tags_query(lang), lang.parsing)
            {
                assert!(TagsPlan::of(lang, query).roots.is_some(), "{}", lang.id);
            }
        }
        assert!(languages.len() >= 8, "{languages:?}");
    }

    /// PHP statements with no declaring keyword are stepped over; guarded functions and
    /// anonymous classes' methods, whose statements have one, are still found.
    #[test]
    fn php_statements_without_a_declaring_keyword_hide_nothing() {
        let lang = crate::lang::detect("helpers.php").unwrap();
        let text = "<?php\n$table = ['aa' => 'Afar', 'ab' => ['x' => 1]];\nif (!function_exists('money')) {\n    function money(int $cents): string { return ''; }\n}\nreturn ['names' => $table, 'handler' => new class { public function handle() {} }];\n";
        let parsed = syntax::parse(lang, text);
        let root = parsed.tree.as_ref().unwrap().root_node();
        let found = symbols_in_tree(lang, root, text, Reach::ALL);
        assert_eq!(found, by_whole_tree_query(lang, root, text, Reach::ALL));
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["money", "handle"]);
    }

    #[test]
    fn definitions_inside_functions_can_be_left_out() {
        let lang = crate::lang::detect("shop.py").unwrap();
        let text = "class Cart:\n    def total(self):\n        def price(item):\n            return item.price\n        return sum(map(price, self.items))\n\n\ndef checkout(cart):\n    class Receipt:\n        pass\n    return Receipt()\n";
        let parsed = syntax::parse(lang, text);
        let root = parsed.tree.as_ref().unwrap().root_node();
        let names = |inside_functions| -> Vec<String> {
            let reach = Reach {
                max_start_depth: None,
                inside_functions,
            };
            symbols_in_tree(lang, root, text, reach)
                .into_iter()
                .map(|s| s.name)
                .collect()
        };
        assert_eq!(
            names(true),
            ["Cart", "total", "price", "checkout", "Receipt"]
        );
        assert_eq!(names(false), ["Cart", "total", "checkout"]);
    }

    #[test]
    fn syntax_errors_still_give_the_symbols_around_them() {
        let result = analyze_source(
            by_id("python").unwrap(),
            "def ok():\n    return 1\n\ndef broken(:\n    pass\n\ndef after():\n    return 2\n",
        );
        assert!(!result.errors.is_empty());
        let names: Vec<&str> = result.symbols.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"ok") && names.contains(&"after"),
            "{names:?}"
        );
    }
}
