/** What the connectors' catalogs share. */
package dev.streamfusion.bridge.table;
