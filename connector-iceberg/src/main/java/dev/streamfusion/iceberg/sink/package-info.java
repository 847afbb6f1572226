/**
 * The Iceberg sink: writers that write data files natively and hand their descriptions to one
 * committer, which commits them with Iceberg Java when checkpoints complete, exactly once. Uses
 * {@code internal} and the bridge.
 */
package dev.streamfusion.iceberg.sink;
