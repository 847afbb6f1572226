package dev.streamfusion.formats.registry;

import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Confluent-compatible schema registry over its REST API ({@code GET /schemas/ids/{id}}, {@code
 * POST /subjects/{subject}/versions}), with every schema cached for the client's life (a schema
 * id never changes its schema). Basic
 * authentication comes from {@code avro-confluent.basic-auth.user-info} ({@code user:password}).
 * {@code avro-confluent.url} may list several registries, comma-separated, as Confluent's client
 * takes it: a call goes to the one that last answered, and on to the next while one cannot be
 * reached (an answer, even an error, ends the call).
 */
@Internal
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The registries' base URLs, without a trailing slash. */
    private final List<String> urls = new ArrayList<>();
    /** The registries, as named in messages. */
    private final String url;
    /** Which of {@link #urls} a call tries first: the last one that answered. */
    private volatile int current;
    private final String authorization;
    private final HttpClient http;
    private final Map<Integer, String> cache = new ConcurrentHashMap<>();

    public HttpSchemaRegistryClient(String url, String basicAuthUserInfo) {
        for (String one : url.split(",")) {
            String trimmed = one.trim();
            if (!trimmed.isEmpty()) {
                urls.add(trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed);
            }
        }
        if (urls.isEmpty()) {
            throw new SchemaRegistryException("avro-confluent.url names no schema registry: '" + url + "'");
        }
        this.url = String.join(",", urls);
        this.authorization =
                basicAuthUserInfo == null
                        ? null
                        : "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(basicAuthUserInfo.getBytes(StandardCharsets.UTF_8));
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    /** The client the {@code avro-confluent} options (keys without the prefix) describe. */
    public static HttpSchemaRegistryClient fromOptions(Map<String, String> options) {
        String url = options.get("url");
        if (url == null) {
            throw new SchemaRegistryException("One or more required options are missing: avro-confluent.url");
        }
        return new HttpSchemaRegistryClient(url, options.get("basic-auth.user-info"));
    }

    @Override
    public String schemaById(int id) {
        return cache.computeIfAbsent(id, this::fetch);
    }

    @Override
    public int register(String subject, String schema) {
        String body = JSON.createObjectNode().put("schema", schema).toString();
        JsonNode id =
                call(
                        "POST",
                        "/subjects/" + pathSegment(subject) + "/versions",
                        body,
                        "registering a schema under subject " + subject)
                        .get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new SchemaRegistryException(
                    "schema registry " + url + " gave no id for the schema registered under subject " + subject);
        }
        return id.asInt();
    }

    private String fetch(int id) {
        String what = "schema id " + Integer.toUnsignedString(id);
        JsonNode schema = call("GET", "/schemas/ids/" + Integer.toUnsignedString(id), null, what).get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new SchemaRegistryException("schema registry " + url + " gave no schema for " + what);
        }
        return schema.asText();
    }

    /**
     * {@code text} as one segment of a URL's path: percent-encoded UTF-8, a space as {@code %20}
     * (a {@code +} in a path is a plus sign).
     */
    private static String pathSegment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * One REST call, to the registries in turn from the last one that answered, while they cannot
     * be reached; anything but 200 is an error naming the registry, the call and the answer.
     */
    private JsonNode call(String method, String path, String body, String what) {
        int first = current;
        IOException unreachable = null;
        for (int i = 0; i < urls.size(); i++) {
            int index = (first + i) % urls.size();
            String base = urls.get(index);
            HttpResponse<String> response;
            try {
                response = http.send(request(base + path, method, body), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                if (unreachable == null) {
                    unreachable = e;
                } else {
                    unreachable.addSuppressed(e);
                }
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException("interrupted while " + what + " at " + base, e);
            }
            current = index;
            return answer(base, response, what);
        }
        throw new SchemaRegistryException("schema registry " + url + " could not be reached for " + what, unreachable);
    }

    private HttpRequest request(String uri, String method, String body) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(uri))
                        .timeout(TIMEOUT)
                        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json")
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/vnd.schemaregistry.v1+json");
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request.build();
    }

    private static JsonNode answer(String base, HttpResponse<String> response, String what) {
        if (response.statusCode() != 200) {
            throw new SchemaRegistryException(
                    "schema registry " + base + " answered " + response.statusCode() + " for " + what + ": "
                            + response.body());
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SchemaRegistryException("schema registry " + base + " answered " + what + " with invalid JSON", e);
        }
    }
}
