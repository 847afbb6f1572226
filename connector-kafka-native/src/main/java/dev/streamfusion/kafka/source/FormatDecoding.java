package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.columnar.NestedProjection;
import dev.streamfusion.bridge.columnar.RowViews;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.StockMessageDecoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * How one part of a Kafka record (its value, or its key) is decoded natively: the format and its
 * options (keys without the format prefix), the row type the format writes, the (possibly nested)
 * fields the query reads, and Flink's own deserializer of the format for the messages the native
 * decoder hands back.
 */
@Internal
public final class FormatDecoding implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String format;
    private final HashMap<String, String> options;
    private final RowType physicalType;
    private final int[][] projection;
    private final StockMessageDecoder stock;
    private final boolean skipsUndecodable;
    private final boolean binaryRows;

    /**
     * @param projection paths of field indices into {@code physicalType} that the query reads, as
     *     the planner pushes them ({@code [[2], [0, 1]]})
     * @param stock Flink's own deserializer of the format for {@code physicalType}, as the stock
     *     connector creates it
     * @param skipsUndecodable whether a record Flink's format fails on is skipped (counted and
     *     logged) rather than failing the job ({@code 'streamfusion.errors' = 'SKIP'})
     * @param binaryRows whether the rows are written in Flink's binary layout where their types
     *     have one ({@code streamfusion.row-layout})
     */
    public FormatDecoding(
            String format,
            Map<String, String> options,
            RowType physicalType,
            int[][] projection,
            DeserializationSchema<RowData> stock,
            boolean skipsUndecodable,
            boolean binaryRows) {
        this.format = format;
        this.skipsUndecodable = skipsUndecodable;
        this.binaryRows = binaryRows;
        this.options = new HashMap<>(options);
        this.physicalType = physicalType;
        this.projection = projection;
        this.stock = new StockMessageDecoder(stock, physicalType, projection);
    }

    public String format() {
        return format;
    }

    /** The rows the source produces: the projected fields, nested ones lifted to columns. */
    public RowType producedType() {
        return projection().producedType();
    }

    /**
     * A decoder of the physical row type building only the fields the query reads, handing back
     * the messages it cannot decode exactly as Flink's format would, for {@link #stock()}.
     */
    public NativeFormatDecoder openDecoder(BufferAllocator allocator) {
        return NativeFormatDecoder.createDeferring(allocator, format, options, physicalType, projection().prunedType());
    }

    /** Whether a record Flink's format fails on is skipped rather than failing the job. */
    boolean skipsUndecodable() {
        return skipsUndecodable;
    }

    /**
     * Whether Flink's format drops the rest of a message when handing one of its rows on fails
     * (Flink's Kafka deserializer fails on a value row paired with a NULL key row within the
     * value format's call). Only the JSON format's own error handling covers the rows it hands
     * on, under its ignore-parse-errors option; the others fail the job.
     */
    boolean dropsMessageWhenARowFails() {
        return "json".equals(format)
                && Boolean.parseBoolean(options.getOrDefault(NativeFormatDecoder.IGNORE_PARSE_ERRORS, "false"));
    }

    /** Flink's own deserializer of the format, for the messages the native decoder hands back. */
    StockMessageDecoder stock() {
        return stock;
    }

    /**
     * The rows of the batches the decoder returns: in Flink's binary layout where asked for and
     * the types have one, else columnar views.
     */
    RowViews rowViews(BufferAllocator allocator) {
        return RowViews.of(allocator, projection(), binaryRows);
    }

    /**
     * For each produced column, the column of a decoded batch that holds it (a decoded batch holds
     * the columns read in the table's order, the query's order may differ); null when the query
     * reads nested fields as columns.
     */
    int[] batchColumns() {
        return projection().prunedColumns();
    }

    private NestedProjection projection() {
        return NestedProjection.of(physicalType, projection);
    }
}
