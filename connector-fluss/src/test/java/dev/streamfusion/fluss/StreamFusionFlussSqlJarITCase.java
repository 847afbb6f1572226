package dev.streamfusion.fluss;

import dev.streamfusion.fluss.sqljar.FlussSqlJarJob;
import dev.streamfusion.testkit.fluss.FlussClusterExtension;
import dev.streamfusion.testkit.flink.SqlJarJvm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Fluss SQL jar as a Flink user deploys it: in a JVM with Flink's libraries and fluss-flink
 * (which bundles the Fluss client too) in one classpath, and none of StreamFusion's classes or
 * dependencies but the jar's. A table written by fluss-flink reads the same through ours, and a
 * table we write reads the same through fluss-flink.
 */
class StreamFusionFlussSqlJarITCase {

    @RegisterExtension
    static final FlussClusterExtension FLUSS = new FlussClusterExtension();

    /** Classpath entries the SQL jar brings itself: StreamFusion's modules, Arrow, the Fluss client. */
    private static final Pattern BUNDLED = Pattern.compile(
            ".*/(streamfusion-[^/]*|arrow-[^/]*|flatbuffers-java-[^/]*|jackson-[^/]*|commons-codec-[^/]*"
                    + "|fluss-client-[^/]*)\\.jar"
                    + "|.*/target/(test-)?classes/?");

    @Test
    void theSqlJarRunsBesideFlussFlink() throws Exception {
        List<String> output = SqlJarJvm.run(
                FlussSqlJarJob.class,
                List.of(Paths.get(System.getProperty("streamfusion.sql.jar"))),
                BUNDLED,
                FLUSS.bootstrapServers());
        String stock = output.stream()
                .filter(line -> line.startsWith("stock: "))
                .findFirst()
                .orElseThrow()
                .substring("stock: ".length());
        assertThat(stock).startsWith("500 ");
        assertThat(output).contains("streamfusion: " + stock, "written: " + stock);
    }
}
