//! A task's residual filter (as Java describes it: see `TaskDescription.filterJson`) turned into
//! the iceberg-rust predicate the reader prunes row groups and pages with and filters rows by.
//!
//! The reader keeps a row only where the predicate is true, so the predicate must hold wherever
//! Flink's filter holds: it may keep rows Flink then drops (Flink checks every row it is given),
//! never drop one Flink keeps. Parts that cannot be evaluated exactly as Flink does (a column of a
//! floating-point type, which the reader orders totally and Flink by IEEE 754; a predicate Java
//! did not pass on) are left out of a conjunction, and make a disjunction or a negation unusable.

use std::collections::HashSet;

use iceberg::expr::{Predicate, Reference};
use iceberg::spec::{Datum, PrimitiveType, Schema, Type};
use serde_json::Value;

/// The predicate implied by `filter` over `schema`, or `None` when none can be applied. Predicates
/// on the columns `left_out` names (field ids) are left out, as those Java did not pass on.
pub(crate) fn predicate(
    filter: &Value,
    schema: &Schema,
    left_out: &HashSet<i32>,
) -> Option<Predicate> {
    Filter { schema, left_out }.convert(filter, false)
}

/// The field ids of the columns `filter` reads.
pub(crate) fn filter_ids(filter: &Value) -> HashSet<i32> {
    fn collect(filter: &Value, ids: &mut HashSet<i32>) {
        match filter {
            Value::Object(object) => {
                if let Some(id) = object
                    .get("id")
                    .and_then(Value::as_i64)
                    .and_then(|id| i32::try_from(id).ok())
                {
                    ids.insert(id);
                }
                object.values().for_each(|v| collect(v, ids));
            }
            Value::Array(values) => values.iter().for_each(|v| collect(v, ids)),
            _ => {}
        }
    }
    let mut ids = HashSet::new();
    collect(filter, &mut ids);
    ids
}

/// A filter's conversion over a schema.
struct Filter<'a> {
    schema: &'a Schema,
    left_out: &'a HashSet<i32>,
}

impl Filter<'_> {
    /// `filter` as a predicate. `exact`: the predicate must hold exactly where the filter does (it is
    /// negated); otherwise wherever the filter does.
    fn convert(&self, filter: &Value, exact: bool) -> Option<Predicate> {
        match filter {
            Value::Bool(true) => Some(Predicate::AlwaysTrue),
            Value::Bool(false) => Some(Predicate::AlwaysFalse),
            Value::Object(object) => {
                if let Some(both) = object.get("and").and_then(Value::as_array) {
                    let [left, right] = both.as_slice() else {
                        return None;
                    };
                    let (left, right) = (self.convert(left, exact), self.convert(right, exact));
                    match (left, right) {
                        (Some(l), Some(r)) => Some(l.and(r)),
                        // Without one side, the other still holds wherever both do.
                        (Some(one), None) | (None, Some(one)) if !exact => Some(one),
                        _ => None,
                    }
                } else if let Some(both) = object.get("or").and_then(Value::as_array) {
                    let [left, right] = both.as_slice() else {
                        return None;
                    };
                    Some(self.convert(left, exact)?.or(self.convert(right, exact)?))
                } else if let Some(child) = object.get("not") {
                    Some(!self.convert(child, true)?)
                } else {
                    self.leaf(object, exact)
                }
            }
            _ => None,
        }
    }

    /// A predicate on one column.
    fn leaf(&self, object: &serde_json::Map<String, Value>, exact: bool) -> Option<Predicate> {
        let op = object.get("op")?.as_str()?;
        let id = i32::try_from(object.get("id")?.as_i64()?).ok()?;
        if self.left_out.contains(&id) {
            return None;
        }
        let schema = self.schema;
        let field = schema.field_by_id(id)?;
        let Type::Primitive(primitive) = field.field_type.as_ref() else {
            return None;
        };
        if matches!(primitive, PrimitiveType::Float | PrimitiveType::Double) {
            return None;
        }
        let column = Reference::new(schema.name_by_field_id(id)?);
        let value = || datum(primitive, object.get("value")?);
        let values = || -> Option<Vec<Datum>> {
            object
                .get("values")?
                .as_array()?
                .iter()
                .map(|v| datum(primitive, v))
                .collect()
        };
        Some(match op {
            "is-null" => column.is_null(),
            "not-null" => column.is_not_null(),
            "lt" => column.less_than(value()?),
            "lt-eq" => column.less_than_or_equal_to(value()?),
            "gt" => column.greater_than(value()?),
            "gt-eq" => column.greater_than_or_equal_to(value()?),
            "eq" => column.equal_to(value()?),
            // How the reader treats NULLs in these is not relied on under a negation.
            "not-eq" if !exact => column.not_equal_to(value()?),
            "in" if !exact => column.is_in(values()?),
            "not-in" if !exact => column.is_not_in(values()?),
            _ => return None,
        })
    }
}

