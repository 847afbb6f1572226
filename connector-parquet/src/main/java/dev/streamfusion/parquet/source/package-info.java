/**
 * The Parquet source: file listing, the enumerator that plans row groups as splits, and the reader
 * that emits rows over natively decoded batches. Uses {@code internal} and the bridge.
 */
package dev.streamfusion.parquet.source;
