package dev.streamfusion.kafka.sqljar;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs in a JVM whose classpath is a Flink distribution's, Flink's Kafka SQL jar and
 * StreamFusion's Kafka SQL jar, nothing else: reads one topic through both connectors, writes it
 * through streamfusion-kafka and streamfusion-upsert-kafka, and prints what each job saw, one
 * {@code name: result} line each.
 *
 * <p>Arguments: bootstrap servers, the input topic, the output topic.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
public final class SqlJarJob {

    private static final String COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING";

    private SqlJarJob() {}

    public static void main(String[] args) throws Exception {
        String servers = args[0];
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(table("stock", "kafka", servers, args[1]));
        tables.executeSql(table("fused", "streamfusion-kafka", servers, args[1]));
        tables.executeSql(table("fused_out", "streamfusion-kafka", servers, args[2]));
        tables.executeSql(table("written", "kafka", servers, args[2]));
        String summary = "SELECT COUNT(*), SUM(price), MAX(channel) FROM %s";
        System.out.println("stock: " + rows(tables, String.format(summary, "stock")));
        System.out.println("streamfusion: " + rows(tables, String.format(summary, "fused")));
        tables.executeSql("INSERT INTO fused_out SELECT * FROM fused").await();
        System.out.println("written: " + rows(tables, String.format(summary, "written")));
        String upserts = args[2] + "-upserts";
        tables.executeSql(
                "CREATE TABLE fused_upserts (" + COLUMNS + ", PRIMARY KEY (auction, bidder) NOT ENFORCED) WITH ("
                        + "'connector' = 'streamfusion-upsert-kafka', 'topic' = '" + upserts + "', "
                        + "'properties.bootstrap.servers' = '" + servers + "', 'key.format' = 'json', 'value.format' = 'json')");
        tables.executeSql(table("upserts_written", "kafka", servers, upserts));
        tables.executeSql("INSERT INTO fused_upserts SELECT * FROM fused").await();
        System.out.println("upserts written: " + rows(tables, String.format(summary, "upserts_written")));
        Class<?> library = Class.forName("dev.streamfusion.bridge.NativeLibrary");
        System.out.println("native: " + library.getMethod("load").invoke(null));
        if (args.length > 3) {
            avroConfluent(tables, servers, args[3], args[4]);
        }
        if (args.length > 5) {
            sasl(tables, args[5], args[1]);
        }
    }

    /**
     * SASL/PLAIN with the login module named as users write it: kafka-clients' own name (what
     * kafka-clients users write) and the name Flink's Kafka SQL jar relocates it to (what its
     * users write), on both rungs; Flink's own connector reads with its relocated name.
     */
    private static void sasl(TableEnvironment tables, String servers, String topic) throws Exception {
        String own = "org.apache.kafka.common.security.plain.PlainLoginModule";
        String relocated = "org.apache.flink.kafka.shaded." + own;
        String summary = "SELECT COUNT(*), SUM(price), MAX(channel) FROM %s";
        String[][] tablesToRead = {
            {"sasl_stock", "kafka", relocated, ""},
            {"sasl_native", "streamfusion-kafka", own, ", 'streamfusion.rung' = 'NATIVE'"},
            {"sasl_java", "streamfusion-kafka", own, ", 'streamfusion.rung' = 'JAVA'"},
            {"sasl_java_relocated", "streamfusion-kafka", relocated, ", 'streamfusion.rung' = 'JAVA'"},
        };
        for (String[] t : tablesToRead) {
            String sasl = "'format' = 'json', 'properties.security.protocol' = 'SASL_PLAINTEXT', "
                    + "'properties.sasl.mechanism' = 'PLAIN', 'properties.sasl.jaas.config' = '" + t[2]
                    + " required username=\"alice\" password=\"alice-secret\";'" + t[3];
            tables.executeSql(table(t[0], t[1], servers, topic, sasl));
            System.out.println(t[0] + ": " + rows(tables, String.format(summary, t[0])));
        }
    }

