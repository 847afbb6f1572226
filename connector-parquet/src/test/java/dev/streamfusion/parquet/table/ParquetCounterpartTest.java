package dev.streamfusion.parquet.table;

import dev.streamfusion.bridge.table.StockCounterpart;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** streamfusion-parquet as the counterpart of Flink's filesystem connector over Parquet files. */
class ParquetCounterpartTest {

    private static final StockCounterpart PARQUET = new StreamFusionParquetTableFactory();

    @Test
    void aFilesystemParquetTableTurnsIntoAStreamFusionOneAndBack() {
        Map<String, String> stock = Map.of(
                "connector", "filesystem", "format", "parquet", "path", "/data/bids", "source.monitor-interval", "10 s");
        Map<String, String> ours = PARQUET.streamFusion(stock).orElseThrow();
        assertThat(ours).containsEntry("connector", "streamfusion-parquet").containsEntry("format", "parquet").hasSize(4);
        Map<String, String> tuned = new HashMap<>(ours);
        tuned.put("streamfusion.memory-limit", "64 mb");
        assertThat(PARQUET.stock(tuned)).hasValue(stock);
        // The StreamFusion format in Flink's filesystem connector is a Parquet table too.
        Map<String, String> format = new HashMap<>(stock);
        format.put("format", "streamfusion-parquet");
        assertThat(PARQUET.stock(format)).hasValue(stock);
    }

    @Test
    void otherFormatsAndConnectorsAreNotTaken() {
        assertThat(PARQUET.streamFusion(Map.of("connector", "filesystem", "format", "json", "path", "/x"))).isEmpty();
        assertThat(PARQUET.stock(Map.of("connector", "kafka", "format", "parquet"))).isEmpty();
    }

    @Test
    void aSampleListsThePathOnce() {
        StockCounterpart.Sample sample = PARQUET.sample(
                Map.of("connector", "streamfusion-parquet", "path", "/data/bids", "source.monitor-interval", "10 s"), 100);
        assertThat(sample.options()).doesNotContainKey("source.monitor-interval").containsEntry("path", "/data/bids");
        assertThat(sample.description()).isEqualTo("every file under '/data/bids', read once and whole");
    }
}
