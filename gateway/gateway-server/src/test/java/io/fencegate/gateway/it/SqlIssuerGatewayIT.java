package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.Stale;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two gateways started from one config with {@code issuer: { type: sql }} and a JDBC store, both on
 * one Postgres schema of the test's own: nothing but the database. A lease from one is held
 * against the other, its token guards writes, and tokens grow across the two.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqlIssuerGatewayIT {

    /** The SQL issuer and a JDBC store, both on the one database: a deployment with nothing else. */
    private static GatewayConfig sqlOnly(TestDatabases db) throws Exception {
        String yaml = """
                issuer: { type: sql, url: "%s", user: %s, password: "" }
                stores:
                  main: { type: jdbc, url: "%s", user: %s, password: "" }
                """.formatted(db.url(), db.user(), db.url(), db.user());
        return ConfigLoader.parse(yaml, Map.of());
    }

    @Test
    void twoGatewaysOnTheSqlIssuerAloneServeFencedLeases() throws Exception {
        try (TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            GatewayConfig config = sqlOnly(db);
            Vertx vertx = Vertx.vertx();
            try (GatewayHarness one = open(config, vertx); GatewayHarness two = open(config, vertx)) {
                FencegateClient a = one.client();
                FencegateClient b = two.client();
                String key = "orders/" + UUID.randomUUID();
                Lease first = a.acquire("main/" + key, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                assertThat(b.acquire("main/" + key, Duration.ofSeconds(30), Duration.ZERO)).as("held through the other gateway").isEmpty();
                assertThat(a.put("main", key, first.token(), bytes("one")).applied()).isTrue();
                assertThat(b.release(first.leaseId())).as("released through the other gateway").isTrue();

                Lease second = b.acquire("main/" + key, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
                assertThat(second.token()).isGreaterThan(first.token());
                assertThat(b.put("main", key, second.token(), bytes("two")).applied()).isTrue();
                assertThat(a.put("main", key, first.token(), bytes("late"))).isInstanceOf(Stale.class);
                assertThat(a.renew(second.leaseId())).isPresent();
                assertThat(a.release(second.leaseId())).isTrue();
            } finally {
                vertx.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A lock whose last token is ahead of the issuer's clock (as a step back no gateway saw leaves
     * it) is refused with a 503; meanwhile {@code /health} says the issuer is down and the
     * {@code fencegate_issuer_fail_closed} gauge is 1; both clear by themselves once the clock passes it.
     */
    @Test
    void aLockAheadOfTheIssuersClockFailsClosedInHealthAndMetricsAndRecoversByItself() throws Exception {
        try (TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            GatewayConfig config = sqlOnly(db);
            Vertx vertx = Vertx.vertx();
            try (GatewayHarness gateway = open(config, vertx)) {
                String lock = "main/ahead/" + UUID.randomUUID();
                long token = gateway.grantedToken(lock);
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url(), db.user(), "");
                        java.sql.PreparedStatement s = c.prepareStatement(
                                "UPDATE fencegate_lock_fence SET token = token + 5000000 WHERE token = ?")) {
                    s.setLong(1, token);
                    assertThat(s.executeUpdate()).isEqualTo(1);
                }
                java.net.http.HttpResponse<String> refused = gateway.send(gateway.request("/v1/leases")
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"lock\":\"" + lock + "\",\"ttlMs\":5000}")));
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(gateway.send(gateway.request("/health").GET()).statusCode()).isEqualTo(503);
                assertThat(gateway.send(gateway.request("/metrics").GET()).body()).contains("fencegate_issuer_fail_closed 1.0");

                Lease after = gateway.client().acquire(lock, Duration.ofSeconds(5), Duration.ofSeconds(20)).orElseThrow();
                assertThat(after.token()).isGreaterThan(token + 5_000_000);
                assertThat(gateway.send(gateway.request("/health").GET()).statusCode()).isEqualTo(200);
                assertThat(gateway.send(gateway.request("/metrics").GET()).body()).contains("fencegate_issuer_fail_closed 0.0");
            } finally {
                vertx.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A read lease an application took from the same SQL issuer (the library's API) never writes
     * through the gateway, which grants no read lease itself yet: its token is refused with a 403.
     */
    @Test
    void aReadLeasesTokenFromTheSameIssuerNeverWritesThroughTheGateway() throws Exception {
        try (TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            GatewayConfig config = sqlOnly(db);
            Vertx vertx = Vertx.vertx();
            try (GatewayHarness gateway = open(config, vertx);
                    SqlLeaseIssuer app = SqlLeaseIssuer.builder().jdbcUrl(db.url()).user(db.user()).password("").build()) {
                String key = "reports/" + UUID.randomUUID();
                io.fencegate.issuer.Lease read = app.acquire("main/" + key, LeaseMode.READ, Duration.ofSeconds(30), Duration.ZERO,
                        Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
                java.net.http.HttpResponse<String> refused = gateway.send(gateway.request("/v1/stores/main/items/" + key)
                        .header("Fencing-Token", Long.toString(read.token()))
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("by a reader")));
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
                assertThat(refused.body()).contains("read lease");
                assertThat(app.release(read.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
                Lease write = gateway.client().acquire("main/" + key, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
                assertThat(write.token()).isGreaterThan(read.token());
                assertThat(gateway.client().put("main", key, write.token(), bytes("by the writer")).applied()).isTrue();
            } finally {
                vertx.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    private static GatewayHarness open(GatewayConfig config, Vertx vertx) throws Exception {
        Backends backends = Backends.open(config, vertx);
        return new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of(backends));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
