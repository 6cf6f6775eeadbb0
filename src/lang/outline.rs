//! The outline of a file, as every language's walker answers it: imports with their flavour
//! (default, namespace, type-only, dynamic), exports, functions with typed parameters, classes
//! with their members, interfaces and type aliases, enums, variables and doc comments. These are
//! the shapes seed 002's `analyze_file` returns; each language's home fills them from its own
//! grammar (`<id>/outline.rs`), and `analysis::outline` adds the summary and the syntax errors.
//! They hold no tree-sitter types, so caches and wire types can carry them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A 1-based position; `column` counts bytes, like every position code-intel reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Where a declaration is: `end` is exclusive (the column just after its last character), as in
/// seed 002's examples. `file` is filled in by the tool that knows the path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    #[serde(default)]
    pub file: String,
    pub start: Position,
    pub end: Position,
}

/// Whether an import stays in the project. The outline guesses from syntax (relative paths,
/// `crate::`); `deps` replaces the guess with the result of real module resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportType {
    Internal,
    External,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImportedName {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

/// One import statement (or `require`, `include`, Rust `mod`), as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Import {
    /// The module as written: `./types/User`, `react`, `App\Models\Product`, `..models`,
    /// `github.com/x/y`, `crate::money`.
    pub source: String,
    #[serde(rename = "type")]
    pub kind: ImportType,
    pub imported: Vec<ImportedName>,
    /// Includes a default import (`import React from …`).
    pub default: bool,
    /// Binds the whole module (`import * as x`, `import x.y`, Go packages, wildcards).
    pub namespace: bool,
    /// `import type …` (TypeScript).
    pub type_only: bool,
    /// `import()`, `require()` inside a function, `importlib.import_module`, a Python import
    /// inside a function.
    pub dynamic: bool,
    /// The statement when it is not a plain import: `require`, `include`, `mod`, `export`
    /// (a re-export), `use function`, `static`; for Blade the directive (`extends`, `include`,
    /// `includeIf`, `includeWhen`, `includeUnless`, `includeFirst`, `each`, `component`,
    /// `x-component`, `livewire`); for CSS and SCSS the at-rule (`@import`, `@use`,
    /// `@forward`); [`REFERENCE`] for a PHP class named without a `use`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    pub line: usize,
}

/// The `statement` of a PHP class the code names without importing it — a class of its own
/// namespace (`new OrderService`, `extends Controller`) or a fully qualified name. Such a
/// reference is a dependency only when it resolves to a project file: tools drop the others
/// (built-in classes, vendor classes), so the outline may list more than the answer shows.
pub const REFERENCE: &str = "reference";

impl Import {
    /// Whether this is a [`REFERENCE`] rather than an import statement.
    pub fn is_reference(&self) -> bool {
        self.statement.as_deref() == Some(REFERENCE)
    }
}

