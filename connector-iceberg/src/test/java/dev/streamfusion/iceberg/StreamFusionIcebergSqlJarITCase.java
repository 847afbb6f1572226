package dev.streamfusion.iceberg;

import dev.streamfusion.iceberg.sqljar.IcebergSqlJarJob;
import dev.streamfusion.testkit.flink.SqlJarJvm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg SQL jar as a Flink user deploys it: in a JVM with Flink's libraries, Hadoop's client
 * and iceberg-flink-runtime (which bundles its own Iceberg Java) in one classpath, and none of
 * StreamFusion's classes or dependencies but the jar's. Tables written by either connector read
 * the same through both, and the native library loads from inside the jar.
 */
class StreamFusionIcebergSqlJarITCase {

    /**
     * Classpath entries the SQL jar brings itself (relocated): StreamFusion's modules, Arrow,
     * Iceberg Java and theirs. iceberg-flink-runtime stays: it is the user's.
     */
    private static final Pattern BUNDLED = Pattern.compile(
            ".*/(streamfusion-[^/]*|arrow-[^/]*|flatbuffers-java-[^/]*|jackson-[^/]*|commons-codec-[^/]*"
                    + "|iceberg-(core|api|common|bundled-guava|data|parquet|orc)-[^/]*|avro-[^/]*"
                    + "|aircompressor-[^/]*|httpclient5-[^/]*|httpcore5[^/]*|caffeine-[^/]*|RoaringBitmap-[^/]*"
                    + "|parquet-[^/]*|orc-[^/]*|threeten-extra-[^/]*|jts-core-[^/]*|commons-pool-[^/]*"
                    + "|snappy-java-[^/]*|zstd-jni-[^/]*)\\.jar"
                    + "|.*/target/(test-)?classes/?");

    @TempDir Path warehouse;

    @Test
    void theSqlJarRunsBesideIcebergFlinkRuntime() throws Exception {
        List<String> output = SqlJarJvm.run(
                IcebergSqlJarJob.class,
                List.of(Paths.get(System.getProperty("streamfusion.sql.jar"))),
                BUNDLED,
                warehouse.toString());
        String stock = output.stream()
                .filter(line -> line.startsWith("stock: "))
                .findFirst()
                .orElseThrow()
                .substring("stock: ".length());
        assertThat(stock).startsWith("[+I[5000, 12502500, ");
        assertThat(output).contains("streamfusion: " + stock, "written: " + stock);
        // Avro and ORC data files go to Iceberg Java's generic reader, relocated inside the jar.
        assertThat(output).contains("avro: " + stock, "orc: " + stock);
        assertThat(output)
                .filteredOn(line -> line.startsWith("native: "))
                .singleElement()
                .asString()
                .contains("from jar:/native/linux-x86_64/libstreamfusion.so");
    }
}
