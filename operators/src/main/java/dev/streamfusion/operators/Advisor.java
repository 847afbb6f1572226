package dev.streamfusion.operators;

import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.operators.planner.IslandReport;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogBaseTable;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Works out {@link StreamFusion#advise}: plans the statement with the island and with StreamFusion's
 * connector in place of each stock one it has a counterpart for, then runs it both ways on a
 * sample of every such table and compares the rows.
 *
 * <p>A table is swapped by a temporary table of the same name with the other options, dropped
 * again afterwards (a temporary table the user declared is put back as it was); the table
 * environment's island setting is restored too.
 */
@Internal
final class Advisor {

    private static final String CONNECTOR = FactoryUtil.CONNECTOR.key();
    private static final int DIFFERENCES_SHOWN = 5;

    private final TableEnvironmentImpl tableEnv;
    private final TableConfig config;
    private final CatalogManager catalogs;
    private final List<StockCounterpart> counterparts;
    private final Advice.Options options;

    private Advisor(TableEnvironmentImpl tableEnv, Advice.Options options) {
        this.tableEnv = tableEnv;
        this.config = tableEnv.getConfig();
        this.catalogs = tableEnv.getCatalogManager();
        this.counterparts = StockCounterpart.discover(Thread.currentThread().getContextClassLoader());
        this.options = options;
    }

    static Advice advise(TableEnvironment tableEnv, String statement, Advice.Options options) {
        if (!(tableEnv instanceof TableEnvironmentImpl)) {
            throw new IllegalArgumentException("advice needs Flink's own TableEnvironment, not " + tableEnv.getClass().getName());
        }
        Advisor advisor = new Advisor((TableEnvironmentImpl) tableEnv, options);
        boolean island = advisor.config.get(StreamFusion.ISLAND_ENABLED);
        try {
            return advisor.advise(statement);
        } finally {
            advisor.config.set(StreamFusion.ISLAND_ENABLED, island);
        }
    }

    /**
     * Executes {@code statement} as the SQL Client would: {@code SET 'key' = 'value'} sets the
     * table config (the table environment itself takes no {@code SET}); anything else runs.
     */
    static void execute(TableEnvironment tableEnv, String statement) {
        if (!(tableEnv instanceof TableEnvironmentImpl)) {
            tableEnv.executeSql(statement);
            return;
        }
        TableEnvironmentImpl impl = (TableEnvironmentImpl) tableEnv;
        List<Operation> operations = impl.getParser().parse(statement);
        if (operations.size() != 1) {
            // executeSql says what it takes, as it would for the statement
            tableEnv.executeSql(statement);
            return;
        }
        Operation operation = operations.get(0);
        if (operation instanceof SetOperation) {
            SetOperation set = (SetOperation) operation;
            if (set.getKey().isEmpty() || set.getValue().isEmpty()) {
                throw new IllegalArgumentException("a script's SET names a key and a value: " + statement);
            }
            tableEnv.getConfig().set(set.getKey().get(), set.getValue().get());
        } else {
            // The statement is parsed once: the operation runs as executeSql would run it.
            impl.executeInternal(operation);
        }
    }

    private Advice advise(String statement) {
        if (!StreamFusion.installInto(config)) {
            throw new IllegalStateException(
                    "the advice plans with the island, which needs flink-table-planner_2.12 on the class path in place "
                            + "of flink-table-planner-loader");
        }
        // As written, to learn the tables; then with StreamFusion's connectors in place of stock ones.
        Planned asWritten = plan(statement);
        Map<ObjectIdentifier, Swap> swaps = new LinkedHashMap<>();
        asWritten.sources.keySet().forEach(id -> swap(id).ifPresent(swap -> swaps.put(id, swap)));
        asWritten.sinks.keySet().forEach(id -> swap(id).ifPresent(swap -> swaps.putIfAbsent(id, swap)));
        Map<ObjectIdentifier, Map<String, String>> ours = new LinkedHashMap<>();
        swaps.forEach((id, swap) -> ours.put(id, swap.counterpart.streamFusion(swap.declared).orElseThrow()));
        Planned planned;
        Shadows shadows = shadow(ours);
        try {
            planned = plan(statement);
        } finally {
            shadows.close();
        }
        List<Advice.Table> tables = new ArrayList<>();
        List<Advice.Fallback> fallbacks = new ArrayList<>();
        planned.sources.forEach((id, summary) -> tables.add(table(id, false, summary, ours, fallbacks)));
        planned.sinks.forEach((id, summary) -> tables.add(table(id, true, summary, ours, fallbacks)));
        planned.admits.forEach((reason, admit) -> fallbacks.add(new Advice.Fallback(reason, admit)));
        Optional<Advice.SampleRun> run =
                options.sampleRows() == 0 ? Optional.empty() : Optional.of(sampleRun(statement, planned, swaps));
        return new Advice(planned.plan, planned.nativeNodes, fallbacks, tables, run);
    }

    private Advice.Table table(
            ObjectIdentifier id,
            boolean written,
            String summary,
            Map<ObjectIdentifier, Map<String, String>> ours,
            List<Advice.Fallback> fallbacks) {
        String declared = declaredOptions(id).map(o -> o.getOrDefault(CONNECTOR, "")).orElse("");
        String planned = ours.containsKey(id) ? ours.get(id).get(CONNECTOR) : declared;
        if (!ours.containsKey(id)) {
            String what = declared.isEmpty() ? "a table of its catalog" : "'connector' = '" + declared + "'";
            fallbacks.add(new Advice.Fallback(
                    id.asSummaryString() + ": " + what + " has no StreamFusion counterpart", Optional.empty()));
        }
        return new Advice.Table(id, written, declared, planned, summary);
    }

    /** The statement planned with the island, and what the island reported. */
    private static final class Planned {
        String plan;
        final List<String> nativeNodes = new ArrayList<>();
        final Map<String, Optional<String>> admits = new LinkedHashMap<>();
        final Map<ObjectIdentifier, String> sources = new LinkedHashMap<>();
        final Map<ObjectIdentifier, String> sinks = new LinkedHashMap<>();
    }

    private Planned plan(String statement) {
        config.set(StreamFusion.ISLAND_ENABLED, true);
        Planned planned = new Planned();
        for (IslandReport report : IslandReport.collect(() -> planned.plan = tableEnv.explainSql(statement))) {
            planned.nativeNodes.addAll(report.nativeNodes());
            report.admits().forEach(planned.admits::putIfAbsent);
            report.sources().forEach(planned.sources::putIfAbsent);
            report.sinks().forEach(planned.sinks::putIfAbsent);
        }
        return planned;
    }

    /** A table StreamFusion has a counterpart for, with its declared options. */
    private static final class Swap {
        final StockCounterpart counterpart;
        final Map<String, String> declared;

        Swap(StockCounterpart counterpart, Map<String, String> declared) {
            this.counterpart = counterpart;
            this.declared = declared;
        }
    }

    private Optional<Map<String, String>> declaredOptions(ObjectIdentifier id) {
        return catalogs.getTable(id)
                .map(ContextResolvedTable::getResolvedTable)
                .filter(table -> table instanceof ResolvedCatalogTable)
                .map(table -> ((ResolvedCatalogBaseTable<?>) table).getOptions());
    }

    private Optional<Swap> swap(ObjectIdentifier id) {
        return declaredOptions(id).flatMap(declared -> counterparts.stream()
                .filter(c -> c.streamFusion(declared).isPresent() && c.stock(declared).isPresent())
                .findFirst()
                .map(c -> new Swap(c, declared)));
    }

    // ---------------------------------------------------------------------------------------------
    // The sample run

    private Advice.SampleRun sampleRun(String statement, Planned planned, Map<ObjectIdentifier, Swap> swaps) {
        Map<ObjectIdentifier, Map<String, String>> stock = new LinkedHashMap<>();
        Map<ObjectIdentifier, Map<String, String>> ours = new LinkedHashMap<>();
        List<String> samples = new ArrayList<>();
        for (ObjectIdentifier id : planned.sources.keySet()) {
            Swap swap = swaps.get(id);
            if (swap == null) {
                samples.add(id.asSummaryString() + ": read whole, the same table both ways");
                continue;
            }
            StockCounterpart.Sample sample;
            try {
                sample = swap.counterpart.sample(swap.declared, options.sampleRows());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("table " + id.asSummaryString() + " cannot be sampled: " + e.getMessage(), e);
            }
            samples.add(id.asSummaryString() + ": " + sample.description());
            stock.put(id, swap.counterpart.stock(sample.options()).orElseThrow());
            ours.put(id, swap.counterpart.streamFusion(sample.options()).orElseThrow());
        }
        long stockBest = Long.MAX_VALUE;
        long oursBest = Long.MAX_VALUE;
        Map<String, Long> stockRows = null;
        Map<String, Long> ourRows = null;
        for (int round = 0; round < options.rounds(); round++) {
            Measured stockRun = run(statement, false, stock);
            Measured ourRun = run(statement, true, ours);
            stockBest = Math.min(stockBest, stockRun.nanos);
            oursBest = Math.min(oursBest, ourRun.nanos);
            if (stockRows == null || !stockRun.rows.equals(ourRun.rows)) {
                stockRows = stockRun.rows;
                ourRows = ourRun.rows;
            }
        }
        Advice.Verdict verdict = Advice.Verdict.EQUAL;
        List<String> differences = new ArrayList<>();
        if (!stockRows.equals(ourRows)) {
            Map<String, Long> again = run(statement, false, stock).rows;
            verdict = again.equals(stockRows) ? Advice.Verdict.DIFFERENT : Advice.Verdict.ORDER_DEPENDENT;
            differences.addAll(differences("stock only", stockRows, ourRows));
            differences.addAll(differences("StreamFusion only", ourRows, stockRows));
        }
        long rows = stockRows.values().stream().mapToLong(Long::longValue).filter(n -> n > 0).sum();
        return new Advice.SampleRun(
                samples, Duration.ofNanos(stockBest), Duration.ofNanos(oursBest), rows, verdict, differences);
    }

    private static List<String> differences(String label, Map<String, Long> these, Map<String, Long> those) {
        List<String> shown = new ArrayList<>();
        for (Map.Entry<String, Long> row : these.entrySet()) {
            long extra = row.getValue() - those.getOrDefault(row.getKey(), 0L);
            if (extra != 0 && shown.size() < DIFFERENCES_SHOWN) {
                shown.add(label + " (" + (extra > 0 ? extra + "x" : "retracted " + -extra + "x") + "): " + row.getKey());
            }
        }
        return shown;
    }

    /** One run's time and rows (each row's count after its changelog is applied). */
    private static final class Measured {
        final long nanos;
        final Map<String, Long> rows;

        Measured(long nanos, Map<String, Long> rows) {
            this.nanos = nanos;
            this.rows = rows;
        }
    }

    private Measured run(String statement, boolean streamFusion, Map<ObjectIdentifier, Map<String, String>> tables) {
        Shadows shadows = shadow(tables);
        try {
            config.set(StreamFusion.ISLAND_ENABLED, streamFusion);
            List<Operation> operations = tableEnv.getParser().parse(statement);
            Operation operation = operations.get(0);
            QueryOperation query;
            if (operation instanceof ModifyOperation) {
                query = ((ModifyOperation) operation).getChild();
            } else if (operation instanceof QueryOperation) {
                query = (QueryOperation) operation;
            } else {
                throw new IllegalArgumentException("advice takes a query or an INSERT, not: " + operation.asSummaryString());
            }
            long start = System.nanoTime();
            TableResult result = tableEnv.createTable(query).execute();
            Map<String, Long> rows = drain(result, (streamFusion ? "StreamFusion" : "stock Flink") + " run");
            return new Measured(System.nanoTime() - start, rows);
        } finally {
            shadows.close();
        }
    }

    /**
     * The result's changelog applied: each row with how many times it is in the result. The rows
     * are filled on another thread and read only after it has finished ({@code get} orders the two).
     */
    private Map<String, Long> drain(TableResult result, String what) {
        Map<String, Long> rows = new HashMap<>();
        CloseableIterator<Row> changelog = result.collect();
        try {
            CompletableFuture.runAsync(() -> changelog.forEachRemaining(row -> {
                        RowKind kind = row.getKind();
                        row.setKind(RowKind.INSERT);
                        long change = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER ? 1 : -1;
                        rows.merge(row.toString(), change, (a, b) -> a + b == 0 ? null : a + b);
                    }))
                    .get(options.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            result.getJobClient().ifPresent(JobClient::cancel);
            throw new IllegalStateException(
                    "the " + what + " did not finish within " + options.timeout()
                            + " (is a table it reads unbounded?); it was cancelled", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the " + what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the " + what, e);
        } finally {
            close(changelog);
        }
        return rows;
    }

    private static void close(CloseableIterator<Row> changelog) {
        try {
            changelog.close();
        } catch (Exception e) {
            // the job has ended or was cancelled; nothing is left to release
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Tables swapped for a while

    /** Temporary tables standing in for others, until closed. */
    private interface Shadows extends AutoCloseable {
        @Override
        void close();
    }

    private Shadows shadow(Map<ObjectIdentifier, Map<String, String>> tables) {
        List<Runnable> undo = new ArrayList<>();
        Shadows shadows = () -> {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
        };
        try {
            tables.forEach((id, tableOptions) -> {
                ContextResolvedTable current = catalogs.getTable(id)
                        .orElseThrow(() -> new IllegalStateException("table " + id + " is gone"));
                ResolvedCatalogTable table = current.getResolvedTable();
                if (Objects.equals(table.getOptions(), tableOptions)) {
                    return;
                }
                if (current.isTemporary()) {
                    catalogs.dropTemporaryTable(id, false);
                    undo.add(() -> catalogs.createTemporaryTable(table, id, false));
                }
                catalogs.createTemporaryTable(table.copy(tableOptions), id, false);
                undo.add(() -> catalogs.dropTemporaryTable(id, true));
            });
        } catch (RuntimeException e) {
            shadows.close();
            throw e;
        }
        return shadows;
    }
}
