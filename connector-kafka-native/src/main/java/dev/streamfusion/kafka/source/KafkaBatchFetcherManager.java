package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherTask;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;

import java.util.Map;
import java.util.function.Supplier;

/** One fetcher thread for all of a reader's partitions, which also commits offsets. */
@Internal
final class KafkaBatchFetcherManager extends SingleThreadFetcherManager<KafkaMessage, KafkaPartitionSplit> {

    KafkaBatchFetcherManager(
            Supplier<SplitReader<KafkaMessage, KafkaPartitionSplit>> splitReaders, Configuration configuration) {
        super(splitReaders, configuration);
    }

    /** Commits {@code offsets} from the fetcher thread, which owns the consumer. */
    void commitOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        if (offsets.isEmpty()) {
            return;
        }
        SplitFetcher<KafkaMessage, KafkaPartitionSplit> fetcher = getRunningFetcher();
        if (fetcher != null) {
            fetcher.enqueueTask(commitTask(fetcher, offsets, callback));
        } else {
            // Every partition is finished: a fetcher just for the commit.
            fetcher = createSplitFetcher();
            fetcher.enqueueTask(commitTask(fetcher, offsets, callback));
            startFetcher(fetcher);
        }
    }

    private static SplitFetcherTask commitTask(
            SplitFetcher<KafkaMessage, KafkaPartitionSplit> fetcher,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            OffsetCommitCallback callback) {
        return new SplitFetcherTask() {
            @Override
            public boolean run() {
                ((OffsetCommitter) fetcher.getSplitReader()).commitOffsets(offsets, callback);
                return true;
            }

            @Override
            public void wakeUp() {}
        };
    }
}
