package dev.streamfusion.operators.runtime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The island's watermark assigner keeps Flink's assigner's timer. */
class BatchWatermarkAssignerOperatorTest {

    @Test
    void theTimerFiresAsOftenAsFlinksAssignersDoes() {
        assertThat(BatchWatermarkAssignerOperator.timerInterval(200, 0)).isEqualTo(200);
        assertThat(BatchWatermarkAssignerOperator.timerInterval(0, 1000)).isEqualTo(1000);
        // The shorter when it is under a fifth of the longer, else a fifth of the shorter.
        assertThat(BatchWatermarkAssignerOperator.timerInterval(100, 1000)).isEqualTo(100);
        assertThat(BatchWatermarkAssignerOperator.timerInterval(200, 1000)).isEqualTo(40);
        assertThat(BatchWatermarkAssignerOperator.timerInterval(1000, 300)).isEqualTo(60);
        assertThat(BatchWatermarkAssignerOperator.timerInterval(3, 4)).isEqualTo(1);
    }
}
