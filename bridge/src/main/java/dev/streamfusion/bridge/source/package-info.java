/**
 * The source kit every connector's reader builds on: native readers of Arrow batches, fetched
 * records backed by the batches (one split's batch at a time, or several), the reader's Arrow
 * memory, and a source reader that closes them in order. The batches are also what a consumer of
 * whole batches takes. Uses Flink, Arrow, the bridge's handles and its columnar rows.
 */
package dev.streamfusion.bridge.source;
