/**
 * A Confluent-compatible schema registry client over HTTP, for avro-confluent. Uses nothing of
 * StreamFusion.
 */
package dev.streamfusion.formats.registry;
