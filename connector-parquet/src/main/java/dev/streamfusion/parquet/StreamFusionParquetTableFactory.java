package dev.streamfusion.parquet;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;

import java.time.Duration;
import java.util.Set;

/**
 * {@code 'connector' = 'streamfusion-parquet'}: the filesystem connector's options for Parquet
 * files, read natively. This version reads a file or a directory (recursively) once; the options
 * it does not implement yet fail at planning, naming the option.
 */
@Internal
public final class StreamFusionParquetTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "streamfusion-parquet";

    static final ConfigOption<String> PATH =
            ConfigOptions.key("path").stringType().noDefaultValue().withDescription("A Parquet file, or a directory of them.");
    static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format").stringType().defaultValue("parquet").withDescription("Must be 'parquet'.");
    static final ConfigOption<String> PATH_REGEX =
            ConfigOptions.key("source.path.regex-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A regular expression the whole path of a file must match to be read.");
    static final ConfigOption<Duration> MONITOR_INTERVAL =
            ConfigOptions.key("source.monitor-interval")
                    .durationType()
                    .noDefaultValue()
                    .withDescription("Continuous reading: not implemented yet.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(FORMAT, PATH_REGEX, MONITOR_INTERVAL);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // The Parquet format's own options (parquet.*) configure writers; reading needs none.
        helper.validateExcept("parquet.");
        ReadableConfig options = helper.getOptions();
        if (!"parquet".equals(options.get(FORMAT))) {
            throw new ValidationException(
                    "'" + FORMAT.key() + "' = '" + options.get(FORMAT) + "': streamfusion-parquet reads only 'parquet'");
        }
        if (options.getOptional(MONITOR_INTERVAL).isPresent()) {
            throw new ValidationException(
                    "'" + MONITOR_INTERVAL.key() + "': continuous reading is not implemented yet in streamfusion-parquet");
        }
        if (context.getCatalogTable().isPartitioned()) {
            throw new ValidationException("PARTITIONED BY tables are not implemented yet in streamfusion-parquet");
        }
        return new StreamFusionParquetTableSource(
                options.get(PATH),
                options.getOptional(PATH_REGEX).orElse(null),
                context.getPhysicalRowDataType());
    }
}
