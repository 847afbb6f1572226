/** The island's stream operators over Arrow batches, and its edges to rows. */
package dev.streamfusion.operators.runtime;
