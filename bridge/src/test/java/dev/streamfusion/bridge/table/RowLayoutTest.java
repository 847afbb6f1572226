package dev.streamfusion.bridge.table;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RowLayoutTest {

    private static Configuration job(boolean objectReuse, RuntimeExecutionMode mode) {
        Configuration job = new Configuration();
        job.set(PipelineOptions.OBJECT_REUSE, objectReuse);
        job.set(ExecutionOptions.RUNTIME_MODE, mode);
        return job;
    }

    @Test
    void autoWritesBinaryRowsOnlyWhereTheJobCopiesEveryRow() {
        assertThat(RowLayout.AUTO.binary(new Configuration())).isTrue();
        assertThat(RowLayout.AUTO.binary(job(false, RuntimeExecutionMode.STREAMING))).isTrue();
        assertThat(RowLayout.AUTO.binary(job(true, RuntimeExecutionMode.STREAMING))).isFalse();
        assertThat(RowLayout.AUTO.binary(job(false, RuntimeExecutionMode.BATCH))).isFalse();
    }

    @Test
    void binaryAndColumnarAreTakenAsAsked() {
        for (RuntimeExecutionMode mode : RuntimeExecutionMode.values()) {
            for (boolean reuse : new boolean[] {false, true}) {
                assertThat(RowLayout.BINARY.binary(job(reuse, mode))).isTrue();
                assertThat(RowLayout.COLUMNAR.binary(job(reuse, mode))).isFalse();
            }
        }
    }

    @Test
    void theOptionTakesItsValuesInAnyCase() {
        assertThat(Configuration.fromMap(Map.of(RowLayout.KEY, "columnar")).get(RowLayout.OPTION))
                .isEqualTo(RowLayout.COLUMNAR);
        assertThat(new Configuration().get(RowLayout.OPTION)).isEqualTo(RowLayout.AUTO);
    }
}
