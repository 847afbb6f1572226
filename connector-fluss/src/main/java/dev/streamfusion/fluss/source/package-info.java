/** Fluss log tables read bucket by bucket into Arrow batches. */
package dev.streamfusion.fluss.source;
