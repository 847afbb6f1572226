//! The JNI face of StreamFusion.
//!
//! This is the only crate with JNI symbols. It converts arguments, calls the pure Rust crates,
//! and maps results and errors back to Java; there is one file per Java class with native
//! methods (`native_library.rs` for `NativeLibrary`, and so on).
//!
//! * [`errors`]: the single error-mapping function every entry point runs through.
//! * `args`: Java arguments as Rust values, shared by several classes' natives.
//! * [`handle`]: native objects owned by Java `NativeHandle`s.
//! * [`arrow_ffi`]: Arrow C Data crossings and their ownership rules.
//! * [`memory`]: the counting global allocator behind `NativeLibrary.allocatedBytes()`.

mod args;
pub mod arrow_ffi;
pub mod errors;
pub mod handle;
pub mod java_ranges;
pub mod java_table_files;
pub mod java_text;
pub mod librdkafka_config;
pub mod memory;
pub mod native_batch_router;
pub mod native_binary_rows;
pub mod native_binary_rows_to_arrow;
pub mod native_calc;
pub mod native_diagnostics;
pub mod native_format_decoder;
pub mod native_format_encoder;
pub mod native_iceberg_reader;
pub mod native_iceberg_writer;
pub mod native_kafka_consumer;
pub mod native_kafka_producer;
pub mod native_library;
pub mod native_parquet_reader;
pub mod native_parquet_writer;
pub mod native_projection;

#[global_allocator]
static ALLOCATOR: memory::CountingAllocator = memory::CountingAllocator::new();
