//! What the integration tests share.

use arrow::array::RecordBatch;
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

/// `batch` written as a Parquet file with `properties`.
pub fn parquet_bytes(
    batch: &RecordBatch,
    properties: WriterProperties,
) -> Result<Bytes, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties))?;
    writer.write(batch)?;
    writer.close()?;
    Ok(Bytes::from(out))
}
