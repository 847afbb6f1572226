/** The entry point of the Fluss cluster the testkit runs in a child JVM. */
package dev.streamfusion.testkit.fluss.server;
