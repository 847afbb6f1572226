package dev.streamfusion.kafka;

import dev.streamfusion.kafka.sqljar.SqlJarJob;
import dev.streamfusion.testkit.flink.SqlJarJvm;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;
import dev.streamfusion.testkit.registry.SchemaRegistryServer;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL jar as a Flink user deploys it: in a JVM with Flink's libraries, Flink's own Kafka SQL
 * jar beside it, and none of StreamFusion's classes or dependencies but the jar's. Jobs through
 * both connectors run side by side and agree, and the native library loads from inside the jar.
 */
class StreamFusionKafkaSqlJarITCase {

    /** A broker with a second listener that authenticates with SASL/PLAIN. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA =
            new KafkaBrokerExtension(ChildJvmKafkaBroker.builder().saslPlainUser("alice", "alice-secret"));

    private static final int COUNT = 2_000;

    /**
     * Classpath entries that the jar must bring itself (or that Flink's Kafka SQL jar brings):
     * StreamFusion's modules, the Kafka connector and client, Arrow and what they depend on.
     */
    private static final Pattern BUNDLED =
            Pattern.compile(
                    ".*/(streamfusion-[^/]*|flink-connector-kafka-[^/]*|kafka-clients-[^/]*|arrow-[^/]*"
                            + "|flatbuffers-java-[^/]*|jackson-[^/]*|commons-codec-[^/]*|zstd-jni-[^/]*|lz4-java-[^/]*"
                            + "|snappy-java-[^/]*|flink-avro-[^/]*|avro-[^/]*)\\.jar|.*/target/(test-)?classes/?");

    @Test
    void theSqlJarRunsBesideFlinksKafkaSqlJar() throws Exception {
        KAFKA.cluster().createTopic("sql-jar-in", 2);
        KAFKA.cluster().createTopic("sql-jar-out", 2);
        KAFKA.cluster().createTopic("sql-jar-out-upserts", 2);
        KAFKA.cluster().createTopic("sql-jar-avro", 2);
        // First in the skip topic: a Confluent-framed record of schema id 4242, which the
        // registry does not know.
        KAFKA.cluster().createTopic("sql-jar-avro-skip", 1);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()), new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("sql-jar-avro-skip", 0, null, new byte[] {0, 0, 0, 0x10, (byte) 0x92, 2, 4})).get();
        }
        long priceSum = 0;
        List<String> bids = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            bids.add("{\"auction\": " + i + ", \"bidder\": " + (i % 7) + ", \"price\": " + (i * 3) + ", \"channel\": \"c"
                    + (i % 5) + "\"}");
            priceSum += i * 3L;
        }
        KAFKA.cluster().produce("sql-jar-in", bids);

        List<String> output;
        try (SchemaRegistryServer registry = SchemaRegistryServer.start()) {
            output =
                    runJob(
                            KAFKA.bootstrapServers(),
                            "sql-jar-in",
                            "sql-jar-out",
                            registry.url(),
                            "sql-jar-avro",
                            KAFKA.cluster().saslPlainBootstrapServers());
            // No subject given: the sink registered the schema under the topic's value subject.
            assertThat(registry.subjects()).containsExactlyInAnyOrder("sql-jar-avro-value", "sql-jar-avro-skip-value");
        }
        String expected = "[+I[" + COUNT + ", " + priceSum + ", c4]]";
        assertThat(output).contains("stock: " + expected, "streamfusion: " + expected, "written: " + expected);
        // streamfusion-upsert-kafka from the same jar, beside Flink's upsert-kafka it builds on.
        assertThat(output).contains("upserts written: " + expected);
        assertThat(output).contains("avro stock: " + expected, "avro streamfusion: " + expected);
        // The unknown schema id's record skipped under 'streamfusion.errors' = 'SKIP'; the
        // registry being unreachable is no reason to skip.
        assertThat(output).contains("avro skip: " + expected);
        assertThat(output)
                .filteredOn(line -> line.startsWith("avro skip unreachable: "))
                .singleElement()
                .asString()
                .contains("Failed to decode the value of the Kafka record at offset 0 of sql-jar-avro-skip-0 (avro-confluent)");
        // A sasl.jaas.config naming the login module as kafka-clients or Flink's SQL jar does.
        assertThat(output)
                .contains(
                        "sasl_stock: " + expected,
                        "sasl_native: " + expected,
                        "sasl_java: " + expected,
                        "sasl_java_relocated: " + expected);
        assertThat(output)
                .filteredOn(line -> line.startsWith("avro unreachable: "))
                .singleElement()
                .asString()
                .containsPattern("Failed to decode the value of the Kafka record at offset \\d+ of sql-jar-avro-\\d \\(avro-confluent\\)");
        // Registry options the native client does not act on: AUTO reads with Flink's own
        // reader, NATIVE refuses at planning naming the option (and no secret).
        assertThat(output).contains("avro bearer: " + expected);
        assertThat(output)
                .filteredOn(line -> line.startsWith("avro bearer native: "))
                .singleElement()
                .asString()
                .contains("the value format's option 'avro-confluent.bearer-auth.")
                .doesNotContain("token-secret");
        // Loaded from a jar resource: the only jar on the child's classpath that holds it is the SQL jar.
        assertThat(output)
                .filteredOn(line -> line.startsWith("native: "))
                .singleElement()
                .asString()
                .contains("from jar:/native/linux-x86_64/libstreamfusion.so");
    }

    private static List<String> runJob(String... args) throws Exception {
        List<Path> jars = new ArrayList<>();
        jars.add(Paths.get(System.getProperty("streamfusion.sql.jar")));
        try (Stream<Path> stock = Files.list(Paths.get(System.getProperty("streamfusion.stock.sql.jars")))) {
            stock.forEach(jars::add);
        }
        return SqlJarJvm.run(SqlJarJob.class, jars, BUNDLED, args);
    }
}
