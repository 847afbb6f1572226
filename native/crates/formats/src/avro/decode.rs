//! [`AvroDecoder`]: one Avro datum per message, walked straight into Arrow columns.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use super::resolve::{Carried, RecordPlan, Unread, record_error};
use super::schema::AvroSchema;
use super::table::{TableNode, derive_table, legacy_mapping, writer_schema_of};
use crate::builder::Rows;
use crate::decoder::Decoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// Decodes one Avro datum per message.
#[derive(Debug)]
pub struct AvroDecoder {
    schema: SchemaRef,
    /// The datum's schema: the one Flink derives from the table's physical columns.
    writer: Vec<(String, AvroSchema)>,
    /// The produced columns, read from the datum by name (unread ones are stepped over).
    table: TableNode,
    /// How the datum's fields are read into the produced columns.
    plan: RecordPlan,
    rows: Rows,
    /// Bytes the last datum left unread in Flink's decoder's buffer, which it reads as the start
    /// of the next message.
    carry: Carried,
}

impl AvroDecoder {
    /// A decoder of datums of the table's `physical` columns producing the `produced` ones (a
    /// subset by name); unread columns are stepped over, never built.
    pub fn try_new(
        physical: SchemaRef,
        produced: SchemaRef,
        options: &FormatOptions,
    ) -> Result<Self> {
        let legacy = legacy_mapping(options)?;
        let TableNode::Record(physical_nodes) = derive_table(&physical, legacy)? else {
            return Err(FormatError::config("the table is not a row"));
        };
        let writer: Vec<(String, AvroSchema)> = physical_nodes
            .iter()
            .map(|(name, node)| (name.clone(), writer_schema_of(node)))
            .collect();
        for field in produced.fields() {
            if physical.field_with_name(field.name()).is_err() {
                return Err(FormatError::config(format!(
                    "produced column '{}' is not a physical column",
                    field.name()
                )));
            }
        }
        let table = derive_table(&produced, legacy)?;
        let plan = RecordPlan::new(&writer, &table, Unread::SkipUnless(&physical_nodes))
            .map_err(FormatError::config)?;
        Ok(Self {
            rows: Rows::try_new(produced.clone())?,
            table,
            plan,
            schema: produced,
            writer,
            carry: Carried::default(),
        })
    }
}

impl Decoder for AvroDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.rows.next_message();
        // Flink's Avro format produces no row for a null message.
        let Some(bytes) = message else { return Ok(()) };
        let carried = self.carry.any();
        let result = self.carry.read_record(
            bytes,
            &self.writer,
            &self.plan,
            &self.table,
            self.rows.columns(),
        );
        self.rows.end_row(result).map_err(|reason| {
            record_error(
                position,
                carried,
                format!(
                    "Failed to deserialize Avro record of {} bytes: {reason}",
                    bytes.len()
                ),
            )
        })
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        self.rows.flush()
    }

    fn pending_rows(&self) -> usize {
        self.rows.pending()
    }

    fn skipped(&self) -> usize {
        0
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}
