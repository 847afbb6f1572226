//! A planned file task as Java describes it, and the iceberg-rust task it becomes.

use std::collections::HashSet;
use std::sync::Arc;

use iceberg::expr::{Bind, Predicate};
use iceberg::scan::{FileScanTask, FileScanTaskDeleteFile};
use iceberg::spec::{
    DataContentType, DataFileFormat, Literal, NameMapping, PartitionSpec, Schema, Struct,
    Transform, Type,
};
use serde::Deserialize;

use crate::reader::IcebergReadError;

/// One data file (or a byte range of it) to read, with the delete files that apply to it.
///
/// `schema` is the table schema the scan reads, in Iceberg's JSON form (as Iceberg Java's
/// `SchemaParser` writes it); `projected-ids` are the field ids of the columns to read, in the
/// order of the target schema's columns.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TaskDescription {
    pub path: String,
    pub file_size: u64,
    pub start: u64,
    pub length: u64,
    #[serde(default)]
    pub record_count: Option<u64>,
    pub schema: serde_json::Value,
    pub projected_ids: Vec<i32>,
    #[serde(default)]
    pub deletes: Vec<DeleteDescription>,
    /// The table's `schema.name-mapping.default`, for data files written without field ids.
    #[serde(default)]
    pub name_mapping: Option<serde_json::Value>,
    /// The task's residual filter (see the `predicate` module), for pruning and dropping rows.
    #[serde(default)]
    pub filter: Option<serde_json::Value>,
    /// The data file's partition spec (as Iceberg Java's `PartitionSpecParser` writes it), when
    /// it has identity fields with values: rows take those values for the fields' columns, as
    /// Iceberg's readers give them (a file may lack the column, as a migrated one does).
    #[serde(default)]
    pub partition_spec: Option<serde_json::Value>,
    /// The file's partition values, one per spec field: an identity field's value as a filter
    /// value of its column's type is written, anything else `null`.
    #[serde(default)]
    pub partition: Option<Vec<serde_json::Value>>,
    pub case_sensitive: bool,
}

/// A delete file applying to a task's data file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DeleteDescription {
    pub path: String,
    pub file_size: u64,
    /// `position` or `equality`.
    pub content: String,
    pub spec_id: i32,
    #[serde(default)]
    pub equality_ids: Option<Vec<i32>>,
}

impl TaskDescription {
    /// The task described by `json`.
    pub fn parse(json: &str) -> Result<Self, IcebergReadError> {
        serde_json::from_str(json).map_err(|e| IcebergReadError::Task(e.to_string()))
    }

    /// The table schema the task reads.
    pub(crate) fn table_schema(&self) -> Result<Schema, IcebergReadError> {
        serde_json::from_value(self.schema.clone())
            .map_err(|e| IcebergReadError::Task(format!("schema: {e}")))
    }

    /// The iceberg-rust task reading `projected` (field ids) of `schema`, its filter without
    /// predicates on the columns `not_as_typed` names (the data file does not hold them in the
    /// table's type: see the `footer` module).
    pub(crate) fn to_scan_task(
        &self,
        schema: Arc<Schema>,
        projected: Vec<i32>,
        not_as_typed: &HashSet<i32>,
    ) -> Result<FileScanTask, IcebergReadError> {
        let deletes = self
            .deletes
            .iter()
            .map(DeleteDescription::to_scan_delete)
            .collect::<Result<Vec<_>, _>>()?;
        let name_mapping = match &self.name_mapping {
            None => None,
            Some(json) => Some(Arc::new(
                serde_json::from_value::<NameMapping>(json.clone())
                    .map_err(|e| IcebergReadError::Task(format!("name mapping: {e}")))?,
            )),
        };
        let predicate = self
            .filter
            .as_ref()
            .and_then(|filter| crate::predicate::predicate(filter, &schema, not_as_typed))
            .filter(|p| !matches!(p, Predicate::AlwaysTrue))
            // Without NOT: iceberg-rust's row group pruning negates its "might match" under a
            // NOT, which would skip groups holding matches (its own scans rewrite NOT away too).
            .map(Predicate::rewrite_not)
            // A predicate the schema does not bind (a value out of a column's range) is dropped:
            // it only ever narrows the rows read.
            .and_then(|p| p.bind(Arc::clone(&schema), true).ok());
        let (partition, partition_spec) = self.partition_constants(&schema)?;
        Ok(FileScanTask {
            file_size_in_bytes: self.file_size,
            start: self.start,
            length: self.length,
            record_count: self.record_count,
            data_file_path: self.path.clone(),
            data_file_format: DataFileFormat::Parquet,
            schema,
            project_field_ids: projected,
            predicate,
            deletes,
            partition,
            partition_spec,
            name_mapping,
            case_sensitive: self.case_sensitive,
        })
    }
}

