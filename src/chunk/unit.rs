//! Units: what a strategy says about a file before any chunk exists.
//!
//! A unit is a byte range with a kind, a name, metadata and child units. Keeping strategies to
//! this description means size limits, splitting, merging, parent/child elision and ids are
//! implemented once (in `split`) and behave the same for PHP methods, CSS rules and Blade
//! sections.

use super::{ChunkKind, Metadata};
use std::ops::Range;
use tree_sitter::Node;

/// How a child disappears from its parent's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elide {
    /// Keep the signature, replace the body range with a stub (`{ … }`); leading doc comments
    /// (`lead`) are dropped from the parent too, since the child's chunk carries them.
    Body {
        lead: Option<Range<usize>>,
        body: Range<usize>,
        stub: String,
    },
    /// Replace the whole unit with a one-line stub (a migration's `Schema::create` in `up()`).
    Whole { stub: String },
    /// Leave the child's text in the parent as well (one-line units).
    Keep,
}

#[derive(Debug, Clone)]
pub struct Unit<'t> {
    pub kind: ChunkKind,
    pub name: String,
    /// Identity inside the file (a qualified name, `table:orders:create`, …); with the file and
    /// kind it makes the chunk id, so it must not contain line numbers.
    pub key: String,
    /// Bytes of the file this unit covers (whole lines where the strategy can).
    pub range: Range<usize>,
    pub elide: Elide,
    /// Repeated at the top of every split part after the first (the signature).
    pub header: String,
    /// Syntax node whose children are the preferred split points; `None` splits by lines.
    pub node: Option<Node<'t>>,
    pub meta: Metadata,
    pub children: Vec<Unit<'t>>,
    /// Tiny adjacent siblings of the same kind may be merged into one chunk.
    pub mergeable: bool,
}

impl<'t> Unit<'t> {
    pub fn new(kind: ChunkKind, name: impl Into<String>, range: Range<usize>) -> Unit<'t> {
        let name = name.into();
        Unit {
            kind,
            key: name.clone(),
            name,
            range,
            elide: Elide::Keep,
            header: String::new(),
            node: None,
            meta: Metadata::default(),
            children: Vec::new(),
            mergeable: false,
        }
    }

    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = key.into();
        self
    }

    pub fn node(mut self, node: Node<'t>) -> Self {
        self.node = Some(node);
        self
    }

    pub fn elide(mut self, elide: Elide) -> Self {
        self.elide = elide;
        self
    }

    pub fn header(mut self, header: impl Into<String>) -> Self {
        self.header = header.into();
        self
    }

    pub fn mergeable(mut self) -> Self {
        self.mergeable = true;
        self
    }

    /// Places `units` (in any order, possibly nested in each other by range) under `self` as a
    /// tree by containment. A unit overlapping another without containing it is kept at the
    /// level where it starts.
    pub fn nest(&mut self, mut units: Vec<Unit<'t>>) {
        units.sort_by(|a, b| {
            a.range
                .start
                .cmp(&b.range.start)
                .then(b.range.end.cmp(&a.range.end))
        });
        for unit in units {
            insert(&mut self.children, unit);
        }
    }

    /// All units of the tree, depth first (tests and linking).
    pub fn walk(&self, visit: &mut impl FnMut(&Unit<'t>)) {
        visit(self);
        for child in &self.children {
            child.walk(visit);
        }
    }
}

fn insert<'t>(siblings: &mut Vec<Unit<'t>>, unit: Unit<'t>) {
    if let Some(last) = siblings.last_mut()
        && last.range.start <= unit.range.start
        && unit.range.end <= last.range.end
        && last.range != unit.range
    {
        insert(&mut last.children, unit);
        return;
    }
    siblings.push(unit);
}

/// The stub that replaces a body: braces stay braces.
pub fn body_stub(body_text: &str, indented: bool) -> String {
    if body_text.starts_with('{') {
        "{ … }".to_string()
    } else if indented {
        "...".to_string()
    } else {
        "…".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_follows_containment() {
        let mut root = Unit::new(ChunkKind::Module, "m", 0..100);
        root.nest(vec![
            Unit::new(ChunkKind::Method, "b", 20..30),
            Unit::new(ChunkKind::Class, "A", 10..50),
            Unit::new(ChunkKind::Function, "f", 60..70),
            Unit::new(ChunkKind::Method, "c", 35..45),
        ]);
        let shape: Vec<(String, Vec<String>)> = root
            .children
            .iter()
            .map(|u| {
                (
                    u.name.clone(),
                    u.children.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                ("A".to_string(), vec!["b".to_string(), "c".to_string()]),
                ("f".to_string(), vec![])
            ]
        );
    }
}
