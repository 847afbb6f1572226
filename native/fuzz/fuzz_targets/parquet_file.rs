//! Arbitrary bytes as a Parquet file (seeded with real files, so mostly files with a corrupt
//! footer, page header or page): planning with a predicate (statistics, bloom filters) and reading
//! every row group, with and without the page index. Each read ends in rows or an error; run
//! with a memory limit so that a length trusted from the file shows up as a crash.
//!
//! A panic is caught, as the JNI layer catches it and throws it as a Java exception: what this
//! target hunts is what no layer can catch (aborts, allocations of sizes a file claims, memory
//! errors, hangs). `tests/corrupt_files.rs` holds the footer paths to no panic at all.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use streamfusion_parquet::{
    ColumnPredicate, FileBytes, Op, RowGroupReader, Value, file_schema_in, row_groups_matching_in,
};

fuzz_target!(
    init: std::panic::set_hook(Box::new(|_| {})),
    |data: &[u8]| {
        let _ = std::panic::catch_unwind(|| read(data));
    }
);

fn read(data: &[u8]) {
    let file = Bytes::copy_from_slice(data);
    // The table reads the file's own columns, as the reader maps its Parquet schema.
    let Ok((target, row_groups)) = file_schema_in("fuzz", FileBytes::Ranges(file.clone())) else {
        return;
    };
    let groups: Vec<usize> = (0..row_groups).collect();
    let Some(first) = target.fields().first().map(|f| f.name().clone()) else {
        return;
    };
    let predicates = [
        ColumnPredicate {
            column: first.clone(),
            op: Op::Eq,
            value: Some(Value::Int(1)),
        },
        ColumnPredicate {
            column: first,
            op: Op::IsNotNull,
            value: None,
        },
    ];
    let _ = row_groups_matching_in("fuzz", FileBytes::Ranges(file.clone()), &predicates);
    for predicates in [&[][..], &predicates[1..]] {
        let Ok(mut reader) = RowGroupReader::open_in(
            "fuzz",
            FileBytes::Ranges(file.clone()),
            &groups,
            target.clone(),
            &[],
            1024,
            predicates,
            None,
        ) else {
            continue;
        };
        while let Ok(Some(batch)) = reader.next_batch() {
            // An invalid batch would reach Java as memory to read out of bounds: that is a crash.
            if batch
                .columns()
                .iter()
                .any(|column| column.to_data().validate_full().is_err())
            {
                std::process::abort();
            }
        }
    }
}
