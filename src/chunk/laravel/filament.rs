//! Filament admin panels (seed 004 §1.12), in both layouts in use today:
//!
//! - v3: a `Resource` with `form()`, `table()`, `infolist()`, `getRelations()` and action
//!   methods inside it;
//! - v4: a `Resource` whose `form()`/`infolist()`/`table()` delegate to `Schemas/*Form`,
//!   `Schemas/*Infolist` and `Tables/*Table` classes with a static `configure()`.
//!
//! Resources become `filament_resource` chunks (model, navigation group/icon, where the form and
//! table live, relation managers, pages); form/table/infolist/actions methods become
//! `filament_form`/`filament_table`/`filament_infolist`/`filament_actions` chunks with field
//! names, column names, filters and actions (type and name). Components are classified by their
//! resolved namespace (`Filament\Tables\Columns\…`), not by name. A v4 schema class does not name
//! its resource: within one file the resource is inferred from the generator's layout, and
//! [`link`] confirms it from the resource's own delegation when a whole project is chunked.

use super::{
    array_items, base_class, call_args, class_method, class_traits, descendants, literal,
    methods_of, property_value, short_name, string_value,
};
use crate::chunk::imports::Imports;
use crate::chunk::unit::Unit;
use crate::chunk::{ChunkKind, FileChunks, Source};
use crate::syntax::node_text;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

const RESOURCE: &str = "Filament\\Resources\\Resource";
const RELATION_MANAGER: &str = "Filament\\Resources\\RelationManagers\\RelationManager";
const PAGES: &str = "Filament\\Resources\\Pages\\";

/// Methods whose body is a list of actions.
const ACTION_METHODS: &[&str] = &[
    "getActions",
    "getHeaderActions",
    "getFooterActions",
    "getTableActions",
    "getTableBulkActions",
    "getBulkActions",
    "getFormActions",
    "getTableHeaderActions",
];

/// Calls that hold actions inside a table, and the group name reported for them.
const ACTION_LISTS: &[(&str, &str)] = &[
    ("actions", "record"),
    ("recordActions", "record"),
    ("bulkActions", "bulk"),
    ("groupedBulkActions", "bulk"),
    ("toolbarActions", "toolbar"),
    ("headerActions", "header"),
    ("emptyStateActions", "empty_state"),
];

