//! Name binding: how a language's import statements bind the names a file uses to full names,
//! and which nodes of its grammar refer to other code (seed 004 §1.4 and §1.14: `OrderService`
//! alone is ambiguous; `App\Services\OrderService` is not). Each language with such rules gives
//! its [`NameRules`] (`<id>/names.rs`); `chunk::imports` drives them over a file.
//!
//! A language reads its import statements once, in its outline (`<id>/outline.rs`): the outline
//! walks that reader over the whole file for `analyze_file` and the import graph, and the
//! binding rules call it on the top-level statements and turn each [`Import`] into bindings.
//!
//! [`Import`]: crate::lang::outline::Import

use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What a file's imports bound, and what it defines itself.
#[derive(Debug, Default)]
pub struct Bindings {
    /// Full names, in source order, without duplicates.
    pub list: Vec<String>,
    /// Local name → full name.
    pub map: HashMap<String, String>,
    /// PHP namespace, Java/Go package, Python dotted module, TS file module, Rust module path.
    pub namespace: Option<String>,
    /// The file's own top-level type and function names.
    pub locals: HashSet<String>,
}

impl Bindings {
    /// Binds `local` to `full` (the later binding of a name wins, as in the languages).
    pub fn add(&mut self, local: &str, full: String) {
        let local = local.trim();
        if local.is_empty() || full.is_empty() {
            return;
        }
        if !self.list.contains(&full) {
            self.list.push(full.clone());
        }
        self.map.insert(local.to_string(), full);
    }
}

/// A named node met by the reference walk, with its parent and grandparent (tree-sitter's
/// `parent()` walks down from the root each time, far too slow for every node of a file).
pub struct Visit<'t, 'k> {
    pub node: Node<'t>,
    pub kind: &'t str,
    pub parent: Option<Node<'t>>,
    pub grandparent: Option<Node<'t>>,
    /// A node's kind through the grammar's kind table (cheaper than asking the node).
    pub kind_of: &'k dyn Fn(Option<Node<'t>>) -> &'t str,
}

impl<'t> Visit<'t, '_> {
    pub fn parent_kind(&self) -> &'t str {
        (self.kind_of)(self.parent)
    }

    pub fn grandparent_kind(&self) -> &'t str {
        (self.kind_of)(self.grandparent)
    }

    /// Whether this node is its parent's `field` child (`function` of a call, say).
    pub fn is_parent_field(&self, field: &str) -> bool {
        self.parent
            .and_then(|p| p.child_by_field_name(field))
            .map(|f| f.id())
            == Some(self.node.id())
    }
}

/// A reference a node makes: the name as written, and whether it is a whole qualified name
/// (its children then hold nothing more).
pub struct Reference<'t> {
    pub name: &'t str,
    pub whole: bool,
}

/// A language's name-binding rules.
pub struct NameRules {
    /// The module a file's own top-level names live in, from its path, when the language
    /// derives it from the path (Python, TypeScript, Rust); others read it from a statement.
    pub module: fn(file: &str) -> Option<String>,
    /// Reads one top-level statement: binds names or sets the namespace.
    pub statement: fn(node: Node, text: &str, file: &str, bindings: &mut Bindings),
    /// The full name of a name as written in the file, or `None` when it is a builtin, a type
    /// parameter or otherwise not something the file can place.
    pub resolve: fn(bindings: &Bindings, raw: &str) -> Option<String>,
    /// Named node kinds whose subtrees never hold a reference (comments, literals): the walk
    /// does not enter them.
    pub opaque: fn(kind: &str) -> bool,
    /// For statements (`…_statement` nodes): whether the text can hold a reference at all, when
    /// a byte search can tell cheaper than the walk (PHP).
    pub statement_may_refer: Option<fn(node: Node, text: &str) -> bool>,
    /// The reference a named node makes, if any.
    pub reference: for<'t> fn(visit: &Visit<'t, '_>, text: &'t str) -> Option<Reference<'t>>,
}

/// The lookup of languages whose names are paths (`orders.Order`, `crate::money::Money`): the
/// first segment through the imports, else through the file's own top-level names (as
/// `module{local_separator}name`), the rest of the path appended; builtins resolve to nothing.
pub fn resolve_path(
    bindings: &Bindings,
    raw: &str,
    separator: &str,
    local_separator: &str,
    builtins: &[&str],
) -> Option<String> {
    let (first, rest) = match raw.split_once(separator) {
        Some((f, r)) => (f, Some(r)),
        None => (raw, None),
    };
    if builtins.contains(&first) {
        return None;
    }
    let base = if let Some(full) = bindings.map.get(first) {
        full.clone()
    } else if bindings.locals.contains(first) {
        let module = bindings.namespace.as_deref().unwrap_or("");
        format!("{module}{local_separator}{first}")
    } else {
        return None;
    };
    Some(match rest {
        Some(rest) => format!("{base}{separator}{rest}"),
        None => base,
    })
}

/// A path without the extension of its file name (`a/b.c.ts` → `a/b`).
pub fn strip_ext(file: &str) -> &str {
    let name_start = file.rfind('/').map_or(0, |i| i + 1);
    match file[name_start..].find('.') {
        Some(dot) => &file[..name_start + dot],
        None => file,
    }
}