impl TaskDescription {
    /// The file's partition values and spec for iceberg-rust, which reads an identity field's
    /// value as its column's (spec: column projection, rule 1); none where the task has none.
    fn partition_constants(
        &self,
        schema: &Schema,
    ) -> Result<(Option<Struct>, Option<Arc<PartitionSpec>>), IcebergReadError> {
        let (Some(spec), Some(values)) = (&self.partition_spec, &self.partition) else {
            return Ok((None, None));
        };
        let spec: PartitionSpec = serde_json::from_value(spec.clone())
            .map_err(|e| IcebergReadError::Task(format!("partition spec: {e}")))?;
        if spec.fields().len() != values.len() {
            return Err(IcebergReadError::Task(format!(
                "{} partition values for a spec of {} fields",
                values.len(),
                spec.fields().len()
            )));
        }
        let mut literals = Vec::with_capacity(values.len());
        for (field, value) in spec.fields().iter().zip(values) {
            if value.is_null() || field.transform != Transform::Identity {
                literals.push(None);
                continue;
            }
            let column = schema.field_by_id(field.source_id).ok_or_else(|| {
                IcebergReadError::Task(format!(
                    "partition source {} not in the schema",
                    field.source_id
                ))
            })?;
            let Type::Primitive(primitive) = column.field_type.as_ref() else {
                return Err(IcebergReadError::Task(format!(
                    "identity partition of the non-primitive column {}",
                    column.name
                )));
            };
            let datum = crate::predicate::datum(primitive, value).ok_or_else(|| {
                IcebergReadError::Task(format!(
                    "partition value {value} of column {} ({primitive})",
                    column.name
                ))
            })?;
            literals.push(Some(Literal::Primitive(datum.literal().clone())));
        }
        Ok((Some(Struct::from_iter(literals)), Some(Arc::new(spec))))
    }

    /// The task's equality delete files: path, size and equality field ids.
    pub(crate) fn equality_deletes(&self) -> Vec<(String, u64, Vec<i32>)> {
        self.deletes
            .iter()
            .filter(|d| d.content == "equality")
            .map(|d| {
                (
                    d.path.clone(),
                    d.file_size,
                    d.equality_ids.clone().unwrap_or_default(),
                )
            })
            .collect()
    }
}

