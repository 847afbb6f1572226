package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.table.StockCounterpart;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Samples of Kafka tables for {@link StockCounterpart#sample}: a range of offsets per partition,
 * read from the broker when the sample is taken, which both connectors read alike.
 */
@Internal
final class KafkaSamples {

    private static final String TOPIC = "topic";
    private static final String PROPERTIES = "properties.";
    private static final long ADMIN_TIMEOUT_SECONDS = 30;

    private KafkaSamples() {}

    /**
     * A plain topic's sample is the newest {@code rows} records, split evenly among its
     * partitions: the most recent data. An upsert topic's is its first records, as a
     * changelog is read from its start. The range is fixed when the sample is taken, and the
     * records are read under a consumer group of their own, leaving the table's group alone.
     */
    static StockCounterpart.Sample sample(StockCounterpart.SameOptions counterpart, boolean upsert,
            Map<String, String> options, long rows) {
        if (counterpart.streamFusion(options).isEmpty()) {
            throw new IllegalArgumentException("not a " + counterpart.stockIdentifier() + " table");
        }
        if (options.containsKey("topic-pattern")) {
            throw new IllegalArgumentException("'topic-pattern': a sample reads one named topic");
        }
        String topic = options.get(TOPIC);
        if (topic == null || topic.contains(";")) {
            throw new IllegalArgumentException("'topic': a sample reads one named topic, not '" + topic + "'");
        }
        Map<Integer, long[]> ranges = offsets(options, topic);
        long perPartition = Math.max(1, (rows + ranges.size() - 1) / Math.max(1, ranges.size()));
        Map<Integer, Long> starts = new TreeMap<>();
        Map<Integer, Long> ends = new TreeMap<>();
        ranges.forEach((partition, range) -> {
            long start = upsert ? range[0] : Math.max(range[0], range[1] - perPartition);
            long end = upsert ? Math.min(range[1], range[0] + perPartition) : range[1];
            starts.put(partition, start);
            ends.put(partition, end);
        });
        Map<String, String> sampled = new HashMap<>(options);
        sampled.keySet().removeIf(key -> key.startsWith("scan.startup.") || key.startsWith("scan.bounded."));
        if (!upsert) {
            sampled.put("scan.startup.mode", "specific-offsets");
            sampled.put("scan.startup.specific-offsets", offsetList(starts));
        }
        sampled.put("scan.bounded.mode", "specific-offsets");
        sampled.put("scan.bounded.specific-offsets", offsetList(ends));
        sampled.put(PROPERTIES + "group.id", "streamfusion-sample-" + UUID.randomUUID());
        long records = ranges.keySet().stream().mapToLong(p -> ends.get(p) - starts.get(p)).sum();
        return new StockCounterpart.Sample(
                sampled,
                String.format(
                        "%s %d records of topic '%s' (%s of each of its %d partitions)",
                        upsert ? "the first" : "the last", records, topic, "up to " + perPartition, ranges.size()));
    }

    private static String offsetList(Map<Integer, Long> offsets) {
        return offsets.entrySet().stream()
                .map(e -> "partition:" + e.getKey() + ",offset:" + e.getValue())
                .collect(Collectors.joining(";"));
    }

    /** Each partition's earliest and latest offsets, from the table's brokers. */
    private static Map<Integer, long[]> offsets(Map<String, String> options, String topic) {
        Properties properties = new Properties();
        options.forEach((key, value) -> {
            if (key.startsWith(PROPERTIES)) {
                properties.put(key.substring(PROPERTIES.length()), value);
            }
        });
        properties.remove("group.id");
        try (Admin admin = Admin.create(properties)) {
            TopicDescription description =
                    admin.describeTopics(List.of(topic)).allTopicNames().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS).get(topic);
            List<TopicPartition> partitions = description.partitions().stream()
                    .map(TopicPartitionInfo::partition)
                    .map(p -> new TopicPartition(topic, p))
                    .collect(Collectors.toList());
            Map<TopicPartition, Long> earliest = list(admin, partitions, OffsetSpec.earliest());
            Map<TopicPartition, Long> latest = list(admin, partitions, OffsetSpec.latest());
            Map<Integer, long[]> ranges = new TreeMap<>();
            for (TopicPartition partition : partitions) {
                ranges.put(partition.partition(), new long[] {earliest.get(partition), latest.get(partition)});
            }
            return ranges;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalArgumentException(
                    "the offsets of topic '" + topic + "' could not be listed at '"
                            + options.get(PROPERTIES + "bootstrap.servers") + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted listing the offsets of topic '" + topic + "'", e);
        }
    }

    private static Map<TopicPartition, Long> list(Admin admin, List<TopicPartition> partitions, OffsetSpec spec)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> request =
                partitions.stream().collect(Collectors.toMap(Function.identity(), p -> spec));
        return admin.listOffsets(request).all().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
