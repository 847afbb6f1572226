/**
 * The native Iceberg task reader, planned tasks described for it, and the catalog a table is
 * loaded from. Uses only the bridge and Iceberg Java.
 */
package dev.streamfusion.iceberg.internal;
