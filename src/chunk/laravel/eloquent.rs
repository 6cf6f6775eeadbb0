//! Eloquent models (seed 004 §1.13): relations with their related models, `$fillable`,
//! `$casts` (property or Laravel 11 `casts()` method), `$hidden`, the table name, and the
//! translatable fields of `spatie/laravel-translatable` (`HasTranslations` + `$translatable`),
//! so "which product columns are translatable" and "how are orders related to payments" are
//! answered by the model's chunk itself.

use super::{
    array_items, base_class, call_args, class_method, class_traits, descendants, literal,
    methods_of, property_value, returned_array,
};
use crate::chunk::imports::Imports;
use crate::chunk::unit::Unit;
use crate::chunk::{ChunkKind, Source};
use crate::syntax::node_text;
use serde::Serialize;
use std::collections::BTreeMap;

/// Base classes that make a class an Eloquent model.
const MODEL_BASES: &[&str] = &[
    "Illuminate\\Database\\Eloquent\\Model",
    "Illuminate\\Foundation\\Auth\\User",
    "Illuminate\\Database\\Eloquent\\Relations\\Pivot",
    "Illuminate\\Database\\Eloquent\\Relations\\MorphPivot",
];

/// The relation builders of `Illuminate\Database\Eloquent\Concerns\HasRelationships`.
const RELATIONS: &[&str] = &[
    "hasOne",
    "hasMany",
    "belongsTo",
    "belongsToMany",
    "hasOneThrough",
    "hasManyThrough",
    "morphTo",
    "morphOne",
    "morphMany",
    "morphToMany",
    "morphedByMany",
];

const TRANSLATABLE_TRAIT: &str = "Spatie\\Translatable\\HasTranslations";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Relation {
    pub method: String,
    #[serde(rename = "type")]
    pub relation_type: String,
    /// The related model's FQCN (absent for `morphTo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<String>,
    /// The morph name of polymorphic relations (`payable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morph_name: Option<String>,
}

fn is_model(source: &Source, base: &str) -> bool {
    MODEL_BASES.contains(&base)
        // A model extending another application model (`class Admin extends User`).
        || (base.starts_with("App\\Models\\") && source.file.contains("/Models/"))
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
        let Some(base) = base_class(class, text, imports) else {
            continue;
        };
        if !is_model(source, &base) {
            continue;
        }
        let mut relations = Vec::new();
        for m in methods_of(units, index) {
            let Some(method) = units[m].node else {
                continue;
            };
            let name = method
                .child_by_field_name("name")
                .map_or("", |n| node_text(n, text))
                .to_string();
            let Some(relation) = relation_of(method, &name, text, imports) else {
                continue;
            };
            units[m].meta.set("relation", &relation);
            if let Some(related) = &relation.related {
                units[m].meta.relate([related.clone()]);
            }
            relations.push(relation);
        }
        let traits = class_traits(class, text, imports);
        let strings = |prop: &str| -> Option<Vec<String>> {
            property_value(class, prop, text).map(|v| {
                array_items(v, text, imports)
                    .into_iter()
                    .map(|(_, value)| value)
                    .collect()
            })
        };
        let casts_node = property_value(class, "casts", text)
            .or_else(|| class_method(class, "casts", text).and_then(returned_array));
        let casts: Option<BTreeMap<String, String>> = casts_node.map(|node| {
            array_items(node, text, imports)
                .into_iter()
                .filter_map(|(k, v)| k.map(|k| (k, v)))
                .collect()
        });
        let unit = &mut units[index];
        unit.meta.set("role", "eloquent_model");
        unit.meta.set("extends", &base);
        if let Some(table) = property_value(class, "table", text) {
            unit.meta.set("table", literal(table, text, imports));
        }
        if let Some(fillable) = strings("fillable") {
            unit.meta.set("fillable", fillable);
        }
        if let Some(guarded) = strings("guarded") {
            unit.meta.set("guarded", guarded);
        }
        if let Some(hidden) = strings("hidden") {
            unit.meta.set("hidden", hidden);
        }
        if let Some(casts) = casts {
            unit.meta
                .relate(casts.values().filter(|v| v.contains('\\')).cloned());
            unit.meta.set("casts", casts);
        }
        if traits.iter().any(|t| t == TRANSLATABLE_TRAIT)
            && let Some(fields) = strings("translatable")
        {
            unit.meta.set("translatable", fields);
        }
        if !traits.is_empty() {
            unit.meta.set("traits", &traits);
        }
        unit.meta
            .relate(relations.iter().filter_map(|r| r.related.clone()));
        unit.meta.set("relations", relations);
    }
}

