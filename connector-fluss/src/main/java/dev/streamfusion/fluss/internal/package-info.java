/** The Fluss client as the connector uses it: tables, connections and rows. */
package dev.streamfusion.fluss.internal;
