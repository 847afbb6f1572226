package dev.streamfusion.testkit.flink;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A job run as a Flink user deploys SQL jars: in a JVM whose classpath is Flink's libraries (the
 * test's classpath less what the jars must bring themselves), the SQL jars under test and the
 * job's own class, nothing else.
 */
public final class SqlJarJvm {

    private SqlJarJvm() {}

    /**
     * Runs {@code job}'s {@code main} with {@code args} beside {@code jars}, leaving out of the
     * test's classpath the entries {@code bundled} matches; returns what it printed.
     *
     * @throws IllegalStateException naming the job's last output lines if it does not finish
     *     within five minutes or exits with an error
     */
    public static List<String> run(Class<?> job, List<Path> jars, Pattern bundled, String... args) throws Exception {
        List<String> classpath = new ArrayList<>();
        for (Path jar : jars) {
            if (!Files.exists(jar)) {
                throw new IllegalStateException("no SQL jar at " + jar + ": build it with 'mvn package' first");
            }
            classpath.add(jar.toString());
        }
        classpath.add(Paths.get(job.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !bundled.matcher(entry).matches())
                .forEach(classpath::add);
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FlinkSqlClient.FLINK_JVM_OPTIONS);
        command.addAll(List.of("-Xmx1g", "-cp", String.join(File.pathSeparator, classpath), job.getName()));
        command.addAll(Arrays.asList(args));
        Path log = Files.createTempFile("sql-jar-job", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean done = process.waitFor(5, TimeUnit.MINUTES);
            List<String> lines = Files.readAllLines(log);
            if (!done) {
                throw new IllegalStateException("the job did not finish within 5 minutes:\n" + tail(lines));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("the job exited with " + process.exitValue() + ":\n" + tail(lines));
            }
            return lines;
        } finally {
            process.destroyForcibly();
            deleteQuietly(log);
        }
    }

    /** The last 40 of {@code lines}, for an error message. */
    static String tail(List<String> lines) {
        return lines.stream().skip(Math.max(0, lines.size() - 40)).collect(Collectors.joining("\n"));
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // A leftover temp file is harmless.
        }
    }
}
