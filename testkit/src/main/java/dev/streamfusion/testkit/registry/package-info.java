/**
 * A schema registry speaking the part of Confluent's REST API that Avro serializers use, for
 * tests. Uses nothing of StreamFusion.
 */
package dev.streamfusion.testkit.registry;
