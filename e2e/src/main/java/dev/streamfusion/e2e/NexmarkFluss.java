package dev.streamfusion.e2e;

import dev.streamfusion.testkit.nexmark.NexmarkModel;
import dev.streamfusion.testkit.nexmark.NexmarkTableFactory;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.fluss.metadata.TablePath;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The Nexmark model's events written into Fluss log tables {@code person}, {@code auction} and
 * {@code bid} of one Fluss database, the model's columns, by one bounded Flink job through either
 * Fluss catalog: {@code stock} (fluss-flink) or {@code sf} ({@code streamfusion-fluss}).
 *
 * <p>Fluss tables are not a source of the Nexmark matrix: no Flink connector of Fluss 0.9.1 reads a
 * log table to an end, so a query over one never finishes. The tables serve streaming jobs, and
 * {@link #rows} reads them back through the Fluss client.
 */
final class NexmarkFluss {

    /** The catalog of fluss-flink. */
    static final String STOCK = "stock";
    /** The catalog of {@code streamfusion-fluss}. */
    static final String FUSED = "sf";
    /** The model's seed. */
    static final long SEED = 1;

    private NexmarkFluss() {}

    /**
     * A streaming table environment at {@code parallelism} with both Fluss catalogs over the
     * cluster at {@code servers}, and the model's first {@code events} events as the tables of
     * database {@code model} ({@code streamfusion-nexmark}).
     */
    static TableEnvironment tables(String servers, int parallelism, long events) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", String.valueOf(parallelism));
        env.executeSql("CREATE CATALOG " + STOCK + " WITH ('type' = 'fluss', 'bootstrap.servers' = '" + servers + "')");
        env.executeSql("CREATE CATALOG " + FUSED + " WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '" + servers + "')");
        env.executeSql("CREATE DATABASE model");
        env.useDatabase("model");
        NexmarkTableFactory.createTables(env, events, SEED);
        return env;
    }

    /** The table of {@code kind}'s events: its name in {@link #tables}' catalogs and in the model. */
    static String name(NexmarkModel.Kind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Creates the Fluss database {@code database} with a log table of {@code buckets} buckets for
     * each kind of event.
     */
    static void create(TableEnvironment env, String database, int buckets) {
        env.executeSql("CREATE DATABASE " + STOCK + "." + database);
        for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
            env.executeSql("CREATE TABLE " + STOCK + "." + database + "." + name(kind) + " ("
                    + NexmarkKafka.columns(NexmarkTableFactory.type(kind)) + ") WITH ('bucket.num' = '" + buckets + "')");
        }
    }

    /**
     * Writes every event of {@code env}'s model into the tables of {@code database} through the
     * catalog {@code catalog}, in one job; returns the milliseconds from planning it to its end.
     */
    static long write(TableEnvironment env, String catalog, String database) throws Exception {
        StatementSet inserts = env.createStatementSet();
        for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
            inserts.addInsertSql("INSERT INTO " + catalog + "." + database + "." + name(kind) + " SELECT * FROM model." + name(kind));
        }
        long started = System.nanoTime();
        inserts.execute().await(30, TimeUnit.MINUTES);
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** Every row of {@code kind}'s table of {@code database}, read to its end through the Fluss client, as text, sorted. */
    static List<String> rows(String servers, String database, NexmarkModel.Kind kind) throws Exception {
        return FlussLogs.readAll(servers, TablePath.of(database, name(kind)));
    }

    /** The model's rows of {@code kind} among its first {@code events} events, as {@link #rows} gives a table's, sorted. */
    static List<String> expected(NexmarkModel.Kind kind, long events) {
        NexmarkModel model = new NexmarkModel(SEED);
        RowType type = NexmarkTableFactory.type(kind);
        List<RowData.FieldGetter> getters = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            getters.add(RowData.createFieldGetter(type.getTypeAt(i), i));
        }
        List<String> rows = new ArrayList<>();
        for (long n = 0; n < NexmarkModel.count(kind, events); n++) {
            RowData row = model.row(kind, n);
            List<Object> values = new ArrayList<>();
            getters.forEach(g -> values.add(javaValue(g.getFieldOrNull(row))));
            rows.add(FlussLogs.text(values));
        }
        rows.sort(null);
        return rows;
    }

    /**
     * A value of the model (BIGINT, STRING or TIMESTAMP) as the Java value it stands for, as
     * {@link FlussLogs} reads Fluss's.
     */
    private static Object javaValue(Object value) {
        if (value instanceof StringData) {
            return value.toString();
        }
        if (value instanceof TimestampData) {
            return ((TimestampData) value).toLocalDateTime();
        }
        return value;
    }
}
