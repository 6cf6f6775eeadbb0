//! What a file imports, and turning the names a chunk uses into fully qualified ones.
//!
//! Seed 004 §1.4 and §1.14: `LoginController` alone is ambiguous, and "what does this depend on"
//! needs `App\Services\OrderService`, not `OrderService`. Each language's import statements give
//! a local-name → full-name map; [`Imports::resolve`] applies the language's lookup rule (PHP:
//! imports, then the current namespace; Python/TypeScript/Rust: imports, then this file's own
//! top-level names; Java/Go: imports, then the current package).

use crate::lang::LanguageDef;
use crate::syntax::{self, KindNames, node_text};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::LazyLock;
use tree_sitter::Node;

pub(crate) struct Imports {
    lang: &'static str,
    kinds: &'static KindNames,
    /// Full names, in source order, without duplicates.
    pub list: Vec<String>,
    map: HashMap<String, String>,
    /// PHP namespace, Java/Go package, Python dotted module, TS file module, Rust module path.
    pub namespace: Option<String>,
    locals: HashSet<String>,
}

/// PHP names that are not classes.
const PHP_BUILTIN_TYPES: &[&str] = &[
    "self", "static", "parent", "string", "int", "float", "bool", "array", "mixed", "void", "null",
    "callable", "iterable", "object", "never", "false", "true", "integer", "double", "boolean",
];

/// Python annotations that are not project types.
const PYTHON_BUILTIN_TYPES: &[&str] = &[
    "str",
    "int",
    "float",
    "bool",
    "bytes",
    "dict",
    "list",
    "set",
    "tuple",
    "frozenset",
    "object",
    "None",
    "Any",
    "Optional",
    "Union",
    "List",
    "Dict",
    "Set",
    "Tuple",
    "Callable",
    "Iterable",
    "Iterator",
    "Sequence",
    "Mapping",
    "Type",
    "self",
    "cls",
    "type",
];

/// TypeScript/JavaScript names that are never project symbols.
const TS_BUILTIN_TYPES: &[&str] = &[
    "string",
    "number",
    "boolean",
    "any",
    "unknown",
    "never",
    "void",
    "object",
    "undefined",
    "null",
    "Promise",
    "Array",
    "Record",
    "Partial",
    "Readonly",
    "Pick",
    "Omit",
    "Map",
    "Set",
    "Date",
    "Error",
    "RegExp",
    "JSX",
    "React",
];

/// `java.lang` types used without an import.
const JAVA_LANG_TYPES: &[&str] = &[
    "String",
    "Object",
    "Integer",
    "Long",
    "Double",
    "Float",
    "Short",
    "Byte",
    "Character",
    "Boolean",
    "Number",
    "Void",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "IllegalArgumentException",
    "IllegalStateException",
    "Override",
    "Math",
    "System",
    "StringBuilder",
    "Iterable",
    "Comparable",
    "Runnable",
    "Class",
    "Enum",
    "Record",
    "Deprecated",
    "FunctionalInterface",
    "SuppressWarnings",
    "Thread",
    "UnsupportedOperationException",
    "NullPointerException",
    "IndexOutOfBoundsException",
];

