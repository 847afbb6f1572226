/**
 * The {@code streamfusion-iceberg} table factory, its options (iceberg-flink's names), the table
 * source with its pushdowns, and Flink types for Iceberg schemas.
 */
package dev.streamfusion.iceberg.table;
