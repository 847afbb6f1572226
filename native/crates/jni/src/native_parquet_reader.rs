//! Natives of `dev.streamfusion.parquet.internal.NativeParquetReader`: row groups of one local Parquet
//! file read into Arrow batches of the table's columns.

use jni::objects::{JClass, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};
use streamfusion_parquet::{
    ColumnPredicate, FileBytes, Op, ParquetFileError, RowGroupReader, Value, row_groups_matching_in,
};

use crate::args::strings;
use crate::arrow_ffi::{export_next, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::java_ranges::JavaRanges;

const KIND: &str = "Parquet reader";

impl From<ParquetFileError> for NativeError {
    fn from(e: ParquetFileError) -> Self {
        NativeError::Io(e.to_string())
    }
}

fn path(env: &mut Env<'_>, path: &JString<'_>) -> NativeResult<String> {
    Ok(path.try_to_string(env)?)
}

/// The file's bytes: read by `ranges` (a Java `FileRanges`) unless it is null, else the local file
/// at `path`.
fn bytes(
    env: &mut Env<'_>,
    path: &str,
    ranges: &JObject<'_>,
) -> NativeResult<FileBytes<JavaRanges>> {
    if ranges.is_null() {
        Ok(FileBytes::local(path)?)
    } else {
        Ok(FileBytes::Ranges(JavaRanges::new(env, ranges)?))
    }
}

/// Predicates `columns[i] ops[i] values[i]`, the value of kind `kinds[i]` (0 none, 1 integer, 2
/// floating point, 3 text); ops 0-7 are =, <>, <, <=, >, >=, IS NULL, IS NOT NULL.
fn predicates(
    env: &mut Env<'_>,
    columns: &JObjectArray<'_>,
    ops: &JIntArray<'_>,
    kinds: &JIntArray<'_>,
    values: &JObjectArray<'_>,
) -> NativeResult<Vec<ColumnPredicate>> {
    let columns = strings(env, columns)?;
    let values = strings(env, values)?;
    let mut op_codes = vec![0; columns.len()];
    let mut kind_codes = vec![0; columns.len()];
    ops.get_region(env, 0, &mut op_codes)?;
    kinds.get_region(env, 0, &mut kind_codes)?;
    let mut predicates = Vec::with_capacity(columns.len());
    for (i, column) in columns.into_iter().enumerate() {
        let op = match op_codes[i] {
            0 => Op::Eq,
            1 => Op::NotEq,
            2 => Op::Lt,
            3 => Op::LtEq,
            4 => Op::Gt,
            5 => Op::GtEq,
            6 => Op::IsNull,
            7 => Op::IsNotNull,
            other => {
                return Err(NativeError::Config(format!(
                    "unknown predicate operator {other}"
                )));
            }
        };
        let text = values.get(i).cloned().unwrap_or_default();
        let bad = |e: &dyn std::fmt::Display| {
            NativeError::Config(format!("predicate value '{text}': {e}"))
        };
        let value = match kind_codes[i] {
            0 => None,
            1 => Some(Value::Int(text.parse().map_err(|e| bad(&e))?)),
            2 => Some(Value::Float(text.parse().map_err(|e| bad(&e))?)),
            _ => Some(Value::Text(text.clone())),
        };
        predicates.push(ColumnPredicate { column, op, value });
    }
    Ok(predicates)
}

/// The rows of each row group of the file, -1 for a row group whose statistics or bloom filters
/// prove that no row satisfies every predicate (see [`predicates`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_rowGroups0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JString<'local>,
    ranges: JObject<'local>,
    columns: JObjectArray<'local>,
    ops: JIntArray<'local>,
    kinds: JIntArray<'local>,
    values: JObjectArray<'local>,
) -> JLongArray<'local> {
    run(env, |env| {
        let file = path(env, &file)?;
        let predicates = predicates(env, &columns, &ops, &kinds, &values)?;
        let bytes = bytes(env, &file, &ranges)?;
        let rows = row_groups_matching_in(&file, bytes, &predicates)?;
        let array = env.new_long_array(rows.len())?;
        array.set_region(env, 0, &rows)?;
        Ok(array)
    })
}

/// Each column of the schema is the file's column at the path of names in `columns_read` (a
/// top-level column, or a field nested in one). Pages the page index rules out for the predicates
/// (see [`predicates`]) are skipped.
/// `timestamp_zone` is null to read timestamps (INT96, and INT64 with a timestamp annotation) as
/// UTC wall-clock time, or the zone whose wall-clock time they read as.
///
/// # Safety
/// `schema_addr` is an exported `ArrowSchema` of the columns to read.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JString<'local>,
    ranges: JObject<'local>,
    row_groups: JIntArray<'local>,
    schema_addr: jlong,
    columns_read: JObjectArray<'local>,
    batch_size: jint,
    columns: JObjectArray<'local>,
    ops: JIntArray<'local>,
    kinds: JIntArray<'local>,
    values: JObjectArray<'local>,
    timestamp_zone: JString<'local>,
) -> jlong {
    run(env, |env| {
        let file = path(env, &file)?;
        let predicates = predicates(env, &columns, &ops, &kinds, &values)?;
        let timestamp_zone = if timestamp_zone.is_null() {
            None
        } else {
            Some(timestamp_zone.try_to_string(env)?)
        };
        let mut groups = vec![0; row_groups.len(env)?];
        row_groups.get_region(env, 0, &mut groups)?;
        let groups: Vec<usize> = groups
            .into_iter()
            .map(|g| usize::try_from(g).map_err(|_| NativeError::Config(format!("row group {g}"))))
            .collect::<NativeResult<_>>()?;
        // SAFETY: Java passes an exported schema (see `NativeParquetReader.open`).
        let target = unsafe { import_schema(schema_addr) }?;
        let batch_size = usize::try_from(batch_size).unwrap_or(1).max(1);
        let mut paths = Vec::with_capacity(columns_read.len(env)?);
        for i in 0..columns_read.len(env)? {
            let element = columns_read.get_element(env, i)?;
            let names = env.cast_local::<JObjectArray>(element)?;
            paths.push(strings(env, &names)?);
        }
        let bytes = bytes(env, &file, &ranges)?;
        Ok(into_handle(RowGroupReader::open_in(
            &file,
            bytes,
            &groups,
            target,
            &paths,
            batch_size,
            &predicates,
            timestamp_zone.as_deref(),
        )?))
    })
}

/// Exports the next batch; returns its rows, or -1 after the last batch (nothing exported).
///
/// # Safety
/// `out_array_addr` is an empty `ArrowArray`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_next<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    out_array_addr: jlong,
) -> jint {
    run(env, |_| {
        let reader = object_of::<RowGroupReader>(handle, KIND)?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_next(reader.next_batch()?, out_array_addr) }
    })
}

/// Bytes of the file the reader holds natively (see `RowGroupReader::held_bytes`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_heldBytes0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let reader = object_of::<RowGroupReader>(handle, KIND)?;
        Ok(jlong::try_from(reader.held_bytes()).unwrap_or(jlong::MAX))
    })
}

/// Rows of the reader's row groups the page index ruled out.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_skippedRows0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let reader = object_of::<RowGroupReader>(handle, KIND)?;
        Ok(jlong::try_from(reader.skipped_rows()).unwrap_or(jlong::MAX))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetReader_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<RowGroupReader>(handle);
        Ok(())
    })
}