impl Imports {
    /// Reads the import statements at the top level of `root` (and inside PHP namespaces).
    /// `locals` are the file's own top-level type and function names.
    pub fn read(
        language: &'static LanguageDef,
        root: Node,
        text: &str,
        file: &str,
        locals: &[String],
    ) -> Imports {
        let lang = language.id;
        let mut imports = Imports {
            lang,
            kinds: syntax::kind_names(language),
            list: Vec::new(),
            map: HashMap::new(),
            namespace: None,
            locals: locals.iter().cloned().collect(),
        };
        match lang {
            "python" => imports.namespace = Some(python_module(file)),
            "typescript" | "tsx" | "javascript" => {
                imports.namespace = Some(strip_ext(file).to_string())
            }
            "rust" => imports.namespace = Some(rust_module(file)),
            _ => {}
        }
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                imports.statement(child, text, file);
                // PHP `namespace X { … }` blocks nest their statements.
                if child.kind() == "namespace_definition"
                    && let Some(body) = child.child_by_field_name("body")
                {
                    stack.push(body);
                }
            }
        }
        imports
    }

    fn add(&mut self, local: &str, full: String) {
        let local = local.trim();
        if local.is_empty() || full.is_empty() {
            return;
        }
        if !self.list.contains(&full) {
            self.list.push(full.clone());
        }
        self.map.insert(local.to_string(), full);
    }

    fn statement(&mut self, node: Node, text: &str, file: &str) {
        let src = node_text(node, text);
        match (self.lang, node.kind()) {
            ("php", "namespace_definition") => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.namespace = Some(node_text(name, text).to_string());
                }
            }
            ("php", "namespace_use_declaration") => self.php_use(src),
            ("python", "import_statement") => {
                for part in src.trim_start_matches("import").split(',') {
                    let (full, alias) = split_alias(part);
                    let local = alias.unwrap_or_else(|| full.split('.').next().unwrap_or(full));
                    let full_name = if alias.is_some() { full } else { local };
                    self.add(local, full_name.to_string());
                }
            }
            ("python", "import_from_statement") => {
                let Some(rest) = src.strip_prefix("from") else {
                    return;
                };
                let Some((module, names)) = rest.split_once(" import ") else {
                    return;
                };
                let module = resolve_python_relative(module.trim(), file);
                let names = names.trim().trim_start_matches('(').trim_end_matches(')');
                for part in names.split(',') {
                    let (name, alias) = split_alias(part);
                    if name.is_empty() || name == "*" {
                        continue;
                    }
                    let full = if module.is_empty() {
                        name.to_string()
                    } else {
                        format!("{module}.{name}")
                    };
                    self.add(alias.unwrap_or(name), full);
                }
            }
            ("typescript" | "tsx" | "javascript", "import_statement") => {
                self.ts_import(node, text, file)
            }
            ("go", "package_clause") => {
                let mut cursor = node.walk();
                if let Some(name) = node.named_children(&mut cursor).next() {
                    self.namespace = Some(node_text(name, text).to_string());
                }
            }
            ("go", "import_declaration") => {
                let mut specs = Vec::new();
                collect_kind(node, "import_spec", &mut specs);
                for spec in specs {
                    let Some(path) = spec.child_by_field_name("path") else {
                        continue;
                    };
                    let path = node_text(path, text).trim_matches(['"', '`']).to_string();
                    let local = match spec.child_by_field_name("name") {
                        Some(name) => node_text(name, text).to_string(),
                        None => path.rsplit('/').next().unwrap_or(&path).to_string(),
                    };
                    if local != "_" && local != "." {
                        self.add(&local, path);
                    }
                }
            }
            ("java", "package_declaration") => {
                let name = src
                    .trim_start_matches("package")
                    .trim()
                    .trim_end_matches(';')
                    .trim();
                self.namespace = Some(name.to_string());
            }
            ("java", "import_declaration") => {
                let name = src
                    .trim_start_matches("import")
                    .trim()
                    .trim_end_matches(';')
                    .trim();
                if name.starts_with("static ") || name.ends_with(".*") {
                    return;
                }
                let local = name.rsplit('.').next().unwrap_or(name);
                self.add(local, name.to_string());
            }
            ("rust", "use_declaration") => {
                let body = src
                    .trim_start_matches("pub")
                    .trim_start()
                    .trim_start_matches("use")
                    .trim()
                    .trim_end_matches(';');
                for (local, full) in rust_use_paths(body) {
                    self.add(&local, full);
                }
            }
            _ => {}
        }
    }

    fn php_use(&mut self, src: &str) {
        let body = src
            .trim()
            .trim_start_matches("use")
            .trim()
            .trim_end_matches(';')
            .trim();
        if body.starts_with("function ") || body.starts_with("const ") {
            return;
        }
        let (prefix, items): (&str, Vec<&str>) = match body.split_once('{') {
            Some((prefix, rest)) => (
                prefix.trim().trim_end_matches('\\'),
                rest.trim_end_matches('}').split(',').collect(),
            ),
            None => ("", body.split(',').collect()),
        };
        for item in items {
            let (name, alias) = split_alias(item);
            let name = name.trim_start_matches('\\');
            if name.is_empty() {
                continue;
            }
            let full = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{}\\{name}", prefix.trim_start_matches('\\'))
            };
            let local = alias.unwrap_or_else(|| full.rsplit('\\').next().unwrap_or(&full));
            let local = local.to_string();
            self.add(&local, full);
        }
    }

    fn ts_import(&mut self, node: Node, text: &str, file: &str) {
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let spec = node_text(source, text).trim_matches(['"', '\'', '`']);
        let module = resolve_ts_module(spec, file);
        let mut cursor = node.walk();
        let Some(clause) = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "import_clause")
        else {
            return;
        };
        let mut cursor = clause.walk();
        for part in clause.named_children(&mut cursor) {
            match part.kind() {
                "identifier" => {
                    let local = node_text(part, text);
                    self.add(local, format!("{module}#default"));
                }
                "namespace_import" => {
                    let mut c = part.walk();
                    if let Some(id) = part
                        .named_children(&mut c)
                        .find(|n| n.kind() == "identifier")
                    {
                        self.add(node_text(id, text), format!("{module}#*"));
                    }
                }
                "named_imports" => {
                    let mut c = part.walk();
                    for spec in part.named_children(&mut c) {
                        let Some(name) = spec.child_by_field_name("name") else {
                            continue;
                        };
                        let name = node_text(name, text);
                        let local = spec
                            .child_by_field_name("alias")
                            .map_or(name, |a| node_text(a, text));
                        self.add(local, format!("{module}#{name}"));
                    }
                }
                _ => {}
            }
        }
    }

    /// The full name of a name as written in this file, or `None` when it is a builtin, a
    /// type parameter or otherwise not something this file can place.
    pub fn resolve(&self, raw: &str) -> Option<String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return None;
        }
        match self.lang {
            "php" => {
                if let Some(absolute) = raw.strip_prefix('\\') {
                    return Some(absolute.to_string());
                }
                if PHP_BUILTIN_TYPES.contains(&raw.to_ascii_lowercase().as_str()) {
                    return None;
                }
                let (first, rest) = match raw.split_once('\\') {
                    Some((f, r)) => (f, Some(r)),
                    None => (raw, None),
                };
                if let Some(full) = self.map.get(first) {
                    return Some(match rest {
                        Some(rest) => format!("{full}\\{rest}"),
                        None => full.clone(),
                    });
                }
                Some(match &self.namespace {
                    Some(ns) => format!("{ns}\\{raw}"),
                    None => raw.to_string(),
                })
            }
            "python" | "typescript" | "tsx" | "javascript" | "rust" => {
                let separator = match self.lang {
                    "rust" => "::",
                    _ => ".",
                };
                let (first, rest) = match raw.split_once(separator) {
                    Some((f, r)) => (f, Some(r)),
                    None => (raw, None),
                };
                let builtins: &[&str] = match self.lang {
                    "python" => PYTHON_BUILTIN_TYPES,
                    "rust" => &[
                        "Self", "self", "crate", "super", "String", "Vec", "Option", "Result",
                        "Box",
                    ],
                    _ => TS_BUILTIN_TYPES,
                };
                if builtins.contains(&first) {
                    return None;
                }
                let base = if let Some(full) = self.map.get(first) {
                    full.clone()
                } else if self.locals.contains(first) {
                    let module = self.namespace.as_deref().unwrap_or("");
                    match self.lang {
                        "python" => format!("{module}.{first}"),
                        "rust" => format!("{module}::{first}"),
                        _ => format!("{module}#{first}"),
                    }
                } else {
                    return None;
                };
                Some(match rest {
                    Some(rest) => format!("{base}{separator}{rest}"),
                    None => base,
                })
            }
            "java" => {
                if JAVA_LANG_TYPES.contains(&raw) || raw.len() == 1 {
                    return None;
                }
                let first = raw.split('.').next().unwrap_or(raw);
                if let Some(full) = self.map.get(first) {
                    return Some(format!("{full}{}", &raw[first.len()..]));
                }
                if raw.contains('.') {
                    return Some(raw.to_string());
                }
                Some(match &self.namespace {
                    Some(pkg) => format!("{pkg}.{raw}"),
                    None => raw.to_string(),
                })
            }
            "go" => {
                if let Some((pkg, name)) = raw.split_once('.') {
                    return self.map.get(pkg).map(|path| format!("{path}.{name}"));
                }
                if self.locals.contains(raw) {
                    return Some(match &self.namespace {
                        Some(pkg) => format!("{pkg}.{raw}"),
                        None => raw.to_string(),
                    });
                }
                None
            }
            _ => None,
        }
    }

    /// Resolved names of the symbols `node` refers to (types, classes instantiated or called
    /// statically, imported functions called, JSX components), skipping byte ranges that other
    /// chunks cover, in order of first use.
    pub fn references(&self, node: Node, text: &str, skip: &SkipRanges) -> Vec<String> {
        let mut raw = Vec::new();
        collect_refs(self.lang, self.kinds, node, text, skip, &mut raw);
        let mut out: Vec<String> = Vec::new();
        for name in raw {
            if let Some(full) = self.resolve(&name)
                && !out.contains(&full)
            {
                out.push(full);
            }
        }
        out
    }
}

