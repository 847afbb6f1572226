package dev.streamfusion.bridge.writer;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.BinaryRowsToArrow;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.TestSchemas;

import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SinkRowsTest {

    /**
     * Runs of binary rows and of other rows, mixed: each batch handed back equals what the Java
     * writer makes of the rows it should hold, the next ones in their order, and every row is
     * handed back once.
     */
    private static void mixedRowsKeepTheirOrder(RowType type) {
        List<RowData> rows = new RandomRows(5, 0.2).rows(type, 300);
        RowDataSerializer serializer = new RowDataSerializer(type);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                SinkRows sink = SinkRows.create(type, allocator)) {
            int[] handedBack = {0};
            Consumer<VectorSchemaRoot> check = batch -> {
                int from = handedBack[0];
                VectorSchemaRoot expected = java.write(rows.subList(from, from + batch.getRowCount()));
                assertThat(batch.equals(expected)).as("the batch of rows %d to %d", from, from + batch.getRowCount()).isTrue();
                handedBack[0] += batch.getRowCount();
            };
            int batches = 0;
            for (int r = 0; r < rows.size(); r++) {
                // runs of 1 to 7 rows, binary and generic in turn
                boolean binary = (r / 7 + r % 3) % 2 == 0;
                VectorSchemaRoot before = sink.add(binary ? serializer.toBinaryRow(rows.get(r)) : rows.get(r));
                if (before != null) {
                    check.accept(before);
                    batches++;
                }
                if (sink.pending() >= 50) {
                    check.accept(sink.finishBatch());
                    batches++;
                }
            }
            VectorSchemaRoot last = sink.finishBatch();
            if (last != null) {
                check.accept(last);
            }
            assertThat(handedBack[0]).isEqualTo(rows.size());
            assertThat(BinaryRowsToArrow.supports(type)).isTrue();
            assertThat(batches).as("batches handed back at a change of kind").isGreaterThan(20);
            assertThat(sink.pending()).isZero();
            assertThat(sink.finishBatch()).isNull();
        }
    }

    @Test
    void aWholeListIsWrittenNativelyOnlyWhereEveryRowIsBinary() {
        RowType type = TestSchemas.allTypes();
        List<RowData> rows = new RandomRows(9, 0.2).rows(type, 100);
        RowDataSerializer serializer = new RowDataSerializer(type);
        List<RowData> binary = new ArrayList<>();
        for (RowData row : rows) {
            binary.add(serializer.toBinaryRow(row).copy());
        }
        List<RowData> mixed = new ArrayList<>(binary);
        mixed.set(50, rows.get(50));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                SinkRows sink = SinkRows.create(type, allocator)) {
            VectorSchemaRoot expected = java.write(rows);
            assertThat(sink.write(binary).equals(expected)).as("all binary").isTrue();
            assertThat(sink.binaryRows()).as("read natively").isEqualTo(100);
            assertThat(sink.write(mixed).equals(expected)).as("one generic row among them").isTrue();
            assertThat(sink.write(rows).equals(expected)).as("none binary").isTrue();
            assertThat(sink.binaryRows()).as("the others by the Java writer").isEqualTo(100);
            sink.add(binary.get(0));
            assertThatThrownBy(() -> sink.write(binary)).hasMessageContaining("1 rows added are pending");
        }
    }

    /**
     * A source's shared row view handed straight on (as in a chained copy) has its text and bytes
     * copied from the source's Arrow columns: the batches equal the Java writer's of the same rows
     * read through their getters, generic rows mixed in keep their place, and a view that reaches
     * the sink when its batch is not the one this thread last began to hand rows on from is read
     * through its getters.
     */
    @Test
    void aSourcesRowViewsAreCopiedFromItsColumnsAsTheirGettersRead() {
        RowType type = TestSchemas.allTypes();
        List<RowData> rows = new RandomRows(13, 0.2).rows(type, 400);
        List<RowData> generic = new RandomRows(14, 0.2).rows(type, 40);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter source = RowDataArrowWriter.create(type, allocator);
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                SinkRows sink = SinkRows.create(type, allocator)) {
            VectorSchemaRoot columns = source.write(rows);
            List<RowData> expected = new ArrayList<>();
            int views = 0;
            try (ArrowColumnarBatch batch = ArrowColumnarBatch.of(columns, type);
                    ArrowColumnarBatch second = ArrowColumnarBatch.of(columns, type);
                    ArrowColumnarBatch other = ArrowColumnarBatch.of(columns, type)) {
                for (int r = 0; r < rows.size(); r++) {
                    ArrowColumnarBatch from = r < 300 ? batch : second;
                    RowData view = from.row(r);
                    if (r == 300) {
                        // another batch begins to hand rows on before the second one's view
                        // reaches the sink: that view is read through its getters
                        other.row(0);
                    }
                    assertThat(sink.add(view)).isNull();
                    expected.add(from.newRow(r));
                    views++;
                    if (r % 10 == 9) {
                        assertThat(sink.add(generic.get(r / 10))).isNull();
                        expected.add(generic.get(r / 10));
                    }
                    if (sink.pending() >= 64) {
                        int count = sink.pending();
                        VectorSchemaRoot batchOut = sink.finishBatch();
                        assertThat(batchOut.equals(java.write(expected.subList(0, count))))
                                .as("the batch ending at view %d", r)
                                .isTrue();
                        expected.subList(0, count).clear();
                    }
                }
                int count = sink.pending();
                assertThat(sink.finishBatch().equals(java.write(expected.subList(0, count)))).isTrue();
            }
            assertThat(views).isEqualTo(400);
            assertThat(sink.copiedRows()).as("views copied from their columns").isEqualTo(300);
        }
    }

    /** The flat columns of {@link TestSchemas#allTypes}: those copied in runs. */
    private static RowType flatTypes() {
        List<RowType.RowField> flat = new ArrayList<>();
        for (RowType.RowField field : TestSchemas.allTypes().getFields()) {
            if (field.getType().getChildren().isEmpty()) {
                flat.add(field);
            }
        }
        return new RowType(flat);
    }

    /**
     * Consecutive views of one batch whose columns are all flat are copied as runs, in bulk: the
     * batches handed back equal the Java writer's of the same rows read through their getters,
     * whether a run is cut by a row of another kind, by a skipped row, by a batch handed back in
     * its middle, by the batch's last row, or by the batch's release (its columns are rewritten
     * right after, so a run copied later would hold other values).
     */
    @Test
    void runsOfASourcesRowViewsAreCopiedInBulkAsTheirGettersRead() {
        RowType type = flatTypes();
        RowDataSerializer serializer = new RowDataSerializer(type);
        List<RowData> first = new RandomRows(21, 0.2).rows(type, 300);
        List<RowData> second = new RandomRows(22, 0.2).rows(type, 300);
        List<RowData> generic = new RandomRows(23, 0.2).rows(type, 10);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter firstSource = RowDataArrowWriter.create(type, allocator);
                RowDataArrowWriter secondSource = RowDataArrowWriter.create(type, allocator);
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                SinkRows sink = SinkRows.create(type, allocator)) {
            List<RowData> expected = new ArrayList<>();
            int[] views = {0};
            Runnable handBack = () -> {
                int count = sink.pending();
                VectorSchemaRoot batch = sink.finishBatch();
                assertThat(batch.getRowCount()).isEqualTo(count);
                assertThat(batch.equals(java.write(expected.subList(0, count))))
                        .as("the batch ending after view %d", views[0])
                        .isTrue();
                expected.subList(0, count).clear();
            };
            VectorSchemaRoot firstColumns = firstSource.write(first);
            try (ArrowColumnarBatch batch = ArrowColumnarBatch.of(firstColumns, type)) {
                for (int r = 0; r < 250; r++) {
                    if (r == 150) {
                        // a skipped row: the run before it is copied, the next one begins
                        continue;
                    }
                    RowData view = batch.row(r);
                    expected.add(serializer.copy(view));
                    assertThat(sink.add(view)).isNull();
                    views[0]++;
                    if (r == 99) {
                        assertThat(sink.add(generic.get(0))).isNull();
                        expected.add(generic.get(0));
                    }
                    if (r == 200) {
                        handBack.run();
                    }
                }
            }
            // Released in the middle of a run: the run was copied first, so rewriting the columns
            // changes nothing of what the sink hands back.
            firstSource.write(generic);
            addEveryView(secondSource, second, type, sink, serializer, expected, views);
            handBack.run();
            assertThat(expected).isEmpty();
            assertThat(views[0]).isEqualTo(549);
            assertThat(sink.copiedRows()).isEqualTo(549);
            assertThat(sink.runRows()).as("views copied in runs").isEqualTo(549);
            assertThat(sink.pending()).isZero();
        }
    }

    /** Every view of a batch of {@code rows}, in order: one run, copied at the batch's last row. */
    private static void addEveryView(
            RowDataArrowWriter source,
            List<RowData> rows,
            RowType type,
            SinkRows sink,
            RowDataSerializer serializer,
            List<RowData> expected,
            int[] views) {
        try (ArrowColumnarBatch batch = ArrowColumnarBatch.of(source.write(rows), type)) {
            for (int r = 0; r < rows.size(); r++) {
                RowData view = batch.row(r);
                expected.add(serializer.copy(view));
                assertThat(sink.add(view)).isNull();
                views[0]++;
            }
            int pending = sink.pending();
            // The run reached the batch's last row and was copied: rewriting the columns while the
            // batch is still open changes nothing either.
            source.write(rows.subList(0, 1));
            assertThat(sink.pending()).isEqualTo(pending);
        }
    }

    /**
     * A source chained to two sinks hands both the same views: a batch released in the middle of
     * their runs copies each sink's run, and each sink hands back the rows it was given.
     */
    @Test
    void aBatchReleasedInTheMiddleOfTwoSinksRunsCopiesBoth() {
        RowType type = flatTypes();
        RowDataSerializer serializer = new RowDataSerializer(type);
        List<RowData> rows = new RandomRows(25, 0.2).rows(type, 40);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter source = RowDataArrowWriter.create(type, allocator);
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                SinkRows one = SinkRows.create(type, allocator);
                SinkRows other = SinkRows.create(type, allocator)) {
            List<RowData> expected = new ArrayList<>();
            try (ArrowColumnarBatch batch = ArrowColumnarBatch.of(source.write(rows), type)) {
                for (int r = 5; r < 30; r++) {
                    RowData view = batch.row(r);
                    expected.add(serializer.copy(view));
                    one.add(view);
                    other.add(view);
                }
            }
            source.write(rows.subList(0, 1));
            VectorSchemaRoot want = java.write(expected);
            assertThat(one.finishBatch().equals(want)).as("the first sink's rows").isTrue();
            assertThat(other.finishBatch().equals(want)).as("the second sink's rows").isTrue();
            assertThat(one.runRows()).isEqualTo(25);
            assertThat(other.runRows()).isEqualTo(25);
        }
    }

    /** A sink closed while it holds a run leaves nothing for the batch to copy when it is released. */
    @Test
    void aSinkClosedWithARunLeavesTheBatchNothingToCopy() {
        RowType type = flatTypes();
        List<RowData> rows = new RandomRows(24, 0.2).rows(type, 20);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter source = RowDataArrowWriter.create(type, allocator)) {
            try (ArrowColumnarBatch batch = ArrowColumnarBatch.of(source.write(rows), type)) {
                try (SinkRows sink = SinkRows.create(type, allocator)) {
                    for (int r = 0; r < 10; r++) {
                        sink.add(batch.row(r));
                    }
                    assertThat(sink.pending()).isEqualTo(10);
                    assertThat(sink.runRows()).isEqualTo(10);
                }
            }
        }
    }

    @Test
    void rowsOfEveryTypeKeepTheirOrderWhetherBinaryOrNot() {
        mixedRowsKeepTheirOrder(TestSchemas.allTypes());
    }

    /**
     * Binary rows of a map with a NULL key: rejected natively with the Java writer's error where
     * NULL keys are rejected, and written as the Java writer writes them where they are dropped.
     */
    @Test
    void nullMapKeysInBinaryRowsFollowThePolicy() {
        RowType type = RowType.of(
                new MapType(VarCharType.STRING_TYPE, new IntType()), new ArrayType(new MultisetType(new IntType())));
        Map<Object, Object> entries = new HashMap<>();
        entries.put(StringData.fromString("kept"), 1);
        entries.put(null, 2);
        Map<Object, Object> elements = new HashMap<>();
        elements.put(null, 3);
        elements.put(7, 1);
        List<RowData> rows = List.of(
                GenericRowData.of(
                        new GenericMapData(entries), new GenericArrayData(new Object[] {new GenericMapData(elements)})),
                GenericRowData.of(null, null));
        RowDataSerializer serializer = new RowDataSerializer(type);
        List<RowData> binary = new ArrayList<>();
        for (RowData row : rows) {
            binary.add(serializer.toBinaryRow(row).copy());
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            try (SinkRows rejecting = SinkRows.create(type, allocator)) {
                assertThatThrownBy(() -> rejecting.write(binary))
                        .hasMessageContaining("column f0: a MAP key is NULL, which Arrow maps cannot hold");
            }
            try (RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator, NullMapKeys.DROP);
                    SinkRows dropping = SinkRows.forFormat(type, allocator, NullMapKeys.DROP, true)) {
                VectorSchemaRoot expected = java.write(rows);
                assertThat(expected.getVector(0).getObject(0).toString()).doesNotContain("2");
                assertThat(dropping.write(binary).equals(expected)).isTrue();
            }
        }
    }
}
