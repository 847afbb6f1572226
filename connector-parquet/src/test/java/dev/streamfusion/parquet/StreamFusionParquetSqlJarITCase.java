package dev.streamfusion.parquet;

import dev.streamfusion.parquet.sqljar.ParquetSqlJarJob;
import dev.streamfusion.testkit.flink.SqlJarJvm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Parquet SQL jar as a Flink user deploys it: in a JVM with Flink's libraries and Flink's
 * Parquet format, beside the Kafka connector's SQL jar (one {@code lib/} holds both), and none of
 * StreamFusion's classes or dependencies but the jars'. Jobs through stock Flink, the connector
 * and the format agree, and the native library loads from inside a jar.
 */
class StreamFusionParquetSqlJarITCase {

    /** Classpath entries the SQL jars bring themselves: StreamFusion's modules, Arrow and theirs. */
    private static final Pattern BUNDLED =
            Pattern.compile(
                    ".*/(streamfusion-[^/]*|arrow-[^/]*|flatbuffers-java-[^/]*|jackson-[^/]*|commons-codec-[^/]*)\\.jar"
                            + "|.*/target/(test-)?classes/?");

    @TempDir Path tables;

    @Test
    void theSqlJarRunsBesideTheKafkaSqlJar() throws Exception {
        List<Path> jars = new ArrayList<>();
        jars.add(Paths.get(System.getProperty("streamfusion.sql.jar")));
        try (Stream<Path> others = Files.list(Paths.get(System.getProperty("streamfusion.other.sql.jars")))) {
            others.forEach(jars::add);
        }
        assertThat(jars).hasSize(2);
        List<String> output = SqlJarJvm.run(ParquetSqlJarJob.class, jars, BUNDLED, tables.toString());
        String stock = output.stream()
                .filter(line -> line.startsWith("stock: "))
                .findFirst()
                .orElseThrow()
                .substring("stock: ".length());
        assertThat(stock).startsWith("[+I[5000, 12502500, ");
        assertThat(output).contains("streamfusion: " + stock, "written: " + stock, "format: " + stock);
        assertThat(output).contains("kafka planned: dev.streamfusion.kafka.table.StreamFusionKafkaTableFactory");
        assertThat(output)
                .filteredOn(line -> line.startsWith("native: "))
                .singleElement()
                .asString()
                .contains("from jar:/native/linux-x86_64/libstreamfusion.so");
    }
}
