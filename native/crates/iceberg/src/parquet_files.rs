//! iceberg-rust's Parquet file writer, with each file's dictionaries chosen from its first rows.
//!
//! A file's first rows (as many as parquet-java's first page holds,
//! [`streamfusion_parquet::FirstRows`]) are kept until they are all there, or the file is
//! closed; then the file is opened with a dictionary only for the columns
//! whose first page would keep one in parquet-java ([`streamfusion_parquet::dictionaries_that_pay`]),
//! and everything kept is written in order. The files hold what iceberg-flink's would, without
//! the dictionaries parquet-java drops, and the writer does not hash mostly distinct values into
//! them.

use arrow::array::RecordBatch;
use iceberg::arrow::schema_to_arrow_schema;
use iceberg::io::OutputFile;
use iceberg::spec::{DataFileBuilder, SchemaRef as IcebergSchemaRef};
use iceberg::writer::CurrentFileStatus;
use iceberg::writer::file_writer::{
    FileWriter, FileWriterBuilder, ParquetWriter, ParquetWriterBuilder,
};
use iceberg::{Error, ErrorKind, Result};
use parquet::arrow::ArrowSchemaConverter;
use parquet::file::properties::WriterProperties;
use streamfusion_parquet::FirstRows;

/// Builds [`ParquetFile`]s of one schema.
#[derive(Clone, Debug)]
pub(crate) struct ParquetFiles {
    properties: WriterProperties,
    schema: IcebergSchemaRef,
}

impl ParquetFiles {
    pub(crate) fn new(properties: WriterProperties, schema: IcebergSchemaRef) -> Self {
        ParquetFiles { properties, schema }
    }

    /// The properties for a file whose first rows are `sample`.
    fn properties_for(&self, sample: &[RecordBatch]) -> Result<WriterProperties> {
        let arrow = schema_to_arrow_schema(&self.schema)?;
        let parquet = ArrowSchemaConverter::new().convert(&arrow).map_err(|e| {
            Error::new(ErrorKind::Unexpected, "the table's Parquet schema").with_source(e)
        })?;
        Ok(streamfusion_parquet::dictionaries_that_pay(
            sample,
            &parquet,
            self.properties.clone(),
        ))
    }
}

impl FileWriterBuilder for ParquetFiles {
    type R = ParquetFile;

    async fn build(&self, output_file: OutputFile) -> Result<ParquetFile> {
        Ok(ParquetFile {
            files: self.clone(),
            path: output_file.location().to_string(),
            state: State::Sampling {
                output_file,
                first: FirstRows::default(),
            },
        })
    }
}

/// One Parquet file: its first rows kept, then written through iceberg-rust's writer.
pub(crate) struct ParquetFile {
    files: ParquetFiles,
    path: String,
    state: State,
}

enum State {
    /// The file's first rows, copied: the caller may reuse a batch's memory once written.
    Sampling {
        output_file: OutputFile,
        first: FirstRows,
    },
    Writing(Box<ParquetWriter>),
    /// Between the two, while the writer opens; left so only by an error.
    Opening,
}

impl ParquetFile {
    /// Opens the file with the dictionaries the kept rows choose, and writes them; nothing to do
    /// once open.
    async fn open(&mut self) -> Result<()> {
        self.state = match std::mem::replace(&mut self.state, State::Opening) {
            State::Sampling { output_file, first } => {
                let properties = self.files.properties_for(first.batches())?;
                let mut writer = ParquetWriterBuilder::new(properties, self.files.schema.clone())
                    .build(output_file)
                    .await?;
                for batch in first.batches() {
                    writer.write(batch).await?;
                }
                State::Writing(Box::new(writer))
            }
            other => other,
        };
        Ok(())
    }

    /// The open writer.
    fn writer(&mut self) -> Result<&mut ParquetWriter> {
        match &mut self.state {
            State::Writing(writer) => Ok(writer),
            _ => Err(failed(&self.path)),
        }
    }
}

impl std::fmt::Debug for ParquetFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Sampling { first, .. } => format!("keeping its first {} rows", first.rows()),
            State::Writing(writer) => format!("{} rows written", writer.current_row_num()),
            State::Opening => "failed to open".to_string(),
        };
        f.debug_struct("ParquetFile")
            .field("path", &self.path)
            .field("state", &state)
            .finish()
    }
}

fn failed(path: &str) -> Error {
    Error::new(
        ErrorKind::Unexpected,
        format!("the Parquet file {path} failed to open earlier"),
    )
}

/// `batch` in memory of its own.
fn copied(batch: &RecordBatch) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .map(streamfusion_parquet::owned)
        .collect();
    RecordBatch::try_new(batch.schema(), columns)
        .map_err(|e| Error::new(ErrorKind::Unexpected, "copying a batch").with_source(e))
}

impl FileWriter for ParquetFile {
    async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if let State::Sampling { first, .. } = &mut self.state {
            if first.hold(copied(batch)?, &self.files.properties) {
                self.open().await?;
            }
            return Ok(());
        }
        self.writer()?.write(batch).await
    }

    async fn close(mut self) -> Result<Vec<DataFileBuilder>> {
        if let State::Sampling { first, .. } = &self.state
            && first.rows() == 0
        {
            return Ok(Vec::new());
        }
        self.open().await?;
        match self.state {
            State::Writing(writer) => writer.close().await,
            _ => Err(failed(&self.path)),
        }
    }
}

impl CurrentFileStatus for ParquetFile {
    fn current_file_path(&self) -> String {
        self.path.clone()
    }

    fn current_row_num(&self) -> usize {
        match &self.state {
            State::Sampling { first, .. } => first.rows(),
            State::Writing(writer) => writer.current_row_num(),
            State::Opening => 0,
        }
    }

    /// Nothing is written while the first rows are kept.
    fn current_written_size(&self) -> usize {
        match &self.state {
            State::Writing(writer) => writer.current_written_size(),
            _ => 0,
        }
    }
}
