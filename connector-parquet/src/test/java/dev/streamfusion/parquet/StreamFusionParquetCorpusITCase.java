package dev.streamfusion.parquet;

import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every file of parquet-testing's {@code data} directory, read through streamfusion-parquet and
 * through Flink's filesystem connector with a table schema derived from the file's own schema:
 * where Flink reads a file, StreamFusion reads the same rows (but for the files parquet-rs refuses,
 * listed with its reason, where it fails naming the file); where Flink cannot, StreamFusion reads
 * as many rows as parquet-java's footer counts, or fails with an error naming the file.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionParquetCorpusITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final Path DATA = Paths.get("..", "..", "shared", "testdata", "parquet-testing", "data");

    /**
     * Files Flink reads and parquet-rs refuses, with the reason: a row group without a field
     * parquet-rs requires (refused by the footer check before parquet-rs decodes it).
     */
    private static final Map<String, String> REFUSED_BY_PARQUET_RS =
            Map.of(
                    "dict-page-offset-zero.parquet",
                    "lacks its required field 2 (total_byte_size)",
                    // parquet-rs returns no rows for a legacy repeated group outside a LIST; the
                    // reader checks row counts against the footer and fails instead.
                    "repeated_no_annotation.parquet", "read 0 of the 6 rows the footer counts");

    /**
     * Files Flink reads wrongly, with the rows parquet-java's own record reader reads (as Flink
     * rows): legacy repeated primitives outside a LIST read as empty arrays in Flink.
     */
    private static final Map<String, List<String>> MISREAD_BY_FLINK =
            Map.of(
                    "repeated_primitive_no_list.parquet",
                    List.of(
                            "+I[[0, 1, 2, 3], [foo, zero, one, two], +I[[0, 1, 2, 3], [foo, zero, one, two]]]",
                            "+I[[4], [four], +I[[4], [four]]]",
                            "+I[[5, 6, 7, 8], [five, six, seven, eight], +I[[5, 6, 7, 8], [five, six, seven, eight]]]",
                            "+I[[], [three], +I[[], [three]]]"));

    /** What became of each file. */
    enum Outcome {
        SAME_ROWS_AS_FLINK,
        FLINK_MISREADS_SAME_ROWS_AS_PARQUET_JAVA,
        REFUSED_BY_PARQUET_RS_NAMING_THE_FILE,
        FLINK_CANNOT_SAME_ROWS_AS_PARQUET_JAVA,
        ONLY_STREAMFUSION_READS_SAME_COUNT_AS_THE_FOOTER,
        BOTH_FAIL_NAMING_THE_FILE,
        PARQUET_JAVA_CANNOT_OPEN,
        NO_FLINK_SCHEMA
    }

    @Test
    void everyFileReadsWhatFlinkReadsOrFailsClearly() throws Exception {
        List<Path> files;
        try (Stream<Path> listing = Files.list(DATA)) {
            files = listing.filter(p -> p.toString().endsWith(".parquet"))
                    // More than 2 GiB decoded: Flink's reader would fill the test JVM's heap; the
                    // native refusal is tested in StreamFusionParquetITCase.
                    .filter(p -> !p.getFileName().toString().equals("large_string_map.brotli.parquet"))
                    .sorted()
                    .collect(Collectors.toList());
        }
        assertThat(files).hasSizeGreaterThan(30);
        Map<String, Outcome> outcomes = new TreeMap<>();
        List<String> mismatches = new ArrayList<>();
        for (Path file : files) {
            Path absolute = file.toAbsolutePath().normalize();
            String name = absolute.getFileName().toString();
            String columns;
            long footerRows;
            try (ParquetFileReader reader =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(absolute.toUri()),
                                    new org.apache.hadoop.conf.Configuration()))) {
                columns = columns(reader.getFooter().getFileMetaData().getSchema());
                footerRows = reader.getRecordCount();
            } catch (Exception e) {
                // parquet-java cannot open it (encrypted, corrupt): StreamFusion must fail clearly.
                columns = null;
                footerRows = -1;
            }
            if (columns == null || columns.isEmpty()) {
                if (columns == null) {
                    // Nothing to compare with: StreamFusion may read what it can, or fail, naming
                    // the file.
                    String error = failure("`a` INT", absolute);
                    if (error != null && !error.contains(name)) {
                        mismatches.add(name + ": parquet-java cannot open it; StreamFusion failed without naming it: " + error);
                    }
                    outcomes.put(name, error == null ? Outcome.PARQUET_JAVA_CANNOT_OPEN : Outcome.BOTH_FAIL_NAMING_THE_FILE);
                } else {
                    outcomes.put(name, Outcome.NO_FLINK_SCHEMA);
                }
                continue;
            }
            List<String> stock;
            try {
                stock = rows(columns, "filesystem", absolute);
            } catch (Exception e) {
                stock = null;
            }
            if (stock != null) {
                List<String> fused;
                try {
                    fused = rows(columns, "streamfusion-parquet", absolute);
                } catch (Exception e) {
                    String error = rootMessage(e);
                    String known = REFUSED_BY_PARQUET_RS.get(name);
                    if (known != null && error.contains(known) && error.contains(name)) {
                        outcomes.put(name, Outcome.REFUSED_BY_PARQUET_RS_NAMING_THE_FILE);
                    } else {
                        mismatches.add(name + ": Flink reads it, StreamFusion fails: " + error);
                    }
                    continue;
                }
                List<String> misread = MISREAD_BY_FLINK.get(name);
                if (misread != null) {
                    if (!sorted(fused).equals(sorted(misread))) {
                        mismatches.add(name + ": rows differ from parquet-java's: " + fused);
                    }
                    outcomes.put(name, Outcome.FLINK_MISREADS_SAME_ROWS_AS_PARQUET_JAVA);
                } else if (!sorted(fused).equals(sorted(stock))) {
                    mismatches.add(name + ": rows differ from Flink's: " + sorted(fused) + " vs " + sorted(stock));
                } else {
                    outcomes.put(name, Outcome.SAME_ROWS_AS_FLINK);
                }
                continue;
            }
            String error = failure(columns, absolute);
            if (error == null) {
                // Flink cannot read it: parquet-java's own record reader says what it holds.
                List<String> fused = rows(columns, "streamfusion-parquet", absolute);
                List<String> expected;
                try {
                    expected = ParquetJavaRows.read(absolute);
                } catch (Exception e) {
                    // parquet-java's record reader cannot read it either (LZ4 without Hadoop's
                    // framing): only the footer's count is left to compare with.
                    if (fused.size() != footerRows) {
                        mismatches.add(name + ": " + fused.size() + " rows, parquet-java counts " + footerRows);
                    }
                    outcomes.put(name, Outcome.ONLY_STREAMFUSION_READS_SAME_COUNT_AS_THE_FOOTER);
                    continue;
                }
                if (fused.size() != footerRows || !sorted(fused).equals(sorted(expected))) {
                    mismatches.add(name + ": rows differ from parquet-java's: " + sorted(fused) + " vs " + sorted(expected));
                }
                outcomes.put(name, Outcome.FLINK_CANNOT_SAME_ROWS_AS_PARQUET_JAVA);
            } else if (!error.contains(name)) {
                mismatches.add(name + ": failed without naming the file: " + error);
            } else {
                outcomes.put(name, Outcome.BOTH_FAIL_NAMING_THE_FILE);
            }
        }
        outcomes.forEach((file, outcome) -> System.out.println("parquet-testing " + outcome + " " + file));
        assertThat(mismatches).isEmpty();
        // Most of the corpus is a file both read, with the same rows.
        long same = outcomes.values().stream().filter(o -> o == Outcome.SAME_ROWS_AS_FLINK).count();
        assertThat(same).isGreaterThan(files.size() / 2);
    }

    /** The message of the failure reading the file natively, or {@code null} if it reads. */
    private static String failure(String columns, Path file) {
        try {
            rows(columns, "streamfusion-parquet", file);
            return null;
        } catch (Exception e) {
            return rootMessage(e);
        }
    }

    private static String rootMessage(Throwable e) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append(" | ");
        }
        return messages.toString();
    }

    private static List<String> rows(String columns, String connector, Path file) throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql(
                "CREATE TABLE t (" + columns + ") WITH ('connector' = '" + connector + "', 'path' = '" + file
                        + "', 'format' = 'parquet')");
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql("SELECT * FROM t").collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        copy.sort(null);
        return copy;
    }

    /** The Flink columns of a file's schema; empty if some column has no Flink type. */
    static String columns(MessageType schema) {
        List<String> columns = new ArrayList<>();
        for (Type field : schema.getFields()) {
            String type = flinkType(field);
            if (type == null) {
                return "";
            }
            columns.add("`" + field.getName().replace("`", "``") + "` " + type);
        }
        return String.join(", ", columns);
    }

    /** The Flink type of a Parquet field as Flink's reader maps it, or {@code null}. */
    private static String flinkType(Type field) {
        String type = field.isPrimitive() ? primitive(field.asPrimitiveType()) : group(field.asGroupType());
        if (type != null && field.isRepetition(Type.Repetition.REPEATED)) {
            return "ARRAY<" + type + ">";
        }
        return type;
    }

    private static String group(GroupType group) {
        LogicalTypeAnnotation annotation = group.getLogicalTypeAnnotation();
        if (annotation instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation && group.getFieldCount() == 1) {
            Type repeated = group.getType(0);
            Type element =
                    !repeated.isPrimitive() && repeated.asGroupType().getFieldCount() == 1
                                    && repeated.asGroupType().getLogicalTypeAnnotation() == null
                            ? repeated.asGroupType().getType(0)
                            : repeated;
            String inner = element == repeated ? stripRepetition(element) : flinkType(element);
            return inner == null ? null : "ARRAY<" + inner + ">";
        }
        if (annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation && group.getFieldCount() == 1) {
            GroupType entries = group.getType(0).asGroupType();
            if (entries.getFieldCount() != 2) {
                return null;
            }
            String key = flinkType(entries.getType(0));
            String value = flinkType(entries.getType(1));
            return key == null || value == null ? null : "MAP<" + key + ", " + value + ">";
        }
        List<String> fields = new ArrayList<>();
        for (Type child : group.getFields()) {
            String type = flinkType(child);
            if (type == null) {
                return null;
            }
            fields.add("`" + child.getName().replace("`", "``") + "` " + type);
        }
        return fields.isEmpty() ? null : "ROW<" + String.join(", ", fields) + ">";
    }

    /** The type of a repeated element, as one element (not as an array of it). */
    private static String stripRepetition(Type element) {
        return element.isPrimitive() ? primitive(element.asPrimitiveType()) : group(element.asGroupType());
    }

    private static String primitive(PrimitiveType type) {
        LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
        if (annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
            LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal =
                    (LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) annotation;
            return decimal.getPrecision() > 38 ? null : "DECIMAL(" + decimal.getPrecision() + ", " + decimal.getScale() + ")";
        }
        switch (type.getPrimitiveTypeName()) {
            case BOOLEAN:
                return "BOOLEAN";
            case INT32:
                if (annotation instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return "DATE";
                }
                if (annotation instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
                    return "TIME(3)";
                }
                if (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
                    // Unsigned ones too: Flink reads the stored bits into the column of that width.
                    LogicalTypeAnnotation.IntLogicalTypeAnnotation integer =
                            (LogicalTypeAnnotation.IntLogicalTypeAnnotation) annotation;
                    return integer.getBitWidth() == 8 ? "TINYINT" : integer.getBitWidth() == 16 ? "SMALLINT" : "INT";
                }
                return annotation == null ? "INT" : null;
            case INT64:
                if (annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) {
                    switch (((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit()) {
                        case MILLIS:
                            return "TIMESTAMP(3)";
                        case MICROS:
                            return "TIMESTAMP(6)";
                        default:
                            return "TIMESTAMP(9)";
                    }
                }
                if (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
                    return "BIGINT";
                }
                return annotation == null ? "BIGINT" : null;
            case INT96:
                return "TIMESTAMP(9)";
            case FLOAT:
                return annotation == null ? "FLOAT" : null;
            case DOUBLE:
                return "DOUBLE";
            case BINARY:
                if (annotation instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                        || annotation instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                        || annotation instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
                    return "STRING";
                }
                return annotation == null ? "BYTES" : null;
            case FIXED_LEN_BYTE_ARRAY:
                return annotation == null ? "BYTES" : null;
            default:
                return null;
        }
    }
}
