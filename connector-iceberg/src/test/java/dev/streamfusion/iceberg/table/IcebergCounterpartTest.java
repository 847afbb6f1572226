package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.table.StockCounterpart;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** streamfusion-iceberg as the counterpart of iceberg-flink's connector, whose options it takes. */
class IcebergCounterpartTest {

    private static final StockCounterpart ICEBERG = new StreamFusionIcebergTableFactory();

    private static final Map<String, String> STOCK = Map.of(
            "connector", "iceberg", "catalog-name", "lake", "catalog-type", "hadoop", "warehouse", "file:///w",
            "streaming", "true", "monitor-interval", "5 s", "starting-strategy", "INCREMENTAL_FROM_LATEST_SNAPSHOT");

    @Test
    void anIcebergTableTurnsIntoAStreamFusionOneAndBack() {
        Map<String, String> ours = ICEBERG.streamFusion(STOCK).orElseThrow();
        assertThat(ours).containsEntry("connector", "streamfusion-iceberg").hasSize(STOCK.size());
        assertThat(ICEBERG.stock(ours)).hasValue(STOCK);
        assertThat(ICEBERG.stock(Map.of("connector", "kafka"))).isEmpty();
    }

    @Test
    void aSampleIsABatchReadOfTheSnapshot() {
        StockCounterpart.Sample sample = ICEBERG.sample(STOCK, 1000);
        assertThat(sample.options())
                .containsEntry("streaming", "false")
                .doesNotContainKeys("monitor-interval", "starting-strategy")
                .containsEntry("catalog-name", "lake");
        assertThat(sample.description()).isEqualTo("the table's snapshot, read once and whole");
        assertThatThrownBy(() -> ICEBERG.sample(Map.of("connector", "filesystem"), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not an Iceberg table");
    }
}
