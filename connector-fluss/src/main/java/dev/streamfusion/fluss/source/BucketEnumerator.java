package dev.streamfusion.fluss.source;

import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.StartupMode;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.scanner.log.LogScanner;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Hands each bucket of the table to one reader (bucket {@code b} to subtask {@code b % parallelism},
 * as readers register), starting where {@code scan.startup.mode} says: the log's first record, its
 * end, or the first record at a timestamp (offsets looked up once, when the job starts). Its
 * checkpoint holds the buckets not handed out yet.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
final class BucketEnumerator implements SplitEnumerator<BucketSplit, List<BucketSplit>> {

    private final SplitEnumeratorContext<BucketSplit> context;
    private final FlussTableRef table;
    private final int buckets;
    private final StartupMode mode;
    private final long timestamp;
    /** Splits not handed out yet; {@code null} until the starting offsets are looked up. */
    private List<BucketSplit> pending;

    BucketEnumerator(
            SplitEnumeratorContext<BucketSplit> context, FlussTableRef table, int buckets, StartupMode mode, long timestamp,
            List<BucketSplit> restored) {
        this.context = context;
        this.table = table;
        this.buckets = buckets;
        this.mode = mode;
        this.timestamp = timestamp;
        this.pending = restored == null ? null : new ArrayList<>(restored);
    }

    @Override
    public void start() {
        if (pending != null) {
            return;
        }
        List<Integer> all = IntStream.range(0, buckets).boxed().collect(Collectors.toList());
        Map<Integer, Long> offsets = new HashMap<>();
        if (mode == StartupMode.FULL || mode == StartupMode.EARLIEST) {
            all.forEach(b -> offsets.put(b, LogScanner.EARLIEST_OFFSET));
        } else {
            OffsetSpec spec = mode == StartupMode.LATEST ? new OffsetSpec.LatestSpec() : new OffsetSpec.TimestampSpec(timestamp);
            try (Connection connection = table.connect(); Admin admin = connection.getAdmin()) {
                offsets.putAll(admin.listOffsets(table.path(), all, spec).all().get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("Cannot look up the starting offsets of Fluss table " + table + ": "
                        + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted looking up the starting offsets of " + table, e);
            } catch (Exception e) {
                throw new IllegalStateException("Cannot look up the starting offsets of Fluss table " + table, e);
            }
        }
        pending = new ArrayList<>();
        all.forEach(b -> pending.add(new BucketSplit(b, offsets.get(b))));
        assignPending();
    }

    private void assignPending() {
        int parallelism = context.currentParallelism();
        List<BucketSplit> left = new ArrayList<>();
        for (BucketSplit split : pending) {
            int owner = split.bucket % parallelism;
            if (context.registeredReaders().containsKey(owner)) {
                context.assignSplit(split, owner);
            } else {
                left.add(split);
            }
        }
        pending = left;
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Buckets are handed out as readers register; a log is never finished.
    }

    @Override
    public void addSplitsBack(List<BucketSplit> splits, int subtaskId) {
        pending.addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        if (pending != null) {
            assignPending();
        }
    }

    @Override
    public List<BucketSplit> snapshotState(long checkpointId) {
        return pending == null ? List.of() : new ArrayList<>(pending);
    }

    @Override
    public void close() {}

    /** The buckets not handed out yet, as bytes. */
    static final class StateSerializer implements SimpleVersionedSerializer<List<BucketSplit>> {

        private final BucketSplit.Serializer splits = new BucketSplit.Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(List<BucketSplit> state) throws IOException {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
                out.writeInt(state.size());
                for (BucketSplit split : state) {
                    byte[] one = splits.serialize(split);
                    out.writeInt(one.length);
                    out.write(one);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<BucketSplit> deserialize(int version, byte[] serialized) throws IOException {
            try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(serialized))) {
                int count = in.readInt();
                List<BucketSplit> out = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    byte[] one = new byte[in.readInt()];
                    in.readFully(one);
                    out.add(splits.deserialize(version, one));
                }
                return out;
            }
        }
    }
}
