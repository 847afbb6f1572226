package dev.streamfusion.kafka.internal;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables from kafka-clients consumer and producer properties to librdkafka's. Every property is
 * either translated, handled by Flink or StreamFusion itself, or reported as untranslatable: none
 * is dropped silently. A table with an untranslatable property reads on the Java rung, or writes
 * through kafka-clients.
 */
@Internal
public final class LibrdkafkaConfig {

    /**
     * librdkafka's bound on the records it fetches ahead of the reader, in kilobytes, set from the
     * table's {@code streamfusion.prefetch.kbytes}.
     */
    public static final String PREFETCH = "queued.max.messages.kbytes";

    /** Properties with the same name and meaning in librdkafka, for both clients. */
    private static final Set<String> SAME =
            Set.of(
                    "bootstrap.servers",
                    "client.id",
                    "client.rack",
                    "metadata.max.age.ms",
                    "reconnect.backoff.ms",
                    "reconnect.backoff.max.ms",
                    "retry.backoff.ms",
                    "retry.backoff.max.ms",
                    "connections.max.idle.ms",
                    "socket.connection.setup.timeout.ms",
                    "ssl.key.password");

    /** Consumer properties with the same name and meaning in librdkafka. */
    private static final Set<String> SAME_CONSUMER =
            Set.of(
                    "group.id",
                    // kafka-clients' producer has no such property (it asks for missing topics).
                    "allow.auto.create.topics",
                    "fetch.min.bytes",
                    "fetch.max.bytes",
                    "max.partition.fetch.bytes",
                    "session.timeout.ms",
                    "check.crcs",
                    "isolation.level",
                    LibrdkafkaConfig.PREFETCH);

    /** Producer properties with the same name and meaning in librdkafka. */
    private static final Set<String> SAME_PRODUCER =
            Set.of(
                    "acks",
                    "linger.ms",
                    "batch.size",
                    "compression.type",
                    "retries",
                    "enable.idempotence",
                    "request.timeout.ms",
                    "transaction.timeout.ms");

    /** Properties librdkafka names differently, for both clients. */
    private static final Map<String, String> RENAMED =
            Map.of(
                    "receive.buffer.bytes", "socket.receive.buffer.bytes",
                    "send.buffer.bytes", "socket.send.buffer.bytes");

    private static final Map<String, String> RENAMED_CONSUMER =
            Map.of(
                    "fetch.max.wait.ms", "fetch.wait.max.ms",
                    "request.timeout.ms", "socket.timeout.ms");

    private static final Map<String, String> RENAMED_PRODUCER =
            Map.of(
                    "delivery.timeout.ms", "message.timeout.ms",
                    "max.in.flight.requests.per.connection", "max.in.flight",
                    "max.request.size", "message.max.bytes");

    /**
     * Consumer properties Flink's source or the reader acts on itself, so librdkafka needs none of
     * them: deserializers (the reader reads bytes), auto commit when off (offsets live in Flink's
     * state; on, it is untranslatable), Flink's own source options, the reader's batch size and
     * the offset lookup timeout; and the group membership's timings, which a consumer assigned its
     * partitions, as Flink's reader is, never uses (librdkafka would refuse some pairs of them that
     * kafka-clients takes).
     */
    private static final Set<String> HANDLED_CONSUMER =
            Set.of(
                    "key.deserializer",
                    "value.deserializer",
                    "enable.auto.commit",
                    "auto.commit.interval.ms",
                    "heartbeat.interval.ms",
                    "max.poll.interval.ms",
                    "partition.discovery.interval.ms",
                    "client.id.prefix",
                    "register.consumer.metrics",
                    "commit.offsets.on.checkpoint",
                    "max.poll.records",
                    "default.api.timeout.ms");

    /**
     * Producer properties the sink acts on itself: it sends bytes it encoded, and bounds its wait
     * for room in librdkafka's queue by {@code max.block.ms} ({@link #maxBlockMs}).
     */
    private static final Set<String> HANDLED_PRODUCER = Set.of("key.serializer", "value.serializer", "max.block.ms");

