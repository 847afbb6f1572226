/** A real Apache Fluss cluster for tests and the demo, started in a child JVM. */
package dev.streamfusion.testkit.fluss;