/// The node being visited with its parent and grandparent kinds: tree-sitter's `parent()`
/// walks down from the root each time, far too slow to call for every node of a file.
struct Visit<'t> {
    node: Node<'t>,
    kind: &'t str,
    parent: Option<Node<'t>>,
    grandparent: Option<Node<'t>>,
}

/// Named nodes whose subtrees never hold a reference: comments, literals that cannot
/// interpolate code, and PHP's `$variable` (whose `name` is never a class). The walk steps over
/// every node it enters, so not entering these saves a large share of it (PHP code is mostly
/// variables and strings).
fn opaque(lang: &str, kind: &str) -> bool {
    match lang {
        "php" => matches!(
            kind,
            "variable_name" | "string" | "comment" | "integer" | "float" | "boolean" | "null"
        ),
        "python" => matches!(kind, "comment" | "integer" | "float"),
        "typescript" | "tsx" | "javascript" => {
            matches!(kind, "string" | "comment" | "number" | "regex")
        }
        "java" => matches!(
            kind,
            "string_literal"
                | "line_comment"
                | "block_comment"
                | "decimal_integer_literal"
                | "character_literal"
        ),
        "go" => matches!(
            kind,
            "interpreted_string_literal" | "raw_string_literal" | "comment" | "int_literal"
        ),
        "rust" => matches!(
            kind,
            "string_literal" | "raw_string_literal" | "line_comment" | "block_comment"
        ),
        _ => false,
    }
}

