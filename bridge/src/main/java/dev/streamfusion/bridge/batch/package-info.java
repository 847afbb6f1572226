/** Arrow batches as stream elements of the operator island: the element, its type and serializer, and the scans that emit them. */
package dev.streamfusion.bridge.batch;
