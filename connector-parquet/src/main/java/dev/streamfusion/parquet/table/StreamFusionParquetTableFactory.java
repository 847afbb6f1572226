package dev.streamfusion.parquet.table;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.table.ErrorPolicy;
import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.bridge.table.PlannerExtension;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.parquet.format.StreamFusionParquetFormatFactory;
import dev.streamfusion.parquet.internal.ColumnPredicates;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.internal.NativeParquetReader;
import dev.streamfusion.parquet.sink.NativeParquetWriterFactory;
import dev.streamfusion.parquet.sink.ParquetBatchSink;
import dev.streamfusion.parquet.source.FileListing;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.file.table.FileSystemConnectorOptions;
import org.apache.flink.connector.file.table.FileSystemTableFactory;
import org.apache.flink.connector.file.table.FileSystemTableSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code 'connector' = 'streamfusion-parquet'}: the filesystem connector's options for Parquet
 * files, read and written natively.
 *
 * <p>Reading: a file or a directory (recursively), once or continuously, partitioned or not.
 * Writing: Flink's file sink with every sink option of the filesystem connector, encoding through
 * the native writer.
 */
@Internal
public final class StreamFusionParquetTableFactory
        implements DynamicTableSourceFactory, DynamicTableSinkFactory, StockCounterpart {

    public static final String IDENTIFIER = "streamfusion-parquet";

    private static final String PARQUET_PREFIX = "parquet.";
    /** Flink's parquet format option: INT96 timestamps as UTC, or as the JVM's time zone. */

    static final ConfigOption<String> PATH =
            ConfigOptions.key("path").stringType().noDefaultValue().withDescription("A Parquet file, or a directory of them.");
    static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format").stringType().defaultValue("parquet").withDescription("Must be 'parquet'.");
    static final ConfigOption<String> PATH_REGEX =
            ConfigOptions.key("source.path.regex-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A regular expression the whole path of a file must match to be read.");
    private static final String FLINK_FILESYSTEM = "flink-filesystem";

    static final ConfigOption<String> FILE_ACCESS =
            ConfigOptions.key("streamfusion.file-access")
                    .stringType()
                    .defaultValue("auto")
                    .withDescription(
                            "'auto': local files are read natively, files of other schemes through Flink's FileSystem;"
                                    + " '" + FLINK_FILESYSTEM + "': every file through Flink's FileSystem.");

    /** The table's options that only its reading takes: Flink's file sink is never given them. */
    private static final Set<String> READING_ONLY = Set.of(FILE_ACCESS.key(), ErrorPolicy.KEY, RowLayout.KEY);

    static final ConfigOption<MemorySize> MEMORY_LIMIT =
            ConfigOptions.key(MemoryLimit.TABLE_OPTION)
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "What the part files one subtask writes at once, or one subtask's reader, may hold outside the"
                                    + " Java heap; writers close row groups early to stay under it.");
    static final ConfigOption<Duration> MONITOR_INTERVAL =
            ConfigOptions.key("source.monitor-interval")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "Continuous reading: the path is listed again at this interval, and files not seen before are read.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    /** Whether {@code options} are a Parquet table's, of this connector or of Flink's filesystem one. */
    private static boolean parquetTable(Map<String, String> options) {
        String connector = options.get(FactoryUtil.CONNECTOR.key());
        String format = options.get(FactoryUtil.FORMAT.key());
        return IDENTIFIER.equals(connector)
                || (FileSystemTableFactory.IDENTIFIER.equals(connector)
                        && ("parquet".equals(format) || StreamFusionParquetFormatFactory.IDENTIFIER.equals(format)));
    }

    private static Map<String, String> parquetOptions(Map<String, String> options, String connector) {
        Map<String, String> result = new HashMap<>(options);
        result.put(FactoryUtil.CONNECTOR.key(), connector);
        result.put(FactoryUtil.FORMAT.key(), "parquet");
        return result;
    }

    @Override
    public Optional<Map<String, String>> streamFusion(Map<String, String> options) {
        return parquetTable(options) ? Optional.of(parquetOptions(options, IDENTIFIER)) : Optional.empty();
    }

    @Override
    public Optional<Map<String, String>> stock(Map<String, String> options) {
        return parquetTable(options)
                ? Optional.of(parquetOptions(StockCounterpart.withoutOwnOptions(options), FileSystemTableFactory.IDENTIFIER))
                : Optional.empty();
    }

    /** Files are read whole: a sample is every file under the path as listed once (no monitoring). */
    @Override
    public Sample sample(Map<String, String> options, long rows) {
        if (!parquetTable(options)) {
            throw new IllegalArgumentException("not a Parquet table");
        }
        Map<String, String> bounded = new HashMap<>(options);
        bounded.remove(MONITOR_INTERVAL.key());
        return new Sample(bounded, "every file under '" + options.get(PATH.key()) + "', read once and whole");
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                FORMAT,
                PATH_REGEX,
                MONITOR_INTERVAL,
                FILE_ACCESS,
                FileSystemConnectorOptions.SOURCE_REPORT_STATISTICS,
                MEMORY_LIMIT,
                ErrorPolicy.OPTION,
                RowLayout.OPTION,
                FileSystemConnectorOptions.PARTITION_DEFAULT_NAME,
                FileSystemConnectorOptions.SINK_ROLLING_POLICY_FILE_SIZE,
                FileSystemConnectorOptions.SINK_ROLLING_POLICY_ROLLOVER_INTERVAL,
                FileSystemConnectorOptions.SINK_ROLLING_POLICY_INACTIVITY_INTERVAL,
                FileSystemConnectorOptions.SINK_ROLLING_POLICY_CHECK_INTERVAL,
                FileSystemConnectorOptions.SINK_SHUFFLE_BY_PARTITION,
                FileSystemConnectorOptions.PARTITION_TIME_EXTRACTOR_KIND,
                FileSystemConnectorOptions.PARTITION_TIME_EXTRACTOR_CLASS,
                FileSystemConnectorOptions.PARTITION_TIME_EXTRACTOR_TIMESTAMP_FORMATTER,
                FileSystemConnectorOptions.PARTITION_TIME_EXTRACTOR_TIMESTAMP_PATTERN,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_TRIGGER,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_DELAY,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_WATERMARK_TIME_ZONE,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_POLICY_KIND,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_POLICY_CLASS,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_POLICY_CLASS_PARAMETERS,
                FileSystemConnectorOptions.SINK_PARTITION_COMMIT_SUCCESS_FILE_NAME,
                FileSystemConnectorOptions.AUTO_COMPACTION,
                FileSystemConnectorOptions.COMPACTION_FILE_SIZE,
                FileSystemConnectorOptions.SINK_PARALLELISM);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        // Fails at planning, saying why, where the library cannot run.
        NativeLibrary.load();
        ReadableConfig options = validatedOptions(context);
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        String defaultPartitionName = options.get(FileSystemConnectorOptions.PARTITION_DEFAULT_NAME);
        List<String> partitionKeys = context.getCatalogTable().getPartitionKeys();
        return new StreamFusionParquetTableSource(
                new FileListing(
                        options.get(PATH),
                        options.getOptional(PATH_REGEX).orElse(null),
                        ColumnPredicates.NONE,
                        partitionKeys,
                        defaultPartitionName,
                        null,
                        FLINK_FILESYSTEM.equals(options.get(FILE_ACCESS))),
                partitionKeys,
                defaultPartitionName,
                monitorInterval(context, options),
                NativeParquetReader.utcTimestamps(context.getCatalogTable().getOptions()),
                options.get(FileSystemConnectorOptions.SOURCE_REPORT_STATISTICS)
                        == FileSystemConnectorOptions.FileStatisticsType.ALL,
                memoryLimit(context, options),
                context.getPhysicalRowDataType(),
                skipsUnreadableFiles(options.get(ErrorPolicy.OPTION)),
                options.get(RowLayout.OPTION).binary(context.getConfiguration()));
    }

    /** Whether the policy skips a file whose footer cannot be read; a dead letter has no place here. */
    private static boolean skipsUnreadableFiles(ErrorPolicy policy) {
        if (policy == ErrorPolicy.DEAD_LETTER) {
            throw new ValidationException(
                    "'" + ErrorPolicy.KEY + "' = 'DEAD_LETTER' is for streamfusion-kafka tables: a Parquet file has no"
                            + " dead-letter place. Use SKIP (the file is skipped and logged) or FAIL.");
        }
        return policy == ErrorPolicy.SKIP;
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        NativeLibrary.load();
        validatedOptions(context);
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        // Flink's file sink, with the native writer as its format: the format's options take the
        // format's name as their prefix.
        Map<String, String> files = new HashMap<>();
        context.getCatalogTable()
                .getOptions()
                .entrySet()
                .stream()
                // How files are read means nothing to Flink's file sink.
                .filter(option -> !READING_ONLY.contains(option.getKey()))
                .forEach(
                        option -> files.put(
                                formatKey(option.getKey()),
                                option.getValue()));
        files.put(FactoryUtil.CONNECTOR.key(), FileSystemTableFactory.IDENTIFIER);
        files.put(FactoryUtil.FORMAT.key(), StreamFusionParquetFormatFactory.IDENTIFIER);
        ResolvedCatalogTable table = context.getCatalogTable().copy(files);
        Context filesContext =
                new FactoryUtil.DefaultDynamicTableContext(
                        context.getObjectIdentifier(),
                        table,
                        context.getEnrichmentOptions(),
                        context.getConfiguration(),
                        context.getClassLoader(),
                        context.isTemporary());
        FileSystemTableSink stock = (FileSystemTableSink) new FileSystemTableFactory().createDynamicTableSink(filesContext);
        RowType physicalType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        String refused = batchesRefused(context, table.getOptions());
        // Built only if the island hands the sink batches: a row sink never pays for it.
        Supplier<ParquetBatchSink> batches =
                refused != null ? null : () -> batchSink(filesContext, Configuration.fromMap(files), physicalType);
        return new StreamFusionParquetTableSink(stock, physicalType, batches, refused);
    }

    /** Why the table's sink cannot take island batches, or {@code null}. */
    private static String batchesRefused(Context context, Map<String, String> files) {
        if (!context.getCatalogTable().getPartitionKeys().isEmpty()) {
            return "partitioned tables are written by Flink's file sink";
        }
        if (files.containsKey(FileSystemConnectorOptions.AUTO_COMPACTION.key())) {
            return "'" + FileSystemConnectorOptions.AUTO_COMPACTION.key() + "' is Flink's file sink's";
        }
        if (files.containsKey(FileSystemConnectorOptions.SINK_PARALLELISM.key())
                && context.getCatalogTable().getResolvedSchema().getPrimaryKey().isPresent()) {
            return "with a primary key and 'sink.parallelism', Flink routes the rows to the writers by key";
        }
        if (files.keySet().stream().anyMatch(key -> key.startsWith("sink.partition-commit."))) {
            return "partition commit policies are Flink's file sink's";
        }
        ReadableConfig job = context.getConfiguration();
        if (job.get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.BATCH
                && !job.get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH)) {
            // The island's streaming writer commits its files at a checkpoint; Flink's file sink
            // also commits a bounded input's last files when the input ends.
            return "with '" + CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH.key()
                    + "' = 'false', no checkpoint would commit a bounded input's last files: Flink's file sink"
                    + " commits them at the input's end";
        }
        return null;
    }

    /** The island's writer: the format's own writer factory, under the table's rolling policy. */
    private static ParquetBatchSink batchSink(Context filesContext, Configuration files, RowType physicalType) {
        String prefix = StreamFusionParquetFormatFactory.IDENTIFIER + ".";
        Configuration formatOptions = new Configuration();
        files.toMap().forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                formatOptions.setString(key.substring(prefix.length()), value);
            }
        });
        NativeParquetWriterFactory writers =
                (NativeParquetWriterFactory) new StreamFusionParquetFormatFactory()
                        .createEncodingFormat(filesContext, formatOptions)
                        .createRuntimeEncoder(null, TypeConversions.fromLogicalToDataType(physicalType));
        return new ParquetBatchSink(
                files.get(PATH),
                writers,
                files.get(FileSystemConnectorOptions.SINK_ROLLING_POLICY_FILE_SIZE).getBytes(),
                files.get(FileSystemConnectorOptions.SINK_ROLLING_POLICY_ROLLOVER_INTERVAL),
                files.get(FileSystemConnectorOptions.SINK_ROLLING_POLICY_INACTIVITY_INTERVAL),
                files.get(FileSystemConnectorOptions.SINK_ROLLING_POLICY_CHECK_INTERVAL),
                files.get(FileSystemConnectorOptions.SINK_PARALLELISM));
    }

    /** A table option's name for Flink's file sink: the format's options under its prefix. */
    private static String formatKey(String key) {
        String prefix = StreamFusionParquetFormatFactory.IDENTIFIER + ".";
        if (key.startsWith(PARQUET_PREFIX)) {
            return prefix + key.substring(PARQUET_PREFIX.length());
        }
        return key.equals(MEMORY_LIMIT.key()) ? prefix + MemoryLimit.FORMAT_OPTION : key;
    }

    /**
     * The continuous read's interval, or null for a bounded read; one not above 0 is refused, as
     * Flink's file source refuses it.
     */
    private static Duration monitorInterval(Context context, ReadableConfig options) {
        Duration interval = options.getOptional(MONITOR_INTERVAL).orElse(null);
        if (interval != null && (interval.isZero() || interval.isNegative())) {
            throw new ValidationException("'" + MONITOR_INTERVAL.key() + "' = '" + interval.toMillis() + " ms' of table "
                    + context.getObjectIdentifier().asSummaryString() + ": the interval must be > 0");
        }
        return interval;
    }

    private static MemoryLimit memoryLimit(Context context, ReadableConfig options) {
        return MemoryLimit.of(options, MEMORY_LIMIT, context.getObjectIdentifier().asSummaryString());
    }

    /** The table's options, checked: only known options, {@code parquet.*} and format parquet. */
    private ReadableConfig validatedOptions(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // The Parquet format's own options (parquet.*) are free-form, as parquet-java's are;
        // those StreamFusion takes are checked below.
        helper.validateExcept(PARQUET_PREFIX);
        ReadableConfig options = helper.getOptions();
        if (!"parquet".equals(options.get(FORMAT))) {
            throw new ValidationException(
                    "'" + FORMAT.key() + "' = '" + options.get(FORMAT) + "': streamfusion-parquet supports only 'parquet'");
        }
        // The Parquet options are checked now: one that is unknown or malformed is refused by name
        // instead of being ignored.
        Map<String, String> parquet = new HashMap<>();
        context.getCatalogTable().getOptions().forEach((key, value) -> {
            if (key.startsWith(PARQUET_PREFIX)) {
                parquet.put(key, value);
            }
        });
        StreamFusionParquetFormatFactory.checkOptions(context.getObjectIdentifier().asSummaryString(), parquet);
        memoryLimit(context, options);
        String access = options.get(FILE_ACCESS);
        if (!"auto".equals(access) && !FLINK_FILESYSTEM.equals(access)) {
            throw new ValidationException(
                    "'" + FILE_ACCESS.key() + "' = '" + access + "': expected 'auto' or '" + FLINK_FILESYSTEM + "'");
        }
        return options;
    }
}
