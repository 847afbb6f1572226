package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.table.StockCounterpart;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Kafka factories as counterparts of Flink's: which tables they take, and the options either way. */
class KafkaCounterpartTest {

    private static final Map<String, String> STOCK = Map.of(
            "connector", "kafka", "topic", "bids", "properties.bootstrap.servers", "localhost:1", "format", "json");

    @Test
    void aKafkaTableTurnsIntoAStreamFusionOneAndBackWithItsOwnOptionsDropped() {
        StockCounterpart kafka = new StreamFusionKafkaTableFactory();
        Map<String, String> ours = kafka.streamFusion(STOCK).orElseThrow();
        assertThat(ours).containsEntry("connector", "streamfusion-kafka").containsEntry("topic", "bids").hasSize(STOCK.size());

        Map<String, String> tuned = new HashMap<>(ours);
        tuned.put("streamfusion.rung", "JAVA");
        tuned.put("streamfusion.errors.properties.acks", "all");
        assertThat(kafka.stock(tuned)).hasValue(STOCK);
        assertThat(kafka.streamFusion(tuned)).hasValue(tuned);
    }

    @Test
    void otherConnectorsAreNotTaken() {
        Map<String, String> upsert = Map.of("connector", "upsert-kafka", "topic", "t");
        assertThat(new StreamFusionKafkaTableFactory().streamFusion(upsert)).isEmpty();
        assertThat(new StreamFusionKafkaTableFactory().stock(Map.of("connector", "filesystem"))).isEmpty();
        StockCounterpart upserts = new StreamFusionUpsertKafkaTableFactory();
        assertThat(upserts.streamFusion(STOCK)).isEmpty();
        assertThat(upserts.streamFusion(upsert)).hasValue(Map.of("connector", "streamfusion-upsert-kafka", "topic", "t"));
    }

    @Test
    void aSampleReadsOneNamedTopic() {
        StockCounterpart kafka = new StreamFusionKafkaTableFactory();
        assertThatThrownBy(() -> kafka.sample(Map.of("connector", "kafka", "topic-pattern", "b.*"), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'topic-pattern': a sample reads one named topic");
        assertThatThrownBy(() -> kafka.sample(Map.of("connector", "kafka", "topic", "a;b"), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'topic': a sample reads one named topic, not 'a;b'");
    }
}
