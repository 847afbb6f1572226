package dev.streamfusion.iceberg.table;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadParallelismTest {

    private static ReadParallelism of(Map<String, String> job) {
        return ReadParallelism.of(Configuration.fromMap(job));
    }

    @Test
    void theSplitsPlannedCappedByTheMaximumTheLimitAndTheJobsMaxParallelism() {
        assertThat(of(Map.of()).of(-1, () -> 7)).isEqualTo(7);
        assertThat(of(Map.of()).of(-1, () -> 250)).isEqualTo(100);
        assertThat(of(Map.of("table.exec.iceberg.infer-source-parallelism.max", "3")).of(-1, () -> 7)).isEqualTo(3);
        assertThat(of(Map.of()).of(2, () -> 7)).isEqualTo(2);
        assertThat(of(Map.of()).of(20, () -> 7)).isEqualTo(7);
        assertThat(of(Map.of("pipeline.max-parallelism", "4")).of(-1, () -> 7)).isEqualTo(4);
        // No splits at all (an empty table) still reads at parallelism 1.
        assertThat(of(Map.of()).of(-1, () -> 0)).isEqualTo(1);
    }

    @Test
    void withoutInferenceTheTablesDefaultParallelismAndOneWhereItIsNotSet() {
        AtomicInteger planned = new AtomicInteger();
        ReadParallelism off = of(Map.of("table.exec.iceberg.infer-source-parallelism", "false"));
        assertThat(off.of(-1, planned::incrementAndGet)).isEqualTo(1);
        assertThat(of(Map.of("table.exec.iceberg.infer-source-parallelism", "false",
                        "table.exec.resource.default-parallelism", "5"))
                .of(3, planned::incrementAndGet))
                .isEqualTo(3);
        // Nothing is planned when nothing is inferred.
        assertThat(planned).hasValue(0);
    }

    @Test
    void aMaximumBelowOneIsRefusedNamingTheOption() {
        ReadParallelism zero = of(Map.of("table.exec.iceberg.infer-source-parallelism.max", "0"));
        assertThatThrownBy(() -> zero.of(-1, () -> 3))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("table.exec.iceberg.infer-source-parallelism.max is 0");
        // Only a read that infers its parallelism asks for the maximum.
        assertThat(of(Map.of("table.exec.iceberg.infer-source-parallelism.max", "0",
                        "table.exec.iceberg.infer-source-parallelism", "false"))
                .of(-1, () -> 3))
                .isEqualTo(1);
    }
}