    /** The values of {@code isolation.level} kafka-clients takes, spelled as it takes them. */
    private static final List<String> ISOLATION_LEVELS = List.of("read_uncommitted", "read_committed");

    /** kafka-clients' default delivery timeout, which librdkafka's message timeout takes. */
    private static final long DELIVERY_TIMEOUT_MS_DEFAULT = 120_000;

    /** kafka-clients' producer's default {@code request.timeout.ms}. */
    private static final long REQUEST_TIMEOUT_MS_DEFAULT = 30_000;

    /**
     * librdkafka's default {@code message.max.bytes}, the least {@code fetch.max.bytes} it takes
     * when that is set.
     */
    private static final long MESSAGE_MAX_BYTES_DEFAULT = 1_000_000;

    /** librdkafka's default {@code max.poll.interval.ms}, which must not be below the session timeout. */
    private static final long MAX_POLL_INTERVAL_MS_DEFAULT = 300_000;

    /** kafka-clients' default {@code max.block.ms}. */
    private static final long MAX_BLOCK_MS_DEFAULT = 60_000;

    /** One client's table. */
    private static final class Table {
        final Set<String> same;
        final Map<String, String> renamed;
        final Set<String> handled;
        /**
         * kafka-clients' properties of the other client only, which this one's kafka-clients
         * counterpart ignores (logging them as unused): a table read and written names both.
         */
        final Set<String> otherClients;

        Table(Set<String> same, Map<String, String> renamed, Set<String> handled, Set<String> otherClients) {
            this.same = same;
            this.renamed = renamed;
            this.handled = handled;
            this.otherClients = otherClients;
        }
    }

    private static final Table CONSUMER = new Table(
            SAME_CONSUMER, RENAMED_CONSUMER, HANDLED_CONSUMER, only(ProducerConfig.configNames(), ConsumerConfig.configNames()));
    private static final Table PRODUCER = new Table(
            SAME_PRODUCER, RENAMED_PRODUCER, HANDLED_PRODUCER, only(ConsumerConfig.configNames(), ProducerConfig.configNames()));

    /** The names in {@code names} and not in {@code others}. */
    private static Set<String> only(Set<String> names, Set<String> others) {
        Set<String> only = new HashSet<>(names);
        only.removeAll(others);
        return Set.copyOf(only);
    }

    /** SASL mechanisms librdkafka is built with here. */
    private static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    private static final Pattern JAAS =
            Pattern.compile(
                    // kafka-clients' module names, as written or relocated (by a SQL jar).
                    "\\s*(?:[\\w$]+\\.)*?org\\.apache\\.kafka\\.common\\.security\\.(plain\\.PlainLoginModule|scram\\.ScramLoginModule)"
                            + "\\s+required((?:\\s+\\w+\\s*=\\s*\"[^\"]*\")*)\\s*;\\s*");
    private static final Pattern JAAS_OPTION = Pattern.compile("(\\w+)\\s*=\\s*\"([^\"]*)\"");

    private final Map<String, String> properties;
    private final List<String> untranslatable;

    private LibrdkafkaConfig(Map<String, String> properties, List<String> untranslatable) {
        this.properties = Collections.unmodifiableMap(properties);
        this.untranslatable = Collections.unmodifiableList(untranslatable);
    }

    /**
     * Consumer defaults where kafka-clients and librdkafka differ, kafka-clients': librdkafka reads
     * committed records only (and stops a bounded read at the last stable offset).
     */
    private static final Map<String, String> KAFKA_CLIENTS_CONSUMER_DEFAULTS =
            Map.of("isolation.level", "read_uncommitted", "check.crcs", "true");

    /** librdkafka's properties for {@code consumer}, kafka-clients consumer properties. */
    public static LibrdkafkaConfig consumer(Properties consumer) {
        return translate(consumer, CONSUMER);
    }

