package dev.streamfusion.iceberg.source;

import dev.streamfusion.iceberg.internal.TaskDescription;

import org.apache.flink.core.memory.DataOutputSerializer;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Splits and their tasks through the split serializer, at this version and the one before. */
class TaskSplitTest {

    @Test
    void nativeAndJavaTasksRoundTripWithTheirPosition() throws Exception {
        TaskDescription nativeTask = TaskDescription.fromJson("{\"path\":\"/t/a.parquet\"}", "/t/a.parquet", 10);
        TaskDescription javaTask = TaskDescription.javaFromJson(
                "{\"task-type\":\"file-scan-task\"}", "/t/b.avro", 7, "not native", new int[] {3, 1}, "[]", true, null);
        TaskDescription javaUnmapped =
                TaskDescription.javaFromJson("{}", "/t/c.orc", 2, "not native", new int[] {1}, null, false, null);
        TaskDescription metadata = TaskDescription.javaFromJson(
                "{\"task-type\":\"data-task\"}", "/t/metadata/v2.metadata.json", 3, "metadata", new int[] {7, 2}, null, true,
                new int[] {1, 0});
        TaskSplit split = new TaskSplit("bounded-3", List.of(nativeTask, javaTask, javaUnmapped, metadata), 1, 4);

        TaskSplit.Serializer serializer = TaskSplit.Serializer.INSTANCE;
        TaskSplit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(split));

        assertThat(back.splitId()).isEqualTo("bounded-3");
        assertThat(back.task).isEqualTo(1);
        assertThat(back.emitted).isEqualTo(4);
        assertThat(back.tasks.get(0).readByJava()).isFalse();
        assertThat(back.tasks.get(0).json()).isEqualTo(nativeTask.json());
        TaskDescription java = back.tasks.get(1);
        assertThat(java.readByJava()).isTrue();
        assertThat(java.json()).isEqualTo("{\"task-type\":\"file-scan-task\"}");
        assertThat(java.path()).isEqualTo("/t/b.avro");
        assertThat(java.rows()).isEqualTo(7);
        assertThat(java.javaReason()).isEqualTo("not native");
        assertThat(java.projectedIds()).containsExactly(3, 1);
        assertThat(java.nameMapping()).isEqualTo("[]");
        assertThat(java.caseSensitive()).isTrue();
        assertThat(back.tasks.get(2).nameMapping()).isNull();
        assertThat(back.tasks.get(2).caseSensitive()).isFalse();
        assertThat(java.isMetadata()).isFalse();
        TaskDescription rows = back.tasks.get(3);
        assertThat(rows.isMetadata()).isTrue();
        assertThat(rows.readByJava()).isTrue();
        assertThat(rows.json()).isEqualTo("{\"task-type\":\"data-task\"}");
        assertThat(rows.projectedIds()).containsExactly(7, 2);
        assertThat(rows.rowPositions()).containsExactly(1, 0);
    }

    @Test
    void aJavaTaskOfTheSecondVersionReadsAsADataFilesTask() throws Exception {
        DataOutputSerializer out = splitOfOneTask("bounded-1", "{}", "/t/b.avro", 7);
        out.writeBoolean(true);
        writeLongString("not native", out);
        out.writeInt(1);
        out.writeInt(5);
        out.writeBoolean(false);
        out.writeBoolean(true);
        out.writeInt(0);
        out.writeLong(3);

        TaskSplit back = TaskSplit.Serializer.INSTANCE.deserialize(2, out.getCopyOfBuffer());

        assertThat(back.tasks).singleElement().satisfies(t -> {
            assertThat(t.readByJava()).isTrue();
            assertThat(t.isMetadata()).isFalse();
            assertThat(t.projectedIds()).containsExactly(5);
            assertThat(t.caseSensitive()).isTrue();
        });
        assertThat(back.emitted).isEqualTo(3);
    }

    @Test
    void aSplitOfTheFirstVersionReadsAsNativeTasks() throws Exception {
        DataOutputSerializer out = splitOfOneTask("bounded-0", "{\"path\":\"/t/a.parquet\"}", "/t/a.parquet", 10);
        out.writeInt(0);
        out.writeLong(2);

        TaskSplit back = TaskSplit.Serializer.INSTANCE.deserialize(1, out.getCopyOfBuffer());

        assertThat(back.tasks).singleElement().satisfies(t -> {
            assertThat(t.readByJava()).isFalse();
            assertThat(t.path()).isEqualTo("/t/a.parquet");
        });
        assertThat(back.emitted).isEqualTo(2);
        assertThatThrownBy(() -> TaskSplit.Serializer.INSTANCE.deserialize(4, out.getCopyOfBuffer()))
                .hasMessageContaining("version 4");
    }

    /** The start of a split of one task as the serializer writes it, up to the task's rows. */
    private static DataOutputSerializer splitOfOneTask(String id, String json, String path, long rows) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(id);
        out.writeInt(1);
        writeLongString(json, out);
        out.writeUTF(path);
        out.writeLong(rows);
        return out;
    }

    private static void writeLongString(String text, DataOutputSerializer out) throws Exception {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }
}
