package dev.streamfusion.kafka.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.Set;

/** What a sink needs from its table beyond what Flink's factory resolves: its formats' options. */
@Internal
final class WriteContext {

    /** Writable metadata the native sink writes. */
    static final Set<String> NATIVE_METADATA = Set.of("headers", "timestamp");

    final String table;
    final KafkaFormats formats;
    /** Writable metadata the table declares that the native sink does not write, or {@code null}. */
    final String unsupportedMetadata;
    /** The table's {@code streamfusion.rung}: which client produces. */
    final StreamFusionKafkaOptions.Rung rung;

    private WriteContext(
            String table, KafkaFormats formats, String unsupportedMetadata, StreamFusionKafkaOptions.Rung rung) {
        this.table = table;
        this.formats = formats;
        this.unsupportedMetadata = unsupportedMetadata;
        this.rung = rung;
    }

    static WriteContext of(DynamicTableFactory.Context context) {
        String unsupported =
                context.getCatalogTable().getResolvedSchema().getColumns().stream()
                        .filter(c -> c instanceof Column.MetadataColumn && ((Column.MetadataColumn) c).isPersisted())
                        .map(c -> ((Column.MetadataColumn) c).getMetadataKey().orElse(c.getName()))
                        .filter(key -> !NATIVE_METADATA.contains(key))
                        .findFirst()
                        .orElse(null);
        return new WriteContext(
                context.getObjectIdentifier().asSummaryString(),
                KafkaFormats.of(context.getCatalogTable().getOptions()),
                unsupported,
                Configuration.fromMap(context.getCatalogTable().getOptions()).get(StreamFusionKafkaOptions.RUNG));
    }
}
