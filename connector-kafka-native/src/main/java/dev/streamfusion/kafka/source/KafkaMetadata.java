package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException("the kafka connector has no metadata column '" + key + "'");
            }
        }
        this.keys = keys.toArray(new String[0]);
    }

    private static final List<String> KNOWN =
            List.of("topic", "partition", "headers", "leader-epoch", "offset", "timestamp", "timestamp-type");

    boolean isEmpty() {
        return keys.length == 0;
    }

    boolean reads(String key) {
        return Arrays.asList(keys).contains(key);
    }

    /** The metadata of {@code record}, as a row of the table's metadata columns. */
    GenericRowData of(ConsumerRecord<?, ?> record) {
        return of(
                record.topic(),
                record.partition(),
                () -> {
                    Map<StringData, byte[]> headers = new HashMap<>();
                    for (Header header : record.headers()) {
                        headers.put(StringData.fromString(header.key()), header.value());
                    }
                    return headers;
                },
                record.leaderEpoch().orElse(null),
                record.offset(),
                record.timestamp(),
                record.timestampType().toString());
    }

    /**
     * A record's metadata, as a row of the table's metadata columns; {@code headers} is called
     * only when the table reads them.
     */
    GenericRowData of(
            String topic,
            int partition,
            Supplier<Map<StringData, byte[]>> headers,
            Integer leaderEpoch,
            long offset,
            long timestamp,
            String timestampType) {
        GenericRowData row = new GenericRowData(keys.length);
        for (int i = 0; i < keys.length; i++) {
            Object value;
            switch (keys[i]) {
                case "topic":
                    value = StringData.fromString(topic);
                    break;
                case "partition":
                    value = partition;
                    break;
                case "headers":
                    value = new GenericMapData(headers.get());
                    break;
                case "leader-epoch":
                    value = leaderEpoch;
                    break;
                case "offset":
                    value = offset;
                    break;
                case "timestamp":
                    value = TimestampData.fromEpochMillis(timestamp);
                    break;
                default:
                    value = StringData.fromString(timestampType);
                    break;
            }
            row.setField(i, value);
        }
        return row;
    }
}
