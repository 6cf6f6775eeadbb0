//! Blade views (seed 004 §1.2, §1.5): `@section`/`@push`/`@slot`/`@component`/`@fragment`
//! blocks as `blade_section` chunks, the layout's semantic elements outside them as `element`
//! chunks, and a `template` chunk per view (a `blade_component` one for
//! `resources/views/components/…`) that summarises the whole file.
//!
//! Every chunk records the cross-language links a request follows from a view: `<x-…>`
//! components mapped to their classes (`x-product-card` → `App\View\Components\ProductCard`),
//! `route('…')` names, `@livewire`/`<livewire:…>` components (`App\Livewire\CartCounter`),
//! included and extended views, yields and stacks. Blade has no grammar: directives come from
//! the `analysis` scanner, the patterns that name other code from `lang::blade`, elements from the
//! HTML grammar run over the template.

use super::html::element_units;
use super::split::Emitter;
use super::unit::{Elide, Unit};
use super::{Chunk, ChunkKind, Metadata, Source};
use crate::analysis::{SymbolKind, analyze_source};
use crate::lang::LanguageDef;
use crate::lang::blade::{
    COMPONENT_DIRECTIVE, COMPONENT_TAG, END_COMPONENT, EXTENDS, INCLUDE, LIVEWIRE, QUOTED, ROUTE,
    STACK, YIELD, component_class, livewire_class, view_name,
};
use crate::lang::html::HTML;
use serde::Serialize;
use std::ops::Range;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ComponentRef {
    /// As written: `x-product-card`, or `@component('alert')`.
    pub tag: String,
    /// The class a class-based component renders with (`App\View\Components\ProductCard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The view of its template (`components.product-card`).
    pub view: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LivewireRef {
    pub name: String,
    pub class: String,
}

/// The links of a piece of Blade to the rest of the application.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BladeFacts {
    pub components: Vec<ComponentRef>,
    pub routes: Vec<String>,
    pub livewire: Vec<LivewireRef>,
    pub includes: Vec<String>,
    pub extends: Option<String>,
    pub yields: Vec<String>,
    pub stacks: Vec<String>,
}

impl BladeFacts {
    pub fn of(text: &str) -> BladeFacts {
        let mut facts = BladeFacts::default();
        for caps in COMPONENT_TAG.captures_iter(text) {
            let name = &caps[1];
            if name == "slot" || name.starts_with("slot:") || name == "dynamic-component" {
                continue;
            }
            let reference = ComponentRef {
                tag: format!("x-{name}"),
                class: component_class(name),
                view: format!("components.{}", name.split("::").last().unwrap_or(name)),
            };
            push_unique(&mut facts.components, reference);
        }
        for caps in COMPONENT_DIRECTIVE.captures_iter(text) {
            push_unique(
                &mut facts.components,
                ComponentRef {
                    tag: format!("@component('{}')", &caps[1]),
                    class: None,
                    view: caps[1].to_string(),
                },
            );
        }
        for caps in ROUTE.captures_iter(text) {
            push_unique(&mut facts.routes, caps[1].to_string());
        }
        for caps in LIVEWIRE.captures_iter(text) {
            let name = caps.get(1).or(caps.get(2)).map_or("", |m| m.as_str());
            push_unique(
                &mut facts.livewire,
                LivewireRef {
                    name: name.to_string(),
                    class: livewire_class(name),
                },
            );
        }
        for caps in INCLUDE.captures_iter(text) {
            if let Some(view) = QUOTED
                .captures_iter(&caps[1])
                .map(|c| c[1].to_string())
                .next()
            {
                push_unique(&mut facts.includes, view);
            }
        }
        facts.extends = EXTENDS.captures(text).map(|c| c[1].to_string());
        for caps in YIELD.captures_iter(text) {
            push_unique(&mut facts.yields, caps[1].to_string());
        }
        for caps in STACK.captures_iter(text) {
            push_unique(&mut facts.stacks, caps[1].to_string());
        }
        facts
    }

