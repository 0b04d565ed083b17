package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Key a fills its own lock prefix with 800 idle locks of 1030-byte names (1.1 MB of names, more
 * than a ZooKeeper client takes in one reply) and lists leases over and over; key b meanwhile
 * acquires, renews and releases its own leases through the same gateway and sees no 5xx: a listing
 * too large for ZooKeeper's reply limit fails alone, on its own connection, and never takes down
 * the connection that holds the leases.
 */
class TenantListingFloodIT {
    private static final String KEY_A = ApiKeyHasher.newKey();
    private static final String KEY_B = ApiKeyHasher.newKey();
    private static final int LOCKS = 800;
    private static final int NAME_BYTES = 1030;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aListingTooLargeForZooKeeperNeverFailsAnotherKeysLeases() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            fill(zookeeper.getConnectString());
            LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
            GatewayOptions options = new GatewayOptions().maxKeyBytes(2048).requestTimeout(Duration.ofSeconds(5)).auth(new AuthConfig(List.of(
                    new ApiKey("a", ApiKeyHasher.sha256Hex(KEY_A), List.of(), List.of("alpha/")),
                    new ApiKey("b", ApiKeyHasher.sha256Hex(KEY_B), List.of(), List.of("bravo/")))));
            try (GatewayHarness gw = new GatewayHarness(options, issuer, List.of(), List.of(issuer))) {
                AtomicBoolean abusing = new AtomicBoolean(true);
                AtomicInteger listings = new AtomicInteger();
                CompletableFuture<Void> a = CompletableFuture.runAsync(() -> {
                    while (abusing.get()) {
                        try {
                            gw.send(gw.request("/v1/leases?prefix=alpha/&limit=10").GET()
                                    .header("Authorization", "Bearer " + KEY_A));
                            listings.incrementAndGet();
                        } catch (Exception e) {
                            // a's own answers are not the point
                        }
                    }
                });
                List<String> bFailures = new ArrayList<>();
                int bCalls = 0;
                try {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    for (int i = 0; System.nanoTime() < until || listings.get() < 2; i++) {
                        HttpResponse<String> acquired = b(gw, gw.request("/v1/leases")
                                .POST(BodyPublishers.ofString("{\"lock\":\"bravo/" + i + "\",\"ttlMs\":10000}")));
                        bCalls++;
                        if (acquired.statusCode() != 201) {
                            bFailures.add("acquire " + acquired.statusCode() + " " + acquired.body());
                            continue;
                        }
                        String id = new JsonObject(acquired.body()).getString("leaseId");
                        for (HttpResponse<String> r : List.of(
                                b(gw, gw.request("/v1/leases/" + id + "/renew").POST(BodyPublishers.noBody())),
                                b(gw, gw.request("/v1/leases/" + id).DELETE()))) {
                            bCalls++;
                            if (r.statusCode() >= 500) {
                                bFailures.add(r.statusCode() + " " + r.body());
                            }
                        }
                    }
                } finally {
                    abusing.set(false);
                    a.get(30, TimeUnit.SECONDS);
                }
                assertThat(listings.get()).as("a's listings").isGreaterThanOrEqualTo(2);
                assertThat(bFailures).as("b's failures among %d calls, while a listed %d times", bCalls, listings.get())
                        .isEmpty();
            }
        }
    }

    /** b's call; a call unanswered within the client's 20 s counts as a 504 (it failed b as surely). */
    private static HttpResponse<String> b(GatewayHarness gw, java.net.http.HttpRequest.Builder request) throws Exception {
        try {
            return gw.send(request.header("Authorization", "Bearer " + KEY_B));
        } catch (java.net.http.HttpTimeoutException e) {
            return new Unanswered();
        }
    }

    private static final class Unanswered implements HttpResponse<String> {
        @Override public int statusCode() { return 504; }
        @Override public java.net.http.HttpRequest request() { return null; }
        @Override public java.util.Optional<HttpResponse<String>> previousResponse() { return java.util.Optional.empty(); }
        @Override public java.net.http.HttpHeaders headers() { return java.net.http.HttpHeaders.of(java.util.Map.of(), (x, y) -> true); }
        @Override public String body() { return "no answer within 20 s"; }
        @Override public java.util.Optional<javax.net.ssl.SSLSession> sslSession() { return java.util.Optional.empty(); }
        @Override public java.net.URI uri() { return null; }
        @Override public java.net.http.HttpClient.Version version() { return java.net.http.HttpClient.Version.HTTP_1_1; }
    }

    /** 800 idle locks under alpha/, as key a leaves them: taken and released, the lock nodes stay. */
    private static void fill(String connectString) throws Exception {
        try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(connectString).build()) {
            List<CompletableFuture<Boolean>> done = new ArrayList<>();
            for (int i = 0; i < LOCKS; i++) {
                String lock = String.format("alpha/%04d/", i);
                lock += "x".repeat(NAME_BYTES - lock.length());
                done.add(issuer.acquire(lock, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                        .thenCompose(l -> issuer.release(l.map(Lease::leaseId).orElseThrow()).toCompletableFuture()));
                if (done.size() >= 32) {
                    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    done.clear();
                }
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }
}
