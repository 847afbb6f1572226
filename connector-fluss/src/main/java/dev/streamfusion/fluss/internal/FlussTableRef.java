package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.TablePath;

import java.io.Serializable;
import java.util.Map;

/**
 * A Fluss table as the connector reaches it: the cluster's bootstrap servers, the client options
 * ({@code client.*}) and the table's database and name.
 */
@Internal
public final class FlussTableRef implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String bootstrapServers;
    private final Map<String, String> clientOptions;
    private final String database;
    private final String table;

    public FlussTableRef(String bootstrapServers, Map<String, String> clientOptions, String database, String table) {
        this.bootstrapServers = bootstrapServers;
        this.clientOptions = Map.copyOf(clientOptions);
        this.database = database;
        this.table = table;
    }

    /** A new connection to the cluster; the caller closes it. */
    public Connection connect() {
        Configuration conf = new Configuration();
        conf.setString("bootstrap.servers", bootstrapServers);
        clientOptions.forEach(conf::setString);
        return ConnectionFactory.createConnection(conf);
    }

    public TablePath path() {
        return TablePath.of(database, table);
    }

    @Override
    public String toString() {
        return database + "." + table + " (Fluss at " + bootstrapServers + ")";
    }
}