/// Something the file makes visible to other files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Export {
    pub name: String,
    /// `function`, `class`, `interface`, `type`, `enum`, `variable`, `constant`, `struct`,
    /// `trait`, `module`, `namespace`, `component` (a Vue SFC), or `unknown` for a re-export.
    #[serde(rename = "type")]
    pub kind: String,
    pub default: bool,
    pub re_export: bool,
    /// The module a re-export comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Parameter {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// May be omitted by callers (`?`, or a default value).
    pub optional: bool,
    /// Collects the remaining arguments (`...args`, `*args`, `**kwargs`, `...$xs`, `ids...`).
    pub rest: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Function {
    pub name: String,
    pub exported: bool,
    #[serde(rename = "async")]
    pub is_async: bool,
    pub generator: bool,
    pub parameters: Vec<Parameter>,
    pub return_type: Option<String>,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    /// Doc comment (JSDoc, docstring, PHPDoc, `///`), cleaned of comment markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// The first lines of the body (detailed mode only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    pub name: String,
    /// `method`, `constructor`, `getter` or `setter`.
    pub kind: String,
    /// `public`, `protected`, `private`, or `package` (Java's default).
    pub access_modifier: String,
    #[serde(rename = "static")]
    pub is_static: bool,
    #[serde(rename = "abstract")]
    pub is_abstract: bool,
    #[serde(rename = "async")]
    pub is_async: bool,
    pub generator: bool,
    pub parameters: Vec<Parameter>,
    pub return_type: Option<String>,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A field, property or class constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Property {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub access_modifier: String,
    #[serde(rename = "static")]
    pub is_static: bool,
    pub readonly: bool,
    pub optional: bool,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Class {
    pub name: String,
    /// `class`, `struct` (Go, Rust), `trait` (PHP), `record` (Java), `object`.
    pub kind: String,
    pub exported: bool,
    #[serde(rename = "abstract")]
    pub is_abstract: bool,
    pub extends: Option<String>,
    pub implements: Vec<String>,
    /// PHP traits used, Go embedded types.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<String>,
    pub methods: Vec<Method>,
    pub properties: Vec<Property>,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A member of an interface or trait: a property or a method signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub name: String,
    /// `property` or `method`.
    pub kind: String,
    /// The property's type, or the method's signature without its name.
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub optional: bool,
    pub readonly: bool,
    pub line: usize,
}

impl Method {
    /// A function that belongs to a type (a Go method on its receiver): an instance method
    /// with the function's signature, doc and body.
    pub fn of_function(function: Function, access_modifier: &str) -> Method {
        Method {
            name: function.name,
            kind: "method".into(),
            access_modifier: access_modifier.into(),
            is_static: false,
            is_abstract: false,
            is_async: function.is_async,
            generator: function.generator,
            parameters: function.parameters,
            return_type: function.return_type,
            location: function.location,
            decorators: function.decorators,
            doc: function.doc,
            body: function.body,
        }
    }
}

impl Member {
    /// An interface-like type's property or constant, listed as a member.
    pub fn of_property(property: Property, kind: &str, readonly: bool) -> Member {
        Member {
            name: property.name,
            kind: kind.into(),
            type_name: property.type_name,
            optional: false,
            readonly,
            line: property.line,
        }
    }

    /// A method listed as a member, with its signature as the language writes it (without the
    /// name).
    pub fn of_method(method: Method, signature: String, optional: bool) -> Member {
        Member {
            type_name: Some(signature),
            kind: "method".into(),
            optional,
            readonly: false,
            line: method.location.start.line,
            name: method.name,
        }
    }
}

/// An interface, type alias, trait (Rust) or protocol (Python).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeDefinition {
    pub name: String,
    /// `interface`, `type`, `trait`, `annotation`.
    pub kind: String,
    pub exported: bool,
    pub extends: Vec<String>,
    pub members: Vec<Member>,
    /// For a type alias: the aliased type, on one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EnumMember {
    pub name: String,
    pub value: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnumDefinition {
    pub name: String,
    pub exported: bool,
    /// `const enum` (TypeScript).
    #[serde(rename = "const")]
    pub is_const: bool,
    pub members: Vec<EnumMember>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub implements: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Method>,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A module-level variable or constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    /// `const`, `let`, `var`, `static`, or `assignment` (Python).
    pub kind: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub exported: bool,
    pub line: usize,
}

/// Everything an outline knows about one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileOutline {
    pub language: String,
    /// The package or namespace the file declares (PHP namespace, Java/Go package).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The file's own doc comment or module docstring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub imports: Vec<Import>,
    pub exports: Vec<Export>,
    pub functions: Vec<Function>,
    pub classes: Vec<Class>,
    pub types: Vec<TypeDefinition>,
    pub enums: Vec<EnumDefinition>,
    pub variables: Vec<Variable>,
    /// Syntax errors; when non-empty the outline is what the parser could recover.
    #[serde(default)]
    pub errors: Vec<OutlineError>,
}

/// A syntax error found while parsing the file; 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutlineError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl FileOutline {
    /// Whether the parser reported syntax errors (the outline is partial).
    pub fn is_partial(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Fills `location.file` everywhere (outlines are computed without knowing their path).
    pub fn set_file(&mut self, file: &str) {
        let set = |loc: &mut Location| loc.file = file.to_string();
        self.functions.iter_mut().for_each(|f| set(&mut f.location));
        for class in &mut self.classes {
            set(&mut class.location);
            class.methods.iter_mut().for_each(|m| set(&mut m.location));
        }
        self.types.iter_mut().for_each(|t| set(&mut t.location));
        for e in &mut self.enums {
            set(&mut e.location);
            e.methods.iter_mut().for_each(|m| set(&mut m.location));
        }
    }

    /// Drops doc comments and body excerpts (seed 002's concise mode).
    pub fn strip_details(&mut self, docs: bool, bodies: bool) {
        if !docs {
            self.doc = None;
        }
        let strip = |doc: &mut Option<String>, body: &mut Option<String>| {
            if !docs {
                *doc = None;
            }
            if !bodies {
                *body = None;
            }
        };
        self.functions
            .iter_mut()
            .for_each(|f| strip(&mut f.doc, &mut f.body));
        for class in &mut self.classes {
            if !docs {
                class.doc = None;
            }
            class
                .methods
                .iter_mut()
                .for_each(|m| strip(&mut m.doc, &mut m.body));
        }
        for t in &mut self.types {
            if !docs {
                t.doc = None;
            }
        }
        for e in &mut self.enums {
            if !docs {
                e.doc = None;
            }
            e.methods
                .iter_mut()
                .for_each(|m| strip(&mut m.doc, &mut m.body));
        }
    }

    /// Number of methods over all classes and enums.
    pub fn method_count(&self) -> usize {
        self.classes.iter().map(|c| c.methods.len()).sum::<usize>()
            + self.enums.iter().map(|e| e.methods.len()).sum::<usize>()
    }
}
