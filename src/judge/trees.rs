//! Where two signals together say more than their sum: small regression trees, fitted on the
//! development split, whose leaves add to the linear combination's log-odds
//! ([`super::Signals::combine`]).
//!
//! The linear fit weighs each signal on its own. Some only mean something beside another: a body
//! that names the term's words counts for less when the name says another action; a close
//! described score counts for less when the project's search puts other code first. Boosted
//! trees two splits deep learn such pairs from the labelled pairs without a hand-written rule
//! for each.
//!
//! Fitted, not written: `tests/eval/relevance/fit_judge.py --write-trees` rewrites `trees.tsv`
//! whole, its leaves already on the calibrated scale of the weights beside them (so the seeds'
//! thresholds keep their place). Only the judge with the field has trees: the features they
//! split on are those of [`super::FEATURE_NAMES`], the field's among them.

use super::{FEATURE_NAMES, FEATURES};
use std::sync::OnceLock;

/// The fitted trees: one tree per line, its nodes in preorder, a split written
/// `feature<=threshold` (true goes to the first subtree), a leaf as its value; `#` starts a
/// comment. Data, not code: the fit rewrites it whole.
const FITTED: &str = include_str!("trees.tsv");

/// A node of a tree, the root at index 0 of its tree's nodes.
#[derive(Debug)]
enum Node {
    /// `features[feature] <= threshold` goes to the node right after this one, otherwise to
    /// `right`.
    Split {
        feature: usize,
        threshold: f32,
        right: usize,
    },
    Leaf(f32),
}

/// Why a line of the trees did not parse: its 1-based number and what was wrong.
#[derive(Debug, thiserror::Error)]
#[error("trees line {line}: {what}")]
struct ParseError {
    line: usize,
    what: String,
}

type Tree = Vec<Node>;

/// The trees of `text`.
fn parse(text: &str) -> Result<Vec<Tree>, ParseError> {
    let mut trees = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |what: String| ParseError { line: n + 1, what };
        let mut nodes = Vec::new();
        let mut tokens = line.split_whitespace();
        read_node(&mut tokens, &mut nodes).map_err(error)?;
        if let Some(extra) = tokens.next() {
            return Err(error(format!("`{extra}` after a complete tree")));
        }
        trees.push(nodes);
    }
    Ok(trees)
}

/// Reads one subtree in preorder from `tokens` onto `nodes`.
fn read_node<'a>(
    tokens: &mut impl Iterator<Item = &'a str>,
    nodes: &mut Vec<Node>,
) -> Result<(), String> {
    let token = tokens.next().ok_or("the tree ends inside a split")?;
    let Some((name, threshold)) = token.split_once("<=") else {
        let value = token
            .parse::<f32>()
            .map_err(|_| format!("`{token}` is neither a split nor a number"))?;
        nodes.push(Node::Leaf(value));
        return Ok(());
    };
    let feature = FEATURE_NAMES
        .iter()
        .position(|f| *f == name)
        .ok_or_else(|| format!("unknown feature `{name}`"))?;
    let threshold = threshold
        .parse::<f32>()
        .map_err(|_| format!("`{threshold}` is not a threshold"))?;
    let at = nodes.len();
    nodes.push(Node::Split {
        feature,
        threshold,
        right: 0,
    });
    read_node(tokens, nodes)?;
    let right_at = nodes.len();
    if let Node::Split { right, .. } = &mut nodes[at] {
        *right = right_at;
    }
    read_node(tokens, nodes)
}

/// The leaf `features` reach in `tree`.
fn leaf(tree: &[Node], features: &[f32; FEATURES]) -> f32 {
    let mut at = 0;
    loop {
        match tree[at] {
            Node::Leaf(value) => return value,
            Node::Split {
                feature,
                threshold,
                right,
            } => {
                at = if features[feature] <= threshold {
                    at + 1
                } else {
                    right
                }
            }
        }
    }
}

/// What the fitted trees add to the calibrated log-odds of `features`.
pub fn correction(features: &[f32; FEATURES]) -> f32 {
    static TREES: OnceLock<Vec<Tree>> = OnceLock::new();
    let trees = TREES.get_or_init(|| parse(FITTED).expect("the fitted trees parse (tested)"));
    trees.iter().map(|tree| leaf(tree, features)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_trees_parse() {
        let trees = parse(FITTED).expect("the fitted trees parse");
        let lines = FITTED
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(trees.len(), lines);
        assert!(!trees.is_empty());
        for tree in &trees {
            for node in tree {
                match node {
                    Node::Leaf(v) => assert!(v.is_finite()),
                    Node::Split { threshold, .. } => assert!(threshold.is_finite()),
                }
            }
        }
    }

    #[test]
    fn a_tree_is_walked_by_its_splits() {
        let trees = parse("# two trees\ndense<=0.5 rank<=0.2 -1 1 2\n0.25\n").unwrap();
        assert_eq!(trees.len(), 2);
        let mut features = [0.0; FEATURES];
        let dense = FEATURE_NAMES.iter().position(|f| *f == "dense").unwrap();
        let rank = FEATURE_NAMES.iter().position(|f| *f == "rank").unwrap();
        let walk = |features: &[f32; FEATURES]| leaf(&trees[0], features);
        features[dense] = 0.5;
        features[rank] = 0.1;
        assert_eq!(walk(&features), -1.0);
        features[rank] = 0.3;
        assert_eq!(walk(&features), 1.0);
        features[dense] = 0.6;
        assert_eq!(walk(&features), 2.0);
        assert_eq!(leaf(&trees[1], &features), 0.25);
    }

    #[test]
    fn a_bad_line_is_named() {
        let line = |text: &str| parse(text).unwrap_err().line;
        assert_eq!(line("0.1\nnope<=1 0 0\n"), 2);
        assert_eq!(line("dense<=1 0\n"), 1);
        assert_eq!(line("dense<=x 0 0\n"), 1);
        assert_eq!(line("0.1 0.2\n"), 1);
        assert_eq!(line("# c\n\nrank\n"), 3);
    }
}
