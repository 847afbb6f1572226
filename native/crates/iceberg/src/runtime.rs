//! The process-wide Tokio runtime iceberg-rust's reads and writes run on, and how its errors read.

use std::sync::OnceLock;

use crate::reader::IcebergReadError;

/// Worker threads of the runtime: reads are driven by the calling thread (`block_on`); the
/// workers serve the delete-file loads and file reads iceberg-rust spawns.
const WORKERS: usize = 2;

static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();

/// The runtime, started on first use.
pub(crate) fn runtime() -> Result<&'static tokio::runtime::Runtime, IcebergReadError> {
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(WORKERS)
                .thread_name("streamfusion-iceberg-io")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| IcebergReadError::Runtime(e.clone()))
}

/// An iceberg-rust error with the causes it wraps, each said once.
pub(crate) fn error_chain(e: &iceberg::Error) -> String {
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !reason.contains(&text) {
            reason.push_str(": ");
            reason.push_str(&text);
        }
        source = cause.source();
    }
    reason
}
