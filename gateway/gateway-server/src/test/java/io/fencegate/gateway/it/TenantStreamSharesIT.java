package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.KeyShares;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Key a takes every watch stream, watched lease or live lease it is allowed; key b still gets its
 * own, and a gets 429 with {@code Retry-After} and a problem body until it gives some back (a
 * stream closed, a lease released). Small shares keep the test cheap; the hostile-tenant suite
 * ({@code SharesHostileIT}) runs the floods against a gateway process with key b's steady mix.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TenantStreamSharesIT {
    private static final String KEY_A = ApiKeyHasher.newKey();
    private static final String KEY_B = ApiKeyHasher.newKey();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<HttpResponse<InputStream>> open = new ArrayList<>();
    private TestingServer zookeeper;
    private GatewayHarness gw;

    private void start(KeyShares shares) throws Exception {
        zookeeper = new TestingServer(true);
        LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("a", ApiKeyHasher.sha256Hex(KEY_A), List.of(), List.of("alpha/")),
                new ApiKey("b", ApiKeyHasher.sha256Hex(KEY_B), List.of(), List.of("bravo/"))));
        gw = new GatewayHarness(new GatewayOptions().auth(auth).keyShares(shares), issuer, List.of(), List.of(issuer));
    }

    @AfterEach
    void stop() throws Exception {
        for (HttpResponse<InputStream> r : open) {
            r.body().close();
        }
        if (gw != null) {
            gw.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    @Test
    void aKeyWatchingItsShareOfLeasesOrStreamsLeavesAnotherKeyItsWatch() throws Exception {
        start(new KeyShares().watchedLeases(3).watchStreams(6));
        List<String> aLeases = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            aLeases.add(acquire(KEY_A, "alpha/" + i, 0).getString("leaseId"));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(stream("/v1/leases/" + aLeases.get(i) + "/events", KEY_A).statusCode()).isEqualTo(200);
        }
        assertOverShare(stream("/v1/leases/" + aLeases.get(3) + "/events", KEY_A)); // a 4th lease
        for (int i = 0; i < 3; i++) { // more streams on a lease already watched: up to 6 streams
            assertThat(stream("/v1/leases/" + aLeases.get(0) + "/events", KEY_A).statusCode()).isEqualTo(200);
        }
        assertOverShare(stream("/v1/leases/" + aLeases.get(0) + "/events", KEY_A)); // a 7th stream

        String bLease = acquire(KEY_B, "bravo/1", 0).getString("leaseId");
        for (int i = 0; i < 3; i++) {
            assertThat(stream("/v1/leases/" + bLease + "/events", KEY_B).statusCode()).as("b's watch").isEqualTo(200);
        }
        // a's streams gone, its share is back.
        for (HttpResponse<InputStream> r : open) {
            r.body().close();
        }
        open.clear();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                () -> stream("/v1/leases/" + aLeases.get(3) + "/events", KEY_A).statusCode() == 200);
    }

    @Test
    void aKeyAtItsShareOfLiveLeasesLeavesAnotherKeyItsAcquiresAndAReleaseGivesItBack() throws Exception {
        start(new KeyShares().leases(4));
        acquire(KEY_A, "alpha/held", 0);
        acquire(KEY_B, "bravo/held", 0);
        // Live leases: a holds alpha/held and takes 3 more, then is at its share of 4.
        List<String> aIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            aIds.add(acquire(KEY_A, "alpha/l" + i, 0).getString("leaseId"));
        }
        HttpResponse<String> fifth = send(acquireRequest(KEY_A, "alpha/l9", 0));
        assertOverShare(fifth.statusCode(), fifth.headers(), fifth.body());
        for (int i = 0; i < 3; i++) { // b, holding bravo/held, takes its whole share too
            acquire(KEY_B, "bravo/l" + i, 0);
        }
        // A release gives a's share back.
        assertThat(send(HttpRequest.newBuilder(uri("/v1/leases/" + aIds.get(0))).DELETE()
                .header("Authorization", "Bearer " + KEY_A).build()).statusCode()).isEqualTo(204);
        acquire(KEY_A, "alpha/l9", 0);
    }

    private JsonObject acquire(String key, String lock, long waitMs) throws Exception {
        HttpResponse<String> r = send(acquireRequest(key, lock, waitMs));
        assertThat(r.statusCode()).as(lock + ": " + r.body()).isEqualTo(201);
        return new JsonObject(r.body());
    }

    private HttpRequest acquireRequest(String key, String lock, long waitMs) {
        return HttpRequest.newBuilder(uri("/v1/leases")).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + key)
                .POST(BodyPublishers.ofString("{\"lock\":\"" + lock + "\",\"ttlMs\":30000,\"waitMs\":" + waitMs + "}"))
                .build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + gw.gateway.port() + path);
    }

    /** Opens a stream and keeps it open (closed after the test) when it answers 200. */
    private HttpResponse<InputStream> stream(String path, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20))
                .header("Accept", "text/event-stream").GET();
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        HttpResponse<InputStream> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() == 200) {
            open.add(r);
        }
        return r;
    }

    private static void assertOverShare(HttpResponse<InputStream> r) throws Exception {
        assertOverShare(r.statusCode(), r.headers(), new String(r.body().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static void assertOverShare(int status, java.net.http.HttpHeaders headers, String body) {
        assertThat(status).as(body).isEqualTo(429);
        assertThat(headers.firstValue("Retry-After")).as("Retry-After").isPresent();
        assertThat(new JsonObject(body).getString("type")).isEqualTo("urn:fencegate:problem:too-many");
    }
}
