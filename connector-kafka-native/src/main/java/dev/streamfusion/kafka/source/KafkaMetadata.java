package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The metadata columns a table reads, in the order of its produced row, with the values and types
 * Flink's kafka connector gives them: {@code topic}, {@code partition}, {@code headers}, {@code
 * leader-epoch}, {@code offset}, {@code timestamp}, {@code timestamp-type}.
 */
@Internal
public final class KafkaMetadata implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String[] keys;

    public KafkaMetadata(List<String> keys) {
        for (String key : keys) {
            value(key, null);
        }
        this.keys = keys.toArray(new String[0]);
    }

    boolean isEmpty() {
        return keys.length == 0;
    }

    /** The metadata of {@code record}, as a row of the table's metadata columns. */
    GenericRowData of(ConsumerRecord<?, ?> record) {
        GenericRowData row = new GenericRowData(keys.length);
        for (int i = 0; i < keys.length; i++) {
            row.setField(i, value(keys[i], record));
        }
        return row;
    }

    /** One metadata value; with a {@code null} record, only checks that the key is known. */
    private static Object value(String key, ConsumerRecord<?, ?> record) {
        switch (key) {
            case "topic":
                return record == null ? null : StringData.fromString(record.topic());
            case "partition":
                return record == null ? null : record.partition();
            case "headers":
                if (record == null) {
                    return null;
                }
                Map<StringData, byte[]> headers = new HashMap<>();
                for (Header header : record.headers()) {
                    headers.put(StringData.fromString(header.key()), header.value());
                }
                return new GenericMapData(headers);
            case "leader-epoch":
                return record == null ? null : record.leaderEpoch().orElse(null);
            case "offset":
                return record == null ? null : record.offset();
            case "timestamp":
                return record == null ? null : TimestampData.fromEpochMillis(record.timestamp());
            case "timestamp-type":
                return record == null ? null : StringData.fromString(record.timestampType().toString());
            default:
                throw new IllegalArgumentException("the kafka connector has no metadata column '" + key + "'");
        }
    }
}