    pub fn apply(&self, meta: &mut Metadata) {
        if !self.components.is_empty() {
            meta.set("components", &self.components);
            meta.relate(self.components.iter().filter_map(|c| c.class.clone()));
        }
        if !self.livewire.is_empty() {
            meta.set("livewire", &self.livewire);
            meta.relate(self.livewire.iter().map(|l| l.class.clone()));
        }
        if !self.routes.is_empty() {
            meta.set("routes", &self.routes);
        }
        if !self.includes.is_empty() {
            meta.set("includes", &self.includes);
        }
        if let Some(extends) = &self.extends {
            meta.set("extends", extends);
        }
        if !self.yields.is_empty() {
            meta.set("yields", &self.yields);
        }
        if !self.stacks.is_empty() {
            meta.set("stacks", &self.stacks);
        }
    }
}

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A directive block found in the template.
struct Block {
    directive: String,
    name: String,
    lines: (usize, usize),
}

fn blocks(source: &Source, blade: &'static LanguageDef) -> Vec<Block> {
    let mut out = Vec::new();
    for symbol in analyze_source(blade, source.text).symbols {
        if symbol.kind != SymbolKind::Section {
            continue;
        }
        let sig = symbol.signature.trim_start();
        let directive = ["section", "push", "prepend", "slot", "fragment"]
            .iter()
            .find(|d| sig.contains(&format!("@{d}")))
            .map_or("slot", |d| *d);
        out.push(Block {
            directive: directive.to_string(),
            name: symbol.name,
            lines: (symbol.line, symbol.end_line),
        });
    }
    for caps in COMPONENT_DIRECTIVE.captures_iter(source.text) {
        let whole = caps.get(0).expect("match");
        let start = source.lines.line_of(whole.start());
        let end = END_COMPONENT
            .find(&source.text[whole.end()..])
            .map_or(start, |m| source.lines.line_of(whole.end() + m.start()));
        out.push(Block {
            directive: "component".into(),
            name: caps[1].to_string(),
            lines: (start, end),
        });
    }
    out.sort_by(|a, b| a.lines.0.cmp(&b.lines.0).then(b.lines.1.cmp(&a.lines.1)));
    out
}

pub(crate) fn chunk(source: &Source, blade: &'static LanguageDef, emitter: &Emitter) -> Vec<Chunk> {
    let text = source.text;
    let all_blocks = blocks(source, blade);
    let line_range = |(first, last): (usize, usize)| -> Range<usize> {
        source.lines.start_of(first)
            ..source
                .lines
                .start_of(last + 1)
                .max(source.lines.start_of(first))
                .min(text.len())
    };
    // Outermost blocks become chunks; nested ones (a slot inside a component) stay inside.
    let mut units: Vec<Unit> = Vec::new();
    let mut covered: Vec<Range<usize>> = Vec::new();
    for block in &all_blocks {
        let mut range = line_range(block.lines);
        if range.end <= range.start {
            range.end = text.len();
        }
        if covered
            .iter()
            .any(|c| c.start <= range.start && range.end <= c.end)
        {
            continue;
        }
        let first_line = text[range.clone()]
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let mut unit = Unit::new(ChunkKind::BladeSection, block.name.clone(), range.clone())
            .key(format!("{}:{}", block.directive, block.name))
            .elide(Elide::Whole {
                stub: format!("{first_line} …"),
            })
            .header(first_line.clone())
            .mergeable();
        unit.meta.set("directive", &block.directive);
        BladeFacts::of(&text[range.clone()]).apply(&mut unit.meta);
        covered.push(range);
        units.push(unit);
    }
    // The layout's own structure, outside the blocks.
    // The layout around the directives is HTML.
    let html = crate::syntax::parse(&HTML, text);
    if let Some(tree) = html.tree.as_ref() {
        let mut elements = element_units(source, tree.root_node(), &covered);
        for element in elements.iter_mut() {
            BladeFacts::of(&text[element.range.clone()]).apply(&mut element.meta);
        }
        units.extend(elements);
    }
    let view = view_name(source.file);
    let facts = BladeFacts::of(text);
    let (kind, name) = match view.strip_prefix("components.") {
        Some(component) => (ChunkKind::BladeComponent, format!("x-{component}")),
        None => (ChunkKind::Template, view.clone()),
    };
    let mut root = Unit::new(kind, name, 0..text.len()).key("template");
    root.meta.set("view", &view);
    if let Some(class) = view.strip_prefix("components.").and_then(component_class) {
        root.meta.relate([class.clone()]);
        root.meta.set("component_class", class);
    }
    if let Some(livewire) = view.strip_prefix("livewire.") {
        let class = livewire_class(livewire);
        root.meta.relate([class.clone()]);
        root.meta.set("livewire_class", class);
    }
    let sections: Vec<String> = all_blocks.iter().map(|b| b.name.clone()).collect();
    if !sections.is_empty() {
        root.meta.set("sections", sections);
    }
    facts.apply(&mut root.meta);
    root.nest(units);
    emitter.emit(&root, blade.id)
}

