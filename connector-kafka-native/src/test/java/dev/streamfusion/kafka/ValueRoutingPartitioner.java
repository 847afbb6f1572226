package dev.streamfusion.kafka;

import org.apache.flink.streaming.connectors.kafka.partitioner.FlinkFixedPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Preconditions;

import java.util.Arrays;

/**
 * A user's subclass of Flink's fixed partitioner, named by {@code sink.partitioner}: it routes
 * each record by its row's first column and its encoded key and value, which it requires, as
 * Flink's sink hands all three to a table's partitioner.
 */
public class ValueRoutingPartitioner extends FlinkFixedPartitioner<RowData> {

    private static final long serialVersionUID = 1L;

    @Override
    public int partition(RowData record, byte[] key, byte[] value, String targetTopic, int[] partitions) {
        Preconditions.checkNotNull(record, "the partitioner was given no row");
        Preconditions.checkNotNull(key, "the partitioner was given no key");
        Preconditions.checkNotNull(value, "the partitioner was given no value");
        int hash = 31 * (31 * Long.hashCode(record.getLong(0)) + Arrays.hashCode(key)) + Arrays.hashCode(value);
        return partitions[Math.floorMod(hash, partitions.length)];
    }
}
