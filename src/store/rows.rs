//! Arrow schemas of the two tables and the conversions between record batches and plain rows.

use super::error::Result;
use super::{ModelStamp, stamp_metadata};
use arrow_array::types::Float32Type;
use arrow_array::{
    Array, BooleanArray, FixedSizeListArray, Float32Array, Float64Array, Int64Array, RecordBatch,
    StringArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

pub(super) fn vector_type(dim: usize) -> DataType {
    DataType::FixedSizeList(
        Arc::new(Field::new("item", DataType::Float32, true)),
        dim as i32,
    )
}

/// `forest`: one row per chunk. `vector` is null until the chunk is embedded; `head_only` says
/// the vector is of the chunk's head (its first lines), not yet of its whole text; `text` is
/// the analysed text the full-text index covers; `file_sha` is the SHA-256 of the file the
/// chunk came from (to tell whether the file changed since it was indexed).
pub fn forest_schema(stamp: &ModelStamp) -> SchemaRef {
    Arc::new(Schema::new_with_metadata(
        vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("file", DataType::Utf8, false),
            Field::new("language", DataType::Utf8, false),
            Field::new("chunk_type", DataType::Utf8, false),
            Field::new("name", DataType::Utf8, false),
            Field::new("line_start", DataType::UInt32, false),
            Field::new("line_end", DataType::UInt32, false),
            Field::new("content", DataType::Utf8, false),
            Field::new("fingerprint", DataType::Utf8, false),
            Field::new("file_sha", DataType::Utf8, false),
            Field::new("metadata", DataType::Utf8, false),
            Field::new("text", DataType::Utf8, false),
            Field::new("vector", vector_type(stamp.dim), true),
            Field::new("head_only", DataType::Boolean, false),
        ],
        stamp_metadata(stamp),
    ))
}

/// What a vector write carries (a subset of `forest`): the key, the fingerprint its condition
/// checks, the vector and whether it is of the head only.
pub fn forest_vector_schema(stamp: &ModelStamp) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("fingerprint", DataType::Utf8, false),
        Field::new("vector", vector_type(stamp.dim), true),
        Field::new("head_only", DataType::Boolean, false),
    ]))
}

/// `map`: one row per agreement (a natural-language term confirmed to mean some symbols, the
/// request it was learned from, the evidence).
/// `symbols` and `files` are JSON arrays of strings.
pub fn map_schema(stamp: &ModelStamp) -> SchemaRef {
    Arc::new(Schema::new_with_metadata(
        vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("nl_term", DataType::Utf8, false),
            Field::new("symbols", DataType::Utf8, false),
            Field::new("evidence", DataType::Utf8, false),
            Field::new("files", DataType::Utf8, false),
            Field::new("similarity", DataType::Float64, false),
            Field::new("session", DataType::Utf8, false),
            Field::new("query", DataType::Utf8, false),
            Field::new("time", DataType::Int64, false),
            Field::new("vector", vector_type(stamp.dim), true),
        ],
        stamp_metadata(stamp),
    ))
}

pub fn strings<'a>(values: impl IntoIterator<Item = &'a str>) -> Arc<StringArray> {
    Arc::new(StringArray::from_iter_values(values))
}

pub fn vectors(
    dim: usize,
    values: impl IntoIterator<Item = Option<Vec<f32>>>,
) -> Arc<FixedSizeListArray> {
    Arc::new(
        FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
            values
                .into_iter()
                .map(|v| v.map(|v| v.into_iter().map(Some).collect::<Vec<_>>())),
            dim as i32,
        ),
    )
}

pub fn bools(values: impl IntoIterator<Item = bool>) -> Arc<BooleanArray> {
    Arc::new(BooleanArray::from_iter(values.into_iter().map(Some)))
}

pub fn u32s(values: impl IntoIterator<Item = u32>) -> Arc<UInt32Array> {
    Arc::new(UInt32Array::from_iter_values(values))
}

pub fn f64s(values: impl IntoIterator<Item = f64>) -> Arc<Float64Array> {
    Arc::new(Float64Array::from_iter_values(values))
}

pub fn i64s(values: impl IntoIterator<Item = i64>) -> Arc<Int64Array> {
    Arc::new(Int64Array::from_iter_values(values))
}

/// Typed access to the columns of a result batch.
pub struct Columns<'a> {
    batch: &'a RecordBatch,
}

impl<'a> Columns<'a> {
    pub fn new(batch: &'a RecordBatch) -> Self {
        Columns { batch }
    }

    fn column(&self, name: &str) -> Result<&'a Arc<dyn Array>> {
        self.batch
            .column_by_name(name)
            .ok_or_else(|| layout!("store result lacks column {name}"))
    }

    pub fn has(&self, name: &str) -> bool {
        self.batch.column_by_name(name).is_some()
    }

    pub fn str(&self, name: &str) -> Result<&'a StringArray> {
        self.column(name)?
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| layout!("column {name} is not a string column"))
    }

    pub fn bool(&self, name: &str) -> Result<&'a BooleanArray> {
        self.column(name)?
            .as_any()
            .downcast_ref::<BooleanArray>()
            .ok_or_else(|| layout!("column {name} is not a boolean column"))
    }

    pub fn u32(&self, name: &str) -> Result<&'a UInt32Array> {
        self.column(name)?
            .as_any()
            .downcast_ref::<UInt32Array>()
            .ok_or_else(|| layout!("column {name} is not a u32 column"))
    }

    pub fn f64(&self, name: &str) -> Result<&'a Float64Array> {
        self.column(name)?
            .as_any()
            .downcast_ref::<Float64Array>()
            .ok_or_else(|| layout!("column {name} is not an f64 column"))
    }

    pub fn i64(&self, name: &str) -> Result<&'a Int64Array> {
        self.column(name)?
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or_else(|| layout!("column {name} is not an i64 column"))
    }

    /// Row `i` of a vector column, `None` when null.
    pub fn vector(&self, name: &str, i: usize) -> Result<Option<Vec<f32>>> {
        let list = self
            .column(name)?
            .as_any()
            .downcast_ref::<FixedSizeListArray>()
            .ok_or_else(|| layout!("column {name} is not a vector column"))?;
        if list.is_null(i) {
            return Ok(None);
        }
        let values = list.value(i);
        let floats = values
            .as_any()
            .downcast_ref::<Float32Array>()
            .ok_or_else(|| layout!("column {name} does not hold f32 vectors"))?;
        Ok(Some(floats.values().to_vec()))
    }

    /// A score column lancedb adds (`_distance`, `_score`, `_relevance_score`) as f32.
    pub fn score(&self, name: &str, i: usize) -> Result<f32> {
        let column = self.column(name)?;
        if let Some(a) = column.as_any().downcast_ref::<Float32Array>() {
            return Ok(a.value(i));
        }
        if let Some(a) = column.as_any().downcast_ref::<Float64Array>() {
            return Ok(a.value(i) as f32);
        }
        Err(layout!("column {name} is not a float column"))
    }
}
