package dev.streamfusion.fluss.table;

import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;

import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code scan.startup.timestamp} read as fluss-flink reads it. */
class StartupTimestampTest {

    @Test
    void epochMillisecondsOrADateAndTimeInTheSessionsZone() {
        assertThat(StreamFusionFlussTableFactory.startupTimestamp("1678883047356", ZoneId.of("UTC"), "t"))
                .isEqualTo(1678883047356L);
        assertThat(StreamFusionFlussTableFactory.startupTimestamp("2023-12-09 23:09:12", ZoneId.of("UTC"), "t"))
                .isEqualTo(1702163352000L);
        assertThat(StreamFusionFlussTableFactory.startupTimestamp("2023-12-09 23:09:12", ZoneId.of("Asia/Shanghai"), "t"))
                .isEqualTo(1702163352000L - 8 * 3600_000L);
        for (String bad : new String[] {" 1678883047356", "-5", "2023-12-09T23:09:12", "2023-12-09"}) {
            assertThatThrownBy(() -> StreamFusionFlussTableFactory.startupTimestamp(bad, ZoneId.of("UTC"), "fluss.t"))
                    .as(bad)
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("Table fluss.t: 'scan.startup.timestamp'")
                    .hasMessageContaining("'" + bad + "'");
        }
    }
}
