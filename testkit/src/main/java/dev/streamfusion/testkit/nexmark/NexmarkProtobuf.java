package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.nexmark.proto.AuctionRecord;
import dev.streamfusion.testkit.nexmark.proto.BidRecord;
import dev.streamfusion.testkit.nexmark.proto.PersonRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/**
 * The model's events as Protobuf messages ({@code PersonRecord}, {@code AuctionRecord}, {@code
 * BidRecord} of {@code nexmark.proto}). Flink's protobuf format has no timestamp type, so each
 * {@code TIMESTAMP(3)} column of the model is an {@code int64} of epoch milliseconds named with the
 * suffix {@code _millis}; a table over the messages declares the model's column under its own name
 * as a computed column over it ({@link #columns}), so that the queries read the same columns as over
 * any other source. The computed columns read the milliseconds in the session's time zone: with
 * {@code 'table.local-time-zone' = 'UTC'} they give back the model's timestamps exactly.
 */
@Internal
public final class NexmarkProtobuf {

    private static final String MILLIS = "_millis";

    private NexmarkProtobuf() {}

    /** The generated message class of a kind of event. */
    public static Class<?> messageClass(NexmarkModel.Kind kind) {
        switch (kind) {
            case PERSON:
                return PersonRecord.class;
            case AUCTION:
                return AuctionRecord.class;
            default:
                return BidRecord.class;
        }
    }

    /** The rows of a kind's messages: the model's, each timestamp an epoch-millisecond BIGINT. */
    public static RowType type(NexmarkModel.Kind kind) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : NexmarkTableFactory.type(kind).getFields()) {
            fields.add(isTimestamp(field.getType())
                    ? new RowType.RowField(field.getName() + MILLIS, new BigIntType(field.getType().isNullable()))
                    : field);
        }
        return new RowType(false, fields);
    }

    /** A model's row of {@code kind} as a row of {@link #type}. */
    public static RowData row(NexmarkModel.Kind kind, RowData event) {
        List<RowType.RowField> fields = NexmarkTableFactory.type(kind).getFields();
        GenericRowData row = new GenericRowData(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            LogicalType type = fields.get(i).getType();
            row.setField(
                    i,
                    event.isNullAt(i)
                            ? null
                            : isTimestamp(type)
                                    ? (Object) event.getTimestamp(i, 3).getMillisecond()
                                    : RowData.createFieldGetter(type, i).getFieldOrNull(event));
        }
        return row;
    }

    /**
     * The columns of a table over a kind's messages, as DDL: the physical columns of {@link #type},
     * each timestamp followed by the model's column computed from it.
     */
    public static String columns(NexmarkModel.Kind kind) {
        List<String> columns = new ArrayList<>();
        for (RowType.RowField field : NexmarkTableFactory.type(kind).getFields()) {
            if (isTimestamp(field.getType())) {
                String millis = "`" + field.getName() + MILLIS + "`";
                columns.add(millis + " BIGINT");
                columns.add("`" + field.getName() + "` AS CAST(TO_TIMESTAMP_LTZ(" + millis + ", 3) AS TIMESTAMP(3))");
            } else {
                columns.add("`" + field.getName() + "` " + field.getType().copy(true).asSerializableString());
            }
        }
        return String.join(", ", columns);
    }

    private static boolean isTimestamp(LogicalType type) {
        return type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE;
    }
}
