package dev.streamfusion.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

/** Tables written outside Flink, by Iceberg Java's generic writers: data files, position and equality deletes. */
final class IcebergJavaTables {

    private IcebergJavaTables() {}

    /** Every primitive type iceberg-flink reads, and nested ones; every optional column has NULLs. */
    static final Schema TYPES = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "b", Types.BooleanType.get()),
            optional(3, "i", Types.IntegerType.get()),
            optional(4, "l", Types.LongType.get()),
            optional(5, "f", Types.FloatType.get()),
            optional(6, "d", Types.DoubleType.get()),
            optional(7, "dt", Types.DateType.get()),
            optional(8, "tm", Types.TimeType.get()),
            optional(9, "ts", Types.TimestampType.withoutZone()),
            optional(10, "tstz", Types.TimestampType.withZone()),
            optional(11, "s", Types.StringType.get()),
            optional(12, "u", Types.UUIDType.get()),
            optional(13, "fx", Types.FixedType.ofLength(3)),
            optional(14, "bin", Types.BinaryType.get()),
            optional(15, "amount", Types.DecimalType.of(10, 2)),
            optional(16, "wide", Types.DecimalType.of(38, 10)),
            optional(17, "tags", Types.ListType.ofOptional(20, Types.StringType.get())),
            optional(18, "attrs", Types.MapType.ofOptional(21, 22, Types.StringType.get(), Types.IntegerType.get())),
            optional(19, "pt", Types.StructType.of(
                    optional(23, "x", Types.DoubleType.get()),
                    optional(24, "label", Types.StringType.get()))));

    /** {@code count} rows of {@link #TYPES} with ids from {@code firstId}, about a tenth of each optional value NULL. */
    static List<Record> typedRows(long firstId, int count, long seed) {
        Random random = new Random(seed);
        List<Record> rows = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            GenericRecord r = GenericRecord.create(TYPES);
            r.setField("id", firstId + n);
            r.setField("b", maybe(random, random.nextBoolean()));
            r.setField("i", maybe(random, random.nextInt()));
            r.setField("l", maybe(random, random.nextLong()));
            r.setField("f", maybe(random, random.nextFloat() * 1000 - 500));
            r.setField("d", maybe(random, random.nextGaussian() * 1e6));
            r.setField("dt", maybe(random, LocalDate.ofEpochDay(random.nextInt(40000) - 10000)));
            r.setField("tm", maybe(random, LocalTime.ofNanoOfDay(random.nextInt(86_400_000) * 1_000_000L + random.nextInt(1000) * 1000L)));
            LocalDateTime ts = LocalDateTime.ofEpochSecond(random.nextInt(2_000_000_000), random.nextInt(1_000_000) * 1000, ZoneOffset.UTC);
            r.setField("ts", maybe(random, ts));
            r.setField("tstz", maybe(random, OffsetDateTime.ofInstant(Instant.ofEpochSecond(random.nextInt(2_000_000_000), random.nextInt(1_000_000) * 1000L), ZoneOffset.UTC)));
            r.setField("s", maybe(random, "s" + random.nextInt(1000) + "é"));
            r.setField("u", maybe(random, new UUID(random.nextLong(), random.nextLong())));
            byte[] fixed = new byte[3];
            random.nextBytes(fixed);
            r.setField("fx", maybe(random, fixed));
            byte[] bin = new byte[random.nextInt(6)];
            random.nextBytes(bin);
            r.setField("bin", maybe(random, ByteBuffer.wrap(bin)));
            r.setField("amount", maybe(random, BigDecimal.valueOf(random.nextInt(2_000_000_000) - 1_000_000_000L, 2)));
            r.setField("wide", maybe(random, new BigDecimal(new java.math.BigInteger(100, random), 10)));
            List<String> tags = new ArrayList<>();
            for (int t = random.nextInt(3); t > 0; t--) {
                tags.add(random.nextInt(5) == 0 ? null : "t" + random.nextInt(10));
            }
            r.setField("tags", maybe(random, tags));
            java.util.Map<String, Integer> attrs = new java.util.HashMap<>();
            for (int a = random.nextInt(3); a > 0; a--) {
                attrs.put("k" + random.nextInt(10), random.nextInt(5) == 0 ? null : random.nextInt(100));
            }
            r.setField("attrs", maybe(random, attrs));
            GenericRecord pt = GenericRecord.create(TYPES.findType("pt").asStructType());
            pt.setField("x", maybe(random, random.nextDouble()));
            pt.setField("label", maybe(random, "p" + random.nextInt(50)));
            r.setField("pt", maybe(random, pt));
            rows.add(r);
        }
        return rows;
    }

    private static <T> T maybe(Random random, T value) {
        return random.nextInt(10) == 0 ? null : value;
    }

    private static GenericFileWriterFactory writers(Table table, int[] equalityIds, Schema equalitySchema) {
        return writers(table, FileFormat.PARQUET, equalityIds, equalitySchema);
    }

    private static GenericFileWriterFactory writers(Table table, FileFormat format, int[] equalityIds, Schema equalitySchema) {
        GenericFileWriterFactory.Builder builder = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(format)
                .deleteFileFormat(FileFormat.PARQUET);
        if (equalityIds != null) {
            builder.equalityFieldIds(equalityIds).equalityDeleteRowSchema(equalitySchema);
        }
        return builder.build();
    }

    private static EncryptedOutputFile newFile(Table table, String name) {
        return table.encryption().encrypt(table.io().newOutputFile(table.locationProvider().newDataLocation(name)));
    }

    /** Writes {@code rows} as one Parquet data file of the unpartitioned table (not committed). */
    static DataFile writeData(Table table, List<Record> rows, String name) throws IOException {
        return writeData(table, rows, name, null);
    }

    /** Writes {@code rows} as one data file of {@code partition} (not committed). */
    static DataFile writeData(Table table, List<Record> rows, String name, StructLike partition) throws IOException {
        return writeData(table, rows, name, partition, FileFormat.PARQUET);
    }

    /** Writes {@code rows} as one data file of {@code format} and {@code partition} (not committed). */
    static DataFile writeData(Table table, List<Record> rows, String name, StructLike partition, FileFormat format)
            throws IOException {
        DataWriter<Record> writer = writers(table, format, null, null)
                .newDataWriter(newFile(table, format.addExtension(name)), table.spec(), partition);
        try (DataWriter<Record> w = writer) {
            for (Record row : rows) {
                w.write(row);
            }
        }
        return writer.toDataFile();
    }

    /** Appends {@code rows} as one data file, in its own commit. */
    static DataFile append(Table table, List<Record> rows, String name) throws IOException {
        DataFile file = writeData(table, rows, name);
        table.newAppend().appendFile(file).commit();
        return file;
    }

    /**
     * Appends the Parquet file {@code written} (by any table) to {@code table}, recorded with only
     * its path, size and row count (no metrics, no split offsets), in {@code partitionPath} (or
     * none), as a file added from outside Iceberg is.
     */
    static void appendAsBareFile(Table table, DataFile written, String partitionPath) {
        org.apache.iceberg.DataFiles.Builder file = org.apache.iceberg.DataFiles.builder(table.spec())
                .withPath(written.location())
                .withFileSizeInBytes(written.fileSizeInBytes())
                .withRecordCount(written.recordCount())
                .withFormat(FileFormat.PARQUET);
        if (partitionPath != null) {
            file.withPartitionPath(partitionPath);
        }
        table.newAppend().appendFile(file.build()).commit();
    }

    /** Appends {@code rows} as one data file of {@code format} to the unpartitioned table, in its own commit. */
    static DataFile append(Table table, List<Record> rows, String name, FileFormat format) throws IOException {
        DataFile file = writeData(table, rows, name, null, format);
        table.newAppend().appendFile(file).commit();
        return file;
    }

    /** A deletion vector (format v3) deleting {@code positions} of {@code dataFile} (not committed). */
    static DeleteFile deletionVector(Table table, DataFile dataFile, List<Long> positions, String name) throws IOException {
        BaseDVFileWriter writer = new BaseDVFileWriter(
                () -> table.io().newOutputFile(table.locationProvider().newDataLocation(name + ".puffin")), path -> null);
        try (BaseDVFileWriter w = writer) {
            for (long position : positions) {
                w.delete(dataFile.location(), position, table.spec(), null);
            }
        }
        List<DeleteFile> files = writer.result().deleteFiles();
        if (files.size() != 1) {
            throw new IllegalStateException("Expected one deletion vector, got " + files);
        }
        return files.get(0);
    }

    /**
     * An equality delete file deleting the rows whose string field {@code field} of the struct
     * column {@code struct} is in {@code values} (not committed).
     */
    static DeleteFile nestedEqualityDeletes(Table table, String struct, String field, List<String> values, String name)
            throws IOException {
        Schema deleteSchema = table.schema().select(struct + "." + field);
        int id = table.schema().findField(struct + "." + field).fieldId();
        EqualityDeleteWriter<Record> writer = writers(table, new int[] {id}, deleteSchema)
                .newEqualityDeleteWriter(newFile(table, name + ".parquet"), PartitionSpec.unpartitioned(), null);
        try (EqualityDeleteWriter<Record> w = writer) {
            for (String value : values) {
                GenericRecord inner = GenericRecord.create(deleteSchema.findType(struct).asStructType());
                inner.setField(field, value);
                GenericRecord r = GenericRecord.create(deleteSchema);
                r.setField(struct, inner);
                w.write(r);
            }
        }
        return writer.toDeleteFile();
    }

    /** A position delete file deleting {@code positions} of {@code dataFile} (not committed). */
    static DeleteFile positionDeletes(Table table, DataFile dataFile, List<Long> positions, String name) throws IOException {
        PositionDeleteWriter<Record> writer = writers(table, null, null)
                .newPositionDeleteWriter(newFile(table, name + ".parquet"), PartitionSpec.unpartitioned(), null);
        try (PositionDeleteWriter<Record> w = writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            for (long position : positions) {
                w.write(delete.set(dataFile.location(), position));
            }
        }
        return writer.toDeleteFile();
    }

    /** An equality delete file deleting the rows whose {@code column} (a long) is in {@code values}. */
    static DeleteFile equalityDeletes(Table table, String column, List<Long> values, String name) throws IOException {
        Schema deleteSchema = table.schema().select(column);
        int id = table.schema().findField(column).fieldId();
        EqualityDeleteWriter<Record> writer = writers(table, new int[] {id}, deleteSchema)
                .newEqualityDeleteWriter(newFile(table, name + ".parquet"), PartitionSpec.unpartitioned(), null);
        try (EqualityDeleteWriter<Record> w = writer) {
            for (long value : values) {
                GenericRecord r = GenericRecord.create(deleteSchema);
                r.setField(column, value);
                w.write(r);
            }
        }
        return writer.toDeleteFile();
    }

    /** Appends {@code rows} in one commit, one data file per partition of the table's spec. */
    static void appendPartitioned(Table table, List<Record> rows, String name) throws IOException {
        java.util.Map<org.apache.iceberg.PartitionKey, List<Record>> byPartition = new java.util.LinkedHashMap<>();
        org.apache.iceberg.data.InternalRecordWrapper wrapper = new org.apache.iceberg.data.InternalRecordWrapper(table.schema().asStruct());
        for (Record row : rows) {
            org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(table.spec(), table.schema());
            key.partition(wrapper.wrap(row));
            byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
        }
        org.apache.iceberg.AppendFiles append = table.newAppend();
        int n = 0;
        for (java.util.Map.Entry<org.apache.iceberg.PartitionKey, List<Record>> partition : byPartition.entrySet()) {
            append.appendFile(writeData(table, partition.getValue(), name + "-" + n++, partition.getKey()));
        }
        append.commit();
    }
}
