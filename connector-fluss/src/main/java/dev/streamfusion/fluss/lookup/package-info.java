/** Lookups of a Fluss primary-key table's rows by key, for Flink's lookup joins. */
package dev.streamfusion.fluss.lookup;
