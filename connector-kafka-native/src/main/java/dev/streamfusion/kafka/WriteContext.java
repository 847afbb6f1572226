package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.Map;
import java.util.Set;

/** What a sink needs from its table beyond what Flink's factory resolves: its formats' options. */
@Internal
final class WriteContext {

    /** Writable metadata the native sink writes. */
    static final Set<String> NATIVE_METADATA = Set.of("headers", "timestamp");

    final String table;
    final String format;
    final Map<String, String> formatOptions;
    /** The key format and its options, or {@code null} when the table writes no key. */
    final String keyFormat;
    final Map<String, String> keyFormatOptions;
    /** Writable metadata the table declares that the native sink does not write, or {@code null}. */
    final String unsupportedMetadata;

    private WriteContext(
            String table,
            String format,
            Map<String, String> formatOptions,
            String keyFormat,
            Map<String, String> keyFormatOptions,
            String unsupportedMetadata) {
        this.table = table;
        this.format = format;
        this.formatOptions = formatOptions;
        this.keyFormat = keyFormat;
        this.keyFormatOptions = keyFormatOptions;
        this.unsupportedMetadata = unsupportedMetadata;
    }

    static WriteContext of(DynamicTableFactory.Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        String keyFormat = options.get("key.format");
        String unsupported =
                context.getCatalogTable().getResolvedSchema().getColumns().stream()
                        .filter(c -> c instanceof Column.MetadataColumn && ((Column.MetadataColumn) c).isPersisted())
                        .map(c -> ((Column.MetadataColumn) c).getMetadataKey().orElse(c.getName()))
                        .filter(key -> !NATIVE_METADATA.contains(key))
                        .findFirst()
                        .orElse(null);
        return new WriteContext(
                context.getObjectIdentifier().asSummaryString(),
                ReadPlan.valueFormat(options),
                ReadPlan.valueFormatOptions(options),
                keyFormat,
                keyFormat == null ? null : ReadPlan.keyFormatOptions(options, keyFormat),
                unsupported);
    }
}
