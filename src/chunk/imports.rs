//! What a file imports, and turning the names a chunk uses into fully qualified ones.
//!
//! Seed 004 §1.4 and §1.14: `LoginController` alone is ambiguous, and "what does this depend on"
//! needs `App\Services\OrderService`, not `OrderService`. Each language's home gives its name
//! rules (`lang::names::NameRules`: which statements bind which names, how a name resolves,
//! which nodes refer to other code); this module runs them over a file and walks a chunk's
//! nodes for its references. A language without rules binds nothing.

use crate::lang::LanguageDef;
use crate::lang::names::{Bindings, NameRules, Visit};
use crate::syntax::{self, KindNames};
use std::ops::Range;
use tree_sitter::Node;

pub(crate) struct Imports {
    rules: Option<&'static NameRules>,
    kinds: &'static KindNames,
    bindings: Bindings,
}

impl Imports {
    /// Reads the import statements at the top level of `root` (the rules step into blocks that
    /// nest them, such as PHP's `namespace X { … }`). `locals` are the file's own top-level type
    /// and function names.
    pub fn read(
        language: &'static LanguageDef,
        root: Node,
        text: &str,
        file: &str,
        locals: &[String],
    ) -> Imports {
        let rules = language.names;
        let mut bindings = Bindings {
            locals: locals.iter().cloned().collect(),
            ..Bindings::default()
        };
        if let Some(rules) = rules {
            bindings.namespace = (rules.module)(file);
            let mut cursor = root.walk();
            for child in root.named_children(&mut cursor) {
                (rules.statement)(child, text, file, &mut bindings);
            }
        }
        Imports {
            rules,
            kinds: syntax::kind_names(language),
            bindings,
        }
    }

    /// Full names, in source order, without duplicates.
    pub fn list(&self) -> &[String] {
        &self.bindings.list
    }

    /// PHP namespace, Java/Go package, Python dotted module, TS file module, Rust module path.
    pub fn namespace(&self) -> Option<&str> {
        self.bindings.namespace.as_deref()
    }

    /// The full name of a name as written in this file, or `None` when it is a builtin, a
    /// type parameter or otherwise not something this file can place.
    pub fn resolve(&self, raw: &str) -> Option<String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return None;
        }
        self.rules
            .and_then(|rules| (rules.resolve)(&self.bindings, raw))
    }

    /// Resolved names of the symbols `node` refers to (types, classes instantiated or called
    /// statically, imported functions called, JSX components), skipping byte ranges that other
    /// chunks cover, in order of first use.
    pub fn references(&self, node: Node, text: &str, skip: &SkipRanges) -> Vec<String> {
        let Some(rules) = self.rules else {
            return Vec::new();
        };
        let mut raw = Vec::new();
        collect_refs(rules, self.kinds, node, text, skip, &mut raw);
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

/// Collects the names `node`'s subtree refers to, by the language's rules.
fn collect_refs<'t>(
    rules: &NameRules,
    kinds: &KindNames,
    node: Node<'t>,
    text: &'t str,
    skip: &SkipRanges,
    out: &mut Vec<String>,
) {
    let outer_parent = node.parent();
    let outer_grandparent = outer_parent.and_then(|p| p.parent());
    let kind_of = |n: Option<Node<'t>>| -> &'t str { kinds.of(n) };
    let mut cursor = node.walk();
    // Ancestors of the cursor's node inside the walk, `node` first.
    let mut path: Vec<Node<'t>> = Vec::new();
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
                    kind_of: &kind_of,
                };
                visit_ref(rules, &visit, text, skip, out)
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
/// more (an opaque node, a skipped range or a whole qualified name does not).
fn visit_ref<'t>(
    rules: &NameRules,
    visit: &Visit<'t, '_>,
    text: &'t str,
    skip: &SkipRanges,
    out: &mut Vec<String>,
) -> bool {
    let node = visit.node;
    if (rules.opaque)(visit.kind)
        || skip.covers(node.start_byte(), node.end_byte())
        || rules
            .statement_may_refer
            .is_some_and(|may_refer| visit.kind.ends_with("_statement") && !may_refer(node, text))
    {
        return false;
    }
    let Some(reference) = (rules.reference)(visit, text) else {
        return true;
    };
    if !reference.name.is_empty() && !reference.name.contains(['(', '<', ' ', '[']) {
        out.push(reference.name.to_string());
    }
    !reference.whole
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
            i.list(),
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