/// `return $this->hasMany(OrderItem::class)…` inside a method.
fn relation_of(
    method: tree_sitter::Node,
    name: &str,
    text: &str,
    imports: &Imports,
) -> Option<Relation> {
    for call in descendants(method, &["member_call_expression"]) {
        let object = call.child_by_field_name("object")?;
        let call_name = call
            .child_by_field_name("name")
            .map_or("", |n| node_text(n, text));
        if node_text(object, text) != "$this" || !RELATIONS.contains(&call_name) {
            continue;
        }
        let args = call_args(call);
        let related = (call_name != "morphTo")
            .then(|| args.first().map(|a| literal(*a, text, imports)))
            .flatten();
        let morph_name = match call_name {
            "morphOne" | "morphMany" | "morphToMany" | "morphedByMany" => {
                args.get(1).map(|a| literal(*a, text, imports))
            }
            "morphTo" => Some(name.to_string()),
            _ => None,
        };
        return Some(Relation {
            method: name.to_string(),
            relation_type: call_name.to_string(),
            related,
            morph_name,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::chunk::ChunkKind;
    use crate::chunk::test_support::{field, find, fixture, strings};
    use serde_json::json;

    #[test]
    fn product_model_relations_fillable_casts_and_translatable() {
        let result = fixture("laravel-shop", "app/Models/Product.php");
        let product = find(&result.chunks, ChunkKind::Class, "Product");
        assert_eq!(
            product.metadata.fqcn.as_deref(),
            Some("App\\Models\\Product")
        );
        assert_eq!(field(product, "role"), "eloquent_model");
        assert_eq!(strings(product, "translatable"), ["name", "description"]);
        assert_eq!(strings(product, "fillable").len(), 11);
        assert_eq!(field(product, "casts")["price"], "decimal:2");
        assert_eq!(
            field(product, "relations"),
            &json!([
                {"method": "category", "type": "belongsTo", "related": "App\\Models\\Category"},
                {"method": "orderItems", "type": "hasMany", "related": "App\\Models\\OrderItem"},
                {"method": "tags", "type": "belongsToMany", "related": "App\\Models\\Tag"},
                {"method": "reviews", "type": "hasMany", "related": "App\\Models\\Review"}
            ])
        );
        assert!(
            strings(product, "traits")
                .contains(&"Spatie\\Translatable\\HasTranslations".to_string())
        );
        // The four one-line relation methods are merged into one chunk that keeps each relation.
        let merged = find(
            &result.chunks,
            ChunkKind::Method,
            "category, orderItems, tags, reviews",
        );
        assert_eq!((merged.line_start, merged.line_end), (47, 65));
        assert_eq!(
            field(merged, "members")[2]["relation"]["related"],
            "App\\Models\\Tag"
        );
    }

    #[test]
    fn polymorphic_relations_and_casts_methods() {
        let order = fixture("laravel-shop", "app/Models/Order.php");
        let class = find(&order.chunks, ChunkKind::Class, "Order");
        let payments = field(class, "relations")
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["method"] == "payments")
            .unwrap()
            .clone();
        assert_eq!(
            payments,
            json!({"method": "payments", "type": "morphMany", "related": "App\\Models\\Payment", "morph_name": "payable"})
        );
        assert_eq!(field(class, "casts")["status"], "App\\Enums\\OrderStatus");
        assert!(!class.metadata.fields.contains_key("translatable"));

        let user = fixture("laravel-shop", "app/Models/User.php");
        let class = find(&user.chunks, ChunkKind::Class, "User");
        assert_eq!(
            field(class, "extends"),
            "Illuminate\\Foundation\\Auth\\User"
        );
        assert_eq!(field(class, "casts")["password"], "hashed");
        assert_eq!(strings(class, "hidden"), ["password", "remember_token"]);
    }

    #[test]
    fn non_models_are_left_alone() {
        let service = fixture("laravel-shop", "app/Services/CartService.php");
        assert!(
            service
                .chunks
                .iter()
                .all(|c| c.metadata.fields.get("role") != Some(&json!("eloquent_model")))
        );
    }
}
