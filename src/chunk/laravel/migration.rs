//! Laravel migrations: one `table_schema` chunk per `Schema::create` / `Schema::table`
//! (seed 004 §1.6), so "where are orders stored" finds the table with its columns (name, type,
//! modifiers), indexes and foreign keys instead of a `function up()`.

use super::{call_args, descendants, string_value};
use crate::chunk::imports::Imports;
use crate::chunk::unit::{Elide, Unit};
use crate::chunk::{ChunkKind, Source};
use crate::syntax::node_text;
use serde::Serialize;
use tree_sitter::Node;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub column_type: String,
    /// Type arguments after the name (`string('sku', 64)` → `["64"]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Modifier calls as written (`nullable`, `default('pending')`, `after('status')`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Index {
    #[serde(rename = "type")]
    pub index_type: String,
    pub columns: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ForeignKey {
    pub column: String,
    pub references: String,
    pub on: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_delete: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_update: Option<String>,
}

#[derive(Debug, Default, Serialize)]
struct Table {
    columns: Vec<Column>,
    indexes: Vec<Index>,
    foreign_keys: Vec<ForeignKey>,
    dropped_columns: Vec<String>,
    dropped_indexes: Vec<String>,
    renamed_columns: Vec<(String, String)>,
}

const INDEX_METHODS: &[&str] = &[
    "index",
    "unique",
    "primary",
    "fullText",
    "fulltext",
    "spatialIndex",
];

/// Whether a file is a migration: under `migrations/` or a class extending `Migration`, and it
/// uses the schema builder.
fn is_migration(source: &Source) -> bool {
    (source.file.contains("migrations/") || source.text.contains("extends Migration"))
        && source.text.contains("Schema::")
}

pub(crate) fn enrich<'t>(
    source: &Source,
    root: Node<'t>,
    imports: &Imports,
    units: &mut Vec<Unit<'t>>,
) {
    if !is_migration(source) {
        return;
    }
    let text = source.text;
    for call in descendants(root, &["scoped_call_expression"]) {
        let (Some(scope), Some(name)) = (
            call.child_by_field_name("scope"),
            call.child_by_field_name("name"),
        ) else {
            continue;
        };
        let is_schema = imports.resolve(node_text(scope, text)).is_some_and(|s| {
            s == "Illuminate\\Support\\Facades\\Schema" || s == "Schema" || s.ends_with("\\Schema")
        });
        let operation = match node_text(name, text) {
            "create" => "create",
            "table" => "alter",
            _ => continue,
        };
        if !is_schema {
            continue;
        }
        let args = call_args(call);
        let Some(table) = args.first().and_then(|a| string_value(*a, text)) else {
            continue;
        };
        let closure = args
            .get(1)
            .and_then(|a| a.named_child(0))
            .filter(|c| matches!(c.kind(), "anonymous_function" | "arrow_function"));
        let statement = call
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .unwrap_or(call);
        let body = closure.and_then(|c| c.child_by_field_name("body"));
        let blueprint = closure
            .and_then(blueprint_variable)
            .map(|v| node_text(v, text).to_string());
        let parsed = body
            .map(|b| parse_blueprint(b, blueprint.as_deref(), text))
            .unwrap_or_default();
        let start = source.lines.line_start_at(statement.start_byte());
        let start = if text[start..statement.start_byte()].trim().is_empty() {
            start
        } else {
            statement.start_byte()
        };
        let verb = if operation == "create" {
            "create"
        } else {
            "table"
        };
        let mut unit = Unit::new(
            ChunkKind::TableSchema,
            table.clone(),
            start..statement.end_byte(),
        )
        .key(format!("table:{table}:{operation}"))
        .elide(Elide::Whole {
            stub: format!("Schema::{verb}('{table}', …); // table_schema chunk"),
        })
        .header(format!(
            "Schema::{verb}('{table}', function (Blueprint $table) {{"
        ));
        if let Some(body) = body {
            unit = unit.node(body);
        }
        unit.meta.set("table", &table);
        unit.meta.set("operation", operation);
        unit.meta.set("columns", &parsed.columns);
        if !parsed.indexes.is_empty() {
            unit.meta.set("indexes", &parsed.indexes);
        }
        if !parsed.foreign_keys.is_empty() {
            unit.meta.set("foreign_keys", &parsed.foreign_keys);
            unit.meta.relate(
                parsed
                    .foreign_keys
                    .iter()
                    .map(|fk| format!("table:{}", fk.on)),
            );
        }
        if !parsed.dropped_columns.is_empty() {
            unit.meta.set("dropped_columns", &parsed.dropped_columns);
        }
        if !parsed.dropped_indexes.is_empty() {
            unit.meta.set("dropped_indexes", &parsed.dropped_indexes);
        }
        if !parsed.renamed_columns.is_empty() {
            unit.meta.set("renamed_columns", &parsed.renamed_columns);
        }
        units.push(unit);
    }
}

