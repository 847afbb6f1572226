package dev.streamfusion.testkit.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class KafkaBrokerExtensionITCase {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA =
            new KafkaBrokerExtension(ChildJvmKafkaBroker.builder().brokerProperty("message.max.bytes", "2097152"));

    @Test
    void handsOutTheRunningBrokerWithItsProperties(KafkaCluster kafka) throws Exception {
        assertThat(kafka.bootstrapServers()).isEqualTo(KAFKA.bootstrapServers());

        kafka.createTopic("orders", 3);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            assertThat(admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders").partitions())
                    .hasSize(3);
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            assertThat(admin.describeConfigs(List.of(broker)).all().get().get(broker).get("message.max.bytes").value())
                    .isEqualTo("2097152");
        }
    }

    /** Nested classes run their own before/after-all callbacks; the first must not stop the broker. */
    @Nested
    @Order(1)
    class FirstNested {
        @Test
        void sharesTheBroker(KafkaCluster kafka) throws Exception {
            kafka.createTopic("first-nested", 1);
            ChildJvmKafkaBrokerITCase.produce(kafka, "first-nested", "k", "v");
        }
    }

    @Nested
    @Order(2)
    class SecondNested {
        @Test
        void stillHasTheBroker(KafkaCluster kafka) {
            assertThat(ChildJvmKafkaBrokerITCase.consume(kafka, "first-nested", 1))
                    .extracting(r -> r.value())
                    .containsExactly("v");
        }
    }
}
