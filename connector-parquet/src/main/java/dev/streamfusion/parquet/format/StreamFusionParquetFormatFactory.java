package dev.streamfusion.parquet.format;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.internal.NativeParquetReader;
import dev.streamfusion.parquet.internal.NativeParquetWriter;
import dev.streamfusion.parquet.sink.NativeParquetWriterFactory;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.table.factories.BulkReaderFormatFactory;
import org.apache.flink.connector.file.table.factories.BulkWriterFormatFactory;
import org.apache.flink.connector.file.table.format.BulkDecodingFormat;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The native Parquet writer and reader as a bulk format of Flink's file connectors ({@code
 * 'format' = 'streamfusion-parquet'}), which {@code 'connector' = 'streamfusion-parquet'} tables
 * write through (and read back with, when Flink's file sink compacts). Its options are the {@code
 * parquet.*} options of Flink's parquet format, checked at planning, and {@code memory-limit}
 * (see {@link MemoryLimit}).
 */
@Internal
public final class StreamFusionParquetFormatFactory implements BulkWriterFormatFactory, BulkReaderFormatFactory {

    public static final String IDENTIFIER = "streamfusion-parquet";

    static final ConfigOption<MemorySize> MEMORY_LIMIT =
            ConfigOptions.key(MemoryLimit.FORMAT_OPTION)
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "What the part files one subtask writes, or the file it reads, may hold outside the Java heap.");

    /** The writer option choosing {@code INT64} timestamps, under its {@code parquet.} name. */
    private static final String INT64_TIMESTAMPS = "parquet.write.int64.timestamp";

    /** The types Flink's own Parquet writer writes. */
    private static final Set<LogicalTypeRoot> WRITABLE =
            EnumSet.of(
                    LogicalTypeRoot.CHAR,
                    LogicalTypeRoot.VARCHAR,
                    LogicalTypeRoot.BOOLEAN,
                    LogicalTypeRoot.BINARY,
                    LogicalTypeRoot.VARBINARY,
                    LogicalTypeRoot.DECIMAL,
                    LogicalTypeRoot.TINYINT,
                    LogicalTypeRoot.SMALLINT,
                    LogicalTypeRoot.INTEGER,
                    LogicalTypeRoot.BIGINT,
                    LogicalTypeRoot.FLOAT,
                    LogicalTypeRoot.DOUBLE,
                    LogicalTypeRoot.DATE,
                    LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE,
                    LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
                    LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE,
                    LogicalTypeRoot.ARRAY,
                    LogicalTypeRoot.MAP,
                    LogicalTypeRoot.MULTISET,
                    LogicalTypeRoot.ROW);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        // Writer options are free-form like parquet-java's; the native writer checks them.
        return Collections.singleton(MEMORY_LIMIT);
    }

    @Override
    public EncodingFormat<BulkWriter.Factory<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        Map<String, String> options = checkedOptions(context, formatOptions);
        String table = context.getObjectIdentifier().asSummaryString();
        MemoryLimit limit = MemoryLimit.of(formatOptions, MEMORY_LIMIT, table);
        return new EncodingFormat<>() {
            @Override
            public BulkWriter.Factory<RowData> createRuntimeEncoder(DynamicTableSink.Context sinkContext, DataType type) {
                RowType rowType = (RowType) type.getLogicalType();
                boolean int64Timestamps = Boolean.parseBoolean(options.get(INT64_TIMESTAMPS));
                for (RowType.RowField field : rowType.getFields()) {
                    checkWritable(table, field.getName(), field.getType(), false, int64Timestamps);
                }
                return new NativeParquetWriterFactory(rowType, options, table, limit);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    @Override
    public BulkDecodingFormat<RowData> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        boolean utcTimestamps = NativeParquetReader.utcTimestamps(checkedOptions(context, formatOptions));
        MemoryLimit limit = MemoryLimit.of(formatOptions, MEMORY_LIMIT, context.getObjectIdentifier().asSummaryString());
        return new BulkDecodingFormat<>() {
            @Override
            public BulkFormat<RowData, FileSourceSplit> createRuntimeDecoder(
                    DynamicTableSource.Context sourceContext, DataType type) {
                return new NativeParquetBulkFormat(
                        (RowType) type.getLogicalType(), sourceContext.createTypeInformation(type), utcTimestamps, limit);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    /**
     * The format's options under their {@code parquet.} names, checked: an unknown or malformed
     * one fails naming it.
     */
    private static Map<String, String> checkedOptions(DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        Map<String, String> options = new HashMap<>();
        if (formatOptions instanceof Configuration) {
            ((Configuration) formatOptions)
                    .toMap()
                    .forEach((key, value) -> {
                        if (!key.equals(MEMORY_LIMIT.key())) {
                            options.put("parquet." + key, value);
                        }
                    });
        }
        checkOptions(context.getObjectIdentifier().asSummaryString(), options);
        return options;
    }

    /**
     * Checks a table's Parquet options ({@code parquet.*} names), read and write ones alike, as a
     * table is read and written with the same options.
     *
     * @throws ValidationException naming the table and the first option that is unknown or
     *     malformed
     */
    public static void checkOptions(String table, Map<String, String> options) {
        try {
            NativeParquetWriter.validate(options);
        } catch (NativeConfigException e) {
            throw new ValidationException("Invalid Parquet option of table " + table + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks that Flink's Parquet files hold {@code type}. Timestamps nested in a {@code ROW},
     * {@code ARRAY} or {@code MAP} are written only where {@code parquet.write.int64.timestamp}
     * is set: Flink writes them as {@code INT96} otherwise, which this writer cannot write, and
     * Flink's reader cannot read nested {@code INT64} timestamps (with the option, Flink's own
     * writer writes them as {@code INT64} too).
     */
    private static void checkWritable(
            String table, String column, LogicalType type, boolean nested, boolean int64Timestamps) {
        if (!WRITABLE.contains(type.getTypeRoot())) {
            throw new ValidationException(
                    "Column '" + column + "' of table " + table + " has type " + type
                            + ", which Parquet files of Flink do not hold");
        }
        boolean timestamp = type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
                || type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
        if (nested && timestamp && !int64Timestamps) {
            throw new ValidationException(
                    "Column '" + column + "' of table " + table + " holds the nested timestamp type " + type
                            + ": Flink's Parquet writer writes it as INT96, which this writer does not write, and "
                            + "Flink's reader does not read nested INT64 timestamps; set '" + INT64_TIMESTAMPS
                            + "' = 'true' to write them as INT64, as Flink's writer then does");
        }
        for (LogicalType child : type.getChildren()) {
            checkWritable(table, column, child, true, int64Timestamps);
        }
    }
}
