package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.internal.ColumnPredicates;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Which files a listing of a partitioned table finds. */
class FileListingTest {

    @TempDir Path table;

    private List<String> names(FileListing listing) {
        return listing.files(location -> false).stream()
                .map(f -> Path.of(java.net.URI.create(f.location).getPath()).getParent().getFileName() + "/"
                        + Path.of(java.net.URI.create(f.location).getPath()).getFileName())
                .collect(Collectors.toList());
    }

    private void file(String partition, String name) throws Exception {
        Files.createDirectories(table.resolve(partition));
        Files.write(table.resolve(partition).resolve(name), new byte[] {1});
    }

    /**
     * A continuous read watches the partitions there at planning, as Flink's filesystem source
     * watches the directories it was given: new files in them, not new partitions.
     */
    @Test
    void partitionsFixedAtPlanningFindNewFilesInThemButNoNewPartitions() throws Exception {
        file("p=a", "one.parquet");
        FileListing all = new FileListing(
                table.toUri().toString(), null, ColumnPredicates.NONE, List.of("p"), "__DEFAULT_PARTITION__", null, false);
        FileListing fixed = all.withPartitionsFixed();
        file("p=a", "two.parquet");
        file("p=b", "three.parquet");
        assertThat(names(fixed)).containsExactly("p=a/one.parquet", "p=a/two.parquet");
        assertThat(names(all)).containsExactly("p=a/one.parquet", "p=a/two.parquet", "p=b/three.parquet");
        // Partitions the planner kept stay as they are.
        FileListing kept = all.withPartitions(List.of(Map.of("p", "b")));
        assertThat(names(kept.withPartitionsFixed())).containsExactly("p=b/three.parquet");
        // A table without partition keys reads every file.
        FileListing flat = new FileListing(
                table.resolve("p=a").toUri().toString(), null, ColumnPredicates.NONE, List.of(), "__DEFAULT_PARTITION__", null, false);
        assertThat(names(flat.withPartitionsFixed())).hasSize(2);
    }
}