    /**
     * avro-confluent through Flink's own format jar: written natively without a subject (Flink's
     * Kafka factory names it after the topic), read back by both connectors; a registry that
     * cannot be reached fails the read naming the record; options the native registry client
     * does not act on send the table to Flink's own reader.
     */
    private static void avroConfluent(TableEnvironment tables, String servers, String registry, String topic)
            throws Exception {
        String avro = "'format' = 'avro-confluent', 'avro-confluent.url' = '" + registry + "'";
        tables.executeSql(table("avro_out", "streamfusion-kafka", servers, topic, avro));
        tables.executeSql(table("avro_stock", "kafka", servers, topic, avro));
        tables.executeSql(table("avro_fused", "streamfusion-kafka", servers, topic, avro));
        tables.executeSql("INSERT INTO avro_out SELECT * FROM fused").await();
        String summary = "SELECT COUNT(*), SUM(price), MAX(channel) FROM %s";
        System.out.println("avro stock: " + rows(tables, String.format(summary, "avro_stock")));
        System.out.println("avro streamfusion: " + rows(tables, String.format(summary, "avro_fused")));
        String unreachable = "'format' = 'avro-confluent', 'avro-confluent.url' = 'http://127.0.0.1:1'";
        tables.executeSql(table("avro_unreachable", "streamfusion-kafka", servers, topic, unreachable));
        try {
            rows(tables, "SELECT COUNT(*) FROM avro_unreachable");
            System.out.println("avro unreachable: read");
        } catch (Exception e) {
            System.out.println("avro unreachable: " + causes(e));
        }
        // 'streamfusion.errors' = 'SKIP': the parent put a record of a schema id the registry does
        // not know first into the skip topic; it is skipped. A registry that cannot be reached
        // still fails the job.
        String skipTopic = topic + "-skip";
        tables.executeSql(table("avro_skip_out", "streamfusion-kafka", servers, skipTopic, avro));
        tables.executeSql("INSERT INTO avro_skip_out SELECT * FROM fused").await();
        tables.executeSql(table("avro_skip", "streamfusion-kafka", servers, skipTopic, avro + ", 'streamfusion.errors' = 'SKIP'"));
        System.out.println("avro skip: " + rows(tables, String.format(summary, "avro_skip")));
        tables.executeSql(table("avro_skip_unreachable", "streamfusion-kafka", servers, skipTopic,
                unreachable + ", 'streamfusion.errors' = 'SKIP'"));
        try {
            rows(tables, "SELECT COUNT(*) FROM avro_skip_unreachable");
            System.out.println("avro skip unreachable: read");
        } catch (Exception e) {
            System.out.println("avro skip unreachable: " + causes(e));
        }
        String bearer = avro + ", 'avro-confluent.bearer-auth.credentials-source' = 'STATIC_TOKEN', "
                + "'avro-confluent.bearer-auth.token' = 'token-secret'";
        tables.executeSql(table("avro_bearer", "streamfusion-kafka", servers, topic, bearer));
        System.out.println("avro bearer: " + rows(tables, String.format(summary, "avro_bearer")));
        tables.executeSql(
                table("avro_bearer_native", "streamfusion-kafka", servers, topic, bearer + ", 'streamfusion.rung' = 'NATIVE'"));
        try {
            tables.explainSql("SELECT * FROM avro_bearer_native");
            System.out.println("avro bearer native: planned");
        } catch (Exception e) {
            System.out.println("avro bearer native: " + causes(e));
        }
    }

    /** Every message of an exception's cause chain, on one line. */
    private static String causes(Throwable e) {
        StringBuilder causes = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            causes.append(t.getMessage()).append(" | ");
        }
        return causes.toString().replace('\n', ' ');
    }

    private static String table(String name, String connector, String servers, String topic) {
        return table(name, connector, servers, topic, "'format' = 'json'");
    }

    private static String table(String name, String connector, String servers, String topic, String format) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ("
                + "'connector' = '" + connector + "', 'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + servers + "', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                + format + ")";
    }

    private static List<String> rows(TableEnvironment tables, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }
}