/// Whether a PHP statement's text can hold a reference at all. Inside a function body, every
/// rule above needs one of these in the text: `new` (instantiation, anonymous classes), `::`
/// (static calls and constants), `instanceof`, `\\` (qualified names), `catch`, `function` or
/// `fn` (closure parameter and return types). Most statements have none, and a byte search is
/// far cheaper than stepping through their nodes; a false alarm (`renew`, a string) only costs
/// the walk.
fn php_may_refer(node: Node, text: &str) -> bool {
    use memchr::memmem::Finder;
    static NEEDLES: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| {
        ["::", "new", "instanceof", "catch", "fn", "function"]
            .into_iter()
            .map(Finder::new)
            .collect()
    });
    let code = &text.as_bytes()[node.start_byte()..node.end_byte()];
    memchr::memchr(b'\\', code).is_some() || NEEDLES.iter().any(|n| n.find(code).is_some())
}

/// Byte ranges whose nodes a reference walk leaves out, sorted and merged so that asking
/// whether a node lies inside one is a binary search (the walk asks for every node, and a large
/// class skips one body per method).
#[derive(Debug, Default)]
pub struct SkipRanges(Vec<Range<usize>>);

impl SkipRanges {
    pub fn new(mut ranges: Vec<Range<usize>>) -> SkipRanges {
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                // Syntax ranges nest or are disjoint; merging the nested keeps a node inside
                // an outer body found even when an inner body starts after the outer one.
                Some(last) if r.start < last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        SkipRanges(merged)
    }