/// Layout components: they group fields, they are not fields.
const LAYOUT: &[&str] = &[
    "Section",
    "Grid",
    "Fieldset",
    "Tabs",
    "Tab",
    "Wizard",
    "Step",
    "Group",
    "Split",
    "Card",
    "Placeholder",
    "Actions",
    "Flex",
    "Callout",
    "Text",
    "View",
    "Livewire",
];

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Action {
    #[serde(rename = "type")]
    pub action_type: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Filter {
    #[serde(rename = "type")]
    pub filter_type: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Component {
    #[serde(rename = "type")]
    pub component_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What a form/table/infolist/actions method builds.
#[derive(Debug, Default, Serialize)]
struct Built {
    fields: Vec<String>,
    components: Vec<Component>,
    columns: Vec<String>,
    filters: Vec<Filter>,
    actions: Vec<Action>,
    entries: Vec<String>,
    delegates_to: Option<String>,
}

/// The part a method plays.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Form,
    Table,
    Infolist,
    Actions,
}

impl Part {
    fn kind(self) -> ChunkKind {
        match self {
            Part::Form => ChunkKind::FilamentForm,
            Part::Table => ChunkKind::FilamentTable,
            Part::Infolist => ChunkKind::FilamentInfolist,
            Part::Actions => ChunkKind::FilamentActions,
        }
    }

    fn of_method(name: &str) -> Option<Part> {
        match name {
            "form" => Some(Part::Form),
            "table" => Some(Part::Table),
            "infolist" => Some(Part::Infolist),
            n if ACTION_METHODS.contains(&n) => Some(Part::Actions),
            _ => None,
        }
    }
}

pub(crate) fn enrich(source: &Source, imports: &Imports, units: &mut [Unit]) {
    let text = source.text;
    for index in 0..units.len() {
        if units[index].kind != ChunkKind::Class {
            continue;
        }
        let Some(class) = units[index].node else {
            continue;
        };
        let fqcn = units[index].meta.fqcn.clone().unwrap_or_default();
        let base = base_class(class, text, imports).unwrap_or_default();
        if base == RESOURCE {
            resource(source, imports, units, index, class, &fqcn);
        } else if base == RELATION_MANAGER {
            let relationship =
                property_value(class, "relationship", text).map(|v| literal(v, text, imports));
            let unit = &mut units[index];
            unit.meta.set("role", "filament_relation_manager");
            if let Some(r) = &relationship {
                unit.meta.set("relationship", r);
            }
            parts(
                source,
                imports,
                units,
                index,
                &[("relation_manager", json!(fqcn))],
            );
        } else if base.starts_with(PAGES) {
            let resource =
                property_value(class, "resource", text).map(|v| literal(v, text, imports));
            let unit = &mut units[index];
            unit.meta.set("role", "filament_page");
            unit.meta.set("page_type", short_name(&base));
            let mut extra = Vec::new();
            if let Some(r) = resource {
                unit.meta.relate([r.clone()]);
                unit.meta.set("resource", &r);
                extra.push(("resource", json!(r)));
            }
            parts(source, imports, units, index, &extra);
        } else if let Some((param, method)) = configure_method(class, text, imports) {
            schema_class(source, imports, units, index, &fqcn, &param, method);
        }
    }
}

/// A v3/v4 resource class and its methods.
fn resource(
    source: &Source,
    imports: &Imports,
    units: &mut [Unit],
    index: usize,
    class: Node,
    fqcn: &str,
) {
    let text = source.text;
    let prop = |name: &str| property_value(class, name, text).map(|v| literal(v, text, imports));
    let model = prop("model");
    let traits = class_traits(class, text, imports);
    let mut extra: Vec<(&str, Value)> = vec![("resource", json!(fqcn))];
    if let Some(model) = &model {
        extra.push(("model", json!(model)));
    }
    let built = parts(source, imports, units, index, &extra);
    let relations: Vec<String> = class_method(class, "getRelations", text)
        .and_then(super::returned_array)
        .map(|a| {
            array_items(a, text, imports)
                .into_iter()
                .map(|(_, v)| v)
                .collect()
        })
        .unwrap_or_default();
    let pages: BTreeMap<String, String> = class_method(class, "getPages", text)
        .and_then(super::returned_array)
        .map(|array| pages_of(array, text, imports))
        .unwrap_or_default();
    let unit = &mut units[index];
    unit.kind = ChunkKind::FilamentResource;
    unit.meta.set("role", "filament_resource");
    unit.meta.set("resource", fqcn);
    if let Some(model) = &model {
        unit.meta.set("model", model);
        unit.meta.relate([model.clone()]);
    }
    for (key, prop_name) in [
        ("navigation_icon", "navigationIcon"),
        ("navigation_group", "navigationGroup"),
        ("navigation_sort", "navigationSort"),
        ("navigation_label", "navigationLabel"),
        ("record_title_attribute", "recordTitleAttribute"),
    ] {
        if let Some(value) = prop(prop_name) {
            unit.meta.set(key, value);
        }
    }
    unit.meta.set(
        "translatable",
        traits
            .iter()
            .any(|t| t.ends_with("\\Concerns\\Translatable")),
    );
    for (part, (method_name, built)) in built {
        let key = match part {
            Part::Form => "form",
            Part::Table => "table",
            Part::Infolist => "infolist",
            Part::Actions => continue,
        };
        let _ = method_name;
        match built.delegates_to {
            Some(class) => {
                unit.meta.relate([class.clone()]);
                unit.meta.set(key, class);
            }
            None => unit.meta.set(key, "inline"),
        }
    }
    if !relations.is_empty() {
        unit.meta.relate(relations.iter().cloned());
        unit.meta.set("relation_managers", &relations);
    }
    if !pages.is_empty() {
        unit.meta.relate(pages.values().cloned());
        unit.meta.set("pages", &pages);
    }
}

/// `'index' => Pages\ListProducts::route('/')` → `index: App\…\Pages\ListProducts`.
fn pages_of(array: Node, text: &str, imports: &Imports) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut cursor = array.walk();
    for element in array.named_children(&mut cursor) {
        let (Some(key), Some(value)) = (element.named_child(0), element.named_child(1)) else {
            continue;
        };
        let Some(key) = string_value(key, text) else {
            continue;
        };
        if value.kind() == "scoped_call_expression"
            && let Some(scope) = value.child_by_field_name("scope")
            && let Some(class) = imports.resolve(node_text(scope, text))
        {
            out.insert(key, class);
        }
    }
    out
}

/// Types the form/table/infolist/actions methods of the class at `index` and returns what each
/// builds.
fn parts(
    source: &Source,
    imports: &Imports,
    units: &mut [Unit],
    index: usize,
    extra: &[(&str, Value)],
) -> Vec<(Part, (String, Built))> {
    let text = source.text;
    let mut out = Vec::new();
    for m in methods_of(units, index) {
        let Some(method) = units[m].node else {
            continue;
        };
        let name = method
            .child_by_field_name("name")
            .map_or("", |n| node_text(n, text))
            .to_string();
        let Some(part) = Part::of_method(&name) else {
            continue;
        };
        let built = analyse(method, part, text, imports);
        apply(&mut units[m], part, &built, extra);
        out.push((part, (name, built)));
    }
    out
}

fn apply(unit: &mut Unit, part: Part, built: &Built, extra: &[(&str, Value)]) {
    unit.kind = part.kind();
    for (key, value) in extra {
        unit.meta.fields.insert(key.to_string(), value.clone());
        if let (Value::String(s), "resource" | "model" | "relation_manager") = (value, *key) {
            unit.meta.relate([s.clone()]);
        }
    }
    if let Some(class) = &built.delegates_to {
        unit.meta.set("delegates_to", class);
        unit.meta.relate([class.clone()]);
    }
    match part {
        Part::Form => {
            unit.meta.set("fields", &built.fields);
            unit.meta.set("components", &built.components);
        }
        Part::Infolist => {
            unit.meta.set("entries", &built.entries);
            unit.meta.set("components", &built.components);
        }
        Part::Table => {
            unit.meta.set("columns", &built.columns);
            unit.meta.set("filters", &built.filters);
            unit.meta.set("actions", &built.actions);
        }
        Part::Actions => unit.meta.set("actions", &built.actions),
    }
}

/// Finds every `X::make(…)` in a method and sorts it by the namespace `X` resolves to.
fn analyse(method: Node, part: Part, text: &str, imports: &Imports) -> Built {
    let mut built = Built::default();
    for call in descendants(method, &["scoped_call_expression"]) {
        let (Some(scope), Some(name)) = (
            call.child_by_field_name("scope"),
            call.child_by_field_name("name"),
        ) else {
            continue;
        };
        let Some(class) = imports.resolve(node_text(scope, text)) else {
            continue;
        };
        let call_name = node_text(name, text);
        if call_name == "configure" && matches!(part, Part::Form | Part::Table | Part::Infolist) {
            built.delegates_to = Some(class);
            continue;
        }
        if call_name != "make" {
            continue;
        }
        let short = short_name(&class).to_string();
        let arg = call_args(call).first().and_then(|a| string_value(*a, text));
        let context = enclosing_list(call, method, text);
        let in_action_form = context
            .as_deref()
            .is_some_and(|c| matches!(c, "form" | "schema"))
            && part == Part::Table
            && !class.contains("\\Tables\\");
        if class.contains("\\Tables\\Columns\\") {
            if part == Part::Table
                && let Some(arg) = arg
            {
                built.columns.push(arg);
            }
        } else if class.contains("\\Tables\\Filters\\") {
            built.filters.push(Filter {
                filter_type: short.clone(),
                name: arg.unwrap_or_else(|| default_name(&short, "Filter")),
            });
        } else if class.contains("\\Actions\\") && short.ends_with("Action") {
            let group = context
                .as_deref()
                .and_then(|c| ACTION_LISTS.iter().find(|(list, _)| *list == c))
                .map(|(_, group)| group.to_string());
            built.actions.push(Action {
                name: arg.unwrap_or_else(|| default_name(&short, "Action")),
                action_type: short,
                group,
            });
        } else if in_action_form {
            // Fields of an action's modal form inside a table are not the table's.
        } else if class.contains("\\Components\\") {
            let layout =
                LAYOUT.contains(&short.as_str()) || class.contains("\\Schemas\\Components\\");
            if !layout && let Some(arg) = &arg {
                if class.contains("\\Infolists\\Components\\") {
                    built.entries.push(arg.clone());
                } else if class.contains("\\Forms\\Components\\") {
                    built.fields.push(arg.clone());
                }
            }
            if matches!(part, Part::Form | Part::Infolist) {
                built.components.push(Component {
                    component_type: short,
                    name: arg,
                });
            }
        }
    }
    built
}

/// `EditAction` → `edit`, `TrashedFilter` → `trashed`, `DeleteBulkAction` → `delete_bulk`.
fn default_name(short: &str, suffix: &str) -> String {
    let stem = short.strip_suffix(suffix).unwrap_or(short);
    let mut out = String::new();
    for (i, ch) in stem.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// The name of the nearest `->something([...])` call whose arguments hold `node`.
fn enclosing_list(node: Node, stop: Node, text: &str) -> Option<String> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.id() == stop.id() {
            return None;
        }
        if n.kind() == "arguments"
            && let Some(call) = n.parent()
            && call.kind() == "member_call_expression"
            && let Some(name) = call.child_by_field_name("name")
        {
            return Some(node_text(name, text).to_string());
        }
        current = n.parent();
    }
    None
}

