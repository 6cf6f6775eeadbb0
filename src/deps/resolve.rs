//! Module resolution: which project file(s) an import statement refers to, per language, and
//! whether it stays in the project (`internal`) or names a dependency (`external`).
//!
//! - TypeScript / JavaScript / Vue: relative paths with extension and `index.*` probing (and
//!   the `.js` → `.ts` rewrite of ESM TypeScript), `tsconfig.json` `paths` and `baseUrl` of the
//!   nearest config, workspace packages by their `package.json` name.
//! - Python: relative imports by dots; absolute imports against the project roots (the parents
//!   of top-level packages, which covers `src/` layouts, the `pyproject.toml` directories, the
//!   importing file's own directory); `from pkg import submodule` finds the submodule.
//! - PHP: `use` through `composer.json` PSR-4 / PSR-0, then the classes, interfaces, traits,
//!   enums and functions the project declares (which covers classmap autoloading); `require` /
//!   `include` of literal paths.
//! - Go: import paths under a `go.mod` module path become that package directory's files.
//! - Java: fully qualified names against the types the project declares; `.*` imports become
//!   the package's files.
//!   A class named without a `use` (same namespace, or fully qualified) is a dependency only
//!   when it resolves to a project file.
//! - Rust: `mod x;` and `crate::` / `self::` / `super::` paths to `x.rs` or `x/mod.rs`, and paths
//!   into other crates of the same workspace.
//! - Blade: view names in dot notation (`layouts.app`) under the `resources/views` directory
//!   the template lives in (or the project's); `<x-foo.bar>` to its anonymous or class-based
//!   view and its class (`App\View\Components\Foo\Bar` through PSR-4); Livewire components
//!   to their view and class. `pkg::view` is a package's view unless the project publishes an
//!   override under `resources/views/vendor/pkg/`.
//! - CSS / SCSS: paths relative to the stylesheet, with Sass partials (`_name.scss`) and index
//!   files (`_index.scss`); `~pkg`, URLs, `sass:` modules and paths found in no project file
//!   (a load path into node_modules) are external.
//!
//! Resolution only consults the outline snapshot's file set and manifests (plus an existence
//! check for explicit non-code files such as `./data.json`), so it is fast and repeatable.

use super::layout::{Layout, contains, dir_of, join};
use crate::analysis::outline::{Import, ImportType};
use crate::index::outlines::OutlineSnapshot;
use crate::lang::ModuleSystem;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub internal: bool,
    /// Project files the import refers to (several for Go packages and wildcard imports).
    pub targets: Vec<String>,
}

pub struct Resolver {
    layout: Layout,
    root: PathBuf,
    files: HashSet<String>,
    by_dir: HashMap<String, Vec<String>>,
    /// Lower-cased PHP FQCNs (classes are case-insensitive) → file.
    php_symbols: HashMap<String, String>,
    java_types: HashMap<String, String>,
    java_packages: HashMap<String, Vec<String>>,
    python_roots: Vec<String>,
    python_top: HashSet<String>,
}

/// Extensions probed for an extension-less TypeScript/JavaScript import, in TypeScript's order.
const ECMA_EXTENSIONS: &[&str] = &[
    // File extensions: not a language id.
    "ts", "tsx", "d.ts", "js", "jsx", "mjs", "cjs", "mts", "cts", "vue",
];

