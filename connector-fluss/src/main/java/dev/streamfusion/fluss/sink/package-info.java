/** Rows written to Fluss tables through the Fluss client's writers. */
package dev.streamfusion.fluss.sink;
