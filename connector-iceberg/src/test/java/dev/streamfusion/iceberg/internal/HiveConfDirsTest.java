package dev.streamfusion.iceberg.internal;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Hadoop configuration a Hive catalog is built with takes {@code hive-site.xml} from {@code
 * hive-conf-dir} and {@code hdfs-site.xml} and {@code core-site.xml} from {@code hadoop-conf-dir},
 * as iceberg-flink's catalog factory adds them; other catalog types ignore both options.
 */
class HiveConfDirsTest {

    @TempDir Path dir;

    private Path site(String directory, String file, String name, String value) throws Exception {
        Path at = Files.createDirectories(dir.resolve(directory));
        Files.writeString(at.resolve(file), "<?xml version=\"1.0\"?><configuration><property><name>" + name
                + "</name><value>" + value + "</value></property></configuration>");
        return at;
    }

    @Test
    void aHiveCatalogsConfigurationHoldsTheNamedDirectoriesFiles() throws Exception {
        Path hive = site("hive", "hive-site.xml", "hive.metastore.uris", "thrift://metastore.example:9083");
        Path hadoop = site("hadoop", "hdfs-site.xml", "dfs.replication", "2");
        site("hadoop", "core-site.xml", "fs.defaultFS", "hdfs://namenode.example:8020");
        Map<String, String> properties = Map.of(IcebergTableRef.HIVE_CONF_DIR, hive.toString(),
                IcebergTableRef.HADOOP_CONF_DIR, hadoop.toString());
        Configuration conf = (Configuration) IcebergTableRef.hadoopConfiguration(true, properties);
        assertThat(conf.get("hive.metastore.uris")).isEqualTo("thrift://metastore.example:9083");
        assertThat(conf.get("dfs.replication")).isEqualTo("2");
        assertThat(conf.get("fs.defaultFS")).isEqualTo("hdfs://namenode.example:8020");

        // Another catalog type is built as before, whatever the options say.
        Configuration other = (Configuration) IcebergTableRef.hadoopConfiguration(false, properties);
        assertThat(other.get("hive.metastore.uris")).isNull();
        assertThat(other.get("fs.defaultFS")).isNotEqualTo("hdfs://namenode.example:8020");
    }

    @Test
    void aNamedDirectoryWithoutItsFileIsRefusedNamingBoth() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThatThrownBy(() -> IcebergTableRef.hadoopConfiguration(true, Map.of(IcebergTableRef.HIVE_CONF_DIR, empty.toString())))
                .hasMessageContaining("no hive-site.xml")
                .hasMessageContaining(empty.toString())
                .hasMessageContaining("'hive-conf-dir'");
        Path onlyHdfs = site("only-hdfs", "hdfs-site.xml", "dfs.replication", "2");
        assertThatThrownBy(() -> IcebergTableRef.hadoopConfiguration(true, Map.of(IcebergTableRef.HADOOP_CONF_DIR, onlyHdfs.toString())))
                .hasMessageContaining("no core-site.xml")
                .hasMessageContaining("'hadoop-conf-dir'");
    }
}
