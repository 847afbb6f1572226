//! The operators of the native island: pure Rust over arrow-rs kernels, with Flink's semantics.
//!
//! The planner (Java) admits an operator only when every expression in it is one this crate
//! evaluates exactly as Flink's generated code does, and describes it here as JSON
//! ([`calc::CalcSpec`]); the `jni` crate binds the operators to Java.
//!
//! * [`calc`]: projections and a filter over one batch (Flink's `Calc`).
//! * [`exchange`]: a batch's rows split by key for the subtasks that receive them.
//! * [`binary_rows`]: a batch's rows in Flink's binary row layout, for the island's edges and
//!   for sources feeding stock operators.

pub mod binary_rows;
pub mod binary_rows_to_arrow;
pub mod calc;
mod cast;
mod decimal;
pub mod exchange;
mod functions;
mod text_decimal;