impl Resolver {
    pub fn new(snapshot: &OutlineSnapshot, layout: Layout, root: PathBuf) -> Resolver {
        let mut resolver = Resolver {
            layout,
            root,
            files: snapshot.files.keys().cloned().collect(),
            by_dir: HashMap::new(),
            php_symbols: HashMap::new(),
            java_types: HashMap::new(),
            java_packages: HashMap::new(),
            python_roots: Vec::new(),
            python_top: HashSet::new(),
        };
        let mut python_roots: HashSet<String> = HashSet::new();
        python_roots.insert(String::new());
        for dir in &resolver.layout.python_projects {
            python_roots.insert(dir.clone());
            python_roots.insert(join(dir, "src").unwrap_or_default());
        }
        for (path, entry) in &snapshot.files {
            resolver
                .by_dir
                .entry(dir_of(path).to_string())
                .or_default()
                .push(path.clone());
            let outline = &entry.outline;
            match modules_of(&outline.language) {
                ModuleSystem::PhpNamespaces => {
                    let namespace = outline.module.as_deref().unwrap_or("");
                    let names = outline
                        .exports
                        .iter()
                        .filter(|e| !e.re_export)
                        .map(|e| e.name.as_str());
                    for name in names {
                        let fqcn = if namespace.is_empty() {
                            name.to_string()
                        } else {
                            format!("{namespace}\\{name}")
                        };
                        resolver
                            .php_symbols
                            .entry(fqcn.to_ascii_lowercase())
                            .or_insert_with(|| path.clone());
                    }
                }
                ModuleSystem::JavaPackages => {
                    let package = outline.module.clone().unwrap_or_default();
                    resolver
                        .java_packages
                        .entry(package.clone())
                        .or_default()
                        .push(path.clone());
                    let names = outline
                        .classes
                        .iter()
                        .map(|c| &c.name)
                        .chain(outline.types.iter().map(|t| &t.name))
                        .chain(outline.enums.iter().map(|e| &e.name));
                    for name in names {
                        let fqcn = if package.is_empty() {
                            name.clone()
                        } else {
                            format!("{package}.{name}")
                        };
                        resolver.java_types.insert(fqcn, path.clone());
                    }
                }
                ModuleSystem::PythonPackages => {
                    // The parent of a file's topmost package directory is an import root.
                    let mut dir = dir_of(path);
                    let mut top = None;
                    while snapshot
                        .files
                        .contains_key(&join(dir, "__init__.py").unwrap_or_default())
                        && !dir.is_empty()
                    {
                        top = Some(dir);
                        dir = dir_of(dir);
                    }
                    if let Some(top) = top {
                        python_roots.insert(dir_of(top).to_string());
                        resolver
                            .python_top
                            .insert(top.rsplit('/').next().unwrap_or(top).to_string());
                    }
                }
                _ => {}
            }
        }
        for files in resolver.by_dir.values_mut() {
            files.sort();
        }
        for files in resolver.java_packages.values_mut() {
            files.sort();
        }
        let mut roots: Vec<String> = python_roots.into_iter().collect();
        // Deeper roots first: `src/` beats the project root when both could match.
        roots.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        resolver.python_roots = roots;
        resolver
    }

    pub fn resolve(&self, from: &str, language: &str, import: &Import) -> Resolution {
        let resolution = match modules_of(language) {
            ModuleSystem::EsModules => self.ecma(from, &import.source),
            ModuleSystem::PythonPackages => self.python(from, import),
            ModuleSystem::PhpNamespaces => self.php(from, import),
            ModuleSystem::GoPackages => self.go(&import.source),
            ModuleSystem::JavaPackages => self.java(import),
            ModuleSystem::RustModules => self.rust(from, import),
            ModuleSystem::BladeViews => self.blade(from, import),
            ModuleSystem::Stylesheets => self.css(from, &import.source),
            ModuleSystem::LoadPath { roots } => {
                let extension = crate::lang::by_id(language).and_then(|l| l.extensions.first());
                self.load_path(from, import, roots, extension.copied().unwrap_or(""))
            }
            ModuleSystem::None => None,
        };
        resolution.unwrap_or(Resolution {
            internal: import.kind == ImportType::Internal,
            targets: Vec::new(),
        })
    }