/// `$table` in `function (Blueprint $table)`.
fn blueprint_variable(closure: Node) -> Option<Node> {
    let params = closure.child_by_field_name("parameters")?;
    let first = params.named_child(0)?;
    first.child_by_field_name("name")
}

/// One `$table->type('name', …)->modifier()…;` statement as (call name, args) innermost first.
/// A method call in a chain: its name and argument nodes.
type Call<'t> = (String, Vec<Node<'t>>);

fn call_chain<'t>(expr: Node<'t>, text: &str) -> Option<(String, Vec<Call<'t>>)> {
    let mut calls = Vec::new();
    let mut current = expr;
    loop {
        if current.kind() != "member_call_expression" {
            break;
        }
        let name = current.child_by_field_name("name")?;
        calls.push((node_text(name, text).to_string(), call_args(current)));
        current = current.child_by_field_name("object")?;
    }
    calls.reverse();
    (!calls.is_empty()).then(|| (node_text(current, text).to_string(), calls))
}

fn parse_blueprint(body: Node, blueprint: Option<&str>, text: &str) -> Table {
    let mut table = Table::default();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        let Some(expr) = statement.named_child(0) else {
            continue;
        };
        let Some((var, calls)) = call_chain(expr, text) else {
            continue;
        };
        if blueprint.is_some_and(|b| b != var) {
            continue;
        }
        apply(&mut table, &calls, text);
    }
    table
}

fn strings(arg: Option<&Node>, text: &str) -> Vec<String> {
    let Some(arg) = arg else { return Vec::new() };
    let value = arg.named_child(0).unwrap_or(*arg);
    if value.kind() == "array_creation_expression" {
        let mut cursor = value.walk();
        value
            .named_children(&mut cursor)
            .filter_map(|e| e.named_child(0).and_then(|v| string_value(v, text)))
            .collect()
    } else {
        string_value(value, text).into_iter().collect()
    }
}

