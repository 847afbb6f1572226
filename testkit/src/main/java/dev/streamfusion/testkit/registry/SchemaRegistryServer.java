package dev.streamfusion.testkit.registry;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A schema registry on a free localhost port, speaking the part of Confluent's REST API that
 * Avro serializers and deserializers use (Confluent's registry is not published to Maven Central,
 * so it cannot run here): registering a schema under a subject ({@code POST
 * /subjects/{subject}/versions}, the same schema keeps its id), a schema by id ({@code GET
 * /schemas/ids/{id}}), the subjects ({@code GET /subjects}) and a subject's latest version. It
 * counts the requests it answers.
 */
public final class SchemaRegistryServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<Integer, String> schemas = new LinkedHashMap<>();
    private final Map<String, List<Integer>> subjects = new LinkedHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final HttpServer server;

    private SchemaRegistryServer(HttpServer server) {
        this.server = server;
        server.createContext("/schemas/ids/", this::schemaById);
        server.createContext("/subjects", this::subjects);
        server.start();
    }

    /** A registry on a free port of 127.0.0.1. */
    public static SchemaRegistryServer start() throws IOException {
        return new SchemaRegistryServer(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Registers {@code schema} under {@code subject} (as a writer would) and returns its id. */
    public synchronized int register(String subject, String schema) {
        int id =
                schemas.entrySet().stream()
                        .filter(e -> e.getValue().equals(schema))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElseGet(
                                () -> {
                                    int next = 1 + schemas.size();
                                    schemas.put(next, schema);
                                    return next;
                                });
        List<Integer> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(id)) {
            versions.add(id);
        }
        return id;
    }

    /** The schema of an id, or {@code null}. */
    public synchronized String schema(int id) {
        return schemas.get(id);
    }

    /** The id of the schema last registered under {@code subject}, or -1. */
    public synchronized int latestId(String subject) {
        List<Integer> versions = subjects.get(subject);
        return versions == null ? -1 : versions.get(versions.size() - 1);
    }

    /** The subjects schemas were registered under, in order. */
    public synchronized List<String> subjects() {
        return new ArrayList<>(subjects.keySet());
    }

    /** Requests answered so far. */
    public int requests() {
        return requests.get();
    }

    private void schemaById(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        String schema;
        try {
            schema = schema(Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)));
        } catch (NumberFormatException e) {
            schema = null;
        }
        if (schema == null) {
            respond(exchange, 404, error(40403, "Schema not found"));
            return;
        }
        ObjectNode body = JSON.createObjectNode().put("schema", schema);
        respond(exchange, 200, body);
    }

    private void subjects(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        String[] parts = exchange.getRequestURI().getPath().split("/");
        // "", "subjects", subject, "versions", version
        if (parts.length == 2) {
            respond(exchange, 200, JSON.valueToTree(subjects()));
            return;
        }
        String subject = parts[2];
        if (parts.length == 4 && exchange.getRequestMethod().equals("POST")) {
            JsonNode request = JSON.readTree(exchange.getRequestBody());
            int id = register(subject, request.get("schema").asText());
            respond(exchange, 200, JSON.createObjectNode().put("id", id));
            return;
        }
        if (parts.length == 5 && parts[4].equals("latest")) {
            List<Integer> versions;
            synchronized (this) {
                versions = subjects.get(subject);
            }
            if (versions == null) {
                respond(exchange, 404, error(40401, "Subject not found"));
                return;
            }
            int id = versions.get(versions.size() - 1);
            ObjectNode body =
                    JSON.createObjectNode()
                            .put("subject", subject)
                            .put("version", versions.size())
                            .put("id", id)
                            .put("schema", schema(id));
            respond(exchange, 200, body);
            return;
        }
        respond(exchange, 404, error(40401, "Not found"));
    }

    private static JsonNode error(int code, String message) {
        return JSON.createObjectNode().put("error_code", code).put("message", message);
    }

    private static void respond(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