    /**
     * librdkafka's properties for the consumer of source subtask {@code subtask}: as {@link
     * #consumer}, with the client id Flink's reader gives its consumer ({@code
     * <client.id.prefix>-<subtask>}).
     */
    public static LibrdkafkaConfig consumer(Properties consumer, int subtask) {
        Properties withClientId = new Properties();
        withClientId.putAll(consumer);
        String prefix = consumer.getProperty("client.id.prefix");
        if (prefix != null) {
            withClientId.setProperty("client.id", prefix + "-" + subtask);
        }
        return consumer(withClientId);
    }

    /** librdkafka's properties for {@code producer}, kafka-clients producer properties. */
    public static LibrdkafkaConfig producer(Properties producer) {
        return translate(producer, PRODUCER);
    }

    /**
     * How long a send waits for room in the producer's queue: kafka-clients' {@code max.block.ms}.
     *
     * @throws IllegalArgumentException if the property is not a number of milliseconds
     */
    public static long maxBlockMs(Properties producer) {
        String value = producer.getProperty("max.block.ms");
        if (value == null) {
            return MAX_BLOCK_MS_DEFAULT;
        }
        try {
            long ms = Long.parseLong(value.trim());
            if (ms >= 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        throw new IllegalArgumentException("'properties.max.block.ms' = '" + value + "': not a number of milliseconds");
    }

    private static LibrdkafkaConfig translate(Properties client, Table table) {
        Map<String, String> in = new TreeMap<>();
        client.stringPropertyNames().forEach(key -> in.put(key, client.getProperty(key)));
        Map<String, String> out = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        String truststoreType = in.getOrDefault("ssl.truststore.type", "JKS").toUpperCase(Locale.ROOT);
        String keystoreType = in.getOrDefault("ssl.keystore.type", "JKS").toUpperCase(Locale.ROOT);
        for (Map.Entry<String, String> entry : in.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue();
            String renamed = table.renamed.getOrDefault(key, RENAMED.get(key));
            if (table == CONSUMER && key.equals("enable.auto.commit") && Boolean.parseBoolean(value.trim())) {
                problems.add("'" + key + "' = '" + value + "': kafka-clients then commits the offsets read "
                        + "periodically, the native reader commits on checkpoints only");
            } else if (key.equals("isolation.level") && !ISOLATION_LEVELS.contains(value)) {
                // librdkafka takes any letter case; kafka-clients refuses all but these spellings.
                problems.add("'" + key + "' = '" + value + "': kafka-clients takes " + ISOLATION_LEVELS + " only");
            } else if (SAME.contains(key) || table.same.contains(key)) {
                out.put(key, value);
            } else if (renamed != null) {
                // kafka-clients' -1 (the OS default) is librdkafka's 0.
                out.put(renamed, key.endsWith(".buffer.bytes") && "-1".equals(value) ? "0" : value);
            } else if (table.handled.contains(key) || table.otherClients.contains(key)) {
                continue;
            } else if (key.equals("buffer.memory") && table == PRODUCER) {
                try {
                    long kilobytes = Math.max(1, Long.parseLong(value.trim()) / 1024);
                    out.put("queue.buffering.max.kbytes", String.valueOf(kilobytes));
                } catch (NumberFormatException e) {
                    problems.add("'" + key + "' = '" + value + "': not a number of bytes");
                }
            } else {
                String problem = special(key, value, truststoreType, keystoreType, in, out);
                if (problem != null) {
                    problems.add("'" + key + "' = '" + shown(key, value) + "': " + problem);
                }
            }
        }
        String protocol = in.getOrDefault("security.protocol", "PLAINTEXT").toUpperCase(Locale.ROOT);
        if (protocol.startsWith("SASL_")) {
            if (!in.containsKey("sasl.mechanism")) {
                problems.add("'security.protocol' = '" + protocol + "' without 'sasl.mechanism': kafka-clients then "
                        + "logs in with GSSAPI (Kerberos), which librdkafka here does not support");
            }
            if (!in.containsKey("sasl.jaas.config")) {
                problems.add("'security.protocol' = '" + protocol + "' without 'sasl.jaas.config': kafka-clients then "
                        + "takes the login from the JVM's JAAS configuration, which librdkafka cannot read");
            }
        }
        problems.addAll(combinations(table, in, out));
        if (table == CONSUMER && out.containsKey("session.timeout.ms")) {
            // Kept to bound closing; librdkafka refuses a poll interval below it.
            try {
                long session = Long.parseLong(out.get("session.timeout.ms").trim());
                if (session > MAX_POLL_INTERVAL_MS_DEFAULT) {
                    out.put("max.poll.interval.ms", String.valueOf(session));
                }
            } catch (NumberFormatException e) {
                problems.add("'session.timeout.ms' = '" + out.get("session.timeout.ms") + "': not a number of milliseconds");
            }
        }
        return new LibrdkafkaConfig(out, problems);
    }

    /**
     * Properties each of which both clients take, but not together in librdkafka, or together in
     * kafka-clients only by its own adjustment: why each pair cannot be translated. The delivery
     * timeout kafka-clients raises itself when the table sets none is {@link #producerProperties}'s.
     */
    private static List<String> combinations(Table table, Map<String, String> in, Map<String, String> out) {
        List<String> problems = new ArrayList<>();
        Long reconnect = number(out, "reconnect.backoff.ms");
        Long reconnectMax = number(out, "reconnect.backoff.max.ms");
        if (reconnect != null && reconnectMax != null && reconnectMax < reconnect) {
            problems.add("'reconnect.backoff.max.ms' below 'reconnect.backoff.ms': librdkafka refuses it");
        }
        Long fetchMax = number(out, "fetch.max.bytes");
        if (table == CONSUMER && fetchMax != null && fetchMax < MESSAGE_MAX_BYTES_DEFAULT) {
            problems.add("'fetch.max.bytes' = '" + fetchMax + "': librdkafka takes no less than its message.max.bytes ("
                    + MESSAGE_MAX_BYTES_DEFAULT + ")");
        }
        Long delivery = number(in, "delivery.timeout.ms");
        if (table == PRODUCER && delivery != null) {
            if (delivery < lingerAndRequestMs(in)) {
                // kafka-clients then fails the job, as Flink's sink does.
                problems.add("'delivery.timeout.ms' = '" + delivery + "' below 'linger.ms' + 'request.timeout.ms': "
                        + "kafka-clients refuses it");
            }
        }
        return problems;
    }

    /**
     * {@code linger.ms} + {@code request.timeout.ms} of producer {@code properties} (the names are
     * the same in both clients), kafka-clients' least delivery timeout.
     */
    private static long lingerAndRequestMs(Map<String, String> properties) {
        return Objects.requireNonNullElse(number(properties, "linger.ms"), 0L)
                + Objects.requireNonNullElse(number(properties, "request.timeout.ms"), REQUEST_TIMEOUT_MS_DEFAULT);
    }

    /** {@code key}'s value in {@code properties} as a number, or null if absent or not a number. */
    private static Long number(Map<String, String> properties, String key) {
        String value = properties.get(key);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            // librdkafka's own check names it.
            return null;
        }
    }

    /** Translates a property with a rule of its own; returns why it cannot be, or null. */
    private static String special(
            String key,
            String value,
            String truststoreType,
            String keystoreType,
            Map<String, String> in,
            Map<String, String> out) {
        switch (key) {
            case "security.protocol":
                out.put(key, value.toLowerCase(Locale.ROOT));
                return null;
            case "auto.offset.reset":
                String reset = value.toLowerCase(Locale.ROOT);
                if (reset.equals("earliest") || reset.equals("latest")) {
                    out.put(key, reset);
                    return null;
                }
                if (reset.equals("none")) {
                    out.put(key, "error");
                    return null;
                }
                return "librdkafka resets only to earliest or latest";
            case "sasl.mechanism":
                if (!MECHANISMS.contains(value)) {
                    return "librdkafka here supports the SASL mechanisms " + MECHANISMS;
                }
                out.put("sasl.mechanisms", value);
                return null;
            case "sasl.jaas.config":
                return jaas(value, out);
            case "ssl.endpoint.identification.algorithm":
                out.put(key, value.isEmpty() ? "none" : value.toLowerCase(Locale.ROOT));
                return null;
            case "ssl.truststore.type":
            case "ssl.keystore.type":
                return null;
            case "ssl.truststore.location":
                if (!truststoreType.equals("PEM")) {
                    return "librdkafka reads CA certificates from PEM only (ssl.truststore.type is " + truststoreType + ")";
                }
                out.put("ssl.ca.location", value);
                return null;
            case "ssl.truststore.certificates":
                out.put("ssl.ca.pem", value);
                return null;
            case "ssl.truststore.password":
                return in.containsKey("ssl.truststore.location") && !truststoreType.equals("PEM")
                        ? "a password-protected trust store has no librdkafka equivalent"
                        : null;
            case "ssl.keystore.location":
                if (keystoreType.equals("PKCS12")) {
                    out.put("ssl.keystore.location", value);
                    return null;
                }
                if (keystoreType.equals("PEM")) {
                    out.put("ssl.certificate.location", value);
                    out.put("ssl.key.location", value);
                    return null;
                }
                return "librdkafka reads key stores as PKCS12 or PEM only (ssl.keystore.type is " + keystoreType + ")";
            case "ssl.keystore.password":
                out.put("ssl.keystore.password", value);
                return null;
            case "ssl.keystore.certificate.chain":
                out.put("ssl.certificate.pem", value);
                return null;
            case "ssl.keystore.key":
                out.put("ssl.key.pem", value);
                return null;
            default:
                return "no librdkafka equivalent";
        }
    }

    private static String jaas(String value, Map<String, String> out) {
        Matcher module = JAAS.matcher(value);
        if (!module.matches()) {
            return "only PlainLoginModule and ScramLoginModule with username and password translate";
        }
        Map<String, String> options = new TreeMap<>();
        Matcher option = JAAS_OPTION.matcher(module.group(2));
        while (option.find()) {
            options.put(option.group(1), option.group(2));
        }
        if (!options.containsKey("username") || !options.containsKey("password") || options.size() != 2) {
            return "only the options username and password translate";
        }
        out.put("sasl.username", options.get("username"));
        out.put("sasl.password", options.get("password"));
        return null;
    }

    /** A property's value as summaries, logs and errors show it: secrets masked. */
    static String shown(String key, String value) {
        return isSecret(key) ? "******" : value;
    }

    /**
     * Whether a property carries a secret: a password, key, token, credentials, user info or a
     * JAAS configuration (whose options hold passwords).
     */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        for (String word : SECRET_WORDS) {
            if (k.contains(word)) {
                return true;
            }
        }
        return k.endsWith(".key") || k.endsWith(".key.pem");
    }