fn apply(table: &mut Table, calls: &[(String, Vec<Node>)], text: &str) {
    let (method, args) = &calls[0];
    let first = strings(args.first(), text);
    let modifiers = &calls[1..];
    match method.as_str() {
        m if INDEX_METHODS.contains(&m) => table.indexes.push(Index {
            index_type: m.to_ascii_lowercase(),
            columns: first,
        }),
        "foreign" => {
            let mut fk = ForeignKey {
                column: first.join(", "),
                references: "id".into(),
                on: String::new(),
                on_delete: None,
                on_update: None,
            };
            foreign_modifiers(&mut fk, modifiers, text);
            table.foreign_keys.push(fk);
        }
        "dropColumn" | "dropColumns" => table
            .dropped_columns
            .extend(args.iter().flat_map(|a| strings(Some(a), text))),
        "dropIndex" | "dropUnique" | "dropPrimary" | "dropForeign" | "dropFullText" => {
            let what = args
                .first()
                .map(|a| node_text(*a, text).to_string())
                .unwrap_or_default();
            table.dropped_indexes.push(format!("{method}({what})"));
        }
        "renameColumn" => {
            let from = args
                .first()
                .and_then(|a| string_value(*a, text))
                .unwrap_or_default();
            let to = args
                .get(1)
                .and_then(|a| string_value(*a, text))
                .unwrap_or_default();
            table.renamed_columns.push((from, to));
        }
        "timestamps" | "timestampsTz" | "nullableTimestamps" => {
            for name in ["created_at", "updated_at"] {
                table
                    .columns
                    .push(implicit(name, "timestamp", &["nullable"]));
            }
        }
        "softDeletes" | "softDeletesTz" => {
            let name = first
                .first()
                .cloned()
                .unwrap_or_else(|| "deleted_at".into());
            table
                .columns
                .push(implicit(&name, "timestamp", &["nullable"]));
        }
        "rememberToken" => table
            .columns
            .push(implicit("remember_token", "string", &["nullable"])),
        "id" if first.is_empty() => table.columns.push(implicit("id", "id", &["primary"])),
        "morphs" | "nullableMorphs" | "uuidMorphs" | "ulidMorphs" => {
            if let Some(base) = first.first() {
                table
                    .columns
                    .push(implicit(&format!("{base}_id"), "unsignedBigInteger", &[]));
                table
                    .columns
                    .push(implicit(&format!("{base}_type"), "string", &[]));
                table.indexes.push(Index {
                    index_type: "index".into(),
                    columns: vec![format!("{base}_type"), format!("{base}_id")],
                });
            }
        }
        _ => {
            // `foreignIdFor(Customer::class)`: the column follows the model name.
            let name = if method == "foreignIdFor" {
                args.first()
                    .map(|a| {
                        node_text(*a, text)
                            .trim_end_matches("::class")
                            .rsplit('\\')
                            .next()
                            .unwrap_or("")
                            .to_string()
                    })
                    .filter(|m| !m.is_empty())
                    .map(|m| format!("{}_id", snake(&m)))
            } else {
                first.first().cloned()
            };
            let Some(name) = name else { return };
            let column_type = method.clone();
            let params = args
                .iter()
                .skip(1)
                .map(|a| node_text(*a, text).to_string())
                .collect();
            let mut written = Vec::new();
            let mut fk: Option<ForeignKey> = None;
            for (modifier, margs) in modifiers {
                let arg_text = margs
                    .iter()
                    .map(|a| node_text(*a, text))
                    .collect::<Vec<_>>()
                    .join(", ");
                written.push(if margs.is_empty() {
                    modifier.clone()
                } else {
                    format!("{modifier}({arg_text})")
                });
                match modifier.as_str() {
                    "unique" | "index" | "primary" | "fullText" => table.indexes.push(Index {
                        index_type: modifier.to_ascii_lowercase(),
                        columns: vec![name.clone()],
                    }),
                    "constrained" => {
                        let on = margs
                            .first()
                            .and_then(|a| string_value(*a, text))
                            .unwrap_or_else(|| guess_table(&name));
                        fk = Some(ForeignKey {
                            column: name.clone(),
                            references: "id".into(),
                            on,
                            on_delete: None,
                            on_update: None,
                        });
                    }
                    "references" => {
                        fk.get_or_insert_with(|| ForeignKey {
                            column: name.clone(),
                            references: "id".into(),
                            on: String::new(),
                            on_delete: None,
                            on_update: None,
                        });
                    }
                    _ => {}
                }
            }
            if let Some(mut fk) = fk {
                foreign_modifiers(&mut fk, modifiers, text);
                table.foreign_keys.push(fk);
            }
            table.columns.push(Column {
                name,
                column_type,
                params,
                modifiers: written,
            });
        }
    }
}

fn implicit(name: &str, column_type: &str, modifiers: &[&str]) -> Column {
    Column {
        name: name.to_string(),
        column_type: column_type.to_string(),
        params: Vec::new(),
        modifiers: modifiers.iter().map(|m| m.to_string()).collect(),
    }
}

fn foreign_modifiers(fk: &mut ForeignKey, modifiers: &[(String, Vec<Node>)], text: &str) {
    for (modifier, args) in modifiers {
        let arg = args.first().and_then(|a| string_value(*a, text));
        match modifier.as_str() {
            "references" => fk.references = arg.unwrap_or_else(|| "id".into()),
            "on" => fk.on = arg.unwrap_or_default(),
            "onDelete" => fk.on_delete = arg,
            "onUpdate" => fk.on_update = arg,
            "cascadeOnDelete" => fk.on_delete = Some("cascade".into()),
            "restrictOnDelete" => fk.on_delete = Some("restrict".into()),
            "nullOnDelete" => fk.on_delete = Some("set null".into()),
            "noActionOnDelete" => fk.on_delete = Some("no action".into()),
            "cascadeOnUpdate" => fk.on_update = Some("cascade".into()),
            "restrictOnUpdate" => fk.on_update = Some("restrict".into()),
            _ => {}
        }
    }
}

/// `OrderItem` → `order_item`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
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