    fn covers(&self, start: usize, end: usize) -> bool {
        let i = self.0.partition_point(|r| r.start <= start);
        i > 0 && end <= self.0[i - 1].end
    }
}

/// Walks `node`'s subtree with one cursor (a cursor per node cost an allocation each), keeping
/// the path of ancestors for the parent and grandparent kinds the rules look at.
fn collect_refs(
    lang: &str,
    kinds: &KindNames,
    node: Node,
    text: &str,
    skip: &SkipRanges,
    out: &mut Vec<String>,
) {
    let outer_parent = node.parent();
    let outer_grandparent = outer_parent.and_then(|p| p.parent());
    let mut cursor = node.walk();
    // Ancestors of the cursor's node inside the walk, `node` first.
    let mut path: Vec<Node> = Vec::new();
    loop {
        let current = cursor.node();
        // Every reference is a named node; anonymous ones (punctuation, keywords) are about
        // half of a tree and only need stepping over.
        let descend = match kinds.named(current) {
            None => true,
            Some(kind) => {
                let parent = path.last().copied().or(outer_parent);
                let grandparent = match path.len() {
                    0 => outer_grandparent,
                    1 => outer_parent,
                    n => Some(path[n - 2]),
                };
                let visit = Visit {
                    node: current,
                    kind,
                    parent,
                    grandparent,
                };
                visit_ref(lang, kinds, visit, text, skip, out)
            }
        };
        if descend && cursor.goto_first_child() {
            path.push(current);
            continue;
        }
        // Next sibling, or up until there is one; never past `node` itself.
        loop {
            if path.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            path.pop();
        }
    }
}

