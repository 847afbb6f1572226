package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.TestSchemas;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.ZonedTimestampType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BinaryRowsToArrowTest {

    /**
     * Every type of {@link TestSchemas#allTypes()}, nested ones with NULLs at every level included:
     * Flink's own binary rows of them, copied one by one, give the batch the Java writer gives for
     * the same rows.
     */
    @Test
    void flinksBinaryRowsOfEveryTypeGiveTheBatchTheJavaWriterGives() {
        RowType type = TestSchemas.allTypes();
        assertThat(BinaryRowsToArrow.supports(type)).isTrue();
        List<RowData> rows = new RandomRows(11, 0.2).rows(type, 500);
        readAsTheJavaWriterWrites(type, rows, (actual, binary) -> {
            assertThat(binary.appended()).isZero();
            // the reader starts over after a batch
            binary.append(new RowDataSerializer(type).toBinaryRow(rows.get(3)));
            assertThat(binary.finishBatch().getRowCount()).isEqualTo(1);
        });
    }

    /**
     * Flink's own binary rows of {@code rows}, copied one by one, read natively into the batch the
     * Java writer gives for the same rows; {@code check} then looks at the batch and the reader.
     */
    private static void readAsTheJavaWriterWrites(
            RowType type, List<RowData> rows, BiConsumer<VectorSchemaRoot, BinaryRowsToArrow> check) {
        RowDataSerializer serializer = new RowDataSerializer(type);
        long nativeBefore = NativeLibrary.nativeAllocatedBytes();
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter java = RowDataArrowWriter.create(type, allocator);
                BinaryRowsToArrow binary = BinaryRowsToArrow.create(allocator, type)) {
            VectorSchemaRoot expected = java.write(rows);
            for (RowData row : rows) {
                // toBinaryRow reuses its row: the reader must copy it before the next one is made
                assertThat(binary.append(serializer.toBinaryRow(row))).isTrue();
            }
            assertThat(binary.appended()).isEqualTo(rows.size());
            VectorSchemaRoot actual = binary.finishBatch();
            assertThat(actual.getRowCount()).isEqualTo(rows.size());
            assertThat(actual.equals(expected))
                    .as("expected%n%s%nactual%n%s", expected.contentToTSVString(), actual.contentToTSVString())
                    .isTrue();
            check.accept(actual, binary);
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).isEqualTo(nativeBefore);
    }

    @Test
    void aRowSpreadOverSeveralMemorySegmentsIsReadWhole() {
        RowType type = RowType.of(new IntType(), VarCharType.STRING_TYPE);
        BinaryRowData row =
                new RowDataSerializer(type)
                        .toBinaryRow(GenericRowData.of(7, StringData.fromString("a text of more than seven bytes")))
                        .copy();
        byte[] bytes = BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
        // two segments of 32 bytes, the row starting 5 bytes into the first
        byte[] first = new byte[32];
        byte[] second = new byte[64];
        System.arraycopy(bytes, 0, first, 5, 27);
        System.arraycopy(bytes, 27, second, 0, bytes.length - 27);
        BinaryRowData spread = new BinaryRowData(2);
        spread.pointTo(
                new MemorySegment[] {MemorySegmentFactory.wrap(first), MemorySegmentFactory.wrap(second)},
                5,
                bytes.length);
        try (BufferAllocator allocator = new RootAllocator();
                BinaryRowsToArrow binary = BinaryRowsToArrow.create(allocator, type)) {
            assertThat(binary.append(spread)).isTrue();
            VectorSchemaRoot batch = binary.finishBatch();
            assertThat(batch.getVector(0).getObject(0)).isEqualTo(7);
            assertThat(batch.getVector(1).getObject(0).toString()).isEqualTo("a text of more than seven bytes");
        }
    }

    @Test
    void onlyRowTypesWithANativeLayoutAndBinaryRowsOfTheirArityAreTaken() {
        RowType zoned = RowType.of(new IntType(), new ArrayType(new ZonedTimestampType()));
        try (BufferAllocator allocator = new RootAllocator()) {
            assertThat(BinaryRowsToArrow.supports(zoned)).isFalse();
            assertThat(BinaryRowsToArrow.create(allocator, zoned)).isNull();
            RowType flat = RowType.of(new IntType());
            try (BinaryRowsToArrow binary = BinaryRowsToArrow.create(allocator, flat)) {
                assertThat(binary.append(GenericRowData.of(1))).as("not binary").isFalse();
                assertThat(binary.append(new BinaryRowData(2))).as("another arity").isFalse();
                assertThat(binary.appended()).isZero();
            }
        }
    }

    /**
     * Flink's own {@code CAST('9.99' AS DECIMAL(2, 1))} rounds to the unscaled 100, which its compact
     * DECIMAL keeps past the precision: the native reader keeps it as the Java writer does.
     */
    @Test
    void aCompactDecimalPastItsPrecisionIsKeptAsTheJavaWriterKeepsIt() {
        List<RowData> rows = List.of(
                GenericRowData.of(DecimalData.fromUnscaledLong(100, 2, 1)),
                GenericRowData.of(DecimalData.fromUnscaledLong(-99, 2, 1)));
        readAsTheJavaWriterWrites(RowType.of(new DecimalType(2, 1)), rows, (actual, binary) ->
                assertThat(actual.getVector(0).getObject(0)).isEqualTo(new BigDecimal("10.0")));
    }

    /**
     * A Flink STRING holds any bytes. A reader for a sink that stores text refuses bytes that are
     * not UTF-8, naming the column; one for a format reads them as {@code StringData.toString()}
     * does, which Flink's formats write.
     */
    @Test
    void textThatIsNotUtf8IsRefusedNamingTheColumnOrReadAsJavaReadsIt() {
        RowType type = RowType.of(new IntType(), VarCharType.STRING_TYPE);
        // "a", an encoded surrogate, "b", a stray byte, and a lead cut short by the end
        byte[] text = {'a', (byte) 0xed, (byte) 0xa0, (byte) 0x80, 'b', (byte) 0x80, (byte) 0xe4, (byte) 0xb8};
        StringData string = StringData.fromBytes(text);
        BinaryRowData row = new RowDataSerializer(type).toBinaryRow(GenericRowData.of(1, string)).copy();
        try (BufferAllocator allocator = new RootAllocator()) {
            try (BinaryRowsToArrow refusing = BinaryRowsToArrow.create(allocator, type)) {
                refusing.append(row);
                assertThatThrownBy(refusing::finishBatch)
                        .hasMessageContaining("column f1, value 0: text is not UTF-8");
            }
            try (BinaryRowsToArrow reading = BinaryRowsToArrow.create(allocator, type, true)) {
                reading.append(row);
                VectorSchemaRoot batch = reading.finishBatch();
                assertThat(batch.getVector(1).getObject(0).toString())
                        .isEqualTo(string.toString())
                        .isEqualTo("a\ufffdb\ufffd\ufffd");
            }
        }
    }

    @Test
    void manyRowsGrowTheBuffers() {
        RowType type = RowType.of(VarCharType.STRING_TYPE);
        RowDataSerializer serializer = new RowDataSerializer(type);
        char[] text = new char[1000];
        Arrays.fill(text, 'x');
        try (BufferAllocator allocator = new RootAllocator();
                BinaryRowsToArrow binary = BinaryRowsToArrow.create(allocator, type)) {
            for (int r = 0; r < 5000; r++) {
                binary.append(serializer.toBinaryRow(GenericRowData.of(StringData.fromString(r + new String(text)))));
            }
            VectorSchemaRoot batch = binary.finishBatch();
            assertThat(batch.getRowCount()).isEqualTo(5000);
            assertThat(batch.getVector(0).getObject(4999).toString()).startsWith("4999xx");
        }
    }
}
