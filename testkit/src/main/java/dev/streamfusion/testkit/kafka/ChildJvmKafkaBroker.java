package dev.streamfusion.testkit.kafka;

import dev.streamfusion.testkit.process.ChildJvm;

import org.apache.flink.annotation.PublicEvolving;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real Kafka broker (KRaft, combined broker and controller, one node) running in a child JVM on
 * free ports of {@code 127.0.0.1}.
 *
 * <p>The child JVM runs the broker from the jars of {@code kafka_2.13}, so Scala 2.13 never meets
 * the test JVM's classpath. Each broker gets a fresh temporary directory holding its configuration,
 * data and log ({@code broker.log}); {@link #close()} deletes it. A JVM shutdown hook stops brokers
 * a test forgot, and the child stops by itself if the test JVM dies without running hooks.
 *
 * <pre>{@code
 * try (ChildJvmKafkaBroker kafka = ChildJvmKafkaBroker.start()) {
 *     kafka.createTopic("orders", 4);
 *     // point clients at kafka.bootstrapServers()
 * }
 * }</pre>
 *
 * <p>Defaults suit one node and fast tests: internal topics (offsets, transaction state, share
 * coordinator state) have one replica and one partition, topics are not created on first use, and
 * consumer groups rebalance without initial delay, and records are kept whatever their timestamps
 * (no time-based retention). {@link Builder#brokerProperty} overrides any of
 * them or adds other broker properties.
 */
@PublicEvolving
public final class ChildJvmKafkaBroker implements KafkaCluster {

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvmKafkaBroker.class);

    private static final String HOST = "127.0.0.1";
    private static final String LOG_FILE = "broker.log";
    private static final int START_ATTEMPTS = 3;
    private static final Duration GRACEFUL_STOP = Duration.ofSeconds(10);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_MILLIS = 100;

    /** Properties that tie the node to its ports and directory; the launcher owns them. */
    private static final Set<String> RESERVED_PROPERTIES =
            Set.of(
                    "process.roles",
                    "node.id",
                    "listeners",
                    "advertised.listeners",
                    "controller.listener.names",
                    "inter.broker.listener.name",
                    "controller.quorum.voters",
                    "controller.quorum.bootstrap.servers",
                    "log.dir",
                    "log.dirs",
                    "metadata.log.dir");

    private final Path directory;
    private final List<String> command;
    private final Duration startTimeout;
    /** The broker's JVM; replaced by {@link #restart()}. */
    private volatile Process process;
    private final int port;
    /** The SASL/PLAIN listener's port, or 0 without one. */
    private final int saslPort;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Created once the broker's port is open: a client starts connecting as soon as it exists. */
    private Admin admin;

    private ChildJvmKafkaBroker(
            Path directory, List<String> command, Duration startTimeout, Process process, int port, int saslPort) {
        this.directory = directory;
        this.command = command;
        this.startTimeout = startTimeout;
        this.process = process;
        this.port = port;
        this.saslPort = saslPort;
        this.shutdownHook = new Thread(this::close, "kafka-broker-stop-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts a broker with the default configuration; see {@link Builder#start()}. */
    public static ChildJvmKafkaBroker start() {
        return builder().start();
    }

    /** Returns a builder for a broker with extra or overridden broker properties. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    @Override
    public String saslPlainBootstrapServers() {
        if (saslPort == 0) {
            throw new IllegalStateException("the broker was started without SASL/PLAIN users (Builder#saslPlainUser)");
        }
        return HOST + ":" + saslPort;
    }

    /** The broker's temporary directory (configuration, data, log); deleted by {@link #close()}. */
    public Path directory() {
        return directory;
    }

    /** Where the broker keeps the log segments of {@code topic}'s partition {@code partition}. */
    public Path partitionDirectory(String topic, int partition) {
        return directory.resolve("data").resolve(topic + "-" + partition);
    }

    /** The broker JVM's standard output and error. */
    public Path logFile() {
        return directory.resolve(LOG_FILE);
    }

    private synchronized Admin admin() {
        if (admin == null) {
            Properties config = new Properties();
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "streamfusion-testkit-" + port);
            admin = Admin.create(config);
        }
        return admin;
    }

    @Override
    public void createTopic(String topic, int partitions, Map<String, String> topicConfigs) {
        if (closed.get()) {
            throw new IllegalStateException(
                    "Cannot create topic '" + topic + "': the Kafka broker at " + bootstrapServers() + " is closed.");
        }
        NewTopic newTopic = new NewTopic(topic, partitions, (short) 1).configs(topicConfigs);
        try {
            admin().createTopics(List.of(newTopic)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            awaitLeaders(Set.of(topic));
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "Could not create topic '"
                            + topic
                            + "' with "
                            + partitions
                            + " partitions and configuration "
                            + topicConfigs
                            + " on the Kafka broker at "
                            + bootstrapServers()
                            + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "The Kafka broker at " + bootstrapServers() + " did not create topic '" + topic + "' within "
                            + ADMIN_TIMEOUT.toSeconds() + " s; see " + logFile(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic '" + topic + "'", e);
        }
    }

    /**
     * Waits until the broker's own metadata shows a leader for every partition of {@code topics}:
     * creation returns once the controller has recorded a topic, and a restarted broker answers
     * before it leads its partitions again, a little before it serves them.
     */
    private void awaitLeaders(Set<String> topics) throws InterruptedException, TimeoutException, ExecutionException {
        long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> descriptions =
                        admin().describeTopics(topics)
                                .allTopicNames()
                                .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                if (descriptions.values().stream()
                        .flatMap(description -> description.partitions().stream())
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("partitions of " + topics + " have no leader");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChildJvm.removeShutdownHook(shutdownHook);
        stop(true);
        LOG.info("Stopped the Kafka broker at {}", bootstrapServers());
    }

    /**
     * Kills the broker's JVM (as a crash would) and starts it again on the same ports with the same
     * data; returns once it answers again and leads every partition. Clients see the broker go
     * away and come back.
     *
     * @throws IllegalStateException if the broker does not come back; the message holds its log
     */
    @Override
    public synchronized void restart() {
        if (closed.get()) {
            throw new IllegalStateException("the Kafka broker at " + bootstrapServers() + " is closed");
        }
        if (admin != null) {
            admin.close(Duration.ZERO);
            admin = null;
        }
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the Kafka broker", e);
        }
        ChildJvm.closeQuietly(process.getOutputStream());
        try {
            process = ChildJvm.spawn(command, directory, logFile());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not relaunch the Kafka broker's JVM in " + directory, e);
        }
        awaitReady(startTimeout);
        try {
            awaitLeaders(admin().listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "The Kafka broker at " + bootstrapServers() + " restarted but does not lead its partitions again; see "
                            + logFile(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the restarted Kafka broker", e);
        }
        LOG.info("Restarted the Kafka broker at {}", bootstrapServers());
    }

    private void stop(boolean graceful) {
        synchronized (this) {
            if (admin != null) {
                admin.close(Duration.ZERO);
            }
        }
        ChildJvm.stop(process, graceful, GRACEFUL_STOP, "The Kafka broker at " + bootstrapServers());
        ChildJvm.deleteDirectory(directory);
    }

    /**
     * Waits until the broker answers a metadata request, or fails with the tail of its log when it
     * exits or the timeout passes first.
     */
    private void awaitReady(Duration timeout) {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        try {
            while (true) {
                if (!process.isAlive()) {
                    throw failedStart("its JVM exited with code " + process.exitValue() + " before it answered");
                }
                // A plain connect first: a client polling a closed port fills the test log with
                // connection warnings while the broker starts.
                if (ChildJvm.portOpen(HOST, port)) {
                    try {
                        long remaining = Math.max(1, Math.min(5_000, (deadline - System.nanoTime()) / 1_000_000));
                        if (!admin().describeCluster(new DescribeClusterOptions().timeoutMs((int) remaining))
                                .nodes()
                                .get()
                                .isEmpty()) {
                            LOG.info("Started a Kafka broker at {} in {} ms (directory {})", bootstrapServers(),
                                    (System.nanoTime() - started) / 1_000_000, directory);
                            return;
                        }
                    } catch (ExecutionException e) {
                        // Not serving yet; keep polling until the deadline.
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw failedStart("it did not answer on " + bootstrapServers() + " within " + timeout.toSeconds()
                            + " s");
                }
                Thread.sleep(POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failedStart("the test thread was interrupted while waiting for it");
        }
    }

    /** Kills the broker, deletes its directory and describes why it did not start, with its log. */
    private IllegalStateException failedStart(String reason) {
        closed.set(true);
        ChildJvm.removeShutdownHook(shutdownHook);
        process.destroyForcibly();
        try {
            process.waitFor(GRACEFUL_STOP.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Read before stop() deletes the directory; the process is dead, so the log is complete.
        String log = ChildJvm.readLog(logFile());
        stop(false);
        String message =
                "The Kafka broker did not start: "
                        + reason
                        + ". From its log ("
                        + logFile()
                        + ", now deleted):\n"
                        + ChildJvm.excerpt(log, " ERROR ");
        return log.contains("Address already in use")
                ? new PortTakenException(message)
                : new IllegalStateException(message);
    }

    /** A start that failed because another process took one of the ports picked for the broker. */
    private static final class PortTakenException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    /**
     * Configures and starts a {@link ChildJvmKafkaBroker}. A builder can start several brokers;
     * each gets its own ports and directory.
     */
    @PublicEvolving
    public static final class Builder {

        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private final Map<String, String> saslPlainUsers = new LinkedHashMap<>();
        private Duration startTimeout = Duration.ofSeconds(60);

        private Builder() {}

        /**
         * Adds or overrides a broker property, such as {@code log.retention.ms}. The properties that
         * bind the node to its ports and directory (listeners, node id, quorum, log directories) are
         * the launcher's.
         *
         * @throws IllegalArgumentException for those reserved properties
         */
        public Builder brokerProperty(String key, String value) {
            if (RESERVED_PROPERTIES.contains(key)) {
                throw new IllegalArgumentException(
                        "The broker property '" + key + "' is set by the launcher (it ties the node to its ports"
                                + " and directory) and cannot be overridden; reserved: " + RESERVED_PROPERTIES);
            }
            brokerProperties.put(key, value);
            return this;
        }

        /** Adds or overrides several broker properties; see {@link #brokerProperty}. */
        public Builder brokerProperties(Map<String, String> properties) {
            properties.forEach(this::brokerProperty);
            return this;
        }

        /**
         * Adds a user of a second listener that authenticates with SASL/PLAIN over plaintext (see
         * {@link KafkaCluster#saslPlainBootstrapServers()}); the first user opens that listener.
         */
        public Builder saslPlainUser(String user, String password) {
            saslPlainUsers.put(user, password);
            return this;
        }

        /** How long to wait for the broker to answer before giving up; 60 s by default. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /**
         * Starts the broker and waits until it answers. Takes a few seconds.
         *
         * @throws IllegalStateException if the broker does not start; the message holds the tail of
         *     its log
         */
        public ChildJvmKafkaBroker start() {
            String classpath = KafkaServerClasspath.resolve();
            PortTakenException portTaken = null;
            // The free ports are picked before the broker binds them, so another process can take
            // one in between; a fresh pick usually succeeds.
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                try {
                    return launch(classpath);
                } catch (PortTakenException e) {
                    LOG.info("A port picked for the Kafka broker was taken (attempt {} of {}); retrying",
                            attempt, START_ATTEMPTS);
                    portTaken = e;
                }
            }
            throw portTaken;
        }

        private ChildJvmKafkaBroker launch(String classpath) {
            Path directory = ChildJvm.newDirectory("streamfusion-kafka-");
            Process process;
            List<String> command;
            int port;
            int saslPort;
            try {
                int[] ports = freePorts();
                port = ports[0];
                saslPort = saslPlainUsers.isEmpty() ? 0 : ports[2];
                Path config = directory.resolve("server.properties");
                try (Writer out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                    configuration(directory, ports[0], ports[1], saslPort).store(out, "Kafka broker for StreamFusion tests");
                }
                command =
                        List.of(
                                ChildJvm.java(),
                                "-Xmx512m",
                                "-XX:+ExitOnOutOfMemoryError",
                                "-Dlog4j2.configurationFile=" + KafkaServerClasspath.LOG4J_CONFIGURATION,
                                "-cp",
                                classpath,
                                KafkaServerClasspath.MAIN_CLASS,
                                config.toString());
                process = ChildJvm.spawn(command, directory, directory.resolve(LOG_FILE));
            } catch (IOException e) {
                ChildJvm.deleteDirectory(directory);
                throw new UncheckedIOException("Could not launch the Kafka broker's JVM in " + directory, e);
            }
            ChildJvmKafkaBroker broker =
                    new ChildJvmKafkaBroker(directory, command, startTimeout, process, port, saslPort);
            try {
                broker.awaitReady(startTimeout);
            } catch (RuntimeException e) {
                // Already stopped after a failed start; this covers anything unexpected.
                broker.close();
                throw e;
            }
            return broker;
        }

        private Properties configuration(Path directory, int brokerPort, int controllerPort, int saslPort) {
            Properties config = new Properties();
            config.setProperty("process.roles", "broker,controller");
            config.setProperty("node.id", "1");
            String sasl = saslPort == 0 ? "" : ",SASL_PLAINTEXT://" + HOST + ":" + saslPort;
            config.setProperty("listeners",
                    "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort + sasl);
            config.setProperty("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort + sasl);
            config.setProperty(
                    "listener.security.protocol.map",
                    "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (sasl.isEmpty() ? "" : ",SASL_PLAINTEXT:SASL_PLAINTEXT"));
            if (!sasl.isEmpty()) {
                StringBuilder users = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
                saslPlainUsers.forEach((user, password) -> users.append(" user_").append(user).append("=\"").append(password).append('"'));
                config.setProperty("sasl.enabled.mechanisms", "PLAIN");
                config.setProperty("listener.name.sasl_plaintext.plain.sasl.jaas.config", users.append(';').toString());
            }
            config.setProperty("controller.listener.names", "CONTROLLER");
            config.setProperty("inter.broker.listener.name", "PLAINTEXT");
            // Static voters: the storage format needs no initial-controller arguments.
            config.setProperty("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
            config.setProperty("log.dirs", directory.resolve("data").toString());

            config.setProperty("auto.create.topics.enable", "false");
            // Test data carries fixed timestamps from years ago (the corpora's, Nexmark's): under the
            // default seven days' retention a topic's records would vanish at whichever retention
            // check (every five minutes) came first, so what a test reads would depend on the clock.
            config.setProperty("log.retention.ms", "-1");
            config.setProperty("group.initial.rebalance.delay.ms", "0");
            config.setProperty("offsets.topic.replication.factor", "1");
            // One partition instead of 50: the first consumer group or transaction on a fresh broker
            // otherwise waits for 50 partitions to be created.
            config.setProperty("offsets.topic.num.partitions", "1");
            config.setProperty("transaction.state.log.replication.factor", "1");
            config.setProperty("transaction.state.log.min.isr", "1");
            config.setProperty("transaction.state.log.num.partitions", "1");
            config.setProperty("share.coordinator.state.topic.replication.factor", "1");
            config.setProperty("share.coordinator.state.topic.min.isr", "1");
            config.setProperty("share.coordinator.state.topic.num.partitions", "1");
            brokerProperties.forEach(config::setProperty);
            return config;
        }

        /** Two distinct free ports: both sockets are held open together so they cannot coincide. */
        private static int[] freePorts() throws IOException {
            InetAddress host = InetAddress.getByName(HOST);
            try (ServerSocket broker = new ServerSocket(0, 1, host);
                    ServerSocket controller = new ServerSocket(0, 1, host);
                    ServerSocket sasl = new ServerSocket(0, 1, host)) {
                return new int[] {broker.getLocalPort(), controller.getLocalPort(), sasl.getLocalPort()};
            }
        }
    }
}
