package dev.streamfusion.testkit.nexmark;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeUtils;
import org.apache.flink.table.types.utils.TypeConversions;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code 'connector' = 'streamfusion-nexmark'}: one kind of the Nexmark model's events ({@link
 * NexmarkModel}) as a bounded table, {@code 'table'} = {@code person}, {@code auction} or {@code
 * bid}, of the first {@code 'events'} events (1,000,000 by default) of the model with {@code
 * 'seed'} (1 by default). The table's physical columns are its kind's, by name and type; computed
 * columns and watermarks may be added. Readers split the rows among themselves, each computing its
 * rows from their indices, so a table is the same rows at every parallelism.
 */
@Internal
public final class NexmarkTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "streamfusion-nexmark";

    public static final ConfigOption<NexmarkModel.Kind> TABLE =
            ConfigOptions.key("table")
                    .enumType(NexmarkModel.Kind.class)
                    .noDefaultValue()
                    .withDescription("The kind of events the table holds: person, auction or bid.");

    public static final ConfigOption<Long> EVENTS =
            ConfigOptions.key("events")
                    .longType()
                    .defaultValue(1_000_000L)
                    .withDescription("How many events of the model (of every kind) the table is a share of.");

    public static final ConfigOption<Long> SEED =
            ConfigOptions.key("seed").longType().defaultValue(1L).withDescription("The model's seed.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(TABLE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(EVENTS, SEED);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        NexmarkModel.Kind kind = options.get(TABLE);
        long events = options.get(EVENTS);
        if (events < 0) {
            throw new ValidationException("'" + EVENTS.key() + "' = '" + events + "' is negative");
        }
        RowType expected = type(kind);
        LogicalType declared = LogicalTypeUtils.removeTimeAttributes(context.getPhysicalRowDataType().getLogicalType());
        if (!declared.copy(false).equals(expected.copy(false))) {
            throw new ValidationException(
                    "A " + IDENTIFIER + " table of '" + kind.name().toLowerCase(Locale.ROOT)
                            + "' events has the physical columns " + expected.copy(true).asSummaryString()
                            + ", not " + declared.asSummaryString());
        }
        return new Source(new NexmarkModel(options.get(SEED)), kind, events);
    }

    /**
     * Creates the tables {@code person}, {@code auction} and {@code bid} of the first {@code
     * events} events of the model with {@code seed}, each with a watermark 4 seconds behind its
     * {@code date_time}, as {@link NexmarkQueries#all()} reads them.
     */
    public static void createTables(TableEnvironment tables, long events, long seed) {
        for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
            String name = kind.name().toLowerCase(Locale.ROOT);
            List<String> columns = new ArrayList<>();
            type(kind).getFields().forEach(f -> columns.add("`" + f.getName() + "` " + f.getType().copy(true).asSerializableString()));
            tables.executeSql(
                    "CREATE TABLE " + name + " (" + String.join(", ", columns)
                            + ", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) WITH ('connector' = '"
                            + IDENTIFIER + "', 'table' = '" + name + "', 'events' = '" + events + "', 'seed' = '" + seed + "')");
        }
    }

    /** The rows of a kind of event. */
    public static RowType type(NexmarkModel.Kind kind) {
        switch (kind) {
            case PERSON:
                return NexmarkModel.PERSON_TYPE;
            case AUCTION:
                return NexmarkModel.AUCTION_TYPE;
            default:
                return NexmarkBids.BID_TYPE;
        }
    }

    /** The table's source: its kind's rows of the first events, by index. */
    private static final class Source implements ScanTableSource {
        private final NexmarkModel model;
        private final NexmarkModel.Kind kind;
        private final long events;

        Source(NexmarkModel model, NexmarkModel.Kind kind, long events) {
            this.model = model;
            this.kind = kind;
            this.events = events;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            TypeInformation<RowData> rows = context.createTypeInformation(TypeConversions.fromLogicalToDataType(type(kind)));
            NexmarkModel.Kind rowKind = kind;
            NexmarkModel rowModel = model;
            GeneratorFunction<Long, RowData> generator = n -> rowModel.row(rowKind, n);
            return SourceProvider.of(new DataGeneratorSource<>(generator, NexmarkModel.count(kind, events), rows));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(model, kind, events);
        }

        @Override
        public String asSummaryString() {
            return "Nexmark " + kind.name().toLowerCase(Locale.ROOT) + " events of the first " + events;
        }
    }
}
