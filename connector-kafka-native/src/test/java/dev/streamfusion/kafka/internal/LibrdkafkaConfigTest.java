package dev.streamfusion.kafka.internal;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class LibrdkafkaConfigTest {

    private static LibrdkafkaConfig translate(Map<String, String> consumer) {
        return LibrdkafkaConfig.consumer(properties(consumer));
    }

    private static Properties properties(Map<String, String> map) {
        Properties properties = new Properties();
        properties.putAll(map);
        return properties;
    }

    @Test
    void propertiesTranslateByName() {
        LibrdkafkaConfig config =
                translate(
                        Map.of(
                                "bootstrap.servers", "a:9092,b:9092",
                                "group.id", "g",
                                "fetch.max.wait.ms", "250",
                                "receive.buffer.bytes", "-1",
                                "request.timeout.ms", "30000",
                                "isolation.level", "read_committed",
                                "security.protocol", "SSL",
                                "auto.offset.reset", "none"));
        assertThat(config.untranslatable()).isEmpty();
        assertThat(config.properties())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "bootstrap.servers", "a:9092,b:9092",
                                "group.id", "g",
                                "fetch.wait.max.ms", "250",
                                "socket.receive.buffer.bytes", "0",
                                "socket.timeout.ms", "30000",
                                "isolation.level", "read_committed",
                                "security.protocol", "ssl",
                                "auto.offset.reset", "error"));
    }

    /**
     * What kafka-clients takes from elsewhere than the properties (a JAAS file, GSSAPI as the
     * default mechanism) or does on its own (auto commit) has no librdkafka equivalent; group
     * timings an assigned consumer never uses are not passed, so no pair of them kafka-clients
     * takes is refused by librdkafka.
     */
    @Test
    void whatKafkaClientsTakesFromElsewhereIsUntranslatable() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";";
        assertThat(translate(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN")).untranslatable())
                .singleElement()
                .asString()
                .contains("without 'sasl.jaas.config'");
        assertThat(translate(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.jaas.config", jaas)).untranslatable())
                .singleElement()
                .asString()
                .contains("without 'sasl.mechanism'", "GSSAPI");
        assertThat(translate(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN", "sasl.jaas.config", jaas))
                        .untranslatable())
                .isEmpty();
        assertThat(translate(Map.of("enable.auto.commit", "true")).untranslatable())
                .singleElement()
                .asString()
                .contains("'enable.auto.commit' = 'true'");
        LibrdkafkaConfig timings = translate(
                Map.of("session.timeout.ms", "45000", "max.poll.interval.ms", "30000", "heartbeat.interval.ms", "3000"));
        assertThat(timings.untranslatable()).isEmpty();
        assertThat(timings.properties()).containsExactlyInAnyOrderEntriesOf(Map.of("session.timeout.ms", "45000"));
        assertThat(translate(Map.of("session.timeout.ms", "400000")).properties())
                .containsEntry("max.poll.interval.ms", "400000");
    }

    @Test
    void consumersReadUncommittedRecordsUnlessToldOtherwiseAsKafkaClientsDo() {
        assertThat(translate(Map.of()).consumerProperties()).containsEntry("isolation.level", "read_uncommitted");
        assertThat(translate(Map.of("isolation.level", "read_committed")).consumerProperties())
                .containsEntry("isolation.level", "read_committed");
    }

    @Test
    void consumersCheckCrcsUnlessToldOtherwiseAsKafkaClientsDo() {
        assertThat(translate(Map.of()).consumerProperties()).containsEntry("check.crcs", "true");
        assertThat(translate(Map.of("check.crcs", "false")).consumerProperties()).containsEntry("check.crcs", "false");
    }

    /** The table's {@code streamfusion.prefetch.kbytes}, set by the table source, reaches librdkafka. */
    @Test
    void thePrefetchBoundReachesLibrdkafka() {
        LibrdkafkaConfig config = translate(Map.of("queued.max.messages.kbytes", "1024"));
        assertThat(config.untranslatable()).isEmpty();
        assertThat(config.consumerProperties()).containsEntry("queued.max.messages.kbytes", "1024");
    }

    /** As Flink's reader names its consumer: the client id prefix and the subtask's index. */
    @Test
    void eachSubtasksConsumerHasFlinksClientId() {
        Properties table = properties(Map.of("client.id.prefix", "orders-reader", "client.id", "ignored"));
        assertThat(LibrdkafkaConfig.consumer(table, 3).consumerProperties()).containsEntry("client.id", "orders-reader-3");
        assertThat(LibrdkafkaConfig.consumer(table, 3).untranslatable()).isEmpty();
    }

    @Test
    void untranslatablePropertiesAreNamedWithTheirSecretsMasked() {
        LibrdkafkaConfig config =
                translate(
                        Map.of(
                                "sasl.jaas.config",
                                "com.sun.security.auth.module.Krb5LoginModule required keyTab=\"/k\" principal=\"p\" password=\"jaas-secret\";",
                                "ssl.truststore.location", "/trust.jks",
                                "ssl.truststore.password", "store-secret",
                                "sasl.oauthbearer.token.endpoint.url", "https://token-secret.example",
                                "sasl.login.callback.handler.class", "com.example.Handler"));
        String shown = String.join("; ", config.untranslatable());
        assertThat(shown)
                .contains("sasl.jaas.config", "ssl.truststore.password", "sasl.oauthbearer.token.endpoint.url")
                .contains("com.example.Handler")
                .doesNotContain("jaas-secret", "store-secret", "token-secret");
        for (String key :
                List.of(
                        "ssl.key.password",
                        "ssl.keystore.key",
                        "basic.auth.user.info",
                        "sasl.client.credentials",
                        "sasl.oauthbearer.client.secret")) {
            assertThat(LibrdkafkaConfig.isSecret(key)).as(key).isTrue();
        }
        assertThat(LibrdkafkaConfig.isSecret("bootstrap.servers")).isFalse();
    }

    @Test
    void flinksOwnPropertiesStayWithFlink() {
        LibrdkafkaConfig config =
                translate(
                        Map.of(
                                "key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                                "enable.auto.commit", "false",
                                "partition.discovery.interval.ms", "300000",
                                "client.id.prefix", "bids",
                                "max.poll.records", "1000",
                                "default.api.timeout.ms", "5000"));
        assertThat(config.untranslatable()).isEmpty();
        assertThat(config.properties()).isEmpty();
    }

    @Test
    void saslPlainAndScramCredentialsTranslate() {
        LibrdkafkaConfig config =
                translate(
                        Map.of(
                                "sasl.mechanism", "SCRAM-SHA-512",
                                "sasl.jaas.config",
                                "org.apache.kafka.common.security.scram.ScramLoginModule required "
                                        + "username=\"alice\" password=\"s3cret\";"));
        assertThat(config.untranslatable()).isEmpty();
        assertThat(config.properties())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("sasl.mechanisms", "SCRAM-SHA-512", "sasl.username", "alice", "sasl.password", "s3cret"));
    }

    @Test
    void pemAndPkcs12StoresTranslateAndJksDoesNot() {
        LibrdkafkaConfig pem =
                translate(
                        Map.of(
                                "ssl.truststore.type", "PEM",
                                "ssl.truststore.location", "/certs/ca.pem",
                                "ssl.keystore.type", "PKCS12",
                                "ssl.keystore.location", "/certs/client.p12",
                                "ssl.keystore.password", "pw",
                                "ssl.endpoint.identification.algorithm", ""));
        assertThat(pem.untranslatable()).isEmpty();
        assertThat(pem.properties())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "ssl.ca.location", "/certs/ca.pem",
                                "ssl.keystore.location", "/certs/client.p12",
                                "ssl.keystore.password", "pw",
                                "ssl.endpoint.identification.algorithm", "none"));

        LibrdkafkaConfig jks =
                translate(Map.of("ssl.truststore.location", "/certs/trust.jks", "ssl.truststore.password", "pw"));
        assertThat(jks.untranslatable())
                .containsExactly(
                        "'ssl.truststore.location' = '/certs/trust.jks': librdkafka reads CA certificates from PEM only "
                                + "(ssl.truststore.type is JKS)",
                        "'ssl.truststore.password' = '******': a password-protected trust store has no librdkafka equivalent");
    }

    @Test
    void anythingElseIsReportedNeverDropped() {
        LibrdkafkaConfig config =
                translate(
                        Map.of(
                                "sasl.mechanism", "GSSAPI",
                                "interceptor.classes", "com.example.Tracing",
                                "sasl.jaas.config", "com.example.Login required token=\"t\";"));
        assertThat(config.untranslatable())
                .containsExactly(
                        "'interceptor.classes' = 'com.example.Tracing': no librdkafka equivalent",
                        "'sasl.jaas.config' = '******': only PlainLoginModule and ScramLoginModule with username and "
                                + "password translate",
                        "'sasl.mechanism' = 'GSSAPI': librdkafka here supports the SASL mechanisms "
                                + "[PLAIN, SCRAM-SHA-256, SCRAM-SHA-512]");
    }

    /**
     * A table read and written names the properties of both clients; kafka-clients' consumer
     * ignores the producer's and the other way round, and so does each native client.
     */
    @Test
    void eachClientIgnoresTheOtherClientsPropertiesAsKafkaClientsDoes() {
        Map<String, String> both = Map.of(
                "bootstrap.servers", "a:9092",
                "group.id", "g",
                "isolation.level", "read_committed",
                "auto.offset.reset", "earliest",
                "acks", "all",
                "linger.ms", "20",
                "batch.size", "65536",
                "interceptor.classes", "com.example.Tracing");
        LibrdkafkaConfig producer = LibrdkafkaConfig.producer(properties(both));
        assertThat(producer.untranslatable())
                .containsExactly("'interceptor.classes' = 'com.example.Tracing': no librdkafka equivalent");
        assertThat(producer.properties())
                .containsEntry("acks", "all")
                .doesNotContainKeys("group.id", "isolation.level", "auto.offset.reset");
        LibrdkafkaConfig consumer = translate(both);
        assertThat(consumer.untranslatable())
                .containsExactly("'interceptor.classes' = 'com.example.Tracing': no librdkafka equivalent");
        assertThat(consumer.properties())
                .containsEntry("group.id", "g")
                .doesNotContainKeys("acks", "linger.ms", "batch.size", "batch.num.messages");
    }

    /**
     * Producers are idempotent with at most 5 requests in flight, as kafka-clients' are, unless the
     * table asks for what idempotence cannot have (then kafka-clients, too, produces without it).
     */
    @Test
    void producersAreIdempotentUnlessToldOtherwiseAsKafkaClientsAre() {
        Map<String, String> defaults = LibrdkafkaConfig.producer(properties(Map.of())).producerProperties();
        assertThat(defaults).containsEntry("enable.idempotence", "true").containsEntry("max.in.flight", "5");
        assertThat(LibrdkafkaConfig.producer(properties(Map.of("acks", "-1"))).producerProperties())
                .containsEntry("enable.idempotence", "true");
        assertThat(LibrdkafkaConfig.producer(properties(Map.of("enable.idempotence", "false"))).producerProperties())
                .containsEntry("enable.idempotence", "false");
        for (Map<String, String> conflicting : List.of(
                Map.of("acks", "1"),
                Map.of("retries", "0"),
                Map.of("max.in.flight.requests.per.connection", "6"))) {
            assertThat(LibrdkafkaConfig.producer(properties(conflicting)).producerProperties())
                    .as("%s", conflicting)
                    .doesNotContainKey("enable.idempotence");
        }
        assertThat(LibrdkafkaConfig.producer(properties(Map.of("max.in.flight.requests.per.connection", "2"))).producerProperties())
                .containsEntry("max.in.flight", "2")
                .containsEntry("enable.idempotence", "true");
    }

    /**
     * Values kafka-clients takes and librdkafka refuses when a client starts: librdkafka's own
     * check names them at planning (so the Java rung reads or writes), as do the combinations it
     * or kafka-clients refuses; and kafka-clients' own adjustment of the delivery timeout is made.
     */
    @Test
    void valuesOnlyKafkaClientsTakesAreRefusedBeforeAClientStarts() {
        for (Map<String, String> consumer : List.of(
                Map.of("request.timeout.ms", "400000"),
                Map.of("fetch.min.bytes", "0"),
                Map.of("retry.backoff.ms", "0"),
                Map.of("metadata.max.age.ms", "0"),
                Map.of("fetch.max.wait.ms", "400000"))) {
            assertThat(translate(consumer).untranslatable()).as("%s", consumer).isEmpty();
            assertThat(LibrdkafkaConfig.refused(translate(consumer).consumerProperties()))
                    .as("%s", consumer)
                    .singleElement()
                    .asString()
                    .contains("': librdkafka refuses it (");
        }
        assertThat(translate(Map.of("fetch.max.bytes", "524288")).untranslatable())
                .containsExactly("'fetch.max.bytes' = '524288': librdkafka takes no less than its message.max.bytes (1000000)");
        assertThat(translate(Map.of("reconnect.backoff.ms", "500", "reconnect.backoff.max.ms", "100")).untranslatable())
                .singleElement().asString().contains("below 'reconnect.backoff.ms'");
        assertThat(LibrdkafkaConfig.refused(LibrdkafkaConfig.producer(properties(Map.of("batch.size", "0"))).producerProperties()))
                .singleElement().asString().contains("'batch.size' = '0'");
        assertThat(LibrdkafkaConfig.producer(properties(Map.of("delivery.timeout.ms", "40000", "linger.ms", "20000")))
                        .untranslatable())
                .singleElement().asString().contains("kafka-clients refuses it");
        // kafka-clients raises a delivery timeout the table does not set to the linger and request timeouts.
        Map<String, String> lingering = LibrdkafkaConfig.producer(properties(Map.of("linger.ms", "200000"))).producerProperties();
        assertThat(lingering).containsEntry("message.timeout.ms", "230000");
        assertThat(LibrdkafkaConfig.refused(lingering)).isEmpty();
        assertThat(LibrdkafkaConfig.producer(properties(Map.of())).producerProperties())
                .containsEntry("message.timeout.ms", "120000");
        // Taken by both.
        assertThat(LibrdkafkaConfig.refused(translate(Map.of("fetch.max.bytes", "52428800")).consumerProperties())).isEmpty();
        // kafka-clients takes isolation.level spelled in lower case only.
        assertThat(translate(Map.of("isolation.level", "READ_COMMITTED")).untranslatable())
                .singleElement().asString().contains("kafka-clients takes [read_uncommitted, read_committed] only");
    }

    /** kafka-clients' producer has no allow.auto.create.topics (it asks the broker for missing topics). */
    @Test
    void theProducerLeavesOutTheConsumersAutoCreateProperty() {
        Map<String, String> both = Map.of("allow.auto.create.topics", "false");
        assertThat(LibrdkafkaConfig.producer(properties(both)).properties()).doesNotContainKey("allow.auto.create.topics");
        assertThat(translate(both).properties()).containsEntry("allow.auto.create.topics", "false");
    }

    @Test
    void producersTakeRecordsAsLargeAsKafkaClientsDoes() {
        assertThat(LibrdkafkaConfig.producer(properties(Map.of())).producerProperties())
                .containsEntry("message.max.bytes", "1048576");
        assertThat(LibrdkafkaConfig.producer(properties(Map.of("max.request.size", "4000000"))).producerProperties())
                .containsEntry("message.max.bytes", "4000000");
    }

    @Test
    void producerPropertiesHaveATableOfTheirOwn() {
        LibrdkafkaConfig config =
                LibrdkafkaConfig.producer(
                        properties(
                                Map.of(
                                        "bootstrap.servers", "a:9092",
                                        "acks", "all",
                                        "linger.ms", "20",
                                        "compression.type", "zstd",
                                        "delivery.timeout.ms", "120000",
                                        "max.in.flight.requests.per.connection", "5",
                                        "max.request.size", "2097152",
                                        "buffer.memory", "33554432",
                                        "request.timeout.ms", "30000",
                                        "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer")));
        assertThat(config.untranslatable()).isEmpty();
        assertThat(config.properties())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "bootstrap.servers", "a:9092",
                                "acks", "all",
                                "linger.ms", "20",
                                "compression.type", "zstd",
                                "message.timeout.ms", "120000",
                                "max.in.flight", "5",
                                "message.max.bytes", "2097152",
                                "queue.buffering.max.kbytes", "32768",
                                "request.timeout.ms", "30000"));

        LibrdkafkaConfig roundRobin =
                LibrdkafkaConfig.producer(
                        properties(
                                Map.of(
                                        "partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner",
                                        "buffer.memory", "lots")));
        assertThat(roundRobin.untranslatable())
                .containsExactly(
                        "'buffer.memory' = 'lots': not a number of bytes",
                        "'partitioner.class' = 'org.apache.kafka.clients.producer.RoundRobinPartitioner': "
                                + "no librdkafka equivalent");
    }
}
