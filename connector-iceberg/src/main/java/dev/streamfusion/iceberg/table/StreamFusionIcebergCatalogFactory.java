package dev.streamfusion.iceberg.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code CREATE CATALOG c WITH ('type' = 'streamfusion-iceberg', ...)}: an Iceberg catalog under
 * iceberg-flink's catalog options ({@code catalog-type} or {@code catalog-impl}, {@code warehouse},
 * {@code uri}, {@code io-impl}, any catalog property; {@code default-database}).
 */
@Internal
public final class StreamFusionIcebergCatalogFactory implements CatalogFactory {

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key("default-database")
            .stringType()
            .defaultValue("default")
            .withDescription("The database the catalog starts in.");

    @Override
    public String factoryIdentifier() {
        return StreamFusionIcebergTableFactory.IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    /** Every other option is passed to the Iceberg catalog, as iceberg-flink does. */
    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(DEFAULT_DATABASE);
    }

    @Override
    public Catalog createCatalog(Context context) {
        Map<String, String> properties = new HashMap<>(context.getOptions());
        properties.remove("type");
        properties.remove("property-version");
        String defaultDatabase = properties.getOrDefault(DEFAULT_DATABASE.key(), DEFAULT_DATABASE.defaultValue());
        properties.remove(DEFAULT_DATABASE.key());
        return new StreamFusionIcebergCatalog(context.getName(), defaultDatabase, properties);
    }
}
