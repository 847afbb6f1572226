package dev.streamfusion.testkit.fluss;

import dev.streamfusion.testkit.process.ChildJvm;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChildJvmFlussClusterITCase {

    @Test
    void servesOnItsCoordinatorPortThenStopsAndCleansUp() {
        ChildJvmFlussCluster fluss = ChildJvmFlussCluster.start();
        Path directory = fluss.directory();
        int port;
        try {
            assertThat(fluss.bootstrapServers()).startsWith("127.0.0.1:");
            port = Integer.parseInt(fluss.bootstrapServers().substring("127.0.0.1:".length()));
            assertThat(ChildJvm.portOpen("127.0.0.1", port)).isTrue();
            assertThat(ChildJvm.readLog(fluss.logFile())).contains("Fluss cluster serving at " + fluss.bootstrapServers());
            assertThat(directory.resolve("data")).isDirectory();
        } finally {
            fluss.close();
        }
        assertThat(Files.exists(directory)).isFalse();
        assertThat(ChildJvm.portOpen("127.0.0.1", port)).isFalse();
    }

    @Test
    void aClusterThatCannotStartFailsWithItsLog() {
        assertThatThrownBy(() -> ChildJvmFlussCluster.start(Map.of("server.buffer.memory-size", "not-a-size")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The Fluss cluster did not start")
                .hasMessageContaining("not-a-size");
    }
}
