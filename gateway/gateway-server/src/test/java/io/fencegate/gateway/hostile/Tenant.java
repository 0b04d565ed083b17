package io.fencegate.gateway.hostile;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One API key's polite calls to a gateway, on {@link java.net.http.HttpClient}: every call bounded
 * by {@link #CALL_TIMEOUT}. Abuse vectors use it for what they need legitimately (their own lease);
 * {@link SteadyMix} for key b's traffic.
 */
final class Tenant {
    /** Longer than the gateway's request timeout in the suite's config (5 s), so its own 503 shows first. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(7);

    final URI base;
    final String apiKey;
    final HttpClient http;

    Tenant(URI base, String apiKey) {
        this.base = base;
        this.apiKey = apiKey;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** A granted lease: its id and token. */
    record Lease(String lock, String leaseId, long token) {}

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(CALL_TIMEOUT)
                .header("Authorization", "Bearer " + apiKey);
    }

    HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** {@code POST /v1/leases}; throws unless 201. */
    Lease acquire(String lock, long ttlMs) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = send(request("/v1/leases").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("lock", lock).put("ttlMs", ttlMs)
                        .put("waitMs", 2000).encode())).build());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("acquire " + lock + " answered " + r.statusCode() + ": " + new String(r.body()));
        }
        JsonObject lease = new JsonObject(new String(r.body()));
        return new Lease(lock, lease.getString("leaseId"), lease.getLong("token"));
    }

    static String itemPath(String store, String key) {
        return "/v1/stores/" + store + "/items/" + key;
    }

    /** A PUT's head (no blank line) to the item {@code lease} guards ({@code store/key}), with its token, for raw sockets. */
    String putHead(Lease lease, String framing) {
        String store = lease.lock().substring(0, lease.lock().indexOf('/'));
        return "PUT " + itemPath(store, lease.lock().substring(store.length() + 1)) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + apiKey + "\r\nFencing-Token: " + lease.token() + "\r\n" + framing;
    }
}