/// A v4 schema/table class: `public static function configure(Schema $schema): Schema`.
fn configure_method<'t>(
    class: Node<'t>,
    text: &str,
    imports: &Imports,
) -> Option<(String, Node<'t>)> {
    let method = class_method(class, "configure", text)?;
    let params = method.child_by_field_name("parameters")?;
    let first = params.named_child(0)?;
    let ty = first.child_by_field_name("type")?;
    let resolved = imports.resolve(node_text(ty, text).trim_start_matches('?'))?;
    matches!(
        resolved.as_str(),
        "Filament\\Schemas\\Schema"
            | "Filament\\Tables\\Table"
            | "Filament\\Forms\\Form"
            | "Filament\\Infolists\\Infolist"
    )
    .then_some((resolved, method))
}

fn schema_class(
    source: &Source,
    imports: &Imports,
    units: &mut [Unit],
    index: usize,
    fqcn: &str,
    param: &str,
    method: Node,
) {
    let text = source.text;
    let class_name = short_name(fqcn).to_string();
    let part = if param.ends_with("\\Table") {
        Part::Table
    } else if param.ends_with("\\Infolist") || class_name.ends_with("Infolist") {
        Part::Infolist
    } else {
        let probe = analyse(method, Part::Form, text, imports);
        if probe.fields.is_empty() && !probe.entries.is_empty() {
            Part::Infolist
        } else {
            Part::Form
        }
    };
    let guess = resource_by_convention(fqcn);
    let mut extra: Vec<(&str, Value)> = vec![("schema_class", json!(fqcn))];
    if let Some(guess) = &guess {
        extra.push(("resource", json!(guess)));
        extra.push(("resource_source", json!("convention")));
    }
    for m in methods_of(units, index) {
        let is_configure = units[m].node.is_some_and(|n| n.id() == method.id());
        if !is_configure {
            continue;
        }
        let built = analyse(method, part, text, imports);
        apply(&mut units[m], part, &built, &extra);
    }
    let unit = &mut units[index];
    unit.meta.set("role", "filament_schema");
    unit.meta.set("schema_type", part.kind().as_str());
    if let Some(guess) = guess {
        unit.meta.set("resource", guess);
        unit.meta.set("resource_source", "convention");
    }
}

