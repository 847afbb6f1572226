package dev.streamfusion.fluss.source;

import dev.streamfusion.fluss.internal.FlussRowCopier;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.lookup.FlussLookupFunction;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.Scan;
import org.apache.fluss.client.table.scanner.batch.BatchScanner;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.utils.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A bounded question the Fluss server answers whole, asked when the job runs (not when it is
 * planned), by one task: the first rows of a table ({@code LIMIT}), its row count ({@code
 * COUNT(*)}), or the row of one primary key. The job's source is a single element that sets the
 * question off.
 */
@Internal
public abstract class FlussQuery extends RichFlatMapFunction<Integer, RowData> {

    private static final long serialVersionUID = 1L;

    /** How long one poll of a limited scan waits for its bucket's answer before the next bucket is polled. */
    private static final Duration POLL = Duration.ofMillis(100);

    /** The largest {@code LIMIT} the server answers whole. */
    public static final int MAX_LIMIT = 2048;

    final FlussTableRef table;

    FlussQuery(FlussTableRef table) {
        this.table = table;
    }

    /** This query as a table source's bounded runtime, producing rows of {@code type}. */
    public DataStreamScanProvider provider(TypeInformation<RowData> type) {
        FlussQuery query = this;
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext context, StreamExecutionEnvironment env) {
                return env.fromData(Types.INT, 0)
                        .name("Fluss " + query + " of " + table.path())
                        .flatMap(query, type)
                        .name(query + " of Fluss table " + table.path())
                        .setParallelism(1);
            }

            @Override
            public boolean isBounded() {
                return true;
            }
        };
    }

    /** At most {@code limit} rows of the table, of the {@code projection} columns (of {@code rowType}). */
    public static FlussQuery limit(FlussTableRef table, int[] projection, RowType rowType, int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("a limit of " + limit + " rows is not answered whole");
        }
        return new Limit(table, projection, rowType, limit);
    }

    /** The table's row count, as one BIGINT row. */
    public static FlussQuery count(FlussTableRef table) {
        return new Count(table);
    }

    /** The row (projected as {@code lookups} projects it) of one primary key, of {@code keyType}, if there is one. */
    public static FlussQuery key(FlussLookupFunction lookups, RowType keyType, GenericRowData key) {
        return new Key(lookups, keyType, key);
    }

    private static final class Limit extends FlussQuery {
        private static final long serialVersionUID = 1L;

        private final int[] projection;
        private final RowType rowType;
        private final int limit;

        Limit(FlussTableRef table, int[] projection, RowType rowType, int limit) {
            super(table);
            this.projection = projection.clone();
            this.rowType = rowType;
            this.limit = limit;
        }

        // The client's closeables declare Exception.
        @SuppressWarnings("try")
        @Override
        public void flatMap(Integer ignored, Collector<RowData> out) throws Exception {
            FlussRowCopier copier = FlussRowCopier.of(rowType);
            try (Connection connection = table.connect();
                    Admin admin = connection.getAdmin();
                    Table opened = connection.getTable(table.path())) {
                TableInfo info = admin.getTableInfo(table.path()).get();
                List<Long> partitions = new ArrayList<>();
                if (info.isPartitioned()) {
                    for (PartitionInfo partition : admin.listPartitionInfos(table.path()).get()) {
                        partitions.add(partition.getPartitionId());
                    }
                } else {
                    partitions.add(null);
                }
                Scan scan = opened.newScan().limit(limit).project(projection);
                // Every bucket is asked at once; their answers are taken in turn.
                List<BatchScanner> scanners = new ArrayList<>();
                try {
                    for (Long partition : partitions) {
                        for (int bucket = 0; bucket < info.getNumBuckets(); bucket++) {
                            scanners.add(scan.createBatchScanner(new TableBucket(info.getTableId(), partition, bucket)));
                        }
                    }
                    ArrayDeque<BatchScanner> answering = new ArrayDeque<>(scanners);
                    int emitted = 0;
                    while (emitted < limit && !answering.isEmpty()) {
                        BatchScanner scanner = answering.poll();
                        CloseableIterator<InternalRow> rows = scanner.pollBatch(POLL);
                        if (rows == null) {
                            continue; // this bucket has answered in full
                        }
                        answering.add(scanner);
                        try {
                            while (emitted < limit && rows.hasNext()) {
                                out.collect(copier.copy(rows.next()));
                                emitted++;
                            }
                        } finally {
                            rows.close();
                        }
                    }
                } finally {
                    for (BatchScanner scanner : scanners) {
                        scanner.close();
                    }
                }
            }
        }

        @Override
        public String toString() {
            return "LIMIT " + limit;
        }
    }

    private static final class Count extends FlussQuery {
        private static final long serialVersionUID = 1L;

        Count(FlussTableRef table) {
            super(table);
        }

        // The client's closeables declare Exception.
        @SuppressWarnings("try")
        @Override
        public void flatMap(Integer ignored, Collector<RowData> out) throws Exception {
            try (Connection connection = table.connect(); Admin admin = connection.getAdmin()) {
                out.collect(GenericRowData.of(admin.getTableStats(table.path()).get().getRowCount()));
            }
        }

        @Override
        public String toString() {
            return "COUNT(*)";
        }
    }

    private static final class Key extends FlussQuery {
        private static final long serialVersionUID = 1L;

        private final FlussLookupFunction lookups;
        private final RowType keyType;
        /** The key, serialized (Flink's internal values are not {@link java.io.Serializable}). */
        private final byte[] key;
        private final String text;

        Key(FlussLookupFunction lookups, RowType keyType, GenericRowData key) {
            super(lookups.table());
            this.lookups = lookups;
            this.keyType = keyType;
            this.text = String.valueOf(key);
            try {
                DataOutputSerializer out = new DataOutputSerializer(64);
                new RowDataSerializer(keyType).serialize(key, out);
                this.key = out.getCopyOfBuffer();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot serialize the key " + key, e);
            }
        }

        @Override
        public void open(OpenContext context) throws Exception {
            lookups.open(null);
        }

        @Override
        public void flatMap(Integer ignored, Collector<RowData> out) throws Exception {
            RowData row = new RowDataSerializer(keyType).deserialize(new DataInputDeserializer(key));
            for (RowData found : lookups.asyncLookup(row).get()) {
                out.collect(found);
            }
        }

        @Override
        public void close() throws Exception {
            lookups.close();
        }

        @Override
        public String toString() {
            return "primary key " + text;
        }
    }
}
