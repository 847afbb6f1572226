package dev.streamfusion.iceberg.internal;

import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the native reader is given for a planned task, and what is refused before it is. */
class TaskDescriptionTest {

    private static final Schema SCHEMA = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));

    private static DataFile data(String path, FileFormat format) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(path)
                .withFormat(format)
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
    }

    private static FileScanTask task(DataFile file, DeleteFile... deletes) {
        return new BaseFileScanTask(
                file,
                deletes,
                SchemaParser.toJson(SCHEMA),
                PartitionSpecParser.toJson(PartitionSpec.unpartitioned()),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
    }

    private static FileMetadata.Builder delete() {
        return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).withFileSizeInBytes(50).withRecordCount(2);
    }

    @Test
    void aTaskIsDescribedWithItsFileSchemaProjectionAndDeletes() {
        DeleteFile positions = delete().ofPositionDeletes().withPath("file:/t/d \"1\".parquet").withFormat(FileFormat.PARQUET).build();
        DeleteFile equality = delete().ofEqualityDeletes(1).withPath("/t/e.parquet").withFormat(FileFormat.PARQUET).build();
        TaskDescription description = TaskDescription.of(
                task(data("file:/t/a.parquet", FileFormat.PARQUET), positions, equality), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false);
        String json = description.json();
        assertThat(json)
                .startsWith("{\"path\":\"file:/t/a.parquet\",\"file-size\":100,\"start\":0,\"length\":100,")
                .contains("\"projected-ids\":[1]")
                .contains("{\"path\":\"file:/t/d \\\"1\\\".parquet\",\"file-size\":50,\"content\":\"position\",\"spec-id\":0}")
                .contains("\"content\":\"equality\",\"spec-id\":0,\"equality-ids\":[1]}")
                .endsWith("\"case-sensitive\":false}")
                // With deletes, the rows read are not the file's record count.
                .doesNotContain("record-count");
        assertThat(description.rows()).isEqualTo(10);
    }

    @Test
    void theResidualFilterIsPassedWithValuesOfTheColumnsTypes() {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "d", Types.DoubleType.get()),
                optional(3, "s", Types.StringType.get()),
                optional(4, "amount", Types.DecimalType.of(10, 2)),
                optional(5, "dt", Types.DateType.get()),
                optional(6, "ts", Types.TimestampType.withoutZone()));
        // (Binding turns an IN of one value into an equality.)
        org.apache.iceberg.expressions.Expression filter = Expressions.and(
                Expressions.or(Expressions.greaterThan("id", 5), Expressions.isNull("s")),
                Expressions.and(
                        Expressions.not(Expressions.in("s", "b\"c")),
                        Expressions.and(Expressions.lessThanOrEqual("amount", new java.math.BigDecimal("12.50")),
                                Expressions.and(Expressions.equal("dt", "2024-01-02"),
                                        Expressions.and(Expressions.greaterThan("ts", "2024-01-01T00:00:00.000001"),
                                                Expressions.equal("d", 0.0d))))));
        assertThat(TaskDescription.filterJson(filter, schema, Set.of(), false))
                .isEqualTo("{\"and\":[{\"or\":[{\"id\":1,\"op\":\"gt\",\"value\":5},{\"id\":3,\"op\":\"is-null\"}]},"
                        + "{\"and\":[{\"not\":{\"id\":3,\"op\":\"eq\",\"value\":\"b\\\"c\"}},"
                        + "{\"and\":[{\"id\":4,\"op\":\"lt-eq\",\"value\":\"12.50\"},"
                        + "{\"and\":[{\"id\":5,\"op\":\"eq\",\"value\":19724},"
                        + "{\"and\":[{\"id\":6,\"op\":\"gt\",\"value\":1704067200000001},{\"op\":\"unknown\"}]}]}]}]}]}");
        assertThat(TaskDescription.filterJson(Expressions.alwaysTrue(), schema, Set.of(), false)).isNull();

        // Promoted columns (an INT id, a DECIMAL(8, 2) amount in an older schema) keep their filters
        // from the native reader; a column of unchanged type keeps its own.
        org.apache.iceberg.Schema older = new org.apache.iceberg.Schema(
                required(1, "id", Types.IntegerType.get()),
                optional(4, "amount", Types.DecimalType.of(8, 2)),
                optional(5, "dt", Types.DateType.get()));
        Set<Integer> retyped = TaskDescription.ColumnHistory.of(schema, java.util.List.of(older, schema)).retyped;
        assertThat(retyped).containsExactlyInAnyOrder(1, 4);
        assertThat(TaskDescription.filterJson(
                Expressions.and(Expressions.lessThan("id", 3_000_000_000L), Expressions.equal("dt", "2024-01-02")),
                schema, retyped, false))
                .isEqualTo("{\"and\":[{\"op\":\"unknown\"},{\"id\":5,\"op\":\"eq\",\"value\":19724}]}");
        String json = TaskDescription.of(
                new BaseFileScanTask(data("/t/a.parquet", FileFormat.PARQUET), new DeleteFile[0], SchemaParser.toJson(SCHEMA),
                        PartitionSpecParser.toJson(PartitionSpec.unpartitioned()),
                        ResidualEvaluator.unpartitioned(Expressions.lessThan("id", 3L))),
                SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false).json();
        assertThat(json).contains(",\"filter\":{\"id\":1,\"op\":\"lt\",\"value\":3}");
    }

    @Test
    void columnsHoldingAVariantAreLeftOutOfTheNativeSchemaAndReadByIcebergJava() {
        Schema schema = new Schema(java.util.List.of(
                required(1, "id", Types.LongType.get()),
                optional(2, "doc", Types.VariantType.get()),
                optional(3, "nested", Types.StructType.of(
                        optional(4, "n", Types.IntegerType.get()), optional(5, "v", Types.VariantType.get()))),
                optional(6, "docs", Types.ListType.ofOptional(7, Types.VariantType.get())),
                optional(8, "name", Types.StringType.get())), Set.of(1));
        java.util.function.Function<org.apache.iceberg.expressions.Expression, FileScanTask> task = filter -> new BaseFileScanTask(
                data("/t/v.parquet", FileFormat.PARQUET), new DeleteFile[0], SchemaParser.toJson(schema),
                PartitionSpecParser.toJson(PartitionSpec.unpartitioned()), ResidualEvaluator.unpartitioned(filter));

        TaskDescription nativeRead = TaskDescription.of(
                task.apply(Expressions.equal("name", "a")), schema, TaskDescription.ColumnHistory.NONE, new int[] {8, 1}, null, false);
        assertThat(nativeRead.readByJava()).isFalse();
        String json = nativeRead.json();
        Schema given = SchemaParser.fromJson(
                json.substring(json.indexOf("\"schema\":") + "\"schema\":".length(), json.indexOf(",\"projected-ids\"")));
        assertThat(given.columns()).extracting(Types.NestedField::name).containsExactly("id", "name");
        assertThat(given.identifierFieldIds()).containsExactly(1);
        assertThat(json).doesNotContain("variant").contains("\"filter\":{\"id\":8,");

        for (int variantColumn : new int[] {2, 3, 6}) {
            assertThatThrownBy(() -> TaskDescription.of(task.apply(Expressions.alwaysTrue()), schema,
                            TaskDescription.ColumnHistory.NONE, new int[] {1, variantColumn}, null, false))
                    .isInstanceOf(TaskDescription.UnsupportedTaskException.class)
                    .hasMessageContaining("/t/v.parquet")
                    .hasMessageContaining("its column " + schema.findColumnName(variantColumn) + " holds a VARIANT");
        }
        // An identity partition of a field beside a variant: the same.
        PartitionSpec byNestedName = PartitionSpec.builderFor(schema).identity("nested.n").build();
        DataFile partitioned = DataFiles.builder(byNestedName).withPath("/t/p.parquet").withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100).withRecordCount(10).withPartitionPath("nested.n=3").build();
        assertThatThrownBy(() -> TaskDescription.of(new BaseFileScanTask(partitioned, new DeleteFile[0], SchemaParser.toJson(schema),
                                PartitionSpecParser.toJson(byNestedName), ResidualEvaluator.unpartitioned(Expressions.alwaysTrue())),
                        schema, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false))
                .isInstanceOf(TaskDescription.UnsupportedTaskException.class)
                .hasMessageContaining("its identity partition field nested.n is of a column that holds a VARIANT");
        // A filter on a field beside a variant: the native reader would not find the field.
        assertThatThrownBy(() -> TaskDescription.of(task.apply(Expressions.greaterThan("nested.n", 1)), schema,
                        TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false))
                .isInstanceOf(TaskDescription.UnsupportedTaskException.class)
                .hasMessageContaining("its filter reads a field of a column that holds a VARIANT");
    }

    @Test
    void filesOfAnySchemeAreDescribedAsTheManifestsNameThem() {
        DeleteFile positions = delete().ofPositionDeletes().withPath("s3://bucket/d.parquet").withFormat(FileFormat.PARQUET)
                .build();
        String json = TaskDescription.of(
                task(data("s3://bucket/a.parquet", FileFormat.PARQUET), positions), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false).json();
        assertThat(json)
                .startsWith("{\"path\":\"s3://bucket/a.parquet\",")
                .contains("{\"path\":\"s3://bucket/d.parquet\",");
    }

    @Test
    void whatTheNativeReaderCannotReadIsRefusedNamingTheFileAndTheReason() {
        assertThatThrownBy(() -> TaskDescription.of(task(data("/t/a.orc", FileFormat.ORC)), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false))
                .hasMessageContaining("/t/a.orc")
                .hasMessageContaining("ORC");
        DeleteFile vector = delete().ofPositionDeletes().withPath("/t/dv.puffin").withFormat(FileFormat.PUFFIN)
                .withReferencedDataFile("/t/a.parquet").withContentOffset(4).withContentSizeInBytes(40).build();
        assertThatThrownBy(() -> TaskDescription.of(task(data("/t/a.parquet", FileFormat.PARQUET), vector), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false))
                .hasMessageContaining("/t/dv.puffin")
                .hasMessageContaining("deletion vectors");
        DeleteFile onList = delete().ofEqualityDeletes(3).withPath("/t/e.parquet").withFormat(FileFormat.PARQUET).build();
        assertThatThrownBy(() -> TaskDescription.of(task(data("/t/a.parquet", FileFormat.PARQUET), onList), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false))
                .hasMessageContaining("/t/e.parquet")
                .hasMessageContaining("equality field 3 is nested");
    }

    @Test
    void whatOnlyIcebergJavaReadsIsDescribedForItsReaderAsIcebergsOwnJson() {
        DeleteFile vector = delete().ofPositionDeletes().withPath("/t/dv.puffin").withFormat(FileFormat.PUFFIN)
                .withReferencedDataFile("/t/a.orc").withContentOffset(4).withContentSizeInBytes(40).build();
        TaskDescription description = TaskDescription.forJava(
                task(data("/t/a.orc", FileFormat.ORC), vector), new int[] {2, 1}, "[{\"field-id\":1,\"names\":[\"id\"]}]", true, "why");
        assertThat(description.readByJava()).isTrue();
        assertThat(description.javaReason()).isEqualTo("why");
        assertThat(description.projectedIds()).containsExactly(2, 1);
        assertThat(description.nameMapping()).contains("field-id");
        assertThat(description.caseSensitive()).isTrue();
        assertThat(description.path()).isEqualTo("/t/a.orc");
        FileScanTask back = org.apache.iceberg.ScanTaskParser.fromJson(description.json(), true);
        assertThat(back.file().location()).isEqualTo("/t/a.orc");
        assertThat(back.file().format()).isEqualTo(FileFormat.ORC);
        assertThat(back.deletes()).singleElement().satisfies(d -> {
            assertThat(d.location()).isEqualTo("/t/dv.puffin");
            assertThat(d.contentOffset()).isEqualTo(4L);
        });
        assertThat(back.schema().sameSchema(SCHEMA)).isTrue();
        assertThat(TaskDescription.of(task(data("/t/a.parquet", FileFormat.PARQUET)), SCHEMA, TaskDescription.ColumnHistory.NONE, new int[] {1}, null, false)
                .readByJava()).isFalse();

        assertThatThrownBy(() -> TaskDescription.forJava(task(data("/t/a.meta", FileFormat.METADATA)), new int[] {1}, null, false, "why"))
                .hasMessageContaining("/t/a.meta")
                .hasMessageContaining("METADATA");
    }

    /**
     * Tasks reading a nested column whose fields another schema names otherwise, or a column
     * whose default (format v3) the native reader does not fill in, go to Iceberg Java's reader;
     * a nested column unchanged, or an integer default, stay native.
     */
    @Test
    void restructuredNestedColumnsAndDefaultsTheNativeReaderLacksAreRefusedNatively() {
        Schema before = new Schema(required(1, "id", Types.LongType.get()),
                optional(2, "st", Types.StructType.of(optional(3, "a", Types.IntegerType.get()))),
                optional(4, "tags", Types.ListType.ofOptional(5, Types.StringType.get())));
        Schema now = new Schema(required(1, "id", Types.LongType.get()),
                optional(2, "st", Types.StructType.of(optional(3, "x", Types.IntegerType.get()))),
                optional(4, "tags", Types.ListType.ofOptional(5, Types.StringType.get())),
                Types.NestedField.optional("n").withId(6).ofType(Types.IntegerType.get())
                        .withInitialDefault(org.apache.iceberg.expressions.Literal.of(5)).build(),
                Types.NestedField.optional("ts").withId(7).ofType(Types.TimestampType.withoutZone())
                        .withInitialDefault(org.apache.iceberg.expressions.Literal.of(1_000_000L).to(Types.TimestampType.withoutZone()))
                        .build());
        TaskDescription.ColumnHistory history = TaskDescription.ColumnHistory.of(now, java.util.List.of(before, now));
        assertThat(history.restructured).containsExactly(2);
        FileScanTask task = task(data("/t/a.parquet", FileFormat.PARQUET));
        assertThatThrownBy(() -> TaskDescription.of(task, now, history, new int[] {1, 2}, null, false))
                .hasMessageContaining("/t/a.parquet")
                .hasMessageContaining("nested fields of its column st");
        assertThatThrownBy(() -> TaskDescription.of(task, now, history, new int[] {7}, null, false))
                .hasMessageContaining("column ts has a default");
        assertThat(TaskDescription.of(task, now, history, new int[] {1, 4, 6}, null, false).readByJava()).isFalse();
        // An equality delete on such a column: its keys are read beside the projection, defaults
        // and all.
        DeleteFile onTs = delete().ofEqualityDeletes(7).withPath("/t/e.parquet").withFormat(FileFormat.PARQUET).build();
        FileScanTask deleted = task(data("/t/a.parquet", FileFormat.PARQUET), onTs);
        assertThatThrownBy(() -> TaskDescription.of(deleted, now, history, new int[] {1}, null, false))
                .hasMessageContaining("equality delete field ts has a default");
        DeleteFile onN = delete().ofEqualityDeletes(6).withPath("/t/e.parquet").withFormat(FileFormat.PARQUET).build();
        assertThat(TaskDescription.of(task(data("/t/a.parquet", FileFormat.PARQUET), onN), now, history, new int[] {1}, null,
                false).readByJava()).isFalse();
    }
}
