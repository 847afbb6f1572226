/**
 * Flink formats decoded and encoded natively (json, csv, raw, avro, avro-confluent, protobuf):
 * the decoder and encoder handles and the stock decoders they are compared with. Uses the bridge
 * and {@code registry}.
 */
package dev.streamfusion.formats;
