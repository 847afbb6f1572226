/**
 * Flink test helpers shared by the connectors' tests: a job that fails once, SQL jars in a child
 * JVM, the final rows of a changelog. Uses nothing of StreamFusion.
 */
package dev.streamfusion.testkit.flink;