/// Filament's generator layout: `…\Orders\Schemas\OrderForm` and `…\Orders\Tables\OrdersTable`
/// belong to `…\Orders\OrderResource`.
fn resource_by_convention(fqcn: &str) -> Option<String> {
    let (namespace, class) = fqcn.rsplit_once('\\')?;
    let (parent, folder) = namespace.rsplit_once('\\')?;
    if !matches!(folder, "Schemas" | "Tables") {
        return None;
    }
    let stem = ["Form", "Infolist", "Table"]
        .iter()
        .find_map(|suffix| class.strip_suffix(suffix))
        .unwrap_or(class);
    let singular = stem
        .strip_suffix('s')
        .filter(|s| !s.is_empty())
        .unwrap_or(stem);
    Some(format!("{parent}\\{singular}Resource"))
}

/// Cross-file links: schema classes get the resource that delegates to them and its model;
/// a resource's delegating methods get the delegate's fields, columns, filters and actions;
/// relation managers and pages get their resource's model.
pub fn link(files: &mut [FileChunks]) {
    struct ResourceFacts {
        model: Option<Value>,
    }
    let mut resources: HashMap<String, ResourceFacts> = HashMap::new();
    let mut delegates: HashMap<String, String> = HashMap::new();
    let mut owned: HashMap<String, String> = HashMap::new();
    let mut schema_facts: HashMap<String, BTreeMap<String, Value>> = HashMap::new();
    for chunk in files.iter().flat_map(|f| f.chunks.iter()) {
        let fields = &chunk.metadata.fields;
        let field = |k: &str| fields.get(k).and_then(Value::as_str).map(str::to_string);
        if chunk.kind == ChunkKind::FilamentResource
            && let Some(resource) = field("resource")
        {
            for key in ["form", "table", "infolist"] {
                if let Some(class) = field(key).filter(|c| c != "inline") {
                    delegates.insert(class, resource.clone());
                }
            }
            if let Some(Value::Array(rms)) = fields.get("relation_managers") {
                for rm in rms.iter().filter_map(Value::as_str) {
                    owned.insert(rm.to_string(), resource.clone());
                }
            }
            resources.insert(
                resource,
                ResourceFacts {
                    model: fields.get("model").cloned(),
                },
            );
        }
        if let Some(class) = field("schema_class")
            && matches!(
                chunk.kind,
                ChunkKind::FilamentForm | ChunkKind::FilamentTable | ChunkKind::FilamentInfolist
            )
        {
            let copied: BTreeMap<String, Value> =
                ["fields", "columns", "filters", "actions", "entries"]
                    .iter()
                    .filter_map(|k| fields.get(*k).map(|v| (k.to_string(), v.clone())))
                    .collect();
            schema_facts.insert(class, copied);
        }
    }
    if resources.is_empty() {
        return;
    }
    for chunk in files.iter_mut().flat_map(|f| f.chunks.iter_mut()) {
        let class = chunk
            .metadata
            .fqcn
            .as_deref()
            .map(|f| f.split("::").next().unwrap_or(f).to_string());
        let fields = &mut chunk.metadata.fields;
        let mut related = Vec::new();
        if let Some(class) = &class
            && let Some(resource) = delegates.get(class).or_else(|| owned.get(class))
        {
            fields.insert("resource".into(), json!(resource));
            if delegates.contains_key(class) {
                fields.insert("resource_source".into(), json!("delegation"));
            }
            if let Some(model) = resources.get(resource).and_then(|r| r.model.clone()) {
                if let Value::String(m) = &model {
                    related.push(m.clone());
                }
                fields.insert("model".into(), model);
            }
            related.push(resource.clone());
        }
        if let Some(Value::String(resource)) = fields.get("resource").cloned()
            && !fields.contains_key("model")
            && let Some(model) = resources.get(&resource).and_then(|r| r.model.clone())
        {
            fields.insert("model".into(), model);
        }
        if let Some(Value::String(delegate)) = fields.get("delegates_to").cloned()
            && let Some(facts) = schema_facts.get(&delegate)
        {
            for (k, v) in facts {
                fields.insert(k.clone(), v.clone());
            }
        }
        chunk.metadata.relate(related);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_schema_classes_map_to_their_resource_by_layout() {
        assert_eq!(
            resource_by_convention("App\\Filament\\Resources\\Orders\\Schemas\\OrderForm")
                .as_deref(),
            Some("App\\Filament\\Resources\\Orders\\OrderResource")
        );
        assert_eq!(
            resource_by_convention("App\\Filament\\Resources\\Orders\\Tables\\OrdersTable")
                .as_deref(),
            Some("App\\Filament\\Resources\\Orders\\OrderResource")
        );
        assert_eq!(resource_by_convention("App\\Services\\OrderForm"), None);
    }

    #[test]
    fn default_names_follow_the_class() {
        assert_eq!(default_name("EditAction", "Action"), "edit");
        assert_eq!(default_name("DeleteBulkAction", "Action"), "delete_bulk");
        assert_eq!(default_name("TrashedFilter", "Filter"), "trashed");
    }
}

#[cfg(test)]
mod fixture_tests {
    use crate::chunk::test_support::{chunker, field, find, fixture, fixtures, strings};
    use crate::chunk::{Chunk, ChunkKind};
    use crate::workspace::Workspace;
    use serde_json::json;

    /// All parts of a split method, as one list of chunks.
    fn all<'a>(chunks: &'a [Chunk], kind: ChunkKind, name: &str) -> Vec<&'a Chunk> {
        chunks
            .iter()
            .filter(|c| c.kind == kind && c.name == name)
            .collect()
    }

    #[test]
    fn v3_resource_with_form_table_infolist_and_actions() {
        let result = fixture("laravel-shop", "app/Filament/Resources/ProductResource.php");
        let resource = find(
            &result.chunks,
            ChunkKind::FilamentResource,
            "ProductResource",
        );
        assert_eq!(field(resource, "model"), "App\\Models\\Product");
        assert_eq!(field(resource, "navigation_group"), "Catalog");
        assert_eq!(
            field(resource, "navigation_icon"),
            "heroicon-o-shopping-bag"
        );
        assert_eq!(field(resource, "translatable"), true);
        assert_eq!(field(resource, "form"), "inline");
        assert_eq!(
            strings(resource, "relation_managers"),
            ["App\\Filament\\Resources\\ProductResource\\RelationManagers\\ReviewsRelationManager"]
        );
        assert_eq!(
            field(resource, "pages")["edit"],
            "App\\Filament\\Resources\\ProductResource\\Pages\\EditProduct"
        );

        let form = all(&result.chunks, ChunkKind::FilamentForm, "form");
        assert!(!form.is_empty());
        assert_eq!(form[0].line_start, 55);
        assert_eq!(form.last().unwrap().line_end, 120);
        let fields = strings(form[0], "fields");
        assert_eq!(
            fields,
            [
                "name",
                "slug",
                "description",
                "price",
                "compare_at_price",
                "stock",
                "sku",
                "category_id",
                "tags",
                "is_active",
                "is_featured",
                "published_at"
            ]
        );
        assert_eq!(
            field(form[0], "resource"),
            "App\\Filament\\Resources\\ProductResource"
        );
        assert_eq!(field(form[0], "model"), "App\\Models\\Product");

        let table = all(&result.chunks, ChunkKind::FilamentTable, "table")[0];
        assert_eq!(
            strings(table, "columns"),
            [
                "sku",
                "name",
                "category.name",
                "price",
                "stock",
                "is_active",
                "updated_at"
            ]
        );
        assert_eq!(
            field(table, "filters"),
            &json!([
                {"type": "SelectFilter", "name": "category"},
                {"type": "TernaryFilter", "name": "is_active"},
                {"type": "TernaryFilter", "name": "in_stock"},
                {"type": "TrashedFilter", "name": "trashed"}
            ])
        );
        assert_eq!(
            field(table, "actions"),
            &json!([
                {"type": "Action", "name": "restock", "group": "record"},
                {"type": "EditAction", "name": "edit", "group": "record"},
                {"type": "DeleteAction", "name": "delete", "group": "record"},
                {"type": "DeleteBulkAction", "name": "delete_bulk", "group": "bulk"},
                {"type": "BulkAction", "name": "deactivate", "group": "bulk"}
            ])
        );
        // The restock action's modal fields are not table columns.
        assert!(!strings(table, "columns").contains(&"quantity".to_string()));
        let infolist = find(&result.chunks, ChunkKind::FilamentInfolist, "infolist");
        assert_eq!(
            strings(infolist, "entries"),
            [
                "name",
                "sku",
                "category.name",
                "price",
                "stock",
                "is_active",
                "description"
            ]
        );
    }

    #[test]
    fn v4_resource_delegates_to_schema_and_table_classes() {
        let resource = fixture(
            "laravel-shop",
            "app/Filament/Resources/Orders/OrderResource.php",
        );
        let class = find(
            &resource.chunks,
            ChunkKind::FilamentResource,
            "OrderResource",
        );
        assert_eq!(
            field(class, "form"),
            "App\\Filament\\Resources\\Orders\\Schemas\\OrderForm"
        );
        assert_eq!(
            field(class, "table"),
            "App\\Filament\\Resources\\Orders\\Tables\\OrdersTable"
        );
        assert_eq!(
            field(class, "infolist"),
            "App\\Filament\\Resources\\Orders\\Schemas\\OrderInfolist"
        );
        assert_eq!(field(class, "navigation_group"), "Sales");
        assert_eq!(
            field(class, "navigation_icon"),
            "Heroicon::OutlinedShoppingCart"
        );
        let form = find(&resource.chunks, ChunkKind::FilamentForm, "form");
        assert_eq!(
            field(form, "delegates_to"),
            "App\\Filament\\Resources\\Orders\\Schemas\\OrderForm"
        );

        let schema = fixture(
            "laravel-shop",
            "app/Filament/Resources/Orders/Schemas/OrderForm.php",
        );
        let configure = find(&schema.chunks, ChunkKind::FilamentForm, "configure");
        assert_eq!(
            strings(configure, "fields"),
            [
                "number",
                "customer_id",
                "status",
                "tracking_number",
                "shipped_at",
                "notes"
            ]
        );
        // On its own the file does not name its resource: the generator's layout does.
        assert_eq!(
            field(configure, "resource"),
            "App\\Filament\\Resources\\Orders\\OrderResource"
        );
        assert_eq!(field(configure, "resource_source"), "convention");
        let table = fixture(
            "laravel-shop",
            "app/Filament/Resources/Orders/Tables/OrdersTable.php",
        );
        let configure = &table
            .chunks
            .iter()
            .find(|c| c.kind == ChunkKind::FilamentTable)
            .unwrap();
        assert_eq!(
            strings(configure, "columns"),
            [
                "number",
                "customer.last_name",
                "status",
                "grand_total",
                "placed_at"
            ]
        );
        assert_eq!(
            field(configure, "actions")[2],
            json!({"type": "Action", "name": "markShipped", "group": "record"})
        );
        assert_eq!(
            field(configure, "actions")[4],
            json!({"type": "BulkAction", "name": "export", "group": "toolbar"})
        );
        let infolist = fixture(
            "laravel-shop",
            "app/Filament/Resources/Orders/Schemas/OrderInfolist.php",
        );
        assert!(
            infolist
                .chunks
                .iter()
                .any(|c| c.kind == ChunkKind::FilamentInfolist)
        );
    }

    #[test]
    fn linking_a_project_joins_resources_schemas_models_and_pages() {
        let root = fixtures().join("laravel-shop");
        let ws = Workspace::open(&root).unwrap();
        let run = chunker()
            .chunk_workspace(&ws, &root.join("app/Filament"))
            .unwrap();
        let chunks: Vec<&Chunk> = run.files.iter().flat_map(|f| f.chunks.iter()).collect();
        let by = |kind: ChunkKind, file: &str| {
            chunks
                .iter()
                .find(|c| c.kind == kind && c.file.ends_with(file))
                .copied()
                .unwrap_or_else(|| panic!("no {} in {file}", kind.as_str()))
        };
        let form = by(ChunkKind::FilamentForm, "Schemas/OrderForm.php");
        assert_eq!(field(form, "resource_source"), "delegation");
        assert_eq!(field(form, "model"), "App\\Models\\Order");
        // The resource's delegating method learns what the delegate builds.
        let resource_table = by(ChunkKind::FilamentTable, "Orders/OrderResource.php");
        assert_eq!(strings(resource_table, "columns")[0], "number");
        let rm = by(ChunkKind::Class, "ReviewsRelationManager.php");
        assert_eq!(
            field(rm, "resource"),
            "App\\Filament\\Resources\\ProductResource"
        );
        assert_eq!(field(rm, "model"), "App\\Models\\Product");
        let page = by(ChunkKind::FilamentActions, "Orders/Pages/ViewOrder.php");
        assert_eq!(field(page, "model"), "App\\Models\\Order");
        assert_eq!(
            field(page, "actions"),
            &json!([{"type": "EditAction", "name": "edit"}])
        );
    }
}
