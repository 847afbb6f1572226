/**
 * The sink kit every connector's writer builds on: the allocator rows are transposed into and the
 * native handles opened on it, closed in one order on every path. Uses only Flink and Arrow.
 */
package dev.streamfusion.bridge.sink;
