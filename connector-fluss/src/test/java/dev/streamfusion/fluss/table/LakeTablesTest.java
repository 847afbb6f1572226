package dev.streamfusion.fluss.table;

import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.ScanOptions;
import dev.streamfusion.fluss.internal.StartupMode;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table that keeps rows in a data lake tier is not scanned: fluss-flink reads the lake's rows
 * the log no longer holds, a read of the log alone would miss them. (A test cluster cannot make
 * such a table without a lake to tier to.)
 */
class LakeTablesTest {

    private static StreamFusionFlussTableSource source(boolean lake) {
        DataType type = DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT()));
        return new StreamFusionFlussTableSource(
                new FlussTableRef("localhost:9123", Map.of(), "fluss", "tiered"),
                1,
                List.of(),
                (RowType) type.getLogicalType(),
                type,
                new ScanOptions(StartupMode.FULL, -1, null, Duration.ofDays(1), Duration.ZERO),
                List.of(),
                List.of(),
                ChangelogMode.insertOnly(),
                new LookupSettings(null, false, false),
                false,
                lake);
    }

    @Test
    void aTableWithALakeTierIsNotScannedNorCountedFromItsLog() {
        StreamFusionFlussTableSource tiered = source(true);
        assertThatThrownBy(() -> tiered.getScanRuntimeProvider(null))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("fluss.tiered")
                .hasMessageContaining("'table.datalake.enabled' = 'true'");
        assertThat(tiered.copy()).isInstanceOfSatisfying(StreamFusionFlussTableSource.class,
                copy -> assertThatThrownBy(() -> copy.getScanRuntimeProvider(null)).isInstanceOf(ValidationException.class));
        assertThat(tiered.applyAggregates(List.of(new int[0]), List.of(), DataTypes.ROW())).isFalse();
    }
}