/// Records the reference `visit.node` makes, if any; returns whether its children may hold
/// more (a skipped range or a whole qualified name does not).
fn visit_ref(
    lang: &str,
    kinds: &KindNames,
    visit: Visit,
    text: &str,
    skip: &SkipRanges,
    out: &mut Vec<String>,
) -> bool {
    let Visit {
        node,
        kind,
        parent,
        grandparent,
    } = visit;
    if opaque(lang, kind)
        || skip.covers(node.start_byte(), node.end_byte())
        || (lang == "php" && kind.ends_with("_statement") && !php_may_refer(node, text))
    {
        return false;
    }
    // Kinds are looked up only where a rule needs them: this runs for every named node.
    let parent_kind = || kinds.of(parent);
    let take = match lang {
        "php" => match kind {
            "named_type" | "qualified_name" => true,
            "name" => match parent_kind() {
                "base_clause"
                | "class_interface_clause"
                | "object_creation_expression"
                | "use_declaration" => true,
                "scoped_call_expression" | "class_constant_access_expression" => {
                    parent.and_then(|p| p.named_child(0)).map(|n| n.id()) == Some(node.id())
                }
                "binary_expression" => parent
                    .and_then(|p| p.child_by_field_name("operator"))
                    .is_some_and(|op| op.kind() == "instanceof"),
                _ => false,
            },
            _ => false,
        },
        "python" => match kind {
            "identifier" | "attribute" => {
                matches!(parent_kind(), "type" | "generic_type" | "argument_list")
                    && (parent_kind() != "argument_list"
                        || kinds.of(grandparent) == "class_definition")
                    || (parent_kind() == "call"
                        && parent
                            .and_then(|p| p.child_by_field_name("function"))
                            .map(|f| f.id())
                            == Some(node.id()))
                    || parent_kind() == "decorator"
            }
            _ => false,
        },
        "typescript" | "tsx" | "javascript" => match kind {
            "type_identifier" => parent_kind() != "type_parameter",
            "nested_type_identifier" => true,
            "identifier" | "member_expression" => {
                matches!(
                    parent_kind(),
                    "new_expression"
                        | "extends_clause"
                        | "jsx_opening_element"
                        | "jsx_self_closing_element"
                ) || (parent_kind() == "call_expression"
                    && parent
                        .and_then(|p| p.child_by_field_name("function"))
                        .map(|f| f.id())
                        == Some(node.id()))
            }
            _ => false,
        },
        "java" => matches!(kind, "type_identifier" | "scoped_type_identifier"),
        "go" => match kind {
            "qualified_type" => true,
            "type_identifier" => parent_kind() != "qualified_type" && parent_kind() != "type_spec",
            _ => false,
        },
        "rust" => match kind {
            "type_identifier" => !matches!(
                parent_kind(),
                "scoped_type_identifier"
                    | "struct_item"
                    | "enum_item"
                    | "type_parameter"
                    | "trait_item"
            ),
            "scoped_type_identifier" => true,
            "scoped_identifier" => parent_kind() == "call_expression",
            _ => false,
        },
        _ => false,
    };
    if take {
        let mut name = node_text(node, text).trim();
        if lang == "php" {
            name = name.trim_start_matches('?');
        }
        if lang == "rust" && kind == "scoped_identifier" {
            // `Money::new(…)`: the type is the path without the function.
            name = name.rsplit_once("::").map_or(name, |(path, _)| path);
        }
        if !name.is_empty() && !name.contains(['(', '<', ' ', '[']) {
            out.push(name.to_string());
        }
        if matches!(
            kind,
            "named_type"
                | "qualified_name"
                | "qualified_type"
                | "nested_type_identifier"
                | "scoped_type_identifier"
        ) {
            return false;
        }
    }
    true
}

fn split_alias(part: &str) -> (&str, Option<&str>) {
    let part = part.trim();
    match part.split_once(" as ") {
        Some((name, alias)) => (name.trim(), Some(alias.trim())),
        None => (part, None),
    }
}

fn collect_kind<'t>(node: Node<'t>, kind: &str, out: &mut Vec<Node<'t>>) {
    if node.kind() == kind {
        out.push(node);
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_kind(child, kind, out);
    }
}

fn strip_ext(file: &str) -> &str {
    let name_start = file.rfind('/').map_or(0, |i| i + 1);
    match file[name_start..].find('.') {
        Some(dot) => &file[..name_start + dot],
        None => file,
    }
}

/// `src/orderly/auth/service.py` → `orderly.auth.service` (a leading `src/` or `lib/` is the
/// layout, not the package).
pub(crate) fn python_module(file: &str) -> String {
    let path = strip_ext(file);
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 1 && matches!(parts[0], "src" | "lib") {
        parts.remove(0);
    }
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    parts.join(".")
}

