package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.table.StockCounterpart;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** streamfusion-fluss as the counterpart of fluss-flink's connector, whose options it takes. */
class FlussCounterpartTest {

    private static final StockCounterpart FLUSS = new StreamFusionFlussTableFactory();

    @Test
    void aFlussTableTurnsIntoAStreamFusionOneAndBackButCannotBeSampledYet() {
        Map<String, String> stock = Map.of("connector", "fluss", "bootstrap.servers", "localhost:9123", "table.name", "t");
        Map<String, String> ours = FLUSS.streamFusion(stock).orElseThrow();
        assertThat(ours).containsEntry("connector", "streamfusion-fluss").hasSize(stock.size());
        assertThat(FLUSS.stock(ours)).hasValue(stock);
        assertThat(FLUSS.streamFusion(Map.of("connector", "iceberg"))).isEmpty();
        assertThatThrownBy(() -> FLUSS.sample(ours, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'scan.startup.mode'")
                .hasMessageContaining("a sample of 0 rows");
    }
}
