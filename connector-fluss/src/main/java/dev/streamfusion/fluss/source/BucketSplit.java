package dev.streamfusion.fluss.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * One bucket of a Fluss log table, read from an offset on: the offset of the next record to emit
 * ({@code LogScanner.EARLIEST_OFFSET} for the log's first).
 */
@Internal
public final class BucketSplit implements SourceSplit {

    final int bucket;
    final long offset;

    BucketSplit(int bucket, long offset) {
        this.bucket = bucket;
        this.offset = offset;
    }

    @Override
    public String splitId() {
        return "bucket-" + bucket;
    }

    @Override
    public String toString() {
        return splitId() + "@" + offset;
    }

    /** The mutable position of a split being read: the offset after the last record emitted. */
    static final class State {
        final int bucket;
        long offset;

        State(BucketSplit split) {
            this.bucket = split.bucket;
            this.offset = split.offset;
        }

        BucketSplit toSplit() {
            return new BucketSplit(bucket, offset);
        }
    }

    /** Splits as bytes: version 1 is the bucket then the offset. */
    static final class Serializer implements SimpleVersionedSerializer<BucketSplit> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(BucketSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(split.bucket);
                out.writeLong(split.offset);
            }
            return bytes.toByteArray();
        }

        @Override
        public BucketSplit deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("Unknown version " + version + " of a Fluss bucket split");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return new BucketSplit(in.readInt(), in.readLong());
            }
        }
    }
}
