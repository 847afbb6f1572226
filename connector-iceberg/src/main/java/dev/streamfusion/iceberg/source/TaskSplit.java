package dev.streamfusion.iceberg.source;

import dev.streamfusion.iceberg.internal.TaskDescription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A combined scan task Iceberg Java planned (one or more file tasks, read one after another), and
 * how far it was read: the file task being read and the rows of it emitted.
 */
@Internal
public final class TaskSplit implements SourceSplit {

    final String id;
    final List<TaskDescription> tasks;
    /** The index of the task being read. */
    final int task;
    /** Rows of {@link #task} emitted before the checkpoint this split was restored from. */
    final long emitted;

    TaskSplit(String id, List<TaskDescription> tasks, int task, long emitted) {
        this.id = id;
        this.tasks = List.copyOf(tasks);
        this.task = task;
        this.emitted = emitted;
    }

    TaskSplit at(int taskIndex, long emittedRows) {
        return new TaskSplit(id, tasks, taskIndex, emittedRows);
    }

    @Override
    public String splitId() {
        return id;
    }

    @Override
    public String toString() {
        return "split " + id + " of " + tasks.size() + " file task(s) (" + tasks + "), at task " + task + " row " + emitted;
    }

    /** Writes a split as its id, its tasks (JSON, path, rows, and for Iceberg Java's reader its parts), and its position. */
    static final class Serializer implements SimpleVersionedSerializer<TaskSplit> {

        static final Serializer INSTANCE = new Serializer();
        /** 2: tasks for Iceberg Java's reader besides native ones; 3: metadata tables' tasks. */
        private static final int VERSION = 3;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(TaskSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            write(split, out);
            return out.getCopyOfBuffer();
        }

        static void write(TaskSplit split, DataOutputSerializer out) throws IOException {
            out.writeUTF(split.id);
            out.writeInt(split.tasks.size());
            for (TaskDescription task : split.tasks) {
                // A task's JSON (its schema) may exceed writeUTF's 64 KiB.
                writeLongString(task.json(), out);
                out.writeUTF(task.path());
                out.writeLong(task.rows());
                out.writeBoolean(task.readByJava());
                if (task.readByJava()) {
                    writeLongString(task.javaReason(), out);
                    writeInts(task.projectedIds(), out);
                    out.writeBoolean(task.nameMapping() != null);
                    if (task.nameMapping() != null) {
                        writeLongString(task.nameMapping(), out);
                    }
                    out.writeBoolean(task.caseSensitive());
                    out.writeBoolean(task.isMetadata());
                    if (task.isMetadata()) {
                        writeInts(task.rowPositions(), out);
                    }
                }
            }
            out.writeInt(split.task);
            out.writeLong(split.emitted);
        }

        private static void writeInts(int[] values, DataOutputSerializer out) throws IOException {
            out.writeInt(values.length);
            for (int value : values) {
                out.writeInt(value);
            }
        }

        private static int[] readInts(DataInputDeserializer in) throws IOException {
            int[] values = new int[in.readInt()];
            for (int i = 0; i < values.length; i++) {
                values[i] = in.readInt();
            }
            return values;
        }

        private static void writeLongString(String text, DataOutputSerializer out) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
        }

        private static String readLongString(DataInputDeserializer in) throws IOException {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public TaskSplit deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(version);
            return read(new DataInputDeserializer(serialized), version);
        }

        static void checkVersion(int version) throws IOException {
            if (version < 1 || version > VERSION) {
                throw new IOException("Unknown version " + version + " of an Iceberg task split");
            }
        }

        /** A split {@link #write} wrote, at serializer version {@code version} (see {@link #VERSION}). */
        static TaskSplit read(DataInputDeserializer in, int version) throws IOException {
            String id = in.readUTF();
            int count = in.readInt();
            List<TaskDescription> tasks = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String json = readLongString(in);
                String path = in.readUTF();
                long rows = in.readLong();
                if (version >= 2 && in.readBoolean()) {
                    String reason = readLongString(in);
                    int[] ids = readInts(in);
                    String nameMapping = in.readBoolean() ? readLongString(in) : null;
                    boolean caseSensitive = in.readBoolean();
                    int[] rowPositions = version >= 3 && in.readBoolean() ? readInts(in) : null;
                    tasks.add(TaskDescription.javaFromJson(json, path, rows, reason, ids, nameMapping, caseSensitive, rowPositions));
                } else {
                    tasks.add(TaskDescription.fromJson(json, path, rows));
                }
            }
            return new TaskSplit(id, tasks, in.readInt(), in.readLong());
        }
    }
}
