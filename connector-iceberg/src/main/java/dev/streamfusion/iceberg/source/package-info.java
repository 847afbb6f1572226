/**
 * The Iceberg source: the enumerator that plans file tasks with Iceberg Java as splits, and the
 * reader that emits rows over batches read natively. Uses {@code internal} and the bridge.
 */
package dev.streamfusion.iceberg.source;
