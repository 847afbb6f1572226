package dev.streamfusion.parquet.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;

/**
 * One row group of one Parquet file (with the file's size and modification time, for metadata
 * columns), and how many of its rows were emitted already.
 */
@Internal
public final class RowGroupSplit implements SourceSplit {

    final String path;
    final int rowGroup;
    final long rows;
    final long fileSize;
    /** Milliseconds since the epoch. */
    final long modificationTime;
    /** Rows of the row group emitted before the checkpoint this split was restored from. */
    final long emitted;

    RowGroupSplit(String path, int rowGroup, long rows, long fileSize, long modificationTime, long emitted) {
        this.path = path;
        this.rowGroup = rowGroup;
        this.rows = rows;
        this.fileSize = fileSize;
        this.modificationTime = modificationTime;
        this.emitted = emitted;
    }

    RowGroupSplit withEmitted(long emittedRows) {
        return new RowGroupSplit(path, rowGroup, rows, fileSize, modificationTime, emittedRows);
    }

    @Override
    public String splitId() {
        return path + "#" + rowGroup;
    }

    @Override
    public String toString() {
        return "row group " + rowGroup + " of " + path + " (" + rows + " rows, " + emitted + " emitted)";
    }

    /** Writes splits as path, row group, rows, file size, modification time, rows emitted. */
    static final class Serializer implements SimpleVersionedSerializer<RowGroupSplit> {

        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 2;
        }

        @Override
        public byte[] serialize(RowGroupSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            write(split, out);
            return out.getCopyOfBuffer();
        }

        static void write(RowGroupSplit split, DataOutputSerializer out) throws IOException {
            out.writeUTF(split.path);
            out.writeInt(split.rowGroup);
            out.writeLong(split.rows);
            out.writeLong(split.fileSize);
            out.writeLong(split.modificationTime);
            out.writeLong(split.emitted);
        }

        @Override
        public RowGroupSplit deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(version);
            return read(new DataInputDeserializer(serialized));
        }

        static void checkVersion(int version) throws IOException {
            if (version != 2) {
                throw new IOException("Unknown version " + version + " of a Parquet row group split");
            }
        }

        static RowGroupSplit read(DataInputDeserializer in) throws IOException {
            return new RowGroupSplit(in.readUTF(), in.readInt(), in.readLong(), in.readLong(), in.readLong(), in.readLong());
        }
    }
}
