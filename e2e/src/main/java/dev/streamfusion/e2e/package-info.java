/**
 * The demo and the end-to-end benchmarks: stock Flink and StreamFusion on the same data in one
 * run. Uses everything; nothing uses it.
 */
package dev.streamfusion.e2e;
