package dev.streamfusion.testkit.kafka;

import dev.streamfusion.testkit.process.ChildJvm;

import org.apache.flink.annotation.Internal;

/**
 * The classpath of the broker's child JVM: the streamfusion-testkit-kafka-server artifact itself
 * (for its entry point and logging configuration) followed by the jars listed in the classpath file
 * that artifact carries.
 */
@Internal
final class KafkaServerClasspath {

    static final String MAIN_CLASS = "dev.streamfusion.testkit.kafka.server.KafkaBrokerMain";
    static final String LOG4J_CONFIGURATION = "dev/streamfusion/testkit/kafka/server/log4j2.properties";
    private static final String CLASSPATH_FILE =
            "dev/streamfusion/testkit/kafka/server/kafka-server.classpath";

    private KafkaServerClasspath() {}

    /**
     * Returns the child JVM's {@code -cp} value.
     *
     * @throws IllegalStateException if the server artifact is not on this JVM's classpath or names
     *     jars that are no longer in the local Maven repository
     */
    static String resolve() {
        return ChildJvm.classpath(CLASSPATH_FILE, "streamfusion-testkit-kafka-server");
    }
}
