package dev.streamfusion.bridge.batch;

import dev.streamfusion.bridge.NativeConfigException;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.plugable.SerializationDelegate;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A keyed exchange splits each batch natively so that every key meets at one subtask. */
class KeyedBatchesTest {

    private static final int ROWS = 500;

    /** Rows {@code id} = 0..ROWS with a key of 11 values and NULL. */
    private static VectorSchemaRoot batch(BufferAllocator allocator) {
        IntVector ids = new IntVector("id", allocator);
        VarCharVector keys = new VarCharVector("key", allocator);
        ids.allocateNew(ROWS);
        keys.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            ids.set(i, i);
            if (i % 12 == 0) {
                keys.setNull(i);
            } else {
                keys.setSafe(i, ("k" + i % 12).getBytes(StandardCharsets.UTF_8));
            }
        }
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids, keys));
        root.setRowCount(ROWS);
        return root;
    }

    @Test
    void everyRowGoesOnceAndEveryKeyToTheSubtaskOwningItsKeyGroup() {
        KeyedBatches.KeyGroupPartitioner partitioner = new KeyedBatches.KeyGroupPartitioner();
        partitioner.setup(3);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = batch(allocator);
                NativeBatchRouter router = NativeBatchRouter.create(
                        allocator, root.getSchema(), NativeBatchRouter.Keys.columns(1), 3, 128)) {
            Map<String, Integer> subtaskOfKey = new HashMap<>();
            List<Integer> partsPerRound = new ArrayList<>();
            for (int round = 0; round < 2; round++) {
                int parts = router.route(root);
                partsPerRound.add(parts);
                Set<Integer> seen = new HashSet<>();
                for (int p = 0; p < parts; p++) {
                    int channel = KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(128, 3, router.keyGroup(p));
                    assertThat(router.keyGroup(p))
                            .as("the first key group of its subtask")
                            .isEqualTo(KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 3, channel)
                                    .getStartKeyGroup());
                    VectorSchemaRoot part = router.nextPart();
                    assertThat(selected(partitioner, new ArrowBatch().of(part).toKeyGroup(router.keyGroup(p), 128)))
                            .isEqualTo(channel);
                    IntVector ids = (IntVector) part.getVector("id");
                    VarCharVector keys = (VarCharVector) part.getVector("key");
                    int last = -1;
                    for (int i = 0; i < part.getRowCount(); i++) {
                        int id = ids.get(i);
                        assertThat(id).as("rows keep their order").isGreaterThan(last);
                        last = id;
                        assertThat(seen.add(id)).as("row %d once", id).isTrue();
                        String key = keys.isNull(i) ? null : new String(keys.get(i), StandardCharsets.UTF_8);
                        assertThat(key).isEqualTo(id % 12 == 0 ? null : "k" + id % 12);
                        Integer owner = subtaskOfKey.putIfAbsent(String.valueOf(key), channel);
                        assertThat(owner == null ? channel : owner).as("key %s", key).isEqualTo(channel);
                    }
                }
                assertThat(seen).hasSize(ROWS);
            }
            assertThat(partsPerRound.get(0)).isGreaterThan(1).isEqualTo(partsPerRound.get(1));
            assertThat(new HashSet<>(subtaskOfKey.values())).hasSizeGreaterThan(1);
        }
    }

    @Test
    void aReceiverAtAnotherParallelismGetsEachPartByItsKeyGroup() {
        KeyedBatches.KeyGroupPartitioner partitioner = new KeyedBatches.KeyGroupPartitioner();
        partitioner.setup(2);
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = batch(allocator)) {
            // Split for 4 subtasks, received by 2: the parts of subtasks 0 and 1 meet at 0.
            ArrowBatch batch = new ArrowBatch().of(root);
            assertThat(selected(partitioner, batch.toKeyGroup(0, 128))).isEqualTo(0);
            assertThat(selected(partitioner, batch.toKeyGroup(32, 128))).isEqualTo(0);
            assertThat(selected(partitioner, batch.toKeyGroup(64, 128))).isEqualTo(1);
            assertThat(selected(partitioner, batch.toKeyGroup(96, 128))).isEqualTo(1);
            assertThatThrownBy(() -> selected(partitioner, batch.of(root)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("without being split by key");
        }
    }

    @Test
    void aBatchReceivedFromAnExchangeIsRoutedWhereverItsDecimalsLie() throws Exception {
        ArrowBatchSerializer serializer = new ArrowBatchSerializer();
        // In the received batch, the buffers lie where the IPC message put them: with 500 INT ids
        // before them, a DECIMAL's values start 16-byte aligned; with 502, 8 bytes off.
        for (int rows : new int[] {ROWS, ROWS + 2}) {
            try (BufferAllocator allocator = new RootAllocator();
                    IntVector ids = new IntVector("id", allocator);
                    DecimalVector prices = new DecimalVector("price", allocator, 10, 2)) {
                ids.allocateNew(rows);
                prices.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    ids.set(i, i);
                    prices.set(i, BigDecimal.valueOf(i % 7, 2));
                }
                VectorSchemaRoot sent = new VectorSchemaRoot(List.of(ids, prices));
                sent.setRowCount(rows);
                DataOutputSerializer out = new DataOutputSerializer(64);
                serializer.serialize(new ArrowBatch().of(sent), out);
                ArrowBatch received = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
                try (NativeBatchRouter router = NativeBatchRouter.create(
                        allocator, received.root().getSchema(), NativeBatchRouter.Keys.columns(1), 2, 128)) {
                    int parts = router.route(received.root());
                    int routed = 0;
                    for (int p = 0; p < parts; p++) {
                        VectorSchemaRoot part = router.nextPart();
                        DecimalVector partPrices = (DecimalVector) part.getVector("price");
                        IntVector partIds = (IntVector) part.getVector("id");
                        for (int i = 0; i < part.getRowCount(); i++) {
                            assertThat(partPrices.getObject(i)).isEqualTo(BigDecimal.valueOf(partIds.get(i) % 7, 2));
                        }
                        routed += part.getRowCount();
                    }
                    assertThat(routed).isEqualTo(rows);
                } finally {
                    received.release();
                }
            }
        }
    }

    @Test
    void moreReceiversThanTheSplittersKeyGroupsGetKeyGroupsEnough() {
        assertThat(KeyedBatches.keyGroups(2, 128)).isEqualTo(128);
        assertThat(KeyedBatches.keyGroups(128, 128)).isEqualTo(128);
        assertThat(KeyedBatches.keyGroups(200, 128)).isEqualTo(512).isGreaterThanOrEqualTo(200);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = batch(allocator);
                NativeBatchRouter router = NativeBatchRouter.create(
                        allocator, root.getSchema(), NativeBatchRouter.Keys.columns(1), 200, KeyedBatches.keyGroups(200, 128))) {
            assertThat(router.route(root)).isGreaterThan(1);
        }
    }

    @Test
    void keysThatDoNotFitTheBatchAreRefusedWhenTheRouterIsMade() {
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = batch(allocator)) {
            assertThatThrownBy(() -> NativeBatchRouter.create(
                    allocator, root.getSchema(), NativeBatchRouter.Keys.columns(2), 2, 128))
                    .isInstanceOf(NativeConfigException.class)
                    .hasMessageContaining("key column 2 of a batch of 2 columns");
            assertThatThrownBy(() -> NativeBatchRouter.create(
                    allocator, root.getSchema(), NativeBatchRouter.Keys.columns(0), 4, 2))
                    .isInstanceOf(NativeConfigException.class)
                    .hasMessageContaining("parallelism");
        }
    }

    private static int selected(KeyedBatches.KeyGroupPartitioner partitioner, ArrowBatch batch) {
        SerializationDelegate<StreamRecord<ArrowBatch>> delegate = new SerializationDelegate<>(null);
        delegate.setInstance(new StreamRecord<>(batch));
        return partitioner.selectChannel(delegate);
    }
}