    fn has(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    fn found(&self, targets: Vec<String>) -> Option<Resolution> {
        Some(Resolution {
            internal: true,
            targets,
        })
    }

    // ---- TypeScript / JavaScript -------------------------------------------------------

    fn ecma(&self, from: &str, source: &str) -> Option<Resolution> {
        if source.starts_with('.') {
            let target = join(dir_of(from), source).and_then(|p| self.probe_ecma(&p));
            return Some(Resolution {
                internal: true,
                targets: target.into_iter().collect(),
            });
        }
        if let Some(config) = self.layout.tsconfig_for(from) {
            for (pattern, targets) in &config.paths {
                let Some(captured) = match_pattern(pattern, source) else {
                    continue;
                };
                let found = targets
                    .iter()
                    .find_map(|t| self.probe_ecma(&t.replacen('*', captured, 1)));
                // An alias the project configured is internal even if the file is missing.
                return Some(Resolution {
                    internal: true,
                    targets: found.into_iter().collect(),
                });
            }
            if let Some(base) = &config.base_url
                && let Some(found) = join(base, source).and_then(|p| self.probe_ecma(&p))
            {
                return self.found(vec![found]);
            }
        }
        for package in &self.layout.packages {
            let rest = if source == package.name {
                Some("")
            } else {
                source
                    .strip_prefix(&package.name)
                    .and_then(|r| r.strip_prefix('/'))
            };
            let Some(rest) = rest else { continue };
            let found = if rest.is_empty() {
                package
                    .main
                    .as_deref()
                    .and_then(|m| join(&package.dir, m))
                    .and_then(|p| self.probe_ecma(&p))
                    .or_else(|| join(&package.dir, "src/index").and_then(|p| self.probe_ecma(&p)))
                    .or_else(|| join(&package.dir, "index").and_then(|p| self.probe_ecma(&p)))
            } else {
                join(&package.dir, rest)
                    .and_then(|p| self.probe_ecma(&p))
                    .or_else(|| {
                        join(&package.dir, &format!("src/{rest}")).and_then(|p| self.probe_ecma(&p))
                    })
            };
            return Some(Resolution {
                internal: true,
                targets: found.into_iter().collect(),
            });
        }
        Some(Resolution {
            internal: false,
            targets: Vec::new(),
        })
    }

    /// `p` as a file, with an extension added, with `.js` written for `.ts`, or as a directory
    /// with an `index` file.
    fn probe_ecma(&self, p: &str) -> Option<String> {
        if self.has(p) {
            return Some(p.to_string());
        }
        // ESM TypeScript imports `./x.js` for `./x.ts`.
        for (written, actual) in [
            // Extensions: not a language id.
            (".js", &["ts", "tsx"][..]),
            // Extensions: not a language id.
            (".jsx", &["tsx"][..]),
            (".mjs", &["mts"][..]),
            (".cjs", &["cts"][..]),
        ] {
            if let Some(stem) = p.strip_suffix(written) {
                for ext in actual {
                    let candidate = format!("{stem}.{ext}");
                    if self.has(&candidate) {
                        return Some(candidate);
                    }
                }
            }
        }
        for ext in ECMA_EXTENSIONS {
            let candidate = format!("{p}.{ext}");
            if self.has(&candidate) {
                return Some(candidate);
            }
        }
        for ext in ECMA_EXTENSIONS {
            let candidate = format!("{p}/index.{ext}");
            if self.has(&candidate) {
                return Some(candidate);
            }
        }
        // Explicit non-code files (`./data.json`, `./logo.svg`) are not in the outline index.
        let has_extension = p
            .rsplit('/')
            .next()
            .is_some_and(|name| name.contains('.') && !name.starts_with('.'));
        if has_extension && self.root.join(p).is_file() {
            return Some(p.to_string());
        }
        None
    }

    // ---- Python -------------------------------------------------------------------------

    fn python(&self, from: &str, import: &Import) -> Option<Resolution> {
        let source = import.source.as_str();
        let names: Vec<&str> = import.imported.iter().map(|n| n.name.as_str()).collect();
        let is_from = !import
            .imported
            .iter()
            .any(|n| n.name == source && !source.starts_with('.'));
        if source.starts_with('.') {
            let dots = source.chars().take_while(|c| *c == '.').count();
            let mut base = dir_of(from).to_string();
            for _ in 1..dots {
                base = dir_of(&base).to_string();
            }
            let module = &source[dots..];
            let targets = self.python_in(&base, module, if is_from { &names } else { &[] });
            return Some(Resolution {
                internal: true,
                targets,
            });
        }
        let mut roots: Vec<&str> = self.python_roots.iter().map(String::as_str).collect();
        roots.push(dir_of(from));
        for root in roots {
            let targets = self.python_in(root, source, if is_from { &names } else { &[] });
            if !targets.is_empty() {
                return self.found(targets);
            }
        }
        let top = source.split('.').next().unwrap_or(source);
        Some(Resolution {
            internal: self.python_top.contains(top),
            targets: Vec::new(),
        })
    }

    /// Module `a.b` under `base`: `a/b.py` or `a/b/__init__.py`; with `names`, the submodules
    /// `a/b/<name>.py` they name, falling back to the package itself.
    fn python_in(&self, base: &str, module: &str, names: &[&str]) -> Vec<String> {
        let module_path = module.replace('.', "/");
        let Some(dir) = join(base, &module_path) else {
            return Vec::new();
        };
        let mut targets = Vec::new();
        for name in names {
            for candidate in [
                format!("{dir}/{name}.py"),
                format!("{dir}/{name}/__init__.py"),
            ] {
                let candidate = candidate.trim_start_matches('/').to_string();
                if self.has(&candidate) && !targets.contains(&candidate) {
                    targets.push(candidate);
                }
            }
        }
        if targets.is_empty() && !module.is_empty() {
            for candidate in [format!("{dir}.py"), format!("{dir}/__init__.py")] {
                if self.has(&candidate) {
                    targets.push(candidate);
                    break;
                }
            }
        } else if targets.is_empty() {
            let init = join(&dir, "__init__.py").unwrap_or_default();
            if self.has(&init) {
                targets.push(init);
            }
        }
        targets
    }

    // ---- PHP ----------------------------------------------------------------------------

    fn php(&self, from: &str, import: &Import) -> Option<Resolution> {
        let source = import.source.trim_start_matches('\\');
        if import.is_reference() {
            return Some(match self.php_class(source) {
                Some(file) => Resolution {
                    internal: true,
                    targets: vec![file],
                },
                None => Resolution {
                    internal: false,
                    targets: Vec::new(),
                },
            });
        }
        if import
            .statement
            .as_deref()
            .is_some_and(|s| s.starts_with("require") || s.starts_with("include"))
        {
            let path = join(dir_of(from), source);
            // `require __DIR__.'/../vendor/autoload.php'` loads the dependencies.
            let vendored = path
                .as_deref()
                .is_some_and(|p| p.starts_with("vendor/") || p.contains("/vendor/"));
            return Some(Resolution {
                internal: !vendored,
                targets: path.filter(|p| self.has(p)).into_iter().collect(),
            });
        }
        let mut prefixed = false;
        for composer in &self.layout.composers {
            for (prefix, dirs) in &composer.psr4 {
                let Some(rest) = strip_prefix_ci(source, prefix) else {
                    continue;
                };
                prefixed = true;
                let relative = rest.replace('\\', "/");
                if let Some(found) = dirs
                    .iter()
                    .filter_map(|d| join(d, &format!("{relative}.php")))
                    .find(|p| self.has(p))
                {
                    return self.found(vec![found]);
                }
                // `use App\Filament\Resources\Pages;` imports a namespace: its directory.
                if let Some(files) = dirs
                    .iter()
                    .filter_map(|d| join(d, &relative))
                    .find_map(|dir| self.by_dir.get(&dir))
                {
                    let php: Vec<String> = files
                        .iter()
                        .filter(|f| f.ends_with(".php"))
                        .cloned()
                        .collect();
                    if !php.is_empty() {
                        return self.found(php);
                    }
                }
            }
            for (prefix, dirs) in &composer.psr0 {
                if strip_prefix_ci(source, prefix).is_none() {
                    continue;
                }
                prefixed = true;
                let relative = format!("{}.php", source.replace(['\\', '_'], "/"));
                if let Some(found) = dirs
                    .iter()
                    .filter_map(|d| join(d, &relative))
                    .find(|p| self.has(p))
                {
                    return self.found(vec![found]);
                }
            }
        }
        // Classmap directories and anything else the project declares.
        if let Some(file) = self.php_symbols.get(&source.to_ascii_lowercase()) {
            return self.found(vec![file.clone()]);
        }
        Some(Resolution {
            internal: prefixed,
            targets: Vec::new(),
        })
    }

    /// The project file declaring class `fqcn`: its PSR-4 / PSR-0 path when that file exists,
    /// otherwise whatever file declares it (classmap).
    fn php_class(&self, fqcn: &str) -> Option<String> {
        for composer in &self.layout.composers {
            for (prefix, dirs) in &composer.psr4 {
                if let Some(rest) = strip_prefix_ci(fqcn, prefix) {
                    let relative = format!("{}.php", rest.replace('\\', "/"));
                    if let Some(found) = dirs
                        .iter()
                        .filter_map(|d| join(d, &relative))
                        .find(|p| self.has(p))
                    {
                        return Some(found);
                    }
                }
            }
            for (prefix, dirs) in &composer.psr0 {
                if strip_prefix_ci(fqcn, prefix).is_some() {
                    let relative = format!("{}.php", fqcn.replace(['\\', '_'], "/"));
                    if let Some(found) = dirs
                        .iter()
                        .filter_map(|d| join(d, &relative))
                        .find(|p| self.has(p))
                    {
                        return Some(found);
                    }
                }
            }
        }
        self.php_symbols.get(&fqcn.to_ascii_lowercase()).cloned()
    }

    // ---- Blade --------------------------------------------------------------------------

    fn blade(&self, from: &str, import: &Import) -> Option<Resolution> {
        let views = self.views_dir(from);
        let source = import.source.as_str();
        let mut targets: Vec<String> = Vec::new();
        let (view, classes): (Option<String>, Vec<String>) = match import.statement.as_deref() {
            Some("x-component") => {
                let name = source.strip_prefix("x-").unwrap_or(source);
                let class = crate::lang::blade::component_class(name);
                (
                    Some(format!("components.{name}")),
                    class.into_iter().collect(),
                )
            }
            Some("livewire") => {
                let class = crate::lang::blade::livewire_class(source);
                // Livewire 2 kept components under `App\Http\Livewire`.
                let legacy = class.replacen("App\\Livewire\\", "App\\Http\\Livewire\\", 1);
                (Some(format!("livewire.{source}")), vec![class, legacy])
            }
            _ => (Some(source.to_string()), Vec::new()),
        };
        if let Some(view) = view.and_then(|v| self.view_file(&views, &v)) {
            targets.push(view);
        }
        for class in classes {
            if let Some(file) = self.php_class(&class)
                && !targets.contains(&file)
            {
                targets.push(file);
            }
        }
        let internal = !targets.is_empty() || !source.contains("::");
        Some(Resolution { internal, targets })
    }

    /// The `resources/views` directory a template belongs to: the one above it, else the
    /// project's (next to its nearest composer.json).
    fn views_dir(&self, from: &str) -> String {
        const VIEWS: &str = "resources/views";
        let mut at = 0;
        while let Some(i) = from[at..].find(VIEWS) {
            let start = at + i;
            let end = start + VIEWS.len();
            if (start == 0 || from.as_bytes()[start - 1] == b'/')
                && from.as_bytes().get(end) == Some(&b'/')
            {
                return from[..end].to_string();
            }
            at = end;
        }
        let composer = self
            .layout
            .composers
            .iter()
            .find(|c| contains(&c.dir, from))
            .map_or("", |c| c.dir.as_str());
        join(composer, VIEWS).unwrap_or_else(|| VIEWS.to_string())
    }

    /// A view in dot notation (`checkout.partials.totals`, `mail::message`) to its file:
    /// `x/y.blade.php`, a plain `x/y.php` view, or a component directory's `index.blade.php` /
    /// `name/name.blade.php`. A package view counts when the project overrides it under
    /// `vendor/<package>/`.
    fn view_file(&self, views: &str, view: &str) -> Option<String> {
        let package = view.split_once("::");
        let relative = match package {
            Some((package, rest)) => format!("vendor/{package}/{}", rest.replace('.', "/")),
            None => view.replace('.', "/"),
        };
        let base = join(views, &relative)?;
        let leaf = base.rsplit('/').next().unwrap_or(&base).to_string();
        let candidates = [
            format!("{base}.blade.php"),
            format!("{base}.php"),
            format!("{base}/index.blade.php"),
            format!("{base}/{leaf}.blade.php"),
        ];
        // `vendor/` directories are skipped when indexing, so overrides are looked for on disk.
        candidates
            .iter()
            .find(|p| self.has(p))
            .cloned()
            .or_else(|| {
                package.and_then(|_| candidates.into_iter().find(|p| self.root.join(p).is_file()))
            })
    }

    // ---- CSS / SCSS ---------------------------------------------------------------------

    fn css(&self, from: &str, source: &str) -> Option<Resolution> {
        let external = Resolution {
            internal: false,
            targets: Vec::new(),
        };
        if crate::analysis::outline::is_external_stylesheet(source) || source.contains("://") {
            return Some(external);
        }
        let path = source.split(['?', '#']).next().unwrap_or(source);
        let base = if path.starts_with('/') {
            // Root-relative: the web root, which is the project or its `public/` directory.
            ["", "public"]
                .iter()
                .find_map(|dir| join(dir, path).and_then(|p| self.probe_style(&p)))
        } else {
            join(dir_of(from), path).and_then(|p| self.probe_style(&p))
        };
        if let Some(found) = base {
            return self.found(vec![found]);
        }
        // Sass also resolves a bare path against its load paths, usually node_modules: a
        // path that names no project file is a package unless it is written relative.
        Some(Resolution {
            internal: path.starts_with('.') || path.starts_with('/'),
            targets: Vec::new(),
        })
    }

    /// A stylesheet path as Sass and CSS find it: as written, with an extension, as a partial
    /// `_name`, or a directory's `_index` / `index` file.
    fn probe_style(&self, p: &str) -> Option<String> {
        let (dir, name) = match p.rsplit_once('/') {
            Some((dir, name)) => (format!("{dir}/"), name),
            None => (String::new(), p),
        };
        let mut candidates = vec![p.to_string()];
        // Stylesheet extensions: not a language id.
        for ext in ["scss", "sass", "css"] {
            candidates.push(format!("{p}.{ext}"));
            candidates.push(format!("{dir}_{name}.{ext}"));
        }
        candidates.push(format!("{dir}_{name}"));
        for index in ["_index", "index"] {
            // Extensions again: not a language id.
            for ext in ["scss", "sass", "css"] {
                candidates.push(format!("{p}/{index}.{ext}"));
            }
        }
        if let Some(found) = candidates.iter().find(|c| self.has(c)) {
            return Some(found.clone());
        }
        // `.sass` files have no outline; a written extension is checked on disk.
        candidates
            .into_iter()
            .filter(|c| c.ends_with(".sass") || c == p)
            .find(|c| c.contains('.') && self.root.join(c).is_file())
    }

    // ---- Load paths (Ruby) ----------------------------------------------------------------

    /// `require_relative "x"` (or a `./` path) from the requiring file's directory; `require "x"`
    /// from a load-path root (`lib/`) beside the requiring file or any directory above it, the
    /// nearest first, so a library nested in a larger repository finds its own `lib/`; the
    /// language's extension added when the path has none. A require that names no project file
    /// is a library's.
    fn load_path(
        &self,
        from: &str,
        import: &Import,
        roots: &[&str],
        extension: &str,
    ) -> Option<Resolution> {
        let source = import.source.as_str();
        let relative = import.statement.as_deref() == Some("require_relative")
            || source.starts_with("./")
            || source.starts_with("../");
        let with_extension = |path: String| {
            if extension.is_empty() || path.ends_with(&format!(".{extension}")) {
                path
            } else {
                format!("{path}.{extension}")
            }
        };
        let bases: Vec<String> = if relative {
            vec![dir_of(from).to_string()]
        } else {
            let mut ancestors = Vec::new();
            let mut dir = dir_of(from);
            loop {
                ancestors.push(dir);
                if dir.is_empty() {
                    break;
                }
                dir = dir_of(dir);
            }
            ancestors
                .into_iter()
                .flat_map(|dir| roots.iter().filter_map(move |root| join(dir, root)))
                .collect()
        };
        let found = bases
            .iter()
            .filter_map(|base| join(base, source).map(with_extension))
            .find(|candidate| self.has(candidate));
        match found {
            Some(path) => self.found(vec![path]),
            None => Some(Resolution {
                internal: relative,
                targets: Vec::new(),
            }),
        }
    }

    // ---- Go -----------------------------------------------------------------------------

    fn go(&self, source: &str) -> Option<Resolution> {
        for module in &self.layout.go_modules {
            let rest = if source == module.path {
                Some("")
            } else {
                source
                    .strip_prefix(&module.path)
                    .and_then(|r| r.strip_prefix('/'))
            };
            let Some(rest) = rest else { continue };
            let dir = join(&module.dir, rest).unwrap_or_default();
            let targets = self
                .by_dir
                .get(&dir)
                .map(|files| {
                    files
                        .iter()
                        .filter(|f| f.ends_with(".go") && !f.ends_with("_test.go"))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            return Some(Resolution {
                internal: true,
                targets,
            });
        }
        Some(Resolution {
            internal: false,
            targets: Vec::new(),
        })
    }

    // ---- Java ---------------------------------------------------------------------------

    fn java(&self, import: &Import) -> Option<Resolution> {
        let source = import.source.as_str();
        if import.namespace {
            if let Some(files) = self.java_packages.get(source) {
                return self.found(files.clone());
            }
            // `import a.b.Outer.*` imports nested types of a class.
            if let Some(file) = self.java_types.get(source) {
                return self.found(vec![file.clone()]);
            }
        } else {
            // `a.b.Outer.Inner` → the file declaring `a.b.Outer`.
            let mut name = source;
            loop {
                if let Some(file) = self.java_types.get(name) {
                    return self.found(vec![file.clone()]);
                }
                match name.rsplit_once('.') {
                    Some((shorter, _)) => name = shorter,
                    None => break,
                }
            }
        }
        let internal = self
            .java_packages
            .keys()
            .any(|p| !p.is_empty() && (source.starts_with(&format!("{p}.")) || source == p));
        Some(Resolution {
            internal,
            targets: Vec::new(),
        })
    }

    // ---- Rust ---------------------------------------------------------------------------

    fn rust(&self, from: &str, import: &Import) -> Option<Resolution> {
        let krate = self.layout.crate_for(from);
        let src_dir = match krate {
            Some(k) => join(&k.dir, "src").unwrap_or_default(),
            None => dir_of(from).to_string(),
        };
        let current = rust_module_path(from, &src_dir);
        if import.statement.as_deref() == Some("mod") {
            let mut path = current.clone();
            path.push(import.source.clone());
            let target = self.rust_file(&src_dir, &path);
            return Some(Resolution {
                internal: true,
                targets: target.into_iter().collect(),
            });
        }
        let segments: Vec<&str> = import.source.split("::").collect();
        let (base_dir, mut path): (String, Vec<String>) = match segments[0] {
            "crate" => (src_dir.clone(), Vec::new()),
            "self" => (src_dir.clone(), current.clone()),
            "super" => {
                let mut p = current.clone();
                let supers = segments.iter().take_while(|s| **s == "super").count();
                p.truncate(p.len().saturating_sub(supers));
                (src_dir.clone(), p)
            }
            // `use Kind::*;`: items of a type in scope (crate names are lower case).
            first if first.starts_with(char::is_uppercase) => {
                return Some(Resolution {
                    internal: true,
                    targets: Vec::new(),
                });
            }
            first => {
                // A module declared in scope (2018 uniform paths), or another crate of the
                // workspace; anything else is a dependency.
                let mut local = current.clone();
                local.push(first.to_string());
                if self.rust_file(&src_dir, &local).is_some() {
                    (src_dir.clone(), current.clone())
                } else if let Some(other) = self.layout.crates.iter().find(|c| c.name == first) {
                    (join(&other.dir, "src").unwrap_or_default(), Vec::new())
                } else {
                    return Some(Resolution {
                        internal: false,
                        targets: Vec::new(),
                    });
                }
            }
        };
        let skip = match segments[0] {
            "crate" | "self" => 1,
            "super" => segments.iter().take_while(|s| **s == "super").count(),
            first if self.layout.crates.iter().any(|c| c.name == first) && path.is_empty() => 1,
            _ => 0,
        };
        path.extend(segments.iter().skip(skip).map(|s| s.to_string()));
        // The deepest prefix of `path` + an imported name that is a module file.
        let mut targets = Vec::new();
        for name in &import.imported {
            let mut with_name = path.clone();
            with_name.push(name.name.clone());
            if let Some(file) = self.rust_file(&base_dir, &with_name)
                && !targets.contains(&file)
            {
                targets.push(file);
            }
        }
        if targets.is_empty() {
            let mut prefix = path.clone();
            loop {
                if let Some(file) = self.rust_file(&base_dir, &prefix) {
                    targets.push(file);
                    break;
                }
                if prefix.pop().is_none() {
                    break;
                }
            }
        }
        Some(Resolution {
            internal: true,
            targets,
        })
    }

    /// The file of module `path` under a crate's `src/`: `a/b.rs`, `a/b/mod.rs`, or the crate
    /// root for the empty path.
    fn rust_file(&self, src_dir: &str, path: &[String]) -> Option<String> {
        if path.is_empty() {
            return ["lib.rs", "main.rs"]
                .iter()
                .filter_map(|f| join(src_dir, f))
                .find(|p| self.has(p));
        }
        let joined = path.join("/");
        [format!("{joined}.rs"), format!("{joined}/mod.rs")]
            .iter()
            .filter_map(|f| join(src_dir, f))
            .find(|p| self.has(p))
    }
}

/// The module path of a Rust file relative to its crate's `src/`: `lib.rs` → `[]`,
/// `a/b.rs` → `[a, b]`, `a/mod.rs` → `[a]`.
fn rust_module_path(file: &str, src_dir: &str) -> Vec<String> {
    let rel = if contains(src_dir, file) {
        file[src_dir.len()..].trim_start_matches('/')
    } else {
        file.rsplit('/').next().unwrap_or(file)
    };
    let rel = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(String::from).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// A tsconfig `paths` pattern with at most one `*`: the text the `*` matched.
fn match_pattern<'a>(pattern: &str, source: &'a str) -> Option<&'a str> {
    match pattern.split_once('*') {
        None => (pattern == source).then_some(""),
        Some((prefix, suffix)) => source
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix)),
    }
}

/// `App\Models\User` minus prefix `App\` (PHP namespaces are case-insensitive).
fn strip_prefix_ci<'a>(source: &'a str, prefix: &str) -> Option<&'a str> {
    let head = source.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &source[prefix.len()..])
}

/// The module system of a language id (outlines carry their language as an id).
fn modules_of(language: &str) -> ModuleSystem {
    crate::lang::by_id(language).map_or(ModuleSystem::None, |l| l.modules)
}
