/**
 * Flink {@code ColumnVector}s and {@code ColumnarRowData} over Arrow vectors: rows as views of a
 * batch, without copying. Uses nothing of StreamFusion.
 */
package dev.streamfusion.bridge.columnar;
