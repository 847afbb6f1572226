/**
 * The {@code streamfusion-parquet} table: its factory and options, the table source (projection,
 * filter, limit, partition and metadata pushdown) and the table sink over Flink's file sink. Uses
 * {@code source}, {@code format} and {@code internal}.
 */
package dev.streamfusion.parquet.table;
