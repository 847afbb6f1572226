package dev.streamfusion.parquet.internal;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bytes a full read asks of Flink's file system ({@link FileRanges}), against the file's size:
 * the native reader fetches the footer once and each column chunk whole, once.
 */
class FileRangesTest {

    /** 7,300 rows of 13 columns in one row group of pages of a few rows (about 3,600 pages). */
    private static final Path FILE =
            Paths.get("..", "..", "shared", "testdata", "parquet-testing", "data", "alltypes_tiny_pages.parquet");

    @Test
    void aFullReadAsksForNoMoreThanTheFile() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("id", DataTypes.INT()),
                                        FIELD("bool_col", DataTypes.BOOLEAN()),
                                        FIELD("tinyint_col", DataTypes.TINYINT()),
                                        FIELD("smallint_col", DataTypes.SMALLINT()),
                                        FIELD("int_col", DataTypes.INT()),
                                        FIELD("bigint_col", DataTypes.BIGINT()),
                                        FIELD("float_col", DataTypes.FLOAT()),
                                        FIELD("double_col", DataTypes.DOUBLE()),
                                        FIELD("date_string_col", DataTypes.STRING()),
                                        FIELD("string_col", DataTypes.STRING()),
                                        FIELD("timestamp_col", DataTypes.TIMESTAMP(3)),
                                        FIELD("year", DataTypes.INT()),
                                        FIELD("month", DataTypes.INT()))
                                .getLogicalType();
        String[][] columns = type.getFieldNames().stream().map(name -> new String[] {name}).toArray(String[][]::new);
        String location = FILE.toAbsolutePath().normalize().toUri().toString();
        long length = Files.size(FILE);
        long rows = 0;
        try (BufferAllocator allocator = new RootAllocator();
                FileRanges ranges = FileRanges.open(location, length)) {
            try (NativeParquetReader reader =
                    NativeParquetReader.open(
                            allocator, location, ranges, new int[] {0}, type, columns, 4096, ColumnPredicates.NONE, null)) {
                for (VectorSchemaRoot batch = reader.next(); batch != null; batch = reader.next()) {
                    rows += batch.getRowCount();
                }
            }
            assertThat(rows).isEqualTo(7300);
            // The column chunks and the footer; the page index, never read, is a quarter of it.
            assertThat(ranges.bytesRead()).isPositive().isLessThanOrEqualTo(length);
        }
    }
}