    private static final List<String> SECRET_WORDS =
            List.of("password", "secret", "jaas", "token", "credential", "user.info", "userinfo");

    /** {@code properties} as two arrays for native code: keys, then values in the same order. */
    public static String[][] keysAndValues(Map<String, String> properties) {
        String[] keys = properties.keySet().toArray(new String[0]);
        String[] values = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            values[i] = properties.get(keys[i]);
        }
        return new String[][] {keys, values};
    }

    /**
     * What a librdkafka producer is configured with: the translated properties, and kafka-clients'
     * defaults where librdkafka's differ and the table sets none. kafka-clients produces
     * idempotently with at most 5 requests in flight per connection, so a retried request neither
     * duplicates records nor puts them out of order; librdkafka by default does neither. As in
     * kafka-clients, idempotence stays off where the table asks for what it cannot have: acks other
     * than all, no retries, or more than 5 requests in flight. A record may be as large as
     * kafka-clients' {@code max.request.size} allows by default (1 MiB; librdkafka's own default
     * is a little smaller).
     */
    public Map<String, String> producerProperties() {
        Map<String, String> all = new TreeMap<>(properties);
        if (!all.containsKey("message.timeout.ms")) {
            // kafka-clients raises its delivery timeout to the linger and request timeouts when the
            // table sets none; librdkafka refuses a message timeout not above the linger.
            all.put("message.timeout.ms", String.valueOf(Math.max(DELIVERY_TIMEOUT_MS_DEFAULT, lingerAndRequestMs(all))));
        }
        all.putIfAbsent("max.in.flight", "5");
        all.putIfAbsent("message.max.bytes", "1048576");
        String acks = all.getOrDefault("acks", "all").trim().toLowerCase(Locale.ROOT);
        boolean conflicting = !(acks.equals("all") || acks.equals("-1"))
                || "0".equals(all.getOrDefault("retries", "").trim())
                || !fitsIdempotence(all.get("max.in.flight"));
        if (!conflicting) {
            all.putIfAbsent("enable.idempotence", "true");
        }
        return all;
    }

    /** Whether requests in flight of {@code value} (a number, or not) allow idempotence. */
    private static boolean fitsIdempotence(String value) {
        try {
            return Integer.parseInt(value.trim()) <= 5;
        } catch (NumberFormatException e) {
            // librdkafka reports the property itself.
            return true;
        }
    }

    /** librdkafka's properties: the translated ones. */
    public Map<String, String> properties() {
        return properties;
    }

    /**
     * What a librdkafka consumer is configured with: the translated properties, and kafka-clients'
     * defaults where librdkafka's differ and the table sets none.
     */
    public Map<String, String> consumerProperties() {
        Map<String, String> all = new TreeMap<>(KAFKA_CLIENTS_CONSUMER_DEFAULTS);
        all.putAll(properties);
        return all;
    }

    /** Why properties cannot be translated, one line each; empty when all were. */
    public List<String> untranslatable() {
        return untranslatable;
    }

    /**
     * Why a librdkafka consumer cannot take these properties: the untranslatable ones, or else
     * those of {@link #consumerProperties} librdkafka refuses ({@link #refused}). Empty when it
     * can. Loads the native library.
     */
    public List<String> consumerProblems() {
        return untranslatable.isEmpty() ? refused(consumerProperties()) : untranslatable;
    }

    /** {@link #consumerProblems} for a producer, of {@link #producerProperties}. */
    public List<String> producerProblems() {
        return untranslatable.isEmpty() ? refused(producerProperties()) : untranslatable;
    }

    /**
     * Why a librdkafka client could not start with {@code client} ({@link #consumerProperties} or
     * {@link #producerProperties}): librdkafka's own check of each property's name, type and
     * range, where kafka-clients' ranges are wider (a {@code request.timeout.ms} above five
     * minutes, a {@code batch.size} of 0). One line per property it refuses (secrets masked);
     * empty when it takes them all. Loads the native library (one that cannot be loaded is the
     * line).
     */
    static List<String> refused(Map<String, String> client) {
        try {
            NativeLibrary.load();
        } catch (NativeConfigException e) {
            return List.of(e.getMessage());
        }
        List<String> refused = new ArrayList<>();
        for (Map.Entry<String, String> property : client.entrySet()) {
            String key = property.getKey();
            String reason = refusal(key, property.getValue());
            if (reason != null) {
                // librdkafka's reason may repeat the value.
                refused.add("'" + key + "' = '" + shown(key, property.getValue()) + "': librdkafka refuses it"
                        + (isSecret(key) ? "" : " (" + reason + ")"));
            }
        }
        return refused;
    }

    /** Why librdkafka refuses {@code key} = {@code value}, or null if it takes it. */
    private static native String refusal(String key, String value);
}
