package dev.streamfusion.fluss.sink;

import dev.streamfusion.fluss.internal.FlinkRowAsFluss;
import dev.streamfusion.fluss.internal.FlussTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.client.table.writer.TableWriter;
import org.apache.fluss.client.table.writer.UpsertWriter;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Rows written to a Fluss table through the Fluss client, each seen as a Fluss row without a copy
 * ({@link FlinkRowAsFluss}): appended to a log table, upserted into (or deleted from) a
 * primary-key table (only the target columns of a partial {@code INSERT INTO t (columns)}, as
 * fluss-flink writes them). Writes are flushed before every checkpoint and at the end of the
 * input, and a write the cluster refused fails the job naming the table: at least once, as
 * fluss-flink writes.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
public final class FlussSink implements Sink<RowData> {

    private static final long serialVersionUID = 1L;

    private final FlussTableRef table;
    private final boolean primaryKey;
    private final boolean ignoreDelete;
    /** The columns a partial update writes, by index; {@code null}: every column. */
    private final int[] targetColumns;

    public FlussSink(FlussTableRef table, boolean primaryKey, boolean ignoreDelete, int[] targetColumns) {
        this.table = table;
        this.primaryKey = primaryKey;
        this.ignoreDelete = ignoreDelete;
        this.targetColumns = targetColumns == null ? null : targetColumns.clone();
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) {
        return new Writer(table, primaryKey, ignoreDelete, targetColumns);
    }

    private static final class Writer implements SinkWriter<RowData> {

        private final FlussTableRef ref;
        private final boolean ignoreDelete;
        private final Connection connection;
        private final Table table;
        private final AppendWriter append;
        private final UpsertWriter upsert;
        private final FlinkRowAsFluss view;
        /** The first write the cluster refused. */
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicLong pending = new AtomicLong();

        Writer(FlussTableRef ref, boolean primaryKey, boolean ignoreDelete, int[] targetColumns) {
            this.ref = ref;
            this.ignoreDelete = ignoreDelete;
            this.connection = ref.connect();
            try {
                this.table = connection.getTable(ref.path());
                // The table's columns now, which a job planned before a column was added lacks.
                this.view = new FlinkRowAsFluss(table.getTableInfo().getRowType().getFieldCount());
                this.append = primaryKey ? null : table.newAppend().createWriter();
                this.upsert = !primaryKey ? null
                        : targetColumns == null ? table.newUpsert().createWriter()
                        : table.newUpsert().partialUpdate(targetColumns).createWriter();
            } catch (RuntimeException e) {
                closeQuietly();
                throw e;
            }
        }

        @Override
        public void write(RowData row, Context context) throws IOException {
            checkFailure();
            RowKind kind = row.getRowKind();
            CompletableFuture<?> written;
            if (kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE) {
                if (ignoreDelete || (upsert != null && kind == RowKind.UPDATE_BEFORE)) {
                    return;
                }
                if (upsert == null) {
                    throw new IOException("Fluss table " + ref + " is a log table and takes no " + kind
                            + " rows; set 'sink.ignore-delete' to drop them");
                }
                written = upsert.delete(view.wrap(row));
            } else {
                written = upsert != null ? upsert.upsert(view.wrap(row)) : append.append(view.wrap(row));
            }
            pending.incrementAndGet();
            written.whenComplete((result, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                pending.decrementAndGet();
            });
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            writer().flush();
            checkFailure();
            if (pending.get() != 0) {
                throw new IOException(pending.get() + " writes to Fluss table " + ref + " were not acknowledged by the flush");
            }
        }

        private TableWriter writer() {
            return upsert != null ? upsert : append;
        }

        private void checkFailure() throws IOException {
            Throwable error = failure.get();
            if (error != null) {
                throw new IOException("Fluss refused a write to table " + ref + ": " + error.getMessage(), error);
            }
        }

        @Override
        public void close() throws Exception {
            try {
                table.close();
            } finally {
                connection.close();
            }
        }

        private void closeQuietly() {
            try {
                connection.close();
            } catch (Exception e) {
                // Closing after a failed open: the open's failure is what the job reports.
            }
        }
    }
}
