package dev.streamfusion.testkit.kafka;

import org.apache.flink.annotation.PublicEvolving;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that starts one {@link ChildJvmKafkaBroker} before the tests of a class and
 * stops it after them.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
 *
 * @Test
 * void readsOrders(KafkaCluster kafka) {
 *     kafka.createTopic("orders", 4);
 *     // ... KAFKA.bootstrapServers() works as well
 * }
 * }</pre>
 *
 * <p>Register it in a {@code static} field: the broker lives as long as the class's tests, and
 * {@code @Nested} classes share it. Test and lifecycle methods can take a {@link KafkaCluster}
 * parameter; a class with two of these extensions should use their fields instead, since both
 * would offer that parameter.
 */
@PublicEvolving
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final ChildJvmKafkaBroker.Builder builder;
    private ChildJvmKafkaBroker broker;
    /** The test class context that started the broker; nested classes' callbacks leave it alone. */
    private String owner;

    /** A broker with the default configuration. */
    public KafkaBrokerExtension() {
        this(ChildJvmKafkaBroker.builder());
    }

    /** A broker configured by the given builder, e.g. with extra broker properties. */
    public KafkaBrokerExtension(ChildJvmKafkaBroker.Builder builder) {
        this.builder = builder;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (broker == null) {
            broker = builder.start();
            owner = context.getUniqueId();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (broker != null && context.getUniqueId().equals(owner)) {
            broker.close();
            broker = null;
            owner = null;
        }
    }

    /**
     * The running broker.
     *
     * @throws IllegalStateException outside the tests of the class that registered the extension
     */
    public synchronized ChildJvmKafkaBroker cluster() {
        if (broker == null) {
            throw new IllegalStateException(
                    "The Kafka broker is not running: register KafkaBrokerExtension with @RegisterExtension on a"
                            + " static field and use it from that class's tests.");
        }
        return broker;
    }

    /** Shorthand for {@code cluster().bootstrapServers()}. */
    public String bootstrapServers() {
        return cluster().bootstrapServers();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == KafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return cluster();
    }
}
