package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.functions.util.FunctionUtils;
import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.util.PausableRelativeClock;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedWatermarkGenerator;
import org.apache.flink.table.runtime.generated.WatermarkGenerator;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

import java.util.ArrayList;
import java.util.List;

/**
 * Flink's watermark assigner (a table's {@code WATERMARK FOR ... AS ...}) over Arrow batches, with
 * the stock operator's timing: the watermark expression (Flink's generated code) is evaluated for
 * every row, through a view over the batch; a NULL rowtime fails as in Flink; a watermark that
 * advanced by more than {@code pipeline.auto-watermark-interval} is emitted right after the row
 * that advanced it, so the batch is cut there and the rows after it follow the watermark, as they
 * would in Flink; otherwise watermarks go out on the same processing-time timer, with the same
 * idleness ({@code table.exec.source.idle-timeout}) and end-of-input handling. Only the
 * processing-time points between rows differ, which vary from run to run in Flink too.
 */
@Internal
public final class BatchWatermarkAssignerOperator extends AbstractStreamOperator<ArrowBatch>
        implements OneInputStreamOperator<ArrowBatch, ArrowBatch>, ProcessingTimeCallback {

    private static final long serialVersionUID = 1L;

    /** Flink's own message for a NULL rowtime. */
    static final String NULL_ROWTIME = "RowTime field should not be null, please convert it to a non-null long value.";

    private final int rowtimeIndex;
    private final long idleTimeout;
    private final GeneratedWatermarkGenerator generated;
    private final RowType rowType;

    private transient WatermarkGenerator generator;
    /** The holder of the slices this operator hands on. */
    private transient ArrowBatch sliced;
    private transient PausableRelativeClock inputActivity;
    private transient long watermarkInterval;
    private transient long timerInterval;
    private transient long currentWatermark;
    private transient long lastWatermark;
    private transient long lastPeriodicEmit;
    private transient long lastActive;
    private transient long processed;
    private transient long processedAtLastIdleCheck;
    private transient WatermarkStatus status;
    private transient Counter cuts;

    /**
     * @param rowtimeIndex the rowtime column's index in {@code rowType}
     * @param idleTimeout {@code table.exec.source.idle-timeout} in milliseconds, 0 for none
     * @param generated the watermark expression, as Flink generates it for its own assigner
     * @param rowType the batches' row type
     */
    public BatchWatermarkAssignerOperator(
            int rowtimeIndex, long idleTimeout, GeneratedWatermarkGenerator generated, RowType rowType) {
        this.rowtimeIndex = rowtimeIndex;
        this.idleTimeout = idleTimeout;
        this.generated = generated;
        this.rowType = rowType;
    }

    @Override
    public void open() throws Exception {
        super.open();
        status = WatermarkStatus.ACTIVE;
        sliced = new ArrowBatch();
        inputActivity = new PausableRelativeClock(getProcessingTimeService().getClock());
        ioMetrics().registerBackPressureListener(inputActivity);
        currentWatermark = 0L;
        watermarkInterval = getExecutionConfig().getAutoWatermarkInterval();
        lastPeriodicEmit = getProcessingTimeService().getCurrentProcessingTime();
        lastActive = inputActivity.relativeTimeMillis();
        // The first timer takes its own time as the last activity, as in Flink's assigner.
        processedAtLastIdleCheck = -1;
        if (watermarkInterval > 0 || idleTimeout > 0) {
            timerInterval = timerInterval(watermarkInterval, idleTimeout);
            getProcessingTimeService().registerTimer(getProcessingTimeService().getCurrentProcessingTime() + timerInterval, this);
        }
        generator = generated.newInstance(getRuntimeContext().getUserCodeClassLoader());
        FunctionUtils.setFunctionRuntimeContext(generator, getRuntimeContext());
        FunctionUtils.openFunction(generator, DefaultOpenContext.INSTANCE);
        cuts = getMetricGroup().addGroup("streamfusion").counter("batchesCut");
    }

    /**
     * How often the processing-time timer fires, as Flink's assigner sets it: the watermark
     * interval or idle timeout alone; with both, the shorter where it is under a fifth of the
     * longer, else a fifth of the shorter (at least 1 ms).
     */
    static long timerInterval(long watermarkInterval, long idleTimeout) {
        if (watermarkInterval <= 0) {
            return idleTimeout;
        }
        if (idleTimeout <= 0) {
            return watermarkInterval;
        }
        long shorter = Math.min(watermarkInterval, idleTimeout);
        long longer = Math.max(watermarkInterval, idleTimeout);
        return Math.max(shorter * 5 < longer ? shorter : shorter / 5, 1);
    }

    private TaskIOMetricGroup ioMetrics() {
        return getContainingTask().getEnvironment().getMetricGroup().getIOMetricGroup();
    }

    @Override
    public void processElement(StreamRecord<ArrowBatch> element) throws Exception {
        processed++;
        if (idleTimeout > 0 && status.equals(WatermarkStatus.IDLE)) {
            emitStatus(WatermarkStatus.ACTIVE);
        }
        ArrowBatch batch = element.getValue();
        try {
            VectorSchemaRoot root = batch.root();
            int count = root.getRowCount();
            ArrowColumnarBatch rows = ArrowColumnarBatch.of(root, rowType);
            int from = 0;
            for (int i = 0; i < count; i++) {
                RowData row = rows.row(i);
                if (row.isNullAt(rowtimeIndex)) {
                    throw new RuntimeException(NULL_ROWTIME);
                }
                Long watermark = generator.currentWatermark(row);
                if (watermark != null) {
                    currentWatermark = Math.max(currentWatermark, watermark);
                }
                if (currentWatermark - lastWatermark > watermarkInterval) {
                    // Flink emits this watermark right after row i: its rows go first.
                    emitSlice(element, root, from, i + 1 - from);
                    cuts.inc();
                    advanceWatermark();
                    from = i + 1;
                }
            }
            if (from == 0) {
                output.collect(element.replace(batch));
            } else if (from < count) {
                emitSlice(element, root, from, count - from);
            }
        } finally {
            // Also when handed on whole: a chained operator is done with it once collect returns
            // (and may have freed it: a received batch is freed once), an exchange has copied it.
            batch.release();
        }
    }

    /**
     * Hands on rows {@code from} to {@code from + length} of {@code root} as a batch of this
     * operator's, freed when the operators it is handed to are done with it (they copy what they
     * keep, as with any batch).
     */
    private void emitSlice(StreamRecord<ArrowBatch> element, VectorSchemaRoot root, int from, int length) {
        try (VectorSchemaRoot slice = slice(root, from, length)) {
            output.collect(element.replace(sliced.of(slice)));
        }
    }

    /**
     * Rows {@code from} to {@code from + length} of {@code root}, sharing its buffers where the
     * rows allow (accounted to the batch's allocator: the slice is freed before this operator
     * returns the batch).
     */
    private static VectorSchemaRoot slice(VectorSchemaRoot root, int from, int length) {
        List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors().size());
        try {
            for (FieldVector vector : root.getFieldVectors()) {
                TransferPair transfer = vector.getTransferPair(vector.getAllocator());
                transfer.splitAndTransfer(from, length);
                vectors.add((FieldVector) transfer.getTo());
            }
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        return new VectorSchemaRoot(root.getSchema().getFields(), vectors, length);
    }

    private void advanceWatermark() {
        if (currentWatermark > lastWatermark) {
            lastWatermark = currentWatermark;
            output.emitWatermark(new Watermark(currentWatermark));
        }
    }

    @Override
    public void onProcessingTime(long timestamp) throws Exception {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        long active = inputActivity.relativeTimeMillis();
        if (watermarkInterval > 0 && lastPeriodicEmit + watermarkInterval <= now) {
            lastPeriodicEmit = now;
            advanceWatermark();
        }
        if (processed != processedAtLastIdleCheck) {
            lastActive = active;
            processedAtLastIdleCheck = processed;
        }
        if (idleTimeout > 0 && status.equals(WatermarkStatus.ACTIVE) && lastActive + idleTimeout <= active) {
            emitStatus(WatermarkStatus.IDLE);
        }
        getProcessingTimeService().registerTimer(now + timerInterval, this);
    }

    /** Upstream watermarks are not passed on, but for the end of input. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() == Long.MAX_VALUE && currentWatermark != Long.MAX_VALUE) {
            if (idleTimeout > 0 && status.equals(WatermarkStatus.IDLE)) {
                emitStatus(WatermarkStatus.ACTIVE);
            }
            currentWatermark = Long.MAX_VALUE;
            output.emitWatermark(mark);
        }
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus watermarkStatus) throws Exception {
        emitStatus(watermarkStatus);
    }

    private void emitStatus(WatermarkStatus next) {
        status = next;
        output.emitWatermarkStatus(next);
    }

    @Override
    public void finish() throws Exception {
        processWatermark(Watermark.MAX_WATERMARK);
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (inputActivity != null) {
                ioMetrics().unregisterBackPressureListener(inputActivity);
            }
            if (generator != null) {
                FunctionUtils.closeFunction(generator);
            }
        } finally {
            super.close();
        }
    }
}
