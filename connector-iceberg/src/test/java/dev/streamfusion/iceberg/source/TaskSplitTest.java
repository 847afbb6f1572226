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
                "{\"task-type\":\"file-scan-task\"}", "/t/b.avro", 7, "not native", new int[] {3, 1}, "[]", true);
        TaskDescription javaUnmapped = TaskDescription.javaFromJson("{}", "/t/c.orc", 2, "not native", new int[] {1}, null, false);
        TaskSplit split = new TaskSplit("bounded-3", List.of(nativeTask, javaTask, javaUnmapped), 1, 4);

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
    }

    @Test
    void aSplitOfTheFirstVersionReadsAsNativeTasks() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF("bounded-0");
        out.writeInt(1);
        byte[] json = "{\"path\":\"/t/a.parquet\"}".getBytes(StandardCharsets.UTF_8);
        out.writeInt(json.length);
        out.write(json);
        out.writeUTF("/t/a.parquet");
        out.writeLong(10);
        out.writeInt(0);
        out.writeLong(2);

        TaskSplit back = TaskSplit.Serializer.INSTANCE.deserialize(1, out.getCopyOfBuffer());

        assertThat(back.tasks).singleElement().satisfies(t -> {
            assertThat(t.readByJava()).isFalse();
            assertThat(t.path()).isEqualTo("/t/a.parquet");
        });
        assertThat(back.emitted).isEqualTo(2);
        assertThatThrownBy(() -> TaskSplit.Serializer.INSTANCE.deserialize(3, out.getCopyOfBuffer()))
                .hasMessageContaining("version 3");
    }
}