impl DeleteDescription {
    fn to_scan_delete(&self) -> Result<FileScanTaskDeleteFile, IcebergReadError> {
        let file_type = match self.content.as_str() {
            "position" => DataContentType::PositionDeletes,
            "equality" => DataContentType::EqualityDeletes,
            other => {
                return Err(IcebergReadError::Task(format!(
                    "delete file {}: unknown content '{other}'",
                    self.path
                )));
            }
        };
        if file_type == DataContentType::EqualityDeletes
            && self.equality_ids.as_ref().is_none_or(Vec::is_empty)
        {
            return Err(IcebergReadError::Task(format!(
                "equality delete file {} names no equality field ids",
                self.path
            )));
        }
        Ok(FileScanTaskDeleteFile {
            file_path: self.path.clone(),
            file_size_in_bytes: self.file_size,
            file_type,
            partition_spec_id: self.spec_id,
            equality_ids: self.equality_ids.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}"#;

    fn task(deletes: &str) -> String {
        format!(
            r#"{{"path":"/t/a.parquet","file-size":10,"start":0,"length":10,"schema":{SCHEMA},"projected-ids":[1],"deletes":[{deletes}],"case-sensitive":false}}"#
        )
    }

    #[test]
    fn a_task_becomes_the_iceberg_task_of_its_projection() -> Result<(), IcebergReadError> {
        let description = TaskDescription::parse(&task(
            r#"{"path":"/t/d.parquet","file-size":5,"content":"position","spec-id":0}"#,
        ))?;
        let schema = Arc::new(description.table_schema()?);
        let scan = description.to_scan_task(schema, vec![1], &HashSet::new())?;
        assert_eq!(scan.data_file_path, "/t/a.parquet");
        assert_eq!(scan.project_field_ids, vec![1]);
        assert_eq!(scan.deletes.len(), 1);
        assert_eq!(scan.deletes[0].file_type, DataContentType::PositionDeletes);
        Ok(())
    }

    /// Identity fields' values become the task's partition constants, in the column's type
    /// (an INT partition value of a column since promoted to BIGINT is a long); other fields'
    /// are none; a value count that does not match the spec is refused.
    #[test]
    fn identity_partition_values_become_the_tasks_constants() -> Result<(), IcebergReadError> {
        let with_partition = |values: &str| {
            task("").replace(
                r#""case-sensitive""#,
                &format!(
                    r#""partition-spec":{{"spec-id":3,"fields":[{{"name":"id","transform":"identity","source-id":1,"field-id":1000}},{{"name":"id_bucket","transform":"bucket[4]","source-id":1,"field-id":1001}}]}},"partition":{values},"case-sensitive""#
                ),
            )
        };
        let description = TaskDescription::parse(&with_partition("[7,null]"))?;
        let schema = Arc::new(description.table_schema()?);
        let scan = description.to_scan_task(Arc::clone(&schema), vec![1], &HashSet::new())?;
        let partition = scan
            .partition
            .ok_or_else(|| IcebergReadError::Task("no partition".into()))?;
        assert_eq!(
            partition.iter().collect::<Vec<_>>(),
            vec![Some(&Literal::long(7)), None]
        );
        assert_eq!(scan.partition_spec.map(|s| s.spec_id()), Some(3));
        let refused = TaskDescription::parse(&with_partition("[7]"))?.to_scan_task(
            schema,
            vec![1],
            &HashSet::new(),
        );
        assert!(
            matches!(refused, Err(IcebergReadError::Task(m)) if m.contains("1 partition values"))
        );
        Ok(())
    }

    #[test]
    fn deletes_of_unknown_content_or_without_equality_ids_are_refused()
    -> Result<(), IcebergReadError> {
        for delete in [
            r#"{"path":"/t/d.parquet","file-size":5,"content":"vector","spec-id":0}"#,
            r#"{"path":"/t/d.parquet","file-size":5,"content":"equality","spec-id":0}"#,
        ] {
            let description = TaskDescription::parse(&task(delete))?;
            let schema = Arc::new(description.table_schema()?);
            let refused = description.to_scan_task(schema, vec![1], &HashSet::new());
            assert!(
                matches!(&refused, Err(IcebergReadError::Task(m)) if m.contains("/t/d.parquet")),
                "{refused:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn an_unknown_field_is_refused_naming_it() {
        let refused = TaskDescription::parse(r#"{"path":"/t/a.parquet","surprise":1}"#);
        assert!(matches!(&refused, Err(IcebergReadError::Task(m)) if m.contains("surprise")));
    }
}
