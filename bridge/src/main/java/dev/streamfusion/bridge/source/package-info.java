/**
 * The source kit every connector's reader builds on: fetched records backed by Arrow batches, the
 * reader's Arrow memory, and a source reader that closes them in order. The batches are also what a
 * consumer of whole batches takes. Uses only Flink and Arrow.
 */
package dev.streamfusion.bridge.source;
