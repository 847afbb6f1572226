package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.plugable.SerializationDelegate;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.partitioner.StreamPartitioner;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A keyed exchange of the island's batches: each batch is split natively by the key of its rows
 * into one part per receiving subtask ({@link NativeBatchRouter}), and each part is sent to that
 * subtask. As with Flink's {@code keyBy}, every row of one key reaches one subtask, and a subtask
 * receives whole key groups (Flink's ranges over the max parallelism).
 *
 * <p>The split is made for receivers at the parallelism {@link #keyBy} is given (by default the
 * splitting operator's own). Where a scheduler gives them another at run time, a part goes to the
 * receiver of the first key group its rows were split for, so the rows of a key still meet at
 * one subtask, though fewer receivers may get rows.
 */
@Internal
public final class KeyedBatches {

    private KeyedBatches() {}

    /**
     * {@code batches} routed by {@code keys} to receivers at the parallelism {@code receivers}, or
     * at the parallelism of {@code batches} where it is {@code null}.
     */
    public static DataStream<ArrowBatch> keyBy(
            DataStream<ArrowBatch> batches, NativeBatchRouter.Keys keys, String name, Integer receivers) {
        DataStream<ArrowBatch> split = batches
                .transform("KeyedSplit(" + name + ")", batches.getType(), new SplitOperator(keys, receivers))
                .setParallelism(batches.getParallelism());
        return new DataStream<>(
                batches.getExecutionEnvironment(),
                new PartitionTransformation<>(split.getTransformation(), new KeyGroupPartitioner()));
    }

    /**
     * How many key groups a split for {@code receivers} receivers uses: the splitting operator's
     * max parallelism ({@code own}), as Flink's key groups for the job, unless the receivers
     * outnumber it; then Flink's default for that many.
     */
    static int keyGroups(int receivers, int own) {
        return receivers <= own ? own : KeyGroupRangeAssignment.computeDefaultMaxParallelism(receivers);
    }

    /**
     * Splits each batch by key, emitting each part marked with its receiver's first key group.
     * Metrics in the {@code streamfusion} group: {@code rowsRouted}, {@code partsOut} and {@code
     * nativeBytes} (what the operator's Arrow allocator holds).
     */
    static final class SplitOperator extends NativeBatchOperator<NativeBatchRouter> {

        private static final long serialVersionUID = 1L;

        private final NativeBatchRouter.Keys keys;
        /** The receivers' parallelism, or {@code null} for this operator's. */
        private final Integer receivers;

        private transient Counter rowsRouted;
        private transient Counter partsOut;
        /** The key groups the receivers' keys are spread over. */
        private transient int maxParallelism;

        SplitOperator(NativeBatchRouter.Keys keys, Integer receivers) {
            this.keys = keys;
            this.receivers = receivers;
        }

        @Override
        public void open() throws Exception {
            super.open();
            rowsRouted = metrics().counter("rowsRouted");
            partsOut = metrics().counter("partsOut");
        }

        @Override
        protected NativeBatchRouter create(BufferAllocator allocator, Schema schema) {
            int own = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            int parallelism = receivers != null ? receivers : own;
            maxParallelism = keyGroups(parallelism, getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
            return NativeBatchRouter.create(allocator, schema, keys, parallelism, maxParallelism);
        }

        @Override
        protected void process(NativeBatchRouter router, VectorSchemaRoot batch) {
            int parts = router.route(batch);
            rowsRouted.inc(batch.getRowCount());
            for (int i = 0; i < parts; i++) {
                VectorSchemaRoot part = router.nextPart();
                try {
                    emit(part, router.keyGroup(i), maxParallelism);
                    partsOut.inc();
                } finally {
                    // The receiver has its copy: the part's buffers (which may be the input's) go now.
                    part.clear();
                }
            }
        }
    }

    /** Sends each batch to the subtask owning the key group the split marked it with. */
    static final class KeyGroupPartitioner extends StreamPartitioner<ArrowBatch> {

        private static final long serialVersionUID = 1L;

        @Override
        public int selectChannel(SerializationDelegate<StreamRecord<ArrowBatch>> record) {
            ArrowBatch batch = record.getInstance().getValue();
            if (batch.keyGroup() < 0) {
                throw new IllegalStateException("a batch reached a keyed exchange without being split by key");
            }
            return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                    batch.maxParallelism(), numberOfChannels, batch.keyGroup());
        }

        @Override
        public StreamPartitioner<ArrowBatch> copy() {
            return this;
        }

        /**
         * Batches in flight when an unaligned checkpoint was taken go to any receiver on a restore
         * at another parallelism: their receivers keep no state by key today. (A received batch
         * carries no key group, so the range mapping, which filters replayed records by their
         * channel, could not place them; keyed state behind this exchange will need the key group
         * serialized with the batch.)
         */
        @Override
        public SubtaskStateMapper getDownstreamSubtaskStateMapper() {
            return SubtaskStateMapper.ARBITRARY;
        }

        @Override
        public boolean isPointwise() {
            return false;
        }

        @Override
        public String toString() {
            return "KEY_GROUPS";
        }
    }
}
