package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.TablePath;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.Map;

/**
 * A Fluss table as the connector reaches it: the cluster's bootstrap servers, the client options
 * ({@code client.*}) and the table's database and name.
 */
@Internal
public final class FlussTableRef implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FlussTableRef.class);

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

    /**
     * Closes {@code connection} (if any) on a thread of its own: the client's close waits out the
     * quiet period of its network threads (about two seconds), which a planner, done with the
     * connection, need not wait for.
     */
    public static void closeLater(Connection connection) {
        if (connection == null) {
            return;
        }
        Thread closer = new Thread(() -> {
            try {
                connection.close();
            } catch (Exception e) {
                LOG.warn("Cannot close a Fluss client connection", e);
            }
        }, "streamfusion-fluss-close");
        closer.setDaemon(true);
        closer.start();
    }

    public TablePath path() {
        return TablePath.of(database, table);
    }

    @Override
    public String toString() {
        return database + "." + table + " (Fluss at " + bootstrapServers + ")";
    }
}
