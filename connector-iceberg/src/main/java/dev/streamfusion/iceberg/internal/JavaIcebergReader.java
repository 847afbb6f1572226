package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A file task the native reader cannot read correctly (an Avro or ORC data file, a deletion vector, an
 * equality delete on a nested field), read by Iceberg Java's generic reader: the data file's
 * records of the projected columns (identity partition values as constants), every delete file
 * applied by Iceberg's {@link GenericDeleteFilter}, turned into Flink's values as iceberg-flink
 * reads them and written into Arrow batches of the same layout as the native reader's.
 */
@Internal
final class JavaIcebergReader extends ConvertedRowsReader<Record> {

    private JavaIcebergReader(
            String path,
            CloseableIterable<Record> records,
            RowDataArrowWriter writer,
            int batchSize,
            int[] positions,
            List<Function<Object, Object>> converters) {
        super(path, records, writer, batchSize, positions, converters);
    }

    /**
     * A reader of {@code task} (one for Iceberg Java, {@link TaskDescription#readByJava()}) through
     * the table's {@code io} (built here, so that a failure to build it names the file too).
     */
    static JavaIcebergReader open(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, Supplier<FileIO> io)
            throws IOException {
        try {
            return create(allocator, task, rowType, batchSize, io.get());
        } catch (RuntimeException e) {
            throw new IOException("Cannot read " + task.path() + ": " + e.getMessage(), e);
        }
    }

    private static JavaIcebergReader create(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, FileIO io) throws IOException {
        FileScanTask fileTask = ScanTaskParser.fromJson(task.json(), task.caseSensitive());
        Schema tableSchema = fileTask.schema();
        int[] ids = task.projectedIds();
        Set<Integer> idSet = new HashSet<>();
        for (int id : ids) {
            idSet.add(id);
        }
        Schema projection = TypeUtil.select(tableSchema, idSet);
        GenericDeleteFilter deletes = new GenericDeleteFilter(io, fileTask, tableSchema, projection);
        Schema required = deletes.requiredSchema();
        List<Types.NestedField> fields = required.columns();
        int[] positions = new int[ids.length];
        List<Function<Object, Object>> converters = converters(rowType);
        for (int c = 0; c < ids.length; c++) {
            positions[c] = -1;
            for (int p = 0; p < fields.size(); p++) {
                if (fields.get(p).fieldId() == ids[c]) {
                    positions[c] = p;
                }
            }
            if (positions[c] < 0) {
                throw new IOException("Cannot read " + task.path() + ": its schema has no field " + ids[c]);
            }
        }
        NameMapping mapping = task.nameMapping() == null ? null : NameMappingParser.fromJson(task.nameMapping());
        CloseableIterable<Record> file = openFile(fileTask, required, mapping, task.caseSensitive(), io);
        CloseableIterable<Record> records = deletes.filter(file);
        RowDataArrowWriter writer = RowDataArrowWriter.create(rowType, allocator);
        try {
            return new JavaIcebergReader(task.path(), records, writer, batchSize, positions, converters);
        } catch (RuntimeException e) {
            writer.close();
            try {
                records.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * The records of {@code task}'s data file (its split) of the {@code required} columns, through
     * the generic format model Iceberg registers for its format (Parquet, Avro, ORC): only Iceberg
     * types cross here, so the format libraries stay Iceberg's own, relocated or not.
     */
    private static CloseableIterable<Record> openFile(
            FileScanTask task, Schema required, NameMapping mapping, boolean caseSensitive, FileIO io) {
        InputFile input = io.newInputFile(task.file());
        ReadBuilder<Record, ?> read = FormatModelRegistry.<Record, Object>readBuilder(task.file().format(), Record.class, input)
                .project(required)
                .split(task.start(), task.length())
                .caseSensitive(caseSensitive)
                .filter(task.residual())
                .reuseContainers()
                .idToConstant(PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant));
        if (mapping != null) {
            read = read.withNameMapping(mapping);
        }
        return read.build();
    }
}
