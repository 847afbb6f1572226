package dev.streamfusion.bridge.batch;

import dev.streamfusion.bridge.NativeBatchTransform;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.Serializable;

/**
 * A keyed exchange's split of batches ({@code crates/operators/src/exchange.rs}): each batch's
 * rows divided by the hash of their key among the receiving subtasks, as Flink's key groups divide
 * keys, one part per subtask that gets rows. {@link #route} splits a batch, {@link #nextPart}
 * hands the parts over in turn.
 */
@Internal
public final class NativeBatchRouter extends NativeBatchTransform {

    /** What a row's key is, described for the native router. */
    public static final class Keys implements Serializable {
        private static final long serialVersionUID = 1L;

        private final String json;

        private Keys(String json) {
            this.json = json;
        }

        /** The values of the top-level columns {@code columns}. */
        public static Keys columns(int... columns) {
            StringBuilder json = new StringBuilder("{\"columns\":[");
            for (int i = 0; i < columns.length; i++) {
                json.append(i == 0 ? "" : ",").append(columns[i]);
            }
            return new Keys(json.append("]}").toString());
        }

        /**
         * The row's partition in the Iceberg table the writer description {@code description}
         * (the native Iceberg writer's JSON) describes, as its writers compute it.
         */
        public static Keys icebergPartition(String description) {
            return new Keys("{\"iceberg-partition\":" + quote(description) + "}");
        }

        private static String quote(String text) {
            StringBuilder quoted = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    quoted.append('\\').append(c);
                } else if (c < 0x20) {
                    quoted.append(String.format("\\u%04x", (int) c));
                } else {
                    quoted.append(c);
                }
            }
            return quoted.append('"').toString();
        }

        @Override
        public String toString() {
            return json;
        }
    }

    private int[] keyGroups = new int[0];

    private NativeBatchRouter(BufferAllocator allocator, Schema input, Created created) {
        super("batch router", allocator, input, created, NativeBatchRouter::free0);
    }

    /**
     * A router of batches of {@code input} by {@code keys} to {@code parallelism} subtasks owning
     * {@code maxParallelism} key groups between them.
     *
     * @throws dev.streamfusion.bridge.NativeConfigException when the keys do not fit the schema
     */
    public static NativeBatchRouter create(
            BufferAllocator allocator, Schema input, Keys keys, int parallelism, int maxParallelism) {
        return new NativeBatchRouter(allocator, input, create(allocator, input,
                (inSchema, outSchema) -> create(inSchema, keys.json, parallelism, maxParallelism, outSchema),
                NativeBatchRouter::free0));
    }

    /** Splits {@code batch}; returns how many parts it makes (none for an empty batch). */
    public int route(VectorSchemaRoot batch) {
        keyGroups = pass(batch, NativeBatchRouter::route0);
        return keyGroups.length;
    }

    /** The first key group of the subtask that part {@code part} of the last batch routed goes to. */
    public int keyGroup(int part) {
        return keyGroups[part];
    }

    /** The next part of the last batch routed, in part order; reused by the next call. */
    public VectorSchemaRoot nextPart() {
        return produce(NativeBatchRouter::part0);
    }

    private static native long create(long schemaAddress, String keys, int parallelism, int maxParallelism, long outSchemaAddress);

    private static native int[] route0(long handle, long arrayAddress);

    private static native int part0(long handle, long outArrayAddress);

    private static native void free0(long handle);
}
