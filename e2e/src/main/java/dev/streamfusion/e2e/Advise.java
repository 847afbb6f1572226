package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.operators.Advice;
import dev.streamfusion.operators.SqlScript;
import dev.streamfusion.operators.StreamFusion;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.nexmark.NexmarkModel;
import dev.streamfusion.testkit.nexmark.NexmarkTableFactory;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The advisor on the command line: {@code ./bin/advise query.sql [--sample N] [--rounds R]
 * [--parallelism P] [--batch]} runs every statement of the script but the last (DDL, {@code SET},
 * views) and prints {@link StreamFusion#advise} of the last one: the tables and the connectors that
 * would read them, the island and what stays stock with what would admit it, the plan, and a
 * sample run stock against StreamFusion with the rows compared.
 *
 * <p>{@code ./bin/advise --demo} writes Nexmark bids to a Kafka topic on a broker of its own and to
 * Parquet files (stock Flink's connectors), then advises on three queries over those stock tables:
 * one that runs fully native, one partly and one not at all.
 */
public final class Advise {

    private Advise() {}

    public static void main(String[] given) throws Exception {
        Map<String, String> args = Args.parse(given, Set.of("demo", "batch"));
        Advice.Options options = Advice.Options.defaults()
                .sampleRows(Long.parseLong(args.getOrDefault("sample", "10000")))
                .rounds(Integer.parseInt(args.getOrDefault("rounds", "1")));
        int parallelism = Integer.parseInt(args.getOrDefault("parallelism", "1"));
        String debug = NativeLibrary.load().isRelease() ? "" : " (a debug native build: its times say little)";
        if (args.containsKey("demo")) {
            demo(options, parallelism, debug);
            return;
        }
        String file = args.get(Args.POSITIONAL);
        if (file == null) {
            throw new IllegalArgumentException(
                    "usage: ./bin/advise query.sql [--sample N] [--rounds R] [--parallelism P] [--batch] | --demo");
        }
        String script = Files.readString(Paths.get(file), StandardCharsets.UTF_8);
        List<String> statements = SqlScript.statements(script);
        TableEnvironment env = environment(!args.containsKey("batch"), parallelism);
        Advice advice = StreamFusion.adviseScript(env, script, options);
        print(statements.get(statements.size() - 1), advice, debug);
    }

    private static TableEnvironment environment(boolean streaming, int parallelism) {
        TableEnvironment env = TableEnvironment.create(
                streaming ? EnvironmentSettings.inStreamingMode() : EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", String.valueOf(parallelism));
        return env;
    }

    private static void print(String statement, Advice advice, String debug) {
        System.out.println("=".repeat(100));
        System.out.println(statement);
        System.out.println("=".repeat(100));
        System.out.print(advice);
        if (!debug.isEmpty()) {
            System.out.println("  " + debug.strip());
        }
        System.out.println();
    }

    private static void demo(Advice.Options options, int parallelism, String debug) throws Exception {
        long events = 200_000;
        Path data = Files.createTempDirectory("streamfusion-advise");
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            broker.createTopic("bids", 2);
            String columns = NexmarkKafka.columns(NexmarkTableFactory.type(NexmarkModel.Kind.BID));
            String kafka = "CREATE TABLE bids (" + columns + ") WITH ('connector' = 'kafka', 'topic' = 'bids', "
                    + "'properties.bootstrap.servers' = '" + broker.bootstrapServers() + "', "
                    + "'properties.group.id' = 'bidders', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')";
            String parquet = "CREATE TABLE bid_files (" + columns + ") WITH ('connector' = 'filesystem', 'path' = '"
                    + data.resolve("bids").toUri() + "', 'format' = 'parquet')";
            TableEnvironment writer = environment(true, parallelism);
            NexmarkTableFactory.createTables(writer, events, 1);
            writer.executeSql(kafka.replace("TABLE bids (", "TABLE kafka_bids ("));
            writer.executeSql(parquet);
            System.out.printf(Locale.ROOT, "writing the bids of %,d Nexmark events to topic 'bids' and Parquet files%n", events);
            writer.executeSql("INSERT INTO kafka_bids SELECT auction, bidder, price, channel, url, date_time, extra FROM bid")
                    .await();
            writer.executeSql("INSERT INTO bid_files SELECT auction, bidder, price, channel, url, date_time, extra FROM bid")
                    .await();

            TableEnvironment env = environment(true, parallelism);
            env.executeSql(kafka);
            env.executeSql(parquet);
            for (String query : List.of(
                    // Fully native: a projection and filter over a Kafka topic.
                    "SELECT auction, bidder, price * 908 / 1000 AS euros, UPPER(channel) FROM bids WHERE MOD(auction, 10) < 3",
                    // Partly: the island reads and filters, Flink aggregates.
                    "SELECT channel, COUNT(*) AS n, MAX(price) AS top FROM bid_files WHERE price > 1000 GROUP BY channel",
                    // Not at all: a function the island lacks.
                    "SELECT auction, MD5(url) FROM bids WHERE MOD(bidder, 100) = 0")) {
                print(query, StreamFusion.advise(env, query, options), debug);
            }
        } finally {
            ParquetScanBenchmark.delete(data);
        }
    }
}
