package dev.streamfusion.formats.registry;

import org.apache.flink.annotation.Internal;

/** Where writer schemas named by a message's schema id come from, and where sinks register theirs. */
@Internal
public interface SchemaRegistryClient {

    /**
     * The writer schema (Avro JSON) registered under {@code id}.
     *
     * @throws SchemaRegistryException if the registry does not know the id or cannot be reached
     */
    String schemaById(int id);

    /**
     * Registers {@code schema} (Avro JSON) under {@code subject}, or finds it registered there, and
     * returns its id.
     *
     * @throws SchemaRegistryException if the registry refuses it or cannot be reached
     */
    int register(String subject, String schema);
}
