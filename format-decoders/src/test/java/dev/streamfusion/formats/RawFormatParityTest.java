package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;

import org.apache.flink.formats.raw.RawFormatDeserializationSchema;
import org.apache.flink.formats.raw.RawFormatSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native raw format against Flink's: for every column type, byte order and charset, the
 * native encoder writes Flink's bytes and the native decoder reads them as Flink does, NULLs
 * included.
 */
class RawFormatParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    @Test
    void everyTypeByteOrderAndCharsetMatchesFlink() throws Exception {
        DataType[] types = {
            DataTypes.BOOLEAN(), DataTypes.TINYINT(), DataTypes.SMALLINT(), DataTypes.INT(), DataTypes.BIGINT(),
            DataTypes.FLOAT(), DataTypes.DOUBLE(), DataTypes.STRING(), DataTypes.CHAR(3), DataTypes.BYTES()
        };
        long seed = 0;
        for (DataType type : types) {
            for (String endianness : new String[] {"big-endian", "little-endian"}) {
                boolean string = type.getLogicalType().getTypeRoot().name().contains("CHAR");
                for (String charset : string ? new String[] {"UTF-8", "ISO-8859-1", "UTF-16", "UTF-16LE"} : new String[] {"UTF-8"}) {
                    assertParity(type, endianness, charset, ++seed);
                }
            }
        }
    }

    @Test
    void wrongSizeIsAnErrorNamingTheMessage() {
        RowType type = rowType(DataTypes.INT());
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "raw", Map.of(), type)) {
            assertThatThrownBy(() -> decoder.decode(List.of(new byte[] {0, 0, 0, 1}, new byte[] {1, 2})))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("Size of data received for deserializing INT type is not 4.");
        }
    }

    /**
     * A null message for a NOT NULL column: Flink's format makes a row holding a NULL, which no
     * Arrow batch can hold, so the native decoder fails the message naming it and the column.
     */
    @Test
    void aNullMessageForANotNullColumnIsTheMessagesError() throws Exception {
        RowType type = rowType(DataTypes.INT().notNull());
        RawFormatDeserializationSchema flink =
                new RawFormatDeserializationSchema(type.getTypeAt(0), InternalTypeInfo.of(type), "UTF-8", true);
        flink.open(null);
        assertThat(flink.deserialize(null).isNullAt(0)).isTrue();
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "raw", Map.of(), type)) {
            List<byte[]> batch = new ArrayList<>();
            batch.add(new byte[] {0, 0, 0, 1});
            batch.add(null);
            assertThatThrownBy(() -> decoder.decode(batch))
                    .isInstanceOfSatisfying(NativeDecodeException.class, e -> assertThat(e.position()).isEqualTo(1))
                    .hasMessageContaining("the column 'v' is NOT NULL, but the record is null");
        }
    }

    @Test
    void unsupportedSchemasAndOptionsAreRejected() {
        assertThatThrownBy(() -> NativeFormatDecoder.create(arrow.allocator(), "raw", Map.of(), rowType(DataTypes.DATE())))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("doesn't support");
        RowType twoColumns =
                (RowType) DataTypes.ROW(FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.INT())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "raw", Map.of(), twoColumns))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("only supports single physical column");
        assertThatThrownBy(
                        () -> NativeFormatDecoder.create(arrow.allocator(), "raw", Map.of("endianness", "middle"), rowType(DataTypes.INT())))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("Unsupported endianness name: middle");
    }

    private void assertParity(DataType dataType, String endianness, String charset, long seed) throws Exception {
        RowType type = rowType(dataType);
        boolean bigEndian = endianness.equals("big-endian");
        List<RowData> rows = new RandomRows(seed, 0.2).rows(type, 200);
        RawFormatSerializationSchema flinkWriter =
                new RawFormatSerializationSchema(type.getTypeAt(0), charset, bigEndian);
        flinkWriter.open(null);
        List<byte[]> flinkBytes = new ArrayList<>();
        for (RowData row : rows) {
            flinkBytes.add(flinkWriter.serialize(row));
        }
        Map<String, String> options = Map.of("endianness", endianness, "charset", charset);
        String what = dataType + " " + endianness + " " + charset;

        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "raw", options, type)) {
            List<byte[]> nativeBytes = encoder.encode(rows);
            for (int r = 0; r < rows.size(); r++) {
                assertThat(hex(nativeBytes.get(r))).as("%s, row %d", what, r).isEqualTo(hex(flinkBytes.get(r)));
            }
        }

        RawFormatDeserializationSchema flinkReader =
                new RawFormatDeserializationSchema(type.getTypeAt(0), InternalTypeInfo.of(type), charset, bigEndian);
        flinkReader.open(null);
        List<RowData> expected = new ArrayList<>();
        for (byte[] message : flinkBytes) {
            expected.add(flinkReader.deserialize(message));
        }
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "raw", options, type)) {
            List<List<Object>> actual = FormatTestRows.rows(decoder.decode(flinkBytes), type);
            RowDataValues.assertSameRows(actual, RowDataValues.ofRows(expected, type));
        }
    }

    private static RowType rowType(DataType column) {
        return (RowType) DataTypes.ROW(FIELD("v", column)).notNull().getLogicalType();
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }
}