/// `from ..db import x` inside `orderly/auth/service.py` → `orderly.db`.
fn resolve_python_relative(module: &str, file: &str) -> String {
    let dots = module.len() - module.trim_start_matches('.').len();
    if dots == 0 {
        return module.to_string();
    }
    let rest = &module[dots..];
    let current = python_module(file);
    let mut parts: Vec<&str> = current.split('.').filter(|p| !p.is_empty()).collect();
    // The module itself is not a package (unless it is an `__init__`).
    if !file.ends_with("__init__.py") {
        parts.pop();
    }
    for _ in 1..dots {
        parts.pop();
    }
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

/// Relative specifiers become workspace paths without extension; packages stay as written.
fn resolve_ts_module(spec: &str, file: &str) -> String {
    if !spec.starts_with('.') {
        return spec.to_string();
    }
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for segment in spec.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    strip_ext(&parts.join("/")).to_string()
}

/// `src/ledger.rs` → `crate::ledger`; `lib.rs`, `main.rs` and `mod.rs` name their directory.
fn rust_module(file: &str) -> String {
    let path = strip_ext(file);
    let mut parts: Vec<&str> = path.split('/').collect();
    if let Some(pos) = parts.iter().position(|p| *p == "src") {
        parts.drain(..=pos);
    }
    if matches!(parts.last(), Some(&"lib" | &"main" | &"mod")) {
        parts.pop();
    }
    std::iter::once("crate")
        .chain(parts)
        .collect::<Vec<_>>()
        .join("::")
}

/// `std::collections::{HashMap, BTreeMap as B}` → `[(HashMap, std::collections::HashMap), …]`.
fn rust_use_paths(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    match body.split_once('{') {
        Some((prefix, rest)) => {
            let prefix = prefix.trim().trim_end_matches("::");
            for item in rest.trim_end_matches('}').split(',') {
                let (path, alias) = split_alias(item);
                if path.is_empty() || path.contains('{') {
                    continue;
                }
                let full = if path == "self" {
                    prefix.to_string()
                } else {
                    format!("{prefix}::{path}")
                };
                let local = alias.unwrap_or_else(|| full.rsplit("::").next().unwrap_or(&full));
                out.push((local.to_string(), full.clone()));
            }
        }
        None => {
            let (path, alias) = split_alias(body);
            if !path.ends_with('*') {
                let local = alias.unwrap_or_else(|| path.rsplit("::").next().unwrap_or(path));
                out.push((local.to_string(), path.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::by_id;

    fn imports(lang: &str, file: &str, text: &str) -> Imports {
        let language = by_id(lang).unwrap();
        let parsed = crate::syntax::parse(language, text);
        let tree = parsed.tree.unwrap();
        Imports::read(
            language,
            tree.root_node(),
            text,
            file,
            &["Local".to_string()],
        )
    }

    #[test]
    fn php_uses_groups_aliases_and_namespace_fallback() {
        let i = imports(
            "php",
            "app/Http/A.php",
            "<?php\nnamespace App\\Http;\nuse App\\Models\\{Product, Category as Cat};\nuse Illuminate\\Support\\Str;\n",
        );
        assert_eq!(
            i.list,
            vec![
                "App\\Models\\Product",
                "App\\Models\\Category",
                "Illuminate\\Support\\Str"
            ]
        );
        assert_eq!(i.resolve("Cat").unwrap(), "App\\Models\\Category");
        assert_eq!(i.resolve("Str").unwrap(), "Illuminate\\Support\\Str");
        assert_eq!(i.resolve("Helper").unwrap(), "App\\Http\\Helper");
        assert_eq!(i.resolve("\\Exception").unwrap(), "Exception");
        assert_eq!(i.resolve("string"), None);
    }

    #[test]
    fn python_relative_and_aliased_imports() {
        let i = imports(
            "python",
            "src/orderly/auth/service.py",
            "import os.path as osp, json\nfrom ..db.repository import (UserRepository, OrderRepo as OR)\nfrom . import tokens\n",
        );
        assert_eq!(i.resolve("OR").unwrap(), "orderly.db.repository.OrderRepo");
        assert_eq!(
            i.resolve("UserRepository").unwrap(),
            "orderly.db.repository.UserRepository"
        );
        assert_eq!(
            i.resolve("tokens.decode").unwrap(),
            "orderly.auth.tokens.decode"
        );
        assert_eq!(i.resolve("osp.join").unwrap(), "os.path.join");
        assert_eq!(i.resolve("Local").unwrap(), "orderly.auth.service.Local");
        assert_eq!(i.resolve("str"), None);
    }

    #[test]
    fn typescript_imports_resolve_to_workspace_paths() {
        let i = imports(
            "tsx",
            "src/hooks/useAuth.ts",
            "import React, { useState as useS } from 'react';\nimport * as api from '../services/api';\n",
        );
        assert_eq!(i.resolve("useS").unwrap(), "react#useState");
        assert_eq!(i.resolve("api").unwrap(), "src/services/api#*");
        assert_eq!(i.resolve("Local").unwrap(), "src/hooks/useAuth#Local");
        assert_eq!(i.resolve("string"), None);
    }

    #[test]
    fn go_java_rust() {
        let g = imports(
            "go",
            "go/internal/quote/quote.go",
            "package quote\n\nimport (\n\t\"fmt\"\n\tr \"github.com/x/shipping/internal/rates\"\n)\n",
        );
        assert_eq!(
            g.resolve("r.Table").unwrap(),
            "github.com/x/shipping/internal/rates.Table"
        );
        assert_eq!(g.resolve("Local").unwrap(), "quote.Local");
        let j = imports(
            "java",
            "A.java",
            "package com.example;\nimport java.util.List;\nclass A {}\n",
        );
        assert_eq!(j.resolve("List").unwrap(), "java.util.List");
        assert_eq!(j.resolve("Item").unwrap(), "com.example.Item");
        assert_eq!(j.resolve("String"), None);
        let r = imports(
            "rust",
            "src/report.rs",
            "use crate::money::{Money, Currency as C};\nuse std::fmt;\n",
        );
        assert_eq!(r.resolve("C").unwrap(), "crate::money::Currency");
        assert_eq!(r.resolve("fmt::Display").unwrap(), "std::fmt::Display");
        assert_eq!(r.resolve("Local").unwrap(), "crate::report::Local");
    }

    /// Every kind of reference a PHP method body can hold is found, although statements with
    /// none of the telltale keywords and literals are stepped over.
    #[test]
    fn php_body_references_survive_the_statement_filter() {
        let text = "<?php\nnamespace App;\nuse App\\Models\\Order;\nclass Checkout {\n    public function run($x) {\n        $label = 'new Ghost';\n        $total = $x->sum() + 1;\n        $order = new Order();\n        Cart::clear();\n        $code = Status::PAID;\n        if ($x instanceof Invoice) { return; }\n        \\Psr\\Log\\Logger::log($total);\n        try { $order->save(); } catch (PaymentFailed $e) {}\n        $f = fn(Coupon $c): Discount => $c->apply();\n        return $label;\n    }\n}\n";
        let language = by_id("php").unwrap();
        let parsed = crate::syntax::parse(language, text);
        let root = parsed.tree.as_ref().unwrap().root_node();
        let imports = Imports::read(language, root, text, "app/Checkout.php", &[]);
        let mut method = root;
        while method.kind() != "method_declaration" {
            let mut cursor = method.walk();
            method = method
                .named_children(&mut cursor)
                .find(|c| {
                    c.start_byte() <= text.find("public").unwrap()
                        && text.find("public").unwrap() < c.end_byte()
                })
                .unwrap();
        }
        let refs = imports.references(method, text, &SkipRanges::default());
        assert_eq!(
            refs,
            [
                "App\\Models\\Order",
                "App\\Cart",
                "App\\Status",
                "App\\Invoice",
                "Psr\\Log\\Logger",
                "App\\PaymentFailed",
                "App\\Coupon",
                "App\\Discount",
            ]
        );
    }

    #[test]
    fn skip_ranges_cover_nested_and_disjoint_bodies() {
        // An outer body 10..100 holding an inner one 20..30, and a disjoint 200..250.
        let skip = SkipRanges::new(vec![200..250, 20..30, 10..100]);
        assert!(
            skip.covers(40, 60),
            "inside the outer body, after the inner one"
        );
        assert!(skip.covers(20, 30));
        assert!(skip.covers(210, 250));
        assert!(!skip.covers(5, 15), "starts before any body");
        assert!(!skip.covers(90, 110), "runs past the outer body");
        assert!(!skip.covers(150, 160), "between bodies");
        assert!(!SkipRanges::default().covers(0, 1));
    }
}
