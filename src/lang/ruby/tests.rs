//! The Ruby walker on the shapes the fixture does not have: compact class names, `class << self`,
//! `private def` and `private :name`, `attr_writer`, loads inside methods, `autoload`, and a
//! require built by interpolation (not a static import).

use super::{RUBY, exported, outline};
use crate::lang::Parsing;
use crate::lang::outline::{FileOutline, ImportType};
use tree_sitter::{Node, Parser, Tree};

fn parse(src: &str) -> Tree {
    let Parsing::Grammar(grammar) = RUBY.parsing else {
        panic!("Ruby has a grammar");
    };
    let mut parser = Parser::new();
    parser.set_language(&grammar()).unwrap();
    parser.parse(src, None).unwrap()
}

fn outline_of(src: &str) -> FileOutline {
    outline::outline(parse(src).root_node(), src)
}

const SRC: &str = r#"# frozen_string_literal: true
require "set"
require "./helpers"
require "plugins/#{name}"
autoload :Parser, "shop/parser"

# Administration of users.
class Admin::UsersController < ApplicationController
  include Auditing, Paging
  extend Forwardable
  attr_writer :notifier

  class << self
    def table_name = "users"
  end

  def index(page = 1, *filters, per: 20, **options, &block)
    require "csv"
  end

  private def audit(entry) = entry

  def purge; end
  private :purge

  protected

  def scope; end
end
"#;

#[test]
fn classes_members_access_and_parameters() {
    let out = outline_of(SRC);
    assert_eq!(
        out.doc, None,
        "the class's comment is its own, not the file's"
    );
    let class = &out.classes[0];
    assert_eq!(class.name, "Admin::UsersController");
    assert_eq!(class.extends.as_deref(), Some("ApplicationController"));
    assert_eq!(class.uses, ["Auditing", "Paging", "Forwardable"]);
    assert_eq!(class.doc.as_deref(), Some("Administration of users."));
    let property = &class.properties[0];
    assert_eq!(
        (property.name.as_str(), property.readonly),
        ("notifier", false)
    );
    let methods: Vec<(&str, &str, bool)> = class
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.access_modifier.as_str(), m.is_static))
        .collect();
    assert_eq!(
        methods,
        [
            ("table_name", "public", true),
            ("index", "public", false),
            ("audit", "private", false),
            ("purge", "private", false),
            ("scope", "protected", false),
        ]
    );
    let index = &class.methods[1];
    let parameters: Vec<(&str, bool, bool, Option<&str>)> = index
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.optional, p.rest, p.default.as_deref()))
        .collect();
    assert_eq!(
        parameters,
        [
            ("page", true, false, Some("1")),
            ("*filters", true, true, None),
            ("per:", true, false, Some("20")),
            ("**options", true, true, None),
            ("&block", true, false, None),
        ]
    );
}

#[test]
fn loads_are_imports_and_interpolated_ones_are_not() {
    let out = outline_of(SRC);
    let imports: Vec<(&str, ImportType, bool, &str)> = out
        .imports
        .iter()
        .map(|i| {
            let statement = i.statement.as_deref().unwrap_or("");
            (i.source.as_str(), i.kind, i.dynamic, statement)
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("set", ImportType::External, false, "require"),
            ("./helpers", ImportType::Internal, false, "require"),
            ("shop/parser", ImportType::External, false, "autoload"),
            ("csv", ImportType::External, true, "require"),
        ]
    );
}

#[test]
fn private_methods_are_not_exported() {
    let tree = parse(SRC);
    let mut found = Vec::new();
    collect_methods(tree.root_node(), &mut found);
    let verdicts: Vec<(String, bool)> = found
        .into_iter()
        .map(|m| {
            let name = m.child_by_field_name("name").unwrap();
            let name = &SRC[name.byte_range()];
            (name.to_string(), exported(m, name, SRC))
        })
        .collect();
    let expected = [
        ("table_name", true),
        ("index", true),
        ("audit", false),
        ("purge", false),
        ("scope", false),
    ];
    let expected: Vec<(String, bool)> = expected.iter().map(|(n, e)| (n.to_string(), *e)).collect();
    assert_eq!(verdicts, expected);
}

fn collect_methods<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    if node.kind() == "method" {
        out.push(node);
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_methods(child, out);
    }
}
