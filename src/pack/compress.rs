//! `repo_pack`'s compress mode: a file reduced to its signatures and doc comments by replacing
//! every function and method body with `{ … }` (Python: its docstring and `...`), using the
//! tree-sitter tree. Imports, type declarations, class and interface bodies (with their members'
//! signatures) and module-level statements stay as written. A file without a grammar, or one
//! that does not parse at all, is kept whole.

use crate::lang::LanguageDef;
use crate::syntax::parse;
use tree_sitter::Node;

/// Node kinds whose `body` is elided, over all grammars.
const FUNCTION_KINDS: &[&str] = &[
    // TypeScript / JavaScript
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    // Python, PHP
    "function_definition",
    "method_declaration",
    "anonymous_function",
    // Go
    "func_literal",
    // Java
    "constructor_declaration",
    "lambda_expression",
    // Rust
    "function_item",
    "closure_expression",
];

/// Body kinds that are blocks (an arrow function's expression body is kept).
const BLOCK_KINDS: &[&str] = &[
    "statement_block",
    "block",
    "compound_statement",
    "constructor_body",
];

pub fn compress(lang: &'static LanguageDef, text: &str) -> String {
    let parsed = parse(lang, text);
    let Some(tree) = parsed.tree else {
        return text.to_string();
    };
    let indented = parsed.code_lang.indented_blocks;
    let mut cuts: Vec<(usize, usize, String)> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if FUNCTION_KINDS.contains(&node.kind())
            && let Some(body) = node.child_by_field_name("body")
            && BLOCK_KINDS.contains(&body.kind())
        {
            if let Some(cut) = elide(body, text, indented) {
                cuts.push(cut);
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    cuts.sort_by_key(|c| c.0);
    let mut out = String::with_capacity(text.len() / 2);
    let mut at = 0;
    for (start, end, replacement) in cuts {
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&replacement);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The byte range of a body and what replaces it; `None` when there is nothing to remove.
fn elide(body: Node, text: &str, indented: bool) -> Option<(usize, usize, String)> {
    let (start, end) = (body.start_byte(), body.end_byte());
    if indented {
        // An indented body (Python) keeps its docstring; the rest becomes `...` at the body's
        // indentation.
        let first = body.named_child(0);
        let docstring = first.filter(|f| {
            f.kind() == "expression_statement"
                && f.named_child(0).is_some_and(|s| s.kind() == "string")
        });
        let indent = " ".repeat(body.start_position().column);
        return match docstring {
            Some(doc) if doc.end_byte() < end => {
                Some((doc.end_byte(), end, format!("\n{indent}...")))
            }
            Some(_) => None,
            None if text[start..end].trim() == "..." || text[start..end].trim() == "pass" => None,
            None => Some((start, end, "...".to_string())),
        };
    }
    let inner = text.get(start + 1..end.saturating_sub(1)).unwrap_or("");
    if inner.trim().is_empty() {
        return None;
    }
    Some((start, end, "{ … }".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::by_id;

    #[test]
    fn bodies_go_signatures_and_docs_stay() {
        let ts = "/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\nexport class C {\n  /** Gets. */\n  get(id: string): string {\n    return id;\n  }\n}\nconst f = (x: number) => x * 2;\n";
        assert_eq!(
            compress(by_id("typescript").unwrap(), ts),
            "/** Adds. */\nexport function add(a: number, b: number): number { … }\nexport class C {\n  /** Gets. */\n  get(id: string): string { … }\n}\nconst f = (x: number) => x * 2;\n"
        );
        let py = "def f(a):\n    \"\"\"Doc.\"\"\"\n    x = a\n    return x\n\nclass A:\n    def m(self):\n        return 1\n";
        assert_eq!(
            compress(by_id("python").unwrap(), py),
            "def f(a):\n    \"\"\"Doc.\"\"\"\n    ...\n\nclass A:\n    def m(self):\n        ...\n"
        );
        let go = "package a\n\n// F does.\nfunc F() int {\n\treturn 1\n}\n";
        assert_eq!(
            compress(by_id("go").unwrap(), go),
            "package a\n\n// F does.\nfunc F() int { … }\n"
        );
    }
}
