package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.kafka.common.header.internals.RecordHeaders;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the parts of a Kafka record come from in a sink's input row (the physical columns, then
 * the writable metadata columns), as Flink's kafka connector lays them out: the value's and the
 * key's columns, and the {@code headers} and {@code timestamp} metadata. An upsert table's layout
 * ({@link #upserting}) also says which rows are deletes, written as tombstones (a null value),
 * and whether rows are reduced by key before they are sent.
 */
@Internal
public final class RecordLayout implements Serializable {

    private static final long serialVersionUID = 1L;

    final RowType valueType;
    private final int[] valueFields;
    private final boolean valueIsWholeRow;
    /** The key format, its options, row type and fields; the format is {@code null} without a key. */
    final String keyFormat;
    final HashMap<String, String> keyFormatOptions;
    final RowType keyType;
    private final int[] keyFields;
    private final int headers;
    private final int timestamp;
    /** Whether deletes (and update-befores) are written as tombstones: an upsert table. */
    private final boolean upsert;
    /** Keys buffered before their latest rows are sent, or 0 when rows are not reduced. */
    final int reduceRows;
    /** How long reduced rows may wait before they are sent, in milliseconds. */
    final long reduceIntervalMs;
    /** The key columns' getters, built at the first {@link #reduceKey}. */
    private transient RowData.FieldGetter[] keyGetters;

    /**
     * @param inputArity the input row's arity (physical columns and writable metadata)
     * @param headers the position of the {@code headers} metadata column, or -1
     * @param timestamp the position of the {@code timestamp} metadata column, or -1
     */
    public RecordLayout(
            int inputArity,
            RowType valueType,
            int[] valueFields,
            String keyFormat,
            Map<String, String> keyFormatOptions,
            RowType keyType,
            int[] keyFields,
            int headers,
            int timestamp) {
        this.valueType = valueType;
        this.valueFields = valueFields.clone();
        boolean identity = valueFields.length == inputArity;
        for (int i = 0; identity && i < valueFields.length; i++) {
            identity = valueFields[i] == i;
        }
        this.valueIsWholeRow = identity;
        this.keyFormat = keyFormat;
        this.keyFormatOptions = keyFormatOptions == null ? null : new HashMap<>(keyFormatOptions);
        this.keyType = keyType;
        this.keyFields = keyFields == null ? null : keyFields.clone();
        this.headers = headers;
        this.timestamp = timestamp;
        this.upsert = false;
        this.reduceRows = 0;
        this.reduceIntervalMs = 0;
    }

    private RecordLayout(RecordLayout layout, int reduceRows, long reduceIntervalMs) {
        this.valueType = layout.valueType;
        this.valueFields = layout.valueFields;
        this.valueIsWholeRow = layout.valueIsWholeRow;
        this.keyFormat = layout.keyFormat;
        this.keyFormatOptions = layout.keyFormatOptions;
        this.keyType = layout.keyType;
        this.keyFields = layout.keyFields;
        this.headers = layout.headers;
        this.timestamp = layout.timestamp;
        this.upsert = true;
        this.reduceRows = reduceRows;
        this.reduceIntervalMs = reduceIntervalMs;
    }

    /**
     * This layout for an upsert table, as Flink's upsert-kafka writes one: a delete or
     * update-before row is a tombstone of its key, and with {@code reduceRows} > 0 ({@code
     * sink.buffer-flush.max-rows}) the latest row of each key is buffered until that many keys
     * are, {@code reduceIntervalMs} passes, or a checkpoint comes.
     */
    public RecordLayout upserting(int reduceRows, long reduceIntervalMs) {
        if (keyFormat == null) {
            throw new IllegalArgumentException("an upsert table writes keys");
        }
        return new RecordLayout(this, Math.max(reduceRows, 0), reduceIntervalMs);
    }

    /** Whether rows are reduced by key before they are sent. */
    public boolean reduces() {
        return reduceRows > 0;
    }

    /** Whether {@code row} is written as a tombstone (an upsert table's delete). */
    boolean tombstone(RowData row) {
        return upsert && (row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE);
    }

    /**
     * The rows of {@code rows} that carry a value: all but the tombstones ({@code tombstones} as
     * {@link #tombstones} gives them). A tombstone's value is never encoded, as Flink's upsert
     * serialization never hands a delete's row to the value format.
     */
    static List<RowData> valued(List<RowData> rows, boolean[] tombstones) {
        if (tombstones == null) {
            return rows;
        }
        List<RowData> valued = new ArrayList<>(rows.size());
        for (int i = 0; i < tombstones.length; i++) {
            if (!tombstones[i]) {
                valued.add(rows.get(i));
            }
        }
        return valued;
    }

    /** Per row of {@code rows}, whether it is a tombstone; {@code null} when none can be. */
    boolean[] tombstones(List<RowData> rows) {
        if (!upsert) {
            return null;
        }
        boolean[] tombstones = new boolean[rows.size()];
        for (int i = 0; i < tombstones.length; i++) {
            tombstones[i] = tombstone(rows.get(i));
        }
        return tombstones;
    }

    /** The key columns of {@code row} (a row the caller owns): what rows are reduced by. */
    RowData reduceKey(RowData row) {
        if (keyGetters == null) {
            keyGetters = new RowData.FieldGetter[keyFields.length];
            for (int i = 0; i < keyFields.length; i++) {
                keyGetters[i] = RowData.createFieldGetter(keyType.getTypeAt(i), keyFields[i]);
            }
        }
        GenericRowData key = new GenericRowData(keyFields.length);
        for (int i = 0; i < keyFields.length; i++) {
            key.setField(i, keyGetters[i].getFieldOrNull(row));
        }
        return key;
    }

    /** The values' rows of {@code rows}. */
    List<RowData> values(List<RowData> rows) {
        return valueIsWholeRow ? rows : project(rows, valueFields);
    }

    /** The keys' rows of {@code rows}. */
    List<RowData> keys(List<RowData> rows) {
        return project(rows, keyFields);
    }

    /** The values' columns of a batch of input rows (sharing its vectors). */
    VectorSchemaRoot values(VectorSchemaRoot batch) {
        return valueIsWholeRow ? batch : project(batch, valueFields);
    }

    /** The keys' columns of a batch of input rows (sharing its vectors). */
    VectorSchemaRoot keys(VectorSchemaRoot batch) {
        return project(batch, keyFields);
    }

    private static VectorSchemaRoot project(VectorSchemaRoot batch, int[] fields) {
        List<Field> schema = new ArrayList<>(fields.length);
        List<FieldVector> vectors = new ArrayList<>(fields.length);
        for (int field : fields) {
            FieldVector vector = batch.getVector(field);
            schema.add(vector.getField());
            vectors.add(vector);
        }
        return new VectorSchemaRoot(schema, vectors, batch.getRowCount());
    }

    private static List<RowData> project(List<RowData> rows, int[] fields) {
        List<RowData> projected = new ArrayList<>(rows.size());
        for (RowData row : rows) {
            projected.add(ProjectedRowData.from(fields).replaceRow(row));
        }
        return projected;
    }

    /** Whether the table writes the {@code headers} metadata column. */
    boolean writesHeaders() {
        return headers >= 0;
    }

    /** Whether the table writes the {@code timestamp} metadata column. */
    boolean writesTimestamp() {
        return timestamp >= 0;
    }

    /**
     * The record's headers, from the {@code headers} column (none without it, or when NULL); as in
     * Flink, an entry with a NULL key or value is left out.
     */
    RecordHeaders headers(RowData row) {
        RecordHeaders out = new RecordHeaders();
        if (headers >= 0 && !row.isNullAt(headers)) {
            MapData map = row.getMap(headers);
            for (int i = 0; i < map.size(); i++) {
                if (!map.keyArray().isNullAt(i) && !map.valueArray().isNullAt(i)) {
                    out.add(map.keyArray().getString(i).toString(), map.valueArray().getBinary(i));
                }
            }
        }
        return out;
    }

    /** The record's timestamp, from the {@code timestamp} column ({@code null}: the producer's). */
    Long timestamp(RowData row) {
        return timestamp < 0 || row.isNullAt(timestamp) ? null : row.getTimestamp(timestamp, 3).getMillisecond();
    }
}
