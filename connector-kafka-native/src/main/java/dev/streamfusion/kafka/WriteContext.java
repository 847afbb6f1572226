package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.Map;

/** What a sink needs from its table beyond what Flink's factory resolves: the value format. */
@Internal
final class WriteContext {

    final String table;
    final String format;
    final Map<String, String> formatOptions;
    final boolean hasMetadataColumns;

    private WriteContext(String table, String format, Map<String, String> formatOptions, boolean hasMetadataColumns) {
        this.table = table;
        this.format = format;
        this.formatOptions = formatOptions;
        this.hasMetadataColumns = hasMetadataColumns;
    }

    static WriteContext of(DynamicTableFactory.Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        return new WriteContext(
                context.getObjectIdentifier().asSummaryString(),
                ReadPlan.valueFormat(options),
                ReadPlan.valueFormatOptions(options),
                context.getCatalogTable().getResolvedSchema().getColumns().stream()
                        .anyMatch(c -> c instanceof Column.MetadataColumn && ((Column.MetadataColumn) c).isPersisted()));
    }
}
