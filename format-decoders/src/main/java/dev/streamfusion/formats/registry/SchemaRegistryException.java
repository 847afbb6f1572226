package dev.streamfusion.formats.registry;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A schema registry could not give a writer schema: the message names the registry and the id.
 *
 * @since 0.1
 */
@PublicEvolving
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SchemaRegistryException(String message) {
        super(message);
    }

    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
