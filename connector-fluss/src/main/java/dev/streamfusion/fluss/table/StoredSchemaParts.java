package dev.streamfusion.fluss.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.WatermarkSpec;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.expressions.ResolvedExpression;

import org.apache.fluss.metadata.AggFunction;
import org.apache.fluss.metadata.AggFunctionType;
import org.apache.fluss.metadata.AggFunctions;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.types.DataType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a Flink table that a Fluss table has no place for, kept among its custom properties
 * under the keys fluss-flink's catalog uses, so that a table created by either catalog shows the
 * same schema in both: computed columns ({@code schema.<column index>.name}, {@code .data-type},
 * {@code .expr}, {@code .comment}) and watermarks ({@code schema.watermark.<n>.rowtime}, {@code
 * .strategy.expr}, {@code .strategy.data-type}), expressions in Flink's serializable SQL form. And
 * the columns' aggregate functions of a table of the {@code aggregation} merge engine, given as
 * fluss-flink takes them: {@code fields.<column>.agg} and {@code fields.<column>.<function>.<name>}.
 */
@Internal
final class StoredSchemaParts {

    static final String PREFIX = "schema.";
    private static final String WATERMARK = PREFIX + "watermark.";
    private static final Pattern COLUMN_NAME = Pattern.compile("schema\\.(\\d+)\\.name");
    private static final Pattern WATERMARK_ROWTIME = Pattern.compile("schema\\.watermark\\.(\\d+)\\.rowtime");
    private static final String AGG_SUFFIX = ".agg";

    private StoredSchemaParts() {}

    /** Adds the computed columns and watermarks of {@code schema} to {@code custom}. */
    static void store(ResolvedSchema schema, Map<String, String> custom) {
        List<Column> columns = schema.getColumns();
        for (int i = 0; i < columns.size(); i++) {
            Column column = columns.get(i);
            if (column instanceof Column.MetadataColumn) {
                // As fluss-flink's catalog: a Fluss table has no metadata to read.
                throw new CatalogException("Metadata column '" + column.getName() + "' is not supported by a Fluss table");
            }
            if (column instanceof Column.ComputedColumn) {
                String at = PREFIX + i + ".";
                custom.put(at + "name", column.getName());
                custom.put(at + "data-type", serializable(column));
                custom.put(at + "expr", serializable(((Column.ComputedColumn) column).getExpression(), column.getName()));
                column.getComment().ifPresent(comment -> custom.put(at + "comment", comment));
            }
        }
        List<WatermarkSpec> watermarks = schema.getWatermarkSpecs();
        for (int n = 0; n < watermarks.size(); n++) {
            WatermarkSpec spec = watermarks.get(n);
            ResolvedExpression strategy = spec.getWatermarkExpression();
            String at = WATERMARK + n + ".";
            custom.put(at + "rowtime", spec.getRowtimeAttribute());
            custom.put(at + "strategy.expr", serializable(strategy, "the watermark of " + spec.getRowtimeAttribute()));
            custom.put(at + "strategy.data-type", strategy.getOutputDataType().getLogicalType().asSerializableString());
        }
    }

    /**
     * The columns of a Fluss table with its physical {@code columns} and stored {@code custom}
     * properties, in the order they were declared, and its watermarks, as fluss-flink's catalog
     * rebuilds them (a computed column's comment is not given back, as there).
     */
    static void restore(List<Schema.Column> columns, Map<String, String> custom, org.apache.flink.table.api.Schema.Builder schema) {
        List<String> physicalNames = columns.stream().map(Schema.Column::getName).collect(java.util.stream.Collectors.toList());
        long computed = custom.entrySet().stream()
                .filter(e -> COLUMN_NAME.matcher(e.getKey()).matches() && !physicalNames.contains(e.getValue()))
                .count();
        int physical = 0;
        for (int i = 0; i < columns.size() + computed; i++) {
            String name = custom.get(PREFIX + i + ".name");
            if (name == null) {
                Schema.Column column = columns.get(physical++);
                schema.column(column.getName(), org.apache.flink.table.types.utils.TypeConversions.fromLogicalToDataType(
                        FlussTypes.toFlink(column.getDataType())));
                column.getComment().ifPresent(schema::withComment);
            } else {
                schema.columnByExpression(name, required(custom, PREFIX + i + ".expr"));
            }
        }
        int watermarks = 0;
        for (String key : custom.keySet()) {
            Matcher rowtime = WATERMARK_ROWTIME.matcher(key);
            if (rowtime.matches()) {
                watermarks = Math.max(watermarks, Integer.parseInt(rowtime.group(1)) + 1);
            }
        }
        for (int n = 0; n < watermarks; n++) {
            schema.watermark(required(custom, WATERMARK + n + ".rowtime"), required(custom, WATERMARK + n + ".strategy.expr"));
        }
    }

    /**
     * The aggregate function {@code options} give the column, as fluss-flink's catalog parses it
     * for a table of the {@code aggregation} merge engine.
     */
    static Optional<AggFunction> aggFunction(String column, DataType type, Map<String, String> options) {
        String name = options.get(FlussOptions.FIELDS_PREFIX + column + AGG_SUFFIX);
        if (name == null) {
            return Optional.empty();
        }
        String function = name.toLowerCase(java.util.Locale.ROOT).trim();
        AggFunctionType kind = AggFunctionType.fromString(function);
        if (kind == null) {
            throw new CatalogException("Unknown aggregation function for column '" + column + "': " + name + "; supported: "
                    + java.util.Arrays.toString(AggFunctionType.values()));
        }
        String paramPrefix = FlussOptions.FIELDS_PREFIX + column + "." + function + ".";
        Map<String, String> params = new HashMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith(paramPrefix)) {
                params.put(key.substring(paramPrefix.length()), value);
            }
        });
        AggFunction aggregate = params.isEmpty() ? AggFunctions.of(kind) : AggFunctions.of(kind, params);
        try {
            aggregate.validateParameters();
            aggregate.validateDataType(type);
        } catch (IllegalArgumentException e) {
            throw new CatalogException("Invalid aggregation function configuration for column '" + column + "': "
                    + e.getMessage(), e);
        }
        return Optional.of(aggregate);
    }

    /** The options a column's aggregate function is shown as, as fluss-flink's catalog shows it. */
    static void showAggFunction(String column, AggFunction aggregate, Map<String, String> options) {
        String function = aggregate.getType().toString();
        options.put(FlussOptions.FIELDS_PREFIX + column + AGG_SUFFIX, function);
        aggregate.getParameters().forEach((name, value) -> options.put(FlussOptions.FIELDS_PREFIX + column + "." + function + "." + name, value));
    }

    private static String serializable(Column column) {
        try {
            return column.getDataType().getLogicalType().asSerializableString();
        } catch (TableException e) {
            throw new CatalogException("The type of column '" + column.getName() + "' cannot be stored in a Fluss table: "
                    + e.getMessage(), e);
        }
    }

    private static String serializable(ResolvedExpression expression, String of) {
        try {
            return expression.asSerializableString();
        } catch (TableException e) {
            throw new CatalogException("The expression of " + of + " (" + expression.asSummaryString()
                    + ") has no SQL form to store in a Fluss table", e);
        }
    }

    private static String required(Map<String, String> custom, String key) {
        String value = custom.get(key);
        if (value == null) {
            throw new CatalogException("The Fluss table's stored schema lacks its property '" + key + "'");
        }
        return value;
    }
}
