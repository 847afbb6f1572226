/**
 * Flink logical types as Arrow types, one mapping for every module. Uses nothing of StreamFusion.
 */
package dev.streamfusion.bridge.types;
