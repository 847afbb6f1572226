package dev.streamfusion.testkit.flink;

import dev.streamfusion.testkit.process.ChildJvm;

import org.apache.flink.annotation.Internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Flink's SQL Client run as a Flink installation runs it ({@code bin/sql-client.sh -f script}):
 * a child JVM whose classpath is an installation's {@code lib/} (from
 * streamfusion-testkit-flink-dist) plus the jars a user drops into it, the SQL Client's jars from
 * {@code opt/}, a configuration directory ({@code FLINK_CONF_DIR}) holding {@code config.yaml},
 * and the JVM options Flink's launch scripts pass. Jobs run on a local cluster inside the client
 * ({@code execution.target: local}), whose class loading is a session cluster's: the jars in
 * {@code lib/} are on the system class path, and a job's own jars ({@code ADD JAR}) in a class
 * loader per job.
 */
@Internal
public final class FlinkSqlClient {

    /** The JVM options of Flink's launch scripts that the SQL jars rely on (env.java.opts.all). */
    public static final List<String> FLINK_JVM_OPTIONS =
            List.of(
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED");

    private static final String CLASSPATH_FILE = "dev/streamfusion/testkit/flink/dist/flink-dist.classpath";
    private static final String ARTIFACT = "streamfusion-testkit-flink-dist";

    private final List<Path> lib = new ArrayList<>();
    private final Map<String, String> configuration = new LinkedHashMap<>();
    private List<String> jvmOptions = FLINK_JVM_OPTIONS;
    private final Path directory;
    /** Whether {@code lib/} keeps Flink's planner loader (else the planner jars given replace it). */
    private boolean plannerLoader = true;

    /** A client whose configuration, log and scripts live under {@code directory}. */
    public FlinkSqlClient(Path directory) {
        this.directory = directory;
        configuration.put("execution.target", "local");
        configuration.put("parallelism.default", "1");
        configuration.put("sql-client.execution.result-mode", "tableau");
    }

    /** Adds {@code jars} to the installation's {@code lib/}. */
    public FlinkSqlClient withLib(List<Path> jars) {
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("no jar at " + jar + ": build it with 'mvn package' first");
            }
            lib.add(jar);
        }
        return this;
    }

    /**
     * Replaces the planner loader in {@code lib/} with {@code plannerJars} (Flink's {@code
     * flink-table-planner_2.12} and the Scala library it needs), as Flink's documentation has users
     * do to reach the planner's classes.
     */
    public FlinkSqlClient withPlannerInsteadOfLoader(List<Path> plannerJars) {
        plannerLoader = false;
        return withLib(plannerJars);
    }

    /** Sets {@code key} in {@code config.yaml}. */
    public FlinkSqlClient with(String key, String value) {
        configuration.put(key, value);
        return this;
    }

    /** The JVM's options instead of {@link #FLINK_JVM_OPTIONS}. */
    public FlinkSqlClient withJvmOptions(List<String> options) {
        this.jvmOptions = List.copyOf(options);
        return this;
    }

    /** What a run printed and how it ended. */
    public static final class Run {
        public final int exitCode;
        public final List<String> output;
        public final Path log;

        Run(int exitCode, List<String> output, Path log) {
            this.exitCode = exitCode;
            this.output = output;
            this.log = log;
        }

        /** The output without the terminal's colour codes, one string. */
        public String text() {
            return String.join("\n", output);
        }
    }

    /**
     * Runs {@code script} ({@code sql-client.sh -f}); Flink's and StreamFusion's logs go to a file
     * ({@link Run#log}), as the installation's {@code log/} holds them.
     *
     * @throws IllegalStateException with the output's end if the client runs longer than five
     *     minutes
     */
    public Run run(String name, String script) throws IOException, InterruptedException {
        Path conf = Files.createDirectories(directory.resolve("conf"));
        Files.writeString(
                conf.resolve("config.yaml"),
                configuration.entrySet().stream()
                        .map(e -> e.getKey() + ": " + e.getValue())
                        .collect(Collectors.joining("\n", "", "\n")),
                StandardCharsets.UTF_8);
        Path log = directory.resolve(name + ".log");
        Files.writeString(
                conf.resolve("log4j-cli.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = File",
                        "appender.file.type = File",
                        "appender.file.name = File",
                        "appender.file.fileName = " + log,
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c - %m%n",
                        ""),
                StandardCharsets.UTF_8);
        Path file = directory.resolve(name + ".sql");
        Files.writeString(file, script, StandardCharsets.UTF_8);

        List<String> classpath = new ArrayList<>();
        lib.forEach(jar -> classpath.add(jar.toString()));
        for (String entry : ChildJvm.classpath(CLASSPATH_FILE, ARTIFACT).split(File.pathSeparator)) {
            if (plannerLoader || !Path.of(entry).getFileName().toString().startsWith("flink-table-planner-loader")) {
                classpath.add(entry);
            }
        }
        List<String> command = new ArrayList<>();
        command.add(ChildJvm.java());
        command.addAll(jvmOptions);
        command.add("-Xmx1g");
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j-cli.properties").toUri());
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classpath));
        command.add("org.apache.flink.table.client.SqlClient");
        command.add("--file");
        command.add(file.toString());
        Path out = directory.resolve(name + ".out");
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        try {
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException(
                        "the SQL Client did not finish within 5 minutes:\n" + SqlJarJvm.tail(Files.readAllLines(out)));
            }
        } finally {
            process.destroyForcibly();
        }
        List<String> lines =
                Files.readAllLines(out, StandardCharsets.UTF_8).stream()
                        .map(line -> line.replaceAll("\u001B\\[[;\\d]*m", ""))
                        .collect(Collectors.toList());
        return new Run(process.exitValue(), lines, log);
    }
}
