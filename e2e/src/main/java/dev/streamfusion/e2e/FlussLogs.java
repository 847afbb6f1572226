package dev.streamfusion.e2e;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;
import org.apache.fluss.types.RowType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Fluss log tables read to their end through the Fluss client: what the demo and the Nexmark
 * writer check their tables with, since no Flink connector of Fluss 0.9.1 reads a log table to an
 * end.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
final class FlussLogs {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private FlussLogs() {}

    /**
     * Every row of the non-partitioned log table {@code path}, up to the end each bucket had when
     * the read began, as the text of its values ({@link #text}), sorted.
     *
     * @throws IllegalStateException if the table was not read to that end within five minutes
     */
    static List<String> readAll(String servers, TablePath path) throws Exception {
        org.apache.fluss.config.Configuration conf = new org.apache.fluss.config.Configuration();
        conf.setString("bootstrap.servers", servers);
        List<String> rows = new ArrayList<>();
        try (Connection connection = ConnectionFactory.createConnection(conf);
                Admin admin = connection.getAdmin();
                Table log = connection.getTable(path);
                LogScanner scanner = log.newScan().createLogScanner()) {
            List<Integer> buckets =
                    IntStream.range(0, log.getTableInfo().getNumBuckets()).boxed().collect(Collectors.toList());
            Map<Integer, Long> end = admin.listOffsets(path, buckets, new OffsetSpec.LatestSpec()).all().get();
            Map<Integer, Long> next = new HashMap<>();
            for (int bucket : buckets) {
                scanner.subscribeFromBeginning(bucket);
                next.put(bucket, 0L);
            }
            RowType type = log.getTableInfo().getRowType();
            List<InternalRow.FieldGetter> getters = IntStream.range(0, type.getFieldCount())
                    .mapToObj(i -> InternalRow.createFieldGetter(type.getTypeAt(i), i)).collect(Collectors.toList());
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (buckets.stream().anyMatch(b -> next.get(b) < end.get(b))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Fluss table " + path + " was not read to its end " + end + " in " + TIMEOUT.toMinutes() + " minutes");
                }
                ScanRecords records = scanner.poll(Duration.ofMillis(200));
                for (TableBucket bucket : records.buckets()) {
                    for (ScanRecord record : records.records(bucket)) {
                        if (record.logOffset() >= end.get(bucket.getBucket())) {
                            // Appended after the read began.
                            continue;
                        }
                        InternalRow row = record.getRow();
                        rows.add(text(getters.stream().map(g -> javaValue(g.getFieldOrNull(row))).collect(Collectors.toList())));
                        next.put(bucket.getBucket(), record.logOffset() + 1);
                    }
                }
            }
        }
        rows.sort(null);
        return rows;
    }

    /** One row's values as text: each value's {@code String.valueOf}, comma separated. */
    static String text(List<Object> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** A Fluss value as the Java value it stands for (text, timestamps and decimals), so both sides of a check read alike. */
    private static Object javaValue(Object value) {
        if (value instanceof BinaryString) {
            return value.toString();
        }
        if (value instanceof TimestampNtz) {
            return ((TimestampNtz) value).toLocalDateTime();
        }
        if (value instanceof TimestampLtz) {
            return ((TimestampLtz) value).toInstant();
        }
        if (value instanceof Decimal) {
            return ((Decimal) value).toBigDecimal();
        }
        return value;
    }
}
