package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.gateway.Gateway;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway on the Redis issuer (127.0.0.1:6379, a random key prefix) and a Postgres store, with
 * API keys: per-store and per-lock-prefix permissions, 401 without a key, and the refusal to bind a
 * non-loopback address without auth.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisIssuerAndAuthIT {
    private static final String ORDERS_KEY = ApiKeyHasher.newKey();
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();
    private static final String PREFIX = "fg-gw-it-" + UUID.randomUUID() + ":";
    private static TestDatabases db;
    private static Path dir;
    private static GatewayHarness gw;
    private static FencegateClient orders;
    private static FencegateClient admin;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "redis-hwm");
        db = TestDatabases.create(TestDatabases.Kind.POSTGRES);
        var issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri("redis://127.0.0.1:6379")
                .keyPrefix(PREFIX)
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.hwm"))));
        var shop = db.store(GuardRule.STRICT);
        var audit = db.store(GuardRule.STRICT);
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("orders", ApiKeyHasher.sha256Hex(ORDERS_KEY), List.of("shop"), List.of("shop/orders/")),
                new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*"))));
        gw = new GatewayHarness(new GatewayOptions().auth(auth), issuer,
                List.of(StoreBinding.of("shop", shop), StoreBinding.of("audit", audit)), List.of(db, issuer, shop, audit));
        orders = gw.client(ORDERS_KEY);
        admin = gw.client(ADMIN_KEY);
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.assertEventLoopNeverBlocked();
            gw.close();
        }
        try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
            var keys = c.sync().keys(PREFIX + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void redisTokensGuardWritesAndFencedReads() {
        String key = "orders/" + UUID.randomUUID();
        Lease a = orders.acquire("shop/" + key, Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        orders.release(a.leaseId());
        Lease b = orders.acquire("shop/" + key, Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThat(b.token()).isGreaterThan(a.token());

        assertThat(orders.get("shop", key, b.token())).isInstanceOf(ReadOutcome.NotFound.class); // claims it
        assertThat(orders.put("shop", key, a.token(), bytes("late"))).isEqualTo(new Stale(0, b.token(), a.token()));
        assertThat(orders.put("shop", key, b.token(), bytes("sold")).applied()).isTrue();
        assertThat(orders.renew(b.leaseId())).isPresent();
        assertThat(orders.release(b.leaseId())).isTrue();
        assertThat(orders.release(b.leaseId())).isFalse();
    }

    @Test
    void aTokenNeverGrantedOrGrantedForAnotherLockIs403() throws Exception {
        String key = "orders/" + UUID.randomUUID();
        Lease other = admin.acquire("shop/orders/elsewhere", Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        for (long token : new long[] {Long.MAX_VALUE, other.token()}) {
            var r = gw.send(gw.request("/v1/stores/shop/items/" + key).PUT(BodyPublishers.ofString("x"))
                    .header("Authorization", "Bearer " + ORDERS_KEY).header("Fencing-Token", Long.toString(token)));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(new JsonObject(r.body()).getString("type")).isEqualTo("urn:fencegate:problem:token-not-granted");
        }
        admin.release(other.leaseId());
    }

    @Test
    void plainReadsAreScopedByLockPrefixesLikeWrites() throws Exception {
        String outside = "customers/" + UUID.randomUUID();
        String inside = "orders/" + UUID.randomUUID();
        Lease adminLease = admin.acquire("shop/" + outside, Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThat(admin.put("shop", outside, adminLease.token(), bytes("secret")).applied()).isTrue();
        admin.release(adminLease.leaseId());
        Lease ordersLease = orders.acquire("shop/" + inside, Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThat(orders.put("shop", inside, ordersLease.token(), bytes("mine")).applied()).isTrue();
        orders.release(ordersLease.leaseId());

        // The key "orders" is scoped to shop/orders/: an item guarded by shop/customers/... is not its to read,
        // whether it exists or not (a 404 would tell which keys exist).
        for (String key : new String[] {outside, "customers/missing-" + UUID.randomUUID()}) {
            var read = gw.send(gw.request("/v1/stores/shop/items/" + key).GET().header("Authorization", "Bearer " + ORDERS_KEY));
            assertThat(read.statusCode()).as(read.body()).isEqualTo(403);
            assertThat(new JsonObject(read.body()).getString("type")).isEqualTo("urn:fencegate:problem:forbidden");
            assertThat(read.body()).doesNotContain("secret");
        }
        assertThat(((ReadOutcome.Value) orders.get("shop", inside)).bytes()).isEqualTo(bytes("mine"));
        assertThat(((ReadOutcome.Value) admin.get("shop", outside)).bytes()).isEqualTo(bytes("secret"));
    }

    @Test
    void apiKeysAreCheckedPerStoreAndLockPrefix() throws Exception {
        var noKey = gw.send(gw.request("/v1/leases").POST(BodyPublishers.ofString("{\"lock\":\"shop/orders/1\",\"ttlMs\":1000}")));
        assertThat(noKey.statusCode()).isEqualTo(401);
        var wrongKey = gw.send(gw.request("/v1/stores/shop/items/orders/1").GET()
                .header("Authorization", "Bearer " + ApiKeyHasher.newKey()));
        assertThat(wrongKey.statusCode()).isEqualTo(401);

        // orders may not lock outside shop/orders/, nor use the audit store at all.
        var lease = gw.send(gw.request("/v1/leases").header("Authorization", "Bearer " + ORDERS_KEY)
                .POST(BodyPublishers.ofString("{\"lock\":\"audit/x\",\"ttlMs\":1000}")));
        assertThat(lease.statusCode()).isEqualTo(403);
        var audit = gw.send(gw.request("/v1/stores/audit/items/x").GET().header("Authorization", "Bearer " + ORDERS_KEY));
        assertThat(audit.statusCode()).isEqualTo(403);
        Lease adminLease = admin.acquire("shop/customers/1", Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        var outsidePrefix = gw.send(gw.request("/v1/stores/shop/items/customers/1").PUT(BodyPublishers.ofString("x"))
                .header("Authorization", "Bearer " + ORDERS_KEY).header("Fencing-Token", Long.toString(adminLease.token())));
        assertThat(outsidePrefix.statusCode()).isEqualTo(403);
        assertThat(admin.put("shop", "customers/1", adminLease.token(), bytes("ok")).applied()).isTrue();
        admin.release(adminLease.leaseId());

        // Operations endpoints stay open for probes.
        assertThat(gw.send(gw.request("/health").GET()).statusCode()).isEqualTo(200);
    }

    @Test
    void aNonLoopbackAddressWithoutAuthRefusesToStart() {
        Vertx vertx = Vertx.vertx();
        try {
            assertThatThrownBy(() -> Gateway.start(vertx, new GatewayOptions().host("0.0.0.0").port(0), gw.issuer,
                    gw.stores, GatewayMetrics.noop()).await(10, TimeUnit.SECONDS))
                    .hasMessageContaining("server.host").hasMessageContaining("auth");
        } finally {
            vertx.close();
        }
    }
}
