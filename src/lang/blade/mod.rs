//! Blade, Laravel's template language, as far as it names other code: the directives and tags
//! through which a view pulls in layouts, partials, components and Livewire components, and
//! Laravel's conventions that turn those names into view files and classes. Blade has no
//! tree-sitter grammar; the chunker (`chunk/blade.rs`), the outline (`imports.rs`)
//! and module resolution (`deps/resolve.rs`) all read a template through these patterns, so they
//! agree on what it references.

mod imports;

use super::{Chunking, LanguageDef, ModuleSystem, Parsing};
use regex::Regex;
use std::sync::LazyLock;

/// Blade has no grammar: the chunker and the outline scan the text.
pub const BLADE: LanguageDef = LanguageDef {
    id: "blade",
    name: "Blade",
    extensions: &["blade.php"],
    parsing: Parsing::Scanner,
    chunking: Chunking::Blade,
    modules: ModuleSystem::BladeViews,
    file_noun: Some("Blade template"),
    scanned_imports: Some(imports::imports),
    ..LanguageDef::DEFAULT
};

pub static COMPONENT_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<x-([A-Za-z0-9_.:\-]+)").expect("valid regex"));
pub static COMPONENT_DIRECTIVE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"@component\s*\(\s*['"]([^'"]+)['"]"#).expect("valid regex"));
pub static END_COMPONENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@endcomponent\b").expect("valid regex"));
pub static ROUTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\broute\(\s*['"]([^'"]+)['"]"#).expect("valid regex"));
pub static LIVEWIRE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"@livewire\(\s*['"]([^'"]+)['"]|<livewire:([A-Za-z0-9_.\-]+)"#)
        .expect("valid regex")
});
pub static INCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"@(?:include|includeIf|includeWhen|includeUnless|includeFirst|each)\s*\(([^)]*)\)")
        .expect("valid regex")
});
pub static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"['"]([\w.\-:/]+)['"]"#).expect("valid regex"));
pub static EXTENDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"@extends\(\s*['"]([^'"]+)['"]"#).expect("valid regex"));
pub static YIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"@yield\(\s*['"]([^'"]+)['"]"#).expect("valid regex"));
pub static STACK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"@stack\(\s*['"]([^'"]+)['"]"#).expect("valid regex"));

/// `cart-counter` → `CartCounter`.
fn studly(name: &str) -> String {
    name.split(['-', '_'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut chars = p.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Laravel's class-based component convention: `x-forms.input` → `App\View\Components\Forms\Input`.
/// Package components (`x-mail::message`) have no application class.
pub fn component_class(name: &str) -> Option<String> {
    if name.contains("::") {
        return None;
    }
    let parts: Vec<String> = name.split('.').map(studly).collect();
    Some(format!("App\\View\\Components\\{}", parts.join("\\")))
}

/// Livewire 3's convention: `cart-counter` → `App\Livewire\CartCounter`.
pub fn livewire_class(name: &str) -> String {
    let parts: Vec<String> = name.split('.').map(studly).collect();
    format!("App\\Livewire\\{}", parts.join("\\"))
}

/// `resources/views/products/index.blade.php` → `products.index`.
pub fn view_name(file: &str) -> String {
    let path = file.strip_suffix(".blade.php").unwrap_or(file);
    let path = match path.find("resources/views/") {
        Some(i) => &path[i + "resources/views/".len()..],
        None => path.rsplit('/').next().unwrap_or(path),
    };
    path.replace('/', ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_and_livewire_names_map_to_classes() {
        assert_eq!(
            component_class("product-card").unwrap(),
            "App\\View\\Components\\ProductCard"
        );
        assert_eq!(
            component_class("forms.text-input").unwrap(),
            "App\\View\\Components\\Forms\\TextInput"
        );
        assert_eq!(component_class("mail::message"), None);
        assert_eq!(livewire_class("cart-counter"), "App\\Livewire\\CartCounter");
        assert_eq!(
            view_name("resources/views/checkout/partials/totals.blade.php"),
            "checkout.partials.totals"
        );
    }
}