#[cfg(test)]
mod fixture_tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, outline, strings};
    use serde_json::json;

    #[test]
    fn sections_components_and_routes_of_a_page() {
        let result = fixture("laravel-shop", "resources/views/products/index.blade.php");
        let template = find(&result.chunks, ChunkKind::Template, "products.index");
        assert_eq!(field(template, "extends"), "layouts.app");
        assert_eq!(strings(template, "sections"), ["title", "content"]);
        assert_eq!(
            field(template, "components"),
            &json!([{"tag": "x-product-card", "class": "App\\View\\Components\\ProductCard", "view": "components.product-card"}])
        );
        assert!(
            template
                .metadata
                .related_symbols
                .contains(&"App\\View\\Components\\ProductCard".to_string())
        );
        let title = find(&result.chunks, ChunkKind::BladeSection, "title");
        assert_eq!((title.line_start, title.line_end), (3, 3));
        let content: Vec<_> = result
            .chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::BladeSection && c.name == "content")
            .collect();
        assert_eq!(content[0].line_start, 5);
        assert_eq!(content.last().unwrap().line_end, 51);
        assert_eq!(field(content[0], "directive"), "section");
        assert!(
            content
                .iter()
                .any(|c| c.metadata.fields.get("routes") == Some(&json!(["products.index"]))),
            "{}",
            outline(&result.chunks).join("\n")
        );
        // The template keeps a stub for each section.
        assert!(
            template.content.contains("@section('content') …"),
            "{}",
            template.content
        );
    }

    #[test]
    fn layouts_livewire_and_component_views() {
        let layout = fixture("laravel-shop", "resources/views/layouts/app.blade.php");
        let template = find(&layout.chunks, ChunkKind::Template, "layouts.app");
        assert_eq!(strings(template, "yields"), ["title", "content"]);
        assert_eq!(strings(template, "stacks"), ["head", "scripts"]);
        assert_eq!(
            field(template, "livewire"),
            &json!([{"name": "cart-counter", "class": "App\\Livewire\\CartCounter"}])
        );
        assert_eq!(
            strings(template, "routes"),
            ["products.index", "cart.index"]
        );
        let main = find(&layout.chunks, ChunkKind::Element, "main#content");
        assert_eq!((main.line_start, main.line_end), (23, 25));
        let navbar = find(&layout.chunks, ChunkKind::Element, "x-navbar");
        assert_eq!(
            field(navbar, "components")[0]["class"],
            "App\\View\\Components\\Navbar"
        );

        let card = fixture(
            "laravel-shop",
            "resources/views/components/product-card.blade.php",
        );
        let component = find(&card.chunks, ChunkKind::BladeComponent, "x-product-card");
        assert_eq!(
            field(component, "component_class"),
            "App\\View\\Components\\ProductCard"
        );
        assert!(strings(component, "routes").contains(&"products.show".to_string()));

        let counter = fixture(
            "laravel-shop",
            "resources/views/livewire/cart-counter.blade.php",
        );
        assert_eq!(
            field(&counter.chunks[0], "livewire_class"),
            "App\\Livewire\\CartCounter"
        );

        let cart = fixture("laravel-shop", "resources/views/cart/index.blade.php");
        let template = find(&cart.chunks, ChunkKind::Template, "cart.index");
        assert_eq!(strings(template, "includes"), ["checkout.partials.totals"]);
    }
}