/// A value of a column of type `primitive`, as Java writes it.
pub(crate) fn datum(primitive: &PrimitiveType, value: &Value) -> Option<Datum> {
    Some(match primitive {
        PrimitiveType::Boolean => Datum::bool(value.as_bool()?),
        PrimitiveType::Int => Datum::int(i32::try_from(value.as_i64()?).ok()?),
        PrimitiveType::Long => Datum::long(value.as_i64()?),
        PrimitiveType::Date => Datum::date(i32::try_from(value.as_i64()?).ok()?),
        PrimitiveType::Timestamp => Datum::timestamp_micros(value.as_i64()?),
        PrimitiveType::Timestamptz => Datum::timestamptz_micros(value.as_i64()?),
        PrimitiveType::String => Datum::string(value.as_str()?),
        PrimitiveType::Decimal { .. } => Datum::decimal_from_str(value.as_str()?).ok()?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        serde_json::from_str(
            r#"{"type":"struct","schema-id":0,"fields":[
                {"id":1,"name":"id","required":true,"type":"long"},
                {"id":2,"name":"d","required":false,"type":"double"},
                {"id":3,"name":"s","required":false,"type":"string"},
                {"id":4,"name":"p","required":false,"type":"decimal(10, 2)"}]}"#,
        )
        .unwrap_or_else(|e| panic!("a schema: {e}"))
    }

    fn text(filter: &str) -> Option<String> {
        let filter: Value = serde_json::from_str(filter).unwrap_or_else(|e| panic!("{e}"));
        predicate(&filter, &schema(), &HashSet::new()).map(|p| p.to_string())
    }

    #[test]
    fn comparisons_become_predicates_on_the_named_column() {
        assert_eq!(
            text(r#"{"and":[{"id":1,"op":"gt","value":5},{"id":3,"op":"eq","value":"a"}]}"#),
            Some("(id > 5) AND (s = \"a\")".to_string())
        );
        assert!(text(r#"{"id":4,"op":"lt-eq","value":"12.50"}"#).is_some());
        assert!(text(r#"{"id":1,"op":"in","values":[1,2,3]}"#).is_some());
    }

    #[test]
    fn floating_point_and_unknown_parts_only_widen_what_is_kept() {
        // A conjunction keeps what it can evaluate exactly.
        assert_eq!(
            text(r#"{"and":[{"id":2,"op":"eq","value":0.0},{"id":1,"op":"lt","value":9}]}"#),
            Some("id < 9".to_string())
        );
        // A disjunction with an unusable side, or a negation of an unusable part, keeps all.
        assert_eq!(
            text(r#"{"or":[{"op":"unknown"},{"id":1,"op":"lt","value":9}]}"#),
            None
        );
        assert_eq!(
            text(
                r#"{"not":{"and":[{"id":2,"op":"eq","value":0.0},{"id":1,"op":"lt","value":9}]}}"#
            ),
            None
        );
        assert_eq!(text(r#"{"not":{"id":1,"op":"in","values":[1]}}"#), None);
        assert!(text(r#"{"not":{"id":1,"op":"lt","value":9}}"#).is_some());
        // A value of the wrong kind or a field that is not there is not guessed at.
        assert_eq!(text(r#"{"id":1,"op":"eq","value":"x"}"#), None);
        assert_eq!(text(r#"{"id":9,"op":"eq","value":1}"#), None);
    }
}
