//! Field-by-field checks of outlines, one test per language family. Each outline is rendered one
//! fact per line so a failure shows exactly which field differs.

use super::*;
use crate::lang::by_id;

fn outline(lang: &str, text: &str) -> FileOutline {
    outline_source(by_id(lang).unwrap(), text)
}

fn flags(pairs: &[(bool, &str)]) -> String {
    pairs
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| format!(" {name}"))
        .collect()
}

fn params(ps: &[Parameter]) -> String {
    ps.iter()
        .map(|p| {
            format!(
                "{}{}{}{}{}",
                if p.rest { "..." } else { "" },
                p.name,
                if p.optional { "?" } else { "" },
                p.type_name
                    .as_ref()
                    .map(|t| format!(": {t}"))
                    .unwrap_or_default(),
                p.default
                    .as_ref()
                    .map(|d| format!(" = {d}"))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn span(l: &Location) -> String {
    format!(
        "@{}:{}-{}:{}",
        l.start.line, l.start.column, l.end.line, l.end.column
    )
}

fn method_line(m: &Method) -> String {
    format!(
        "  {} {} {}({}){}{}{}",
        m.kind,
        m.access_modifier,
        m.name,
        params(&m.parameters),
        m.return_type
            .as_ref()
            .map(|r| format!(" -> {r}"))
            .unwrap_or_default(),
        flags(&[
            (m.is_static, "static"),
            (m.is_abstract, "abstract"),
            (m.is_async, "async"),
            (m.generator, "generator"),
        ]),
        if m.decorators.is_empty() {
            String::new()
        } else {
            format!(" [{}]", m.decorators.join(", "))
        }
    )
}

/// One line per fact: module, doc, imports, exports, functions, classes (with members), types,
/// enums, variables.
fn render(o: &FileOutline) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = &o.module {
        out.push(format!("module {m}"));
    }
    if let Some(d) = &o.doc {
        out.push(format!("doc {}", d.replace('\n', " / ")));
    }
    for i in &o.imports {
        let names: Vec<String> = i
            .imported
            .iter()
            .map(|n| match &n.alias {
                Some(a) => format!("{} as {a}", n.name),
                None => n.name.clone(),
            })
            .collect();
        out.push(format!(
            "import {} {:?} [{}]{}{} :{}",
            i.source,
            i.kind,
            names.join(", "),
            flags(&[
                (i.default, "default"),
                (i.namespace, "namespace"),
                (i.type_only, "typeOnly"),
                (i.dynamic, "dynamic"),
            ]),
            i.statement
                .as_ref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default(),
            i.line
        ));
    }
    for e in &o.exports {
        out.push(format!(
            "export {} {}{}{}",
            e.name,
            e.kind,
            flags(&[(e.default, "default"), (e.re_export, "reExport")]),
            e.source
                .as_ref()
                .map(|s| format!(" from {s}"))
                .unwrap_or_default()
        ));
    }
    for f in &o.functions {
        out.push(format!(
            "function {}({}){}{} {}",
            f.name,
            params(&f.parameters),
            f.return_type
                .as_ref()
                .map(|r| format!(" -> {r}"))
                .unwrap_or_default(),
            flags(&[
                (f.exported, "exported"),
                (f.is_async, "async"),
                (f.generator, "generator"),
            ]),
            span(&f.location)
        ));
        if let Some(d) = &f.doc {
            out.push(format!("  doc {}", d.replace('\n', " / ")));
        }
    }
    for c in &o.classes {
        out.push(format!(
            "{} {}{}{}{}{} {}",
            c.kind,
            c.name,
            c.extends
                .as_ref()
                .map(|e| format!(" extends {e}"))
                .unwrap_or_default(),
            if c.implements.is_empty() {
                String::new()
            } else {
                format!(" implements {}", c.implements.join(", "))
            },
            if c.uses.is_empty() {
                String::new()
            } else {
                format!(" uses {}", c.uses.join(", "))
            },
            flags(&[(c.exported, "exported"), (c.is_abstract, "abstract")]),
            span(&c.location)
        ));
        for p in &c.properties {
            out.push(format!(
                "  property {} {}{}{}",
                p.access_modifier,
                p.name,
                p.type_name
                    .as_ref()
                    .map(|t| format!(": {t}"))
                    .unwrap_or_default(),
                flags(&[
                    (p.is_static, "static"),
                    (p.readonly, "readonly"),
                    (p.optional, "optional")
                ])
            ));
        }
        for m in &c.methods {
            out.push(method_line(m));
        }
    }
    for t in &o.types {
        out.push(format!(
            "{} {}{}{}{}",
            t.kind,
            t.name,
            if t.extends.is_empty() {
                String::new()
            } else {
                format!(" extends {}", t.extends.join(", "))
            },
            t.definition
                .as_ref()
                .map(|d| format!(" = {d}"))
                .unwrap_or_default(),
            flags(&[(t.exported, "exported")])
        ));
        for m in &t.members {
            out.push(format!(
                "  {} {}{}{}",
                m.kind,
                m.name,
                m.type_name
                    .as_ref()
                    .map(|t| format!(": {t}"))
                    .unwrap_or_default(),
                flags(&[(m.optional, "optional"), (m.readonly, "readonly")])
            ));
        }
    }
    for e in &o.enums {
        let members: Vec<String> = e
            .members
            .iter()
            .map(|m| match &m.value {
                Some(v) => format!("{}={v}", m.name),
                None => m.name.clone(),
            })
            .collect();
        out.push(format!(
            "enum {} [{}]{}",
            e.name,
            members.join(", "),
            flags(&[(e.exported, "exported"), (e.is_const, "const")])
        ));
        for m in &e.methods {
            out.push(method_line(m));
        }
    }
    for v in &o.variables {
        out.push(format!(
            "{} {}{}{}",
            v.kind,
            v.name,
            v.type_name
                .as_ref()
                .map(|t| format!(": {t}"))
                .unwrap_or_default(),
            flags(&[(v.exported, "exported")])
        ));
    }
    out
}

fn check(lang: &str, text: &str, expected: &str) {
    let actual = render(&outline(lang, text));
    // The expected block is indented like the test; nested facts keep their own indentation.
    let lines: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let indent = lines
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let expected: Vec<&str> = lines.iter().map(|l| l[indent..].trim_end()).collect();
    assert_eq!(actual, expected, "\nactual:\n{}", actual.join("\n"));
}

#[test]
fn typescript_imports_exports_functions_classes_types_enums() {
    check(
        "typescript",
        r#"// Shop services.
import React, { useState as us, type FC } from 'react';
import * as path from 'node:path';
import type { User } from './types/User';
import { type A, type B } from './ab';
import './side-effect';
export { helper, other as renamed } from './helpers';
export * from './all';

/** Loads a user. */
export async function load<T>(id: string, retries = 3, ...rest: T[]): Promise<User | null> {
  const m = await import('./lazy');
  return null;
}

export const toCents = (amount: number): number => Math.round(amount * 100);

export default abstract class Service<T> extends Base<T> implements Disposable, Named {
  private static readonly instances: number = 0;
  constructor(private readonly repo: Repo, public name?: string) { super(); }
  protected abstract run(input: string): Promise<void>;
  static async *stream(): AsyncGenerator<number> { yield 1; }
  get size(): number { return 0; }
  #secret(): void {}
  /** Counts one more. */
  protected increment = async (by: number): Promise<void> => { this.n += by; };
}

export interface Named extends Base, Other { readonly name: string; nick?: string; greet(to: string): void }
type Id = string | number;
export const enum Color { Red = 'r', Green }
let counter = 0;
"#,
        r#"
        doc Shop services.
        import react External [React, useState as us, FC] default :2
        import node:path External [path] namespace :3
        import ./types/User Internal [User] typeOnly :4
        import ./ab Internal [A, B] typeOnly :5
        import ./side-effect Internal [] :6
        import ./helpers Internal [helper, other as renamed] (export) :7
        import ./all Internal [] namespace (export) :8
        import ./lazy Internal [] namespace dynamic :12
        export helper unknown reExport from ./helpers
        export renamed unknown reExport from ./helpers
        export * module reExport from ./all
        export load function
        export toCents function
        export Service class default
        export Named interface
        export Color enum
        function load(id: string, retries? = 3, ...rest: T[]) -> Promise<User | null> exported async @11:1-14:2
          doc Loads a user.
        function toCents(amount: number) -> number exported @16:1-16:77
        class Service extends Base<T> implements Disposable, Named exported abstract @18:1-27:2
          property private instances: number static readonly
          property private repo: Repo readonly
          property public name: string optional
          constructor public constructor(repo: Repo, name?: string)
          method protected run(input: string) -> Promise<void> abstract
          method public stream() -> AsyncGenerator<number> static async generator
          getter public size() -> number
          method private #secret() -> void
          method protected increment(by: number) -> Promise<void> async
        interface Named extends Base, Other exported
          property name: string readonly
          property nick: string optional
          method greet: (to: string): void
        type Id = string | number
        enum Color [Red='r', Green] exported const
        let counter
        "#,
    );
}

#[test]
fn javascript_commonjs_and_jsx() {
    check(
        "javascript",
        r#"const fs = require('fs');
const { join, resolve: r } = require('path');
function add(a, b = 2, ...more) { return a + b; }
class Cart extends Base { static #count = 0; total = 0; async load(id) { require('./lazy'); } }
module.exports = { add, Cart };
module.exports.sub = function (a, b) { return a - b; };
"#,
        r#"
        import fs External [fs] namespace (require) :1
        import path External [join, resolve as r] (require) :2
        import ./lazy Internal [] namespace dynamic (require) :4
        export sub function
        export add function
        export Cart class
        function add(a, b? = 2, ...more) exported @3:1-3:50
        function sub(a, b) exported @6:1-6:56
        class Cart extends Base exported @4:1-4:96
          property private #count static
          property public total
          method public load(id) async
        "#,
    );
}

#[test]
fn python_imports_decorators_classes_enums_protocols() {
    check(
        "python",
        r#""""Order service: intake and totals."""
from __future__ import annotations
import os.path, sys as system
from . import models
from ..db import Session, Engine as E
from typing import TYPE_CHECKING, Protocol
from enum import Enum

if TYPE_CHECKING:
    from .repo import Repo

__all__ = ["OrderService", "total", "Status"]


class Status(str, Enum):
    OPEN = "open"
    PAID = "paid"


class Notifier(Protocol):
    def send(self, to: str) -> None: ...


@dataclass
class OrderService(Base, Mixin):
    """Takes orders."""
    retries: int = 3

    def __init__(self, repo: "Repo") -> None:
        self._repo = repo

    @staticmethod
    def fmt(value: float, *, digits: int = 2) -> str:
        return f"{value}"

    async def items(self, *ids, **filters):
        import json
        yield 1

    def _private(self): pass


def total(*amounts: float) -> float:
    return sum(amounts)

def _helper(): pass
TAX = 0.1
"#,
        r#"
        doc Order service: intake and totals.
        import os.path External [os.path] namespace :3
        import sys External [sys as system] namespace :3
        import . Internal [models] :4
        import ..db Internal [Session, Engine as E] :5
        import typing External [TYPE_CHECKING, Protocol] :6
        import enum External [Enum] :7
        import .repo Internal [Repo] typeOnly :10
        import json External [json] namespace dynamic :37
        export total function
        export OrderService class
        export Status enum
        function total(...*amounts: float) -> float exported @43:1-44:24
        function _helper() @46:1-46:20
        class OrderService extends Base implements Mixin exported @24:1-40:29
          property public retries: int static optional
          constructor public __init__(repo: "Repo") -> None
          method public fmt(value: float, digits?: int = 2) -> str static [staticmethod]
          method public items(...*ids, ...**filters) async generator
          method protected _private()
        interface Notifier
          method send: (to: str) -> None
        enum Status [OPEN="open", PAID="paid"] exported
        const TAX
        "#,
    );
}

#[test]
fn php_namespaces_uses_visibility_traits_enums() {
    check(
        "php",
        r#"<?php

namespace App\Services;

use App\Models\{Order, User as Customer};
use Illuminate\Support\Facades\DB;
use function App\Support\money;

require_once __DIR__ . '/helpers.php';

/**
 * Computes cart totals.
 */
final class CartService extends BaseService implements Countable, JsonSerializable
{
    use HasEvents, Loggable;

    public const MAX_ITEMS = 50;
    protected ?array $items = null;

    public function __construct(private readonly PricingService $pricing, int ...$codes) {}

    public static function empty(): static { return new static(); }

    abstract protected function total(?string $currency = 'JPY'): int;
}

interface Priced { public function price(int $qty): int; }
trait Loggable { public function log(string $m): void {} }
enum Status: string { case Open = 'open'; case Paid = 'paid'; public function label(): string { return ''; } }
function helper(array $a = []): array { return $a; }
"#,
        r#"
        module App\Services
        import App\Models\Order External [Order] :5
        import App\Models\User External [User as Customer] :5
        import Illuminate\Support\Facades\DB External [DB] :6
        import App\Support\money External [money] (use function) :7
        import ./helpers.php Internal [] namespace (require once) :9
        import App\Services\BaseService Internal [BaseService] (reference) :14
        import App\Services\Countable Internal [Countable] (reference) :14
        import App\Services\JsonSerializable Internal [JsonSerializable] (reference) :14
        import App\Services\HasEvents Internal [HasEvents] (reference) :16
        import App\Services\PricingService Internal [PricingService] (reference) :21
        export CartService class
        export Priced interface
        export Loggable trait
        export Status enum
        export helper function
        function helper(a?: array = []) -> array exported @31:1-31:53
        class CartService extends BaseService implements Countable, JsonSerializable uses HasEvents, Loggable exported @14:1-26:2
          property public MAX_ITEMS static readonly
          property protected items: ?array
          property private pricing: PricingService readonly
          constructor public __construct(pricing: PricingService, ...codes: int)
          method public empty() -> static static
          method protected total(currency?: ?string = 'JPY') -> int abstract
        trait Loggable exported @29:1-29:59
          method public log(m: string) -> void
        interface Priced exported
          method price: (int $qty): int
        enum Status [Open='open', Paid='paid'] exported
          method public label() -> string
        "#,
    );
}

#[test]
fn go_packages_structs_receivers_interfaces_iota() {
    check(
        "go",
        r#"// Package quote prices parcels.
package quote

import (
	"fmt"
	r "github.com/acme/shipping/internal/rates"
	_ "embed"
)

// Zone is a delivery zone.
type Zone int

const (
	ZoneLocal Zone = iota
	ZoneNational
)

// Quote is an offer.
type Quote struct {
	Carrier string
	price   int
	r.Table
}

type Pricer interface {
	Price(grams int) (int, error)
}

// Total adds the fee.
func (q *Quote) Total(fee int, extras ...int) int { return q.price + fee }

func New(carrier string, a, b int) (*Quote, error) { return nil, nil }
"#,
        r#"
        module quote
        doc Package quote prices parcels.
        import fmt External [fmt] namespace :5
        import github.com/acme/shipping/internal/rates External [rates as r] namespace :6
        import embed External [] :7
        export New function
        export Quote struct
        export Zone type
        export Pricer interface
        export Zone enum
        function New(carrier: string, a: int, b: int) -> (*Quote, error) exported @32:1-32:71
        struct Quote uses r.Table exported @19:1-23:2
          property public Carrier: string
          property private price: int
          method public Total(fee: int, ...extras: int) -> int
        type Zone = int exported
        interface Pricer exported
          method Price: (grams int) (int, error)
        enum Zone [ZoneLocal=iota, ZoneNational] exported const
        "#,
    );
}

#[test]
fn java_packages_imports_modifiers_nested_types() {
    check(
        "java",
        r#"package com.example.inventory;

import java.util.List;
import static java.util.Objects.requireNonNull;
import com.example.model.*;

/** Reserves stock. */
@Service
public abstract class InventoryService extends Base implements Reserver {
    private final List<Item> items;
    public InventoryService(List<Item> items) { this.items = items; }
    @Override
    public static <T> List<T> find(String name, int... ids) { return null; }
    protected abstract void restock();
    enum Mode { FAST, SAFE }
}

interface Reserver { int reserve(String sku, int qty); }
"#,
        r#"
        module com.example.inventory
        import java.util.List External [List] :3
        import java.util.Objects External [requireNonNull] (static) :4
        import com.example.model External [] namespace :5
        export InventoryService class
        class InventoryService extends Base implements Reserver exported abstract @8:1-16:2
          property private items: List<Item> readonly
          constructor public InventoryService(items: List<Item>)
          method public find(name: String, ...ids: int) -> List<T> static [Override]
          method protected restock() -> void abstract
        interface Reserver
          method reserve: int (String sku, int qty)
        enum InventoryService.Mode [FAST, SAFE]
        "#,
    );
}

#[test]
fn rust_mods_uses_impls_traits() {
    check(
        "rust",
        r#"//! Ledger primitives.

mod ledger;
pub mod report;
use crate::money::{Money, Currency as Cur};
use std::collections::HashMap;
pub use self::ledger::Journal;

/// An account.
#[derive(Debug)]
pub struct Account { pub name: String, balance: i64 }

pub trait Postable: Clone { fn post(&self) -> Result<(), String>; fn dry(&self) {} }

impl Account {
    /// Opens one.
    pub fn new(name: &str) -> Self { todo!() }
    fn check(&mut self, limit: i64) -> bool { true }
}

impl Postable for Account { fn post(&self) -> Result<(), String> { Ok(()) } }

pub enum Kind { Asset, Liability(u8) }
pub type Amount = i64;
pub const ZERO: i64 = 0;
pub async fn sync(url: &str) {}
"#,
        r#"
        doc Ledger primitives.
        import ledger Internal [ledger] namespace (mod) :3
        import report Internal [report] namespace (mod) :4
        import crate::money Internal [Money, Currency as Cur] :5
        import std::collections External [HashMap] :6
        import self::ledger Internal [Journal] (pub use) :7
        export report module
        export Journal unknown reExport from self::ledger
        export Account struct
        export Postable trait
        export Kind enum
        export Amount type
        export ZERO constant
        export sync function
        function sync(url: &str) exported async @26:1-26:32
        struct Account implements Postable exported @11:1-11:54
          property public name: String
          property private balance: i64
          constructor public new(name: &str) -> Self static
          method private check(limit: i64) -> bool
          method public post() -> Result<(), String>
        trait Postable extends Clone exported
          method post: (&self) -> Result<(), String>
          method dry: (&self) optional
        type Amount = i64 exported
        enum Kind [Asset, Liability=(u8)] exported
        const ZERO: i64 exported
        "#,
    );
}

#[test]
fn vue_components_are_default_exports() {
    let text = "<template><div/></template>\n<script setup lang=\"ts\">\nimport { ref } from 'vue';\nimport { useCart } from '../stores/cart';\nconst count = ref(0);\nfunction inc(by: number): void { count.value += by }\n</script>\n";
    check(
        "vue",
        text,
        r#"
        import vue External [ref] :3
        import ../stores/cart Internal [useCart] :4
        export default component default
        function inc(by: number) -> void @6:1-6:53
        const count
        "#,
    );
}

#[test]
fn syntax_errors_keep_what_parsed() {
    let o = outline(
        "typescript",
        "export function ok(a: number): number { return a; }\nexport function broken(: {\n\nexport class After { run(): void {} }\n",
    );
    assert!(o.is_partial());
    assert!(o.functions.iter().any(|f| f.name == "ok"));
    assert!(o.errors.iter().all(|e| e.line <= 4));
}

#[test]
fn docs_and_bodies_are_kept_for_detailed_mode_and_stripped_for_concise() {
    let mut o = outline(
        "python",
        "def f():\n    \"\"\"Says hi.\"\"\"\n    return 'hi'\n",
    );
    assert_eq!(o.functions[0].doc.as_deref(), Some("Says hi."));
    assert!(
        o.functions[0]
            .body
            .as_deref()
            .unwrap()
            .contains("return 'hi'")
    );
    o.strip_details(false, false);
    assert_eq!(
        (o.functions[0].doc.clone(), o.functions[0].body.clone()),
        (None, None)
    );
}

/// A field whose value is a function keeps the method's doc and body; a bare parameter counts.
#[test]
fn a_function_valued_field_is_a_method_with_its_doc_and_body() {
    let o = outline(
        "javascript",
        "class Cart {\n  /** Adds one. */\n  add = item => {\n    this.items.push(item);\n  };\n}\n",
    );
    let add = &o.classes[0].methods[0];
    assert_eq!(add.name, "add");
    assert_eq!(add.parameters[0].name, "item");
    assert_eq!(add.doc.as_deref(), Some("Adds one."));
    assert!(
        add.body
            .as_deref()
            .unwrap()
            .contains("this.items.push(item)")
    );
    assert!(o.classes[0].properties.is_empty());
}

#[test]
fn summaries_come_from_docs_and_declarations() {
    let documented = outline(
        "typescript",
        "import { User } from './user';\n\n/**\n * Keeps users in memory. Not persistent.\n */\n\nexport class UserStore { a() {} b() {} }\n",
    );
    assert_eq!(
        summarize(&documented, "src/UserStore.ts"),
        "Keeps users in memory. Defines class UserStore (2 methods); exports UserStore; imports ./user."
    );
    let bare = outline("python", "def a():\n    pass\n\ndef b():\n    pass\n");
    assert_eq!(
        summarize(&bare, "x.py"),
        "Python file that defines 2 functions (a, b); exports a, b."
    );
}

#[test]
fn blade_imports_are_the_views_a_template_pulls_in() {
    check(
        "blade",
        r#"@extends('layouts.app')

@section('content')
    @include('products.partials.filters', ['active' => $category?->slug])
    @includeWhen($user->isAdmin(), 'admin.toolbar')
    @includeFirst(['theme.card', 'products.card'])
    <x-product-card :product="$product" />
    <x-slot:footer>…</x-slot>
    <x-forms.input name="q" /> <x-forms.input name="page" />
    <livewire:cart-counter />
    @each('products.row', $products, 'product')
    @component('mail::button', ['url' => $url]) Pay @endcomponent
@endsection
"#,
        r#"
        import layouts.app Internal [] (extends) :1
        import products.partials.filters Internal [] (include) :4
        import admin.toolbar Internal [] (includeWhen) :5
        import theme.card Internal [] (includeFirst) :6
        import products.card Internal [] (includeFirst) :6
        import x-product-card Internal [] (x-component) :7
        import x-forms.input Internal [] (x-component) :9
        import cart-counter Internal [] (livewire) :10
        import products.row Internal [] (each) :11
        import mail::button External [] (component) :12
        "#,
    );
}

#[test]
fn stylesheet_imports_uses_and_forwards() {
    check(
        "scss",
        r#"// @import 'not-this';
/* @use 'nor-this'; */
@use 'sass:math';
@use "config" with ($brand: #2f63ea);
@forward 'src/list' hide list-reset;
@import 'base', "layout/grid";
@import url(https://fonts.example.com/inter.css) screen;
.a { background: url("img/bg.png"); }
"#,
        r#"
        import sass:math External [] namespace (@use) :3
        import config Internal [] namespace (@use) :4
        import src/list Internal [] (@forward) :5
        import base Internal [] (@import) :6
        import layout/grid Internal [] (@import) :6
        import https://fonts.example.com/inter.css External [] (@import) :7
        "#,
    );
}