/// Laravel's convention for `constrained()` without a table: `customer_id` → `customers`.
fn guess_table(column: &str) -> String {
    let base = column.strip_suffix("_id").unwrap_or(column);
    if let Some(stem) = base.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if base.ends_with('s') || base.ends_with("sh") || base.ends_with("ch") || base.ends_with('x') {
        return format!("{base}es");
    }
    format!("{base}s")
}

#[cfg(test)]
mod tests {
    #[test]
    fn constrained_tables_follow_laravel_naming() {
        assert_eq!(super::guess_table("customer_id"), "customers");
        assert_eq!(super::guess_table("category_id"), "categories");
        assert_eq!(super::guess_table("address_id"), "addresses");
    }
}

#[cfg(test)]
mod fixture_tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, outline};
    use serde_json::json;

    const ORDERS: &str = "database/migrations/2024_01_12_090000_create_orders_table.php";

    #[test]
    fn create_table_columns_indexes_and_foreign_keys() {
        let result = fixture("laravel-shop", ORDERS);
        let orders = find(&result.chunks, ChunkKind::TableSchema, "orders");
        assert_eq!((orders.line_start, orders.line_end), (11, 30));
        assert!(
            orders
                .content
                .starts_with("        Schema::create('orders', function (Blueprint $table) {")
        );
        assert_eq!(field(orders, "operation"), "create");
        let columns: Vec<&str> = field(orders, "columns")
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            columns,
            [
                "id",
                "customer_id",
                "coupon_id",
                "number",
                "status",
                "subtotal",
                "discount_total",
                "tax_total",
                "shipping_total",
                "grand_total",
                "currency",
                "shipping_address",
                "notes",
                "placed_at",
                "created_at",
                "updated_at"
            ]
        );
        assert_eq!(
            field(orders, "columns")[3],
            json!({"name": "number", "type": "string", "params": ["20"], "modifiers": ["unique"]})
        );
        assert_eq!(
            field(orders, "columns")[4]["modifiers"],
            json!(["default('pending')"])
        );
        assert_eq!(
            field(orders, "indexes"),
            &json!([
                {"type": "unique", "columns": ["number"]},
                {"type": "index", "columns": ["customer_id", "status"]},
                {"type": "index", "columns": ["placed_at"]}
            ])
        );
        assert_eq!(
            field(orders, "foreign_keys"),
            &json!([
                {"column": "customer_id", "references": "id", "on": "customers", "on_delete": "restrict"},
                {"column": "coupon_id", "references": "id", "on": "coupons", "on_delete": "set null"}
            ])
        );
        // `up()` keeps a stub where the table was: the schema lives in its own chunk.
        let up = find(&result.chunks, ChunkKind::Method, "up");
        assert!(
            up.content
                .contains("Schema::create('orders', …); // table_schema chunk"),
            "{}",
            up.content
        );
        assert!(!up.content.contains("grand_total"));
    }

    #[test]
    fn several_tables_in_one_migration_and_alterations() {
        let products = fixture(
            "laravel-shop",
            "database/migrations/2024_01_10_100100_create_products_table.php",
        );
        let tables: Vec<&str> = products
            .chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::TableSchema)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(tables, ["products", "tags", "product_tag"]);
        let pivot = find(&products.chunks, ChunkKind::TableSchema, "product_tag");
        assert_eq!(
            field(pivot, "indexes"),
            &json!([{"type": "primary", "columns": ["product_id", "tag_id"]}])
        );
        let product = find(&products.chunks, ChunkKind::TableSchema, "products");
        let deleted = field(product, "columns")
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(
            deleted,
            json!({"name": "deleted_at", "type": "timestamp", "modifiers": ["nullable"]})
        );

        let alter = fixture(
            "laravel-shop",
            "database/migrations/2024_03_05_143000_add_tracking_number_to_orders_table.php",
        );
        let changes: Vec<_> = alter
            .chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::TableSchema)
            .collect();
        assert_eq!(changes.len(), 2, "{}", outline(&alter.chunks).join("\n"));
        assert_ne!(changes[0].id, changes[1].id);
        assert_eq!(field(changes[0], "operation"), "alter");
        assert_eq!(
            field(changes[0], "columns")[0],
            json!({"name": "tracking_number", "type": "string", "params": ["64"], "modifiers": ["nullable", "after('status')"]})
        );
        assert_eq!(
            field(changes[1], "dropped_columns"),
            &json!(["tracking_number", "shipped_at"])
        );
    }
}
