//! Avro object container files (`Obj\x01`, a header with the writer schema and codec, blocks of
//! datums separated by a sync marker), read from memory into the columns of a table by Avro
//! schema resolution. Codecs: `null`, `deflate`, `snappy` and `zstandard`.

use std::io::Read;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use super::reader::AvroReader;
use super::resolve::{RecordPlan, Unread, read_planned, read_record};
use super::schema::AvroSchema;
use super::table::derive_table;
use crate::builder::{NotNullCheck, builders_for, finish_batch};
use crate::error::{FormatError, Result};

/// The largest block a file may inflate to; a larger one is rejected rather than allocated.
const MAX_BLOCK_BYTES: usize = 1 << 30;

/// Reads every record of the container file `bytes` into rows of `table` (`legacy` is Flink's
/// `avro.timestamp_mapping.legacy`).
pub fn read_container(bytes: &[u8], table: &SchemaRef, legacy: bool) -> Result<RecordBatch> {
    read(bytes, table, legacy).map_err(|reason| FormatError::Decode {
        position: 0,
        reason: format!("Avro container file: {reason}"),
    })
}

fn read(bytes: &[u8], table: &SchemaRef, legacy: bool) -> std::result::Result<RecordBatch, String> {
    let rest = bytes
        .strip_prefix(b"Obj\x01")
        .ok_or("not an Avro object container file (no 'Obj' magic)")?;
    let mut r = AvroReader::new(rest);
    let mut schema_text = None;
    let mut codec = "null".to_string();
    loop {
        let n = r.block()?;
        if n == 0 {
            break;
        }
        for _ in 0..n {
            let key_len = r.length()?;
            let key = std::str::from_utf8(r.take(key_len)?)
                .map_err(|_| "a metadata key that is not UTF-8")?
                .to_string();
            let value_len = r.length()?;
            let value = r.take(value_len)?;
            match key.as_str() {
                "avro.schema" => schema_text = Some(String::from_utf8_lossy(value).into_owned()),
                "avro.codec" => codec = String::from_utf8_lossy(value).into_owned(),
                _ => {}
            }
        }
    }
    let sync: [u8; 16] = r
        .take(16)?
        .try_into()
        .map_err(|_| "a truncated sync marker")?;
    let writer = AvroSchema::parse(&schema_text.ok_or("the header has no 'avro.schema'")?)?;
    let AvroSchema::Record(fields) = &writer else {
        return Err("the file's schema is not a record".into());
    };
    let table_node = derive_table(table, legacy).map_err(|e| e.to_string())?;
    let mut columns = builders_for(table.fields()).map_err(|e| e.to_string())?;
    let plan = RecordPlan::new(fields, &table_node, Unread::Read)?;
    let not_null = NotNullCheck::new(table.fields());
    let mut rows = 0;
    while !r.is_at_end() {
        let count = r.length()?;
        let size = r.length()?;
        let block = inflate(&codec, r.take(size)?)?;
        let mut datums = AvroReader::new(&block);
        for _ in 0..count {
            read_planned(fields, &plan, &table_node, &mut columns, &mut datums)
                .and_then(|()| not_null.check(&columns, rows, rows + 1))
                .map_err(|e| format!("record {rows}: {e}"))?;
            rows += 1;
        }
        if r.take(16)? != sync {
            return Err(format!(
                "the sync marker after record {rows} does not match the header's"
            ));
        }
    }
    finish_batch(table, &mut columns, rows).map_err(|e| e.to_string())
}

fn inflate(codec: &str, data: &[u8]) -> std::result::Result<Vec<u8>, String> {
    match codec {
        "null" => Ok(data.to_vec()),
        "deflate" => miniz_oxide::inflate::decompress_to_vec_with_limit(data, MAX_BLOCK_BYTES)
            .map_err(|e| format!("a deflate block does not inflate: {e:?}")),
        "snappy" => {
            // Snappy blocks end with the CRC-32 of the uncompressed data.
            let compressed = data
                .get(..data.len().saturating_sub(4))
                .ok_or("a truncated snappy block")?;
            if snap::raw::decompress_len(compressed).map_err(|e| e.to_string())? > MAX_BLOCK_BYTES {
                return Err("a snappy block inflates beyond 1 GiB".into());
            }
            snap::raw::Decoder::new()
                .decompress_vec(compressed)
                .map_err(|e| format!("a snappy block does not inflate: {e}"))
        }
        "zstandard" => {
            let mut out = Vec::new();
            let mut source = data;
            ruzstd::decoding::StreamingDecoder::new(&mut source)
                .map_err(|e| format!("a zstandard block does not start: {e}"))?
                .take(MAX_BLOCK_BYTES as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("a zstandard block does not inflate: {e}"))?;
            if out.len() > MAX_BLOCK_BYTES {
                return Err("a zstandard block inflates beyond 1 GiB".into());
            }
            Ok(out)
        }
        other => Err(format!(
            "the codec '{other}' is not supported (null, deflate, snappy, zstandard are)"
        )),
    }
}

/// Reads one datum in Avro's single-object encoding (`C3 01`, the writer schema's 8-byte
/// fingerprint, the datum) written with `writer_schema` into a row of `table`. The fingerprint is
/// not checked: the caller names the schema.
pub fn read_single_object(
    bytes: &[u8],
    writer_schema: &str,
    table: &SchemaRef,
    legacy: bool,
) -> Result<RecordBatch> {
    let decode = || -> std::result::Result<RecordBatch, String> {
        let datum = bytes
            .strip_prefix(&[0xC3, 0x01])
            .and_then(|rest| rest.get(8..))
            .ok_or("not Avro single-object encoding (no C3 01 marker)")?;
        let writer = AvroSchema::parse(writer_schema)?;
        let AvroSchema::Record(fields) = &writer else {
            return Err("the writer schema is not a record".into());
        };
        let table_node = derive_table(table, legacy).map_err(|e| e.to_string())?;
        let mut columns = builders_for(table.fields()).map_err(|e| e.to_string())?;
        read_record(
            fields,
            &table_node,
            &mut columns,
            &mut AvroReader::new(datum),
            Unread::Read,
        )?;
        NotNullCheck::new(table.fields()).check(&columns, 0, 1)?;
        finish_batch(table, &mut columns, 1).map_err(|e| e.to_string())
    };
    decode().map_err(|reason| FormatError::Decode {
        position: 0,
        reason: format!("Avro single object: {reason}"),
    })
}
