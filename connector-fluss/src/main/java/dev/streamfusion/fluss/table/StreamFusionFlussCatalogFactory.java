package dev.streamfusion.fluss.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code 'type' = 'streamfusion-fluss'}: a catalog of a Fluss cluster with fluss-flink's catalog
 * options ({@code bootstrap.servers}, {@code default-database}, {@code client.*}).
 */
@Internal
public final class StreamFusionFlussCatalogFactory implements CatalogFactory {

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key("default-database")
            .stringType()
            .defaultValue("fluss")
            .withDescription("The database the catalog starts in (Fluss's built-in database by default).");

    @Override
    public String factoryIdentifier() {
        return StreamFusionFlussTableFactory.IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(FlussOptions.BOOTSTRAP_SERVERS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(DEFAULT_DATABASE);
    }

    @Override
    public Catalog createCatalog(Context context) {
        Map<String, String> client = new HashMap<>();
        context.getOptions().forEach((key, value) -> {
            if (key.startsWith(FlussOptions.CLIENT_PREFIX)) {
                client.put(key, value);
            } else if (!key.equals("type") && !key.equals("property-version") && !key.equals(DEFAULT_DATABASE.key())
                    && !key.equals(FlussOptions.BOOTSTRAP_SERVERS.key())) {
                throw new ValidationException("Unsupported option '" + key + "' of the streamfusion-fluss catalog "
                        + context.getName() + "; supported: bootstrap.servers, default-database and client.*");
            }
        });
        String servers = context.getOptions().get(FlussOptions.BOOTSTRAP_SERVERS.key());
        if (servers == null) {
            throw new ValidationException("The streamfusion-fluss catalog " + context.getName() + " needs 'bootstrap.servers'");
        }
        return new StreamFusionFlussCatalog(context.getName(),
                context.getOptions().getOrDefault(DEFAULT_DATABASE.key(), DEFAULT_DATABASE.defaultValue()), servers, client);
    }
}
