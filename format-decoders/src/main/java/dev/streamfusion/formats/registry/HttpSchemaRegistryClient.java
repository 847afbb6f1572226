package dev.streamfusion.formats.registry;

import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Confluent-compatible schema registry over its REST API ({@code GET /schemas/ids/{id}}), with
 * every schema cached for the client's life (a schema id never changes its schema). Basic
 * authentication comes from {@code avro-confluent.basic-auth.user-info} ({@code user:password}).
 */
@Internal
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String url;
    private final String authorization;
    private final HttpClient http;
    private final Map<Integer, String> cache = new ConcurrentHashMap<>();

    public HttpSchemaRegistryClient(String url, String basicAuthUserInfo) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
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

    private String fetch(int id) {
        String address = url + "/schemas/ids/" + Integer.toUnsignedString(id);
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(address))
                        .timeout(TIMEOUT)
                        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new SchemaRegistryException("schema registry " + url + " could not be reached for schema id " + id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("interrupted while fetching schema id " + id + " from " + url, e);
        }
        if (response.statusCode() != 200) {
            throw new SchemaRegistryException(
                    "schema registry " + url + " answered " + response.statusCode() + " for schema id " + id + ": "
                            + response.body());
        }
        try {
            JsonNode schema = JSON.readTree(response.body()).get("schema");
            if (schema == null || !schema.isTextual()) {
                throw new SchemaRegistryException(
                        "schema registry " + url + " gave no schema for id " + id + ": " + response.body());
            }
            return schema.asText();
        } catch (IOException e) {
            throw new SchemaRegistryException(
                    "schema registry " + url + " answered schema id " + id + " with invalid JSON", e);
        }
    }
}
