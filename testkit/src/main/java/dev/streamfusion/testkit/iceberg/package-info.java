/** An Iceberg REST catalog in a child JVM, for tests of catalogs reached over the REST protocol. */
package dev.streamfusion.testkit.iceberg;
