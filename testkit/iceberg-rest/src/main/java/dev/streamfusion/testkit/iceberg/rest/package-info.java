/** The entry point of the Iceberg REST catalog the testkit runs in a child JVM. */
package dev.streamfusion.testkit.iceberg.rest;
