/** The {@code streamfusion-fluss} table factory, its options, source and sink. */
package dev.streamfusion.fluss.table;
