package dev.streamfusion.formats.registry;

import org.apache.flink.annotation.Internal;

/** Where writer schemas named by a message's schema id come from. */
@Internal
public interface SchemaRegistryClient {

    /**
     * The writer schema (Avro JSON) registered under {@code id}.
     *
     * @throws SchemaRegistryException if the registry does not know the id or cannot be reached
     */
    String schemaById(int id);
}
