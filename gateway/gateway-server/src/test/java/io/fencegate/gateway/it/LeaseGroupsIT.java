package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.LeaseGroup;
import io.fencegate.client.LeaseLoss;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.KeyShares;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lease groups over HTTP, two gateways on one ZooKeeper with a files store: {@code "locks"} grants
 * every lock or none, each member's token writes the item its lock guards, the group id renews,
 * releases and watches the group through either gateway, losing one member loses the group, bad
 * groups are 400 and change nothing, the key must be allowed every lock and its share counts every
 * member; the Java client's {@code withLeases} keeps a group and reports its loss.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaseGroupsIT {
    private static final String KEY_A = ApiKeyHasher.newKey();
    private static final String KEY_B = ApiKeyHasher.newKey();
    /** A key of its own for the share test: the other tests' leases would count in a's share. */
    private static final String KEY_C = ApiKeyHasher.newKey();
    private static final int LEASE_SHARE = 9;
    private static final int WATCHED_SHARE = 8;
    private static TestingServer zookeeper;
    private static Path dir;
    private static GatewayHarness a;
    private static GatewayHarness b;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "lease-groups");
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("a", ApiKeyHasher.sha256Hex(KEY_A), List.of("alpha"), List.of("alpha/")),
                new ApiKey("b", ApiKeyHasher.sha256Hex(KEY_B), List.of("bravo"), List.of("bravo/")),
                new ApiKey("c", ApiKeyHasher.sha256Hex(KEY_C), List.of("alpha"), List.of("alpha/shares/"))));
        a = gateway(auth, "a");
        b = gateway(auth, "b");
    }

    private static GatewayHarness gateway(AuthConfig auth, String name) throws Exception {
        LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
        // Each gateway's stores in directories of its own: the writes here all go through gateway a.
        var alpha = FilesGuardedStore.open(Files.createDirectory(dir.resolve(name + "-alpha")), GuardRule.STRICT);
        var bravo = FilesGuardedStore.open(Files.createDirectory(dir.resolve(name + "-bravo")), GuardRule.STRICT);
        return new GatewayHarness(new GatewayOptions().auth(auth).keyShares(new KeyShares().leases(LEASE_SHARE).watchedLeases(WATCHED_SHARE)), issuer,
                List.of(StoreBinding.of("alpha", alpha), StoreBinding.of("bravo", bravo)), List.of(issuer, alpha, bravo));
    }

    @AfterAll
    static void stop() throws Exception {
        for (GatewayHarness gw : new GatewayHarness[] {a, b}) {
            if (gw != null) {
                gw.close();
            }
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (dir != null) {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aGroupIsGrantedWholeAndServedByItsIdThroughEitherGatewayUntilAMemberIsLost() throws Exception {
        HttpResponse<String> granted = acquire(a, KEY_A, new JsonObject()
                .put("locks", new JsonArray().add("alpha/whole/2").add("alpha/whole/1")).put("ttlMs", 30_000));
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(201);
        JsonObject group = new JsonObject(granted.body());
        String groupId = group.getString("groupId");
        JsonArray leases = group.getJsonArray("leases");
        assertThat(leases).hasSize(2);
        assertThat(leases.getJsonObject(0).getString("lock")).as("canonical order").isEqualTo("alpha/whole/1");
        assertThat(group.getLong("expiresAt")).isEqualTo(Math.min(leases.getJsonObject(0).getLong("expiresAt"),
                leases.getJsonObject(1).getLong("expiresAt")));
        // Each lock is held, and each member's token writes the item its lock guards.
        FencegateClient clientA = a.client(KEY_A);
        assertThat(clientA.acquire("alpha/whole/2", Duration.ofSeconds(5), Duration.ZERO)).isEmpty();
        for (int i = 0; i < 2; i++) {
            JsonObject member = leases.getJsonObject(i);
            String key = member.getString("lock").substring("alpha/".length());
            assertThat(clientA.put("alpha", key, member.getLong("token"), "v".getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(WriteOutcome.Applied.class);
        }

        try (SseStream watch = SseStream.open(events(b, groupId), KEY_A)) {
            HttpResponse<String> renewed = as(KEY_A, b.request("/v1/leases/" + groupId + "/renew").POST(BodyPublishers.noBody()));
            assertThat(renewed.statusCode()).as(renewed.body()).isEqualTo(200);
            assertThat(new JsonObject(renewed.body()).getLong("expiresAt")).isGreaterThanOrEqualTo(group.getLong("expiresAt"));
            assertThat(new JsonObject(renewed.body()).getString("groupId")).isEqualTo(groupId);

            // One member ends: the group is lost, the watcher on the other gateway is told which.
            String second = leases.getJsonObject(1).getString("leaseId");
            assertThat(clientA.release(second)).isTrue();
            SseStream.Event end = watch.await(10_000, e -> !e.name().equals("renewed"));
            assertThat(end.name()).isEqualTo("released");
            assertThat(end.data().getString("groupId")).isEqualTo(groupId);
            assertThat(end.data().getString("lock")).isEqualTo("alpha/whole/2");
            assertThat(watch.closed(10_000)).isTrue();
        }
        assertThat(as(KEY_A, a.request("/v1/leases/" + groupId + "/renew").POST(BodyPublishers.noBody())).statusCode())
                .isEqualTo(410);
        // The renew that found the group lost released the member still alive.
        assertThat(clientA.acquire("alpha/whole/1", Duration.ofSeconds(5), Duration.ZERO)).isPresent();
        assertThat(as(KEY_A, b.request("/v1/leases/" + groupId).DELETE()).statusCode()).isEqualTo(410);
    }

    @Test
    void aGroupWithAHeldLockIs423AndLeavesNothingHeld() throws Exception {
        FencegateClient clientA = a.client(KEY_A);
        var held = clientA.acquire("alpha/miss/m", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        HttpResponse<String> refused = acquire(b, KEY_A, new JsonObject()
                .put("locks", new JsonArray().add("alpha/miss/n").add("alpha/miss/m").add("alpha/miss/l"))
                .put("ttlMs", 30_000).put("waitMs", 200));
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(423);
        assertThat(new JsonObject(refused.body()).getString("type")).isEqualTo("urn:fencegate:problem:lock-held");
        assertThat(listed(a, KEY_A, "alpha/miss/")).containsExactly("alpha/miss/m");
        assertThat(clientA.release(held.leaseId())).isTrue();
    }

    @Test
    void badGroupsAre400AndChangeNothing() throws Exception {
        List<String> nine = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            nine.add("alpha/bad/" + i);
        }
        int maxLockBytes = "alpha/".length() + 1024; // the lock of the longest key of store alpha
        List<Object> refused = List.of(new JsonArray(), new JsonArray().add("alpha/bad/1").add("alpha/bad/1"),
                new JsonArray(nine), new JsonArray().add("alpha/bad/1").add(7), new JsonArray().add(""), "alpha/bad/1",
                new JsonArray().add("alpha/bad/1").add("alpha/bad/" + "x".repeat(maxLockBytes - 10)));
        for (Object locks : refused) {
            HttpResponse<String> r = acquire(a, KEY_A, new JsonObject().put("locks", locks).put("ttlMs", 30_000));
            assertThat(r.statusCode()).as("%s: %s", locks, r.body()).isEqualTo(400);
            assertThat(new JsonObject(r.body()).getString("type")).isEqualTo("urn:fencegate:problem:bad-request");
        }
        HttpResponse<String> both = acquire(a, KEY_A, new JsonObject().put("lock", "alpha/bad/1")
                .put("locks", new JsonArray().add("alpha/bad/2")).put("ttlMs", 30_000));
        assertThat(both.statusCode()).as(both.body()).isEqualTo(400);
        assertThat(listed(a, KEY_A, "alpha/bad/")).isEmpty();
        assertThat(as(KEY_A, a.request("/v1/leases/lg1~nonsense/renew").POST(BodyPublishers.noBody())).statusCode())
                .isEqualTo(410);
    }

    @Test
    void aKeyMustBeAllowedEveryLockOfAGroupAndCannotTouchAnothersGroup() throws Exception {
        HttpResponse<String> mixed = acquire(a, KEY_A, new JsonObject()
                .put("locks", new JsonArray().add("alpha/auth/1").add("bravo/auth/1")).put("ttlMs", 30_000));
        assertThat(mixed.statusCode()).as(mixed.body()).isEqualTo(403);
        assertThat(new JsonObject(mixed.body()).getString("detail")).contains("bravo/auth/1");
        assertThat(listed(a, KEY_A, "alpha/auth/")).isEmpty();

        LeaseGroup bravo = b.client(KEY_B).acquireAll(List.of("bravo/auth/1", "bravo/auth/2"), Duration.ofSeconds(30),
                Duration.ZERO).orElseThrow();
        String id = bravo.groupId();
        assertThat(as(KEY_A, a.request("/v1/leases/" + id + "/renew").POST(BodyPublishers.noBody())).statusCode())
                .isEqualTo(403);
        assertThat(as(KEY_A, a.request("/v1/leases/" + id).DELETE()).statusCode()).isEqualTo(403);
        assertThat(as(KEY_A, a.request("/v1/leases/" + id + "/events").GET()).statusCode()).isEqualTo(403);
        assertThat(b.client(KEY_B).renew(id)).as("b's group lives on").isPresent();
        assertThat(b.client(KEY_B).release(id)).isTrue();
    }

    @Test
    void aKeysLeaseAndWatchSharesCountEveryMemberOfAGroup() throws Exception {
        FencegateClient c = a.client(KEY_C);
        var one = c.acquire("alpha/shares/one", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        var two = c.acquire("alpha/shares/two", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        List<String> eight = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            eight.add("alpha/shares/" + i);
        }
        // 2 live + 8 members > a share of 9: refused whole, nothing taken.
        HttpResponse<String> over = acquire(a, KEY_C, new JsonObject().put("locks", new JsonArray(eight)).put("ttlMs", 30_000));
        assertThat(over.statusCode()).as(over.body()).isEqualTo(429);
        assertThat(listed(a, KEY_C, "alpha/shares/")).containsExactly("alpha/shares/one", "alpha/shares/two");
        assertThat(c.release(two.leaseId())).isTrue();
        LeaseGroup group = c.acquireAll(eight, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();

        // Watching one lease and the group's eight members is 9 watched leases, over a share of 8.
        try (SseStream single = SseStream.open(URI.create(a.uri() + "v1/leases/" + one.leaseId() + "/events"), KEY_C)) {
            HttpResponse<String> watch = as(KEY_C, a.request("/v1/leases/" + group.groupId() + "/events").GET());
            assertThat(watch.statusCode()).as(watch.body()).isEqualTo(429);
        }
        assertThat(c.release(one.leaseId())).isTrue();
        try (SseStream watch = openWhenShared(events(a, group.groupId()), KEY_C)) {
            assertThat(c.release(group.groupId())).isTrue();
            assertThat(watch.await(10_000, e -> !e.name().equals("renewed")).name()).isEqualTo("released");
        }
    }

    /** Eight locks whose names together are as long as one lock may be: the group id still fits a request line. */
    @Test
    void theLongestGroupIdIsServedOnEveryRoute() throws Exception {
        int maxLockBytes = "alpha/".length() + 1024;
        List<String> locks = new ArrayList<>();
        int left = maxLockBytes;
        for (int i = 0; i < 8; i++) {
            int length = i < 7 ? maxLockBytes / 8 : left;
            String head = "alpha/long/" + i + "/";
            locks.add(head + "x".repeat(length - head.length()));
            left -= length;
        }
        assertThat(locks.stream().mapToInt(l -> l.getBytes(StandardCharsets.UTF_8).length).sum()).isEqualTo(maxLockBytes);
        FencegateClient clientA = b.client(KEY_A);
        LeaseGroup group = clientA.acquireAll(locks, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(group.leases()).hasSize(8);
        assertThat(clientA.renew(group.groupId())).isPresent();
        try (SseStream watch = SseStream.open(events(a, group.groupId()), KEY_A)) {
            assertThat(clientA.release(group.groupId())).isTrue();
            assertThat(watch.await(10_000, e -> !e.name().equals("renewed")).name()).isEqualTo("released");
        }
        assertThat(listed(a, KEY_A, "alpha/long/")).isEmpty();
    }

    @Test
    void withLeasesRunsUnderEveryLockAndReportsTheGroupsLossAsALeasesLoss() throws Exception {
        FencegateClient clientA = a.client(KEY_A);
        List<String> locks = List.of("alpha/client/2", "alpha/client/1");
        Optional<Long> written = clientA.withLeases(locks, Duration.ofSeconds(30), Duration.ofSeconds(5), group -> {
            assertThat(group.held()).isTrue();
            assertThat(clientA.acquire("alpha/client/1", Duration.ofSeconds(5), Duration.ZERO)).isEmpty();
            var outcome = clientA.put("alpha", "client/2", group.token("alpha/client/2"), "x".getBytes(StandardCharsets.UTF_8));
            assertThat(outcome).isInstanceOf(WriteOutcome.Applied.class);
            return group.token("alpha/client/2");
        });
        assertThat(written).isPresent();
        assertThat(listed(a, KEY_A, "alpha/client/")).as("released after the work").isEmpty();

        // A member lost under the work: the group is lost, told as a lease's loss (410: GONE).
        LeaseLoss loss = clientA.withLeases(locks, Duration.ofMillis(900), Duration.ofSeconds(5), group -> {
            clientA.release(group.group().lease("alpha/client/1").orElseThrow().leaseId());
            LeaseLoss reason = group.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertThat(group.held()).isFalse();
            return reason;
        }).orElseThrow();
        assertThat(loss).isEqualTo(LeaseLoss.GONE);
        assertThat(listed(a, KEY_A, "alpha/client/")).as("nothing held after the loss").isEmpty();
        // Held elsewhere: empty, and nothing taken.
        var held = clientA.acquire("alpha/client/1", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(clientA.withLeases(locks, Duration.ofSeconds(30), Duration.ZERO, group -> "ran")).isEmpty();
        assertThat(listed(a, KEY_A, "alpha/client/")).containsExactly("alpha/client/1");
        assertThat(clientA.release(held.leaseId())).isTrue();
    }

    // ---------------------------------------------------------------- helpers

    /** Opens a watch once the key's share has room: a closed stream gives its share back a moment later. */
    private static SseStream openWhenShared(URI url, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return SseStream.open(url, key);
            } catch (AssertionError refused) {
                if (!refused.getMessage().contains(" 429") || System.nanoTime() - deadline > 0) {
                    throw refused;
                }
                Thread.sleep(100);
            }
        }
    }

    private static HttpResponse<String> acquire(GatewayHarness gw, String key, JsonObject body) throws Exception {
        return as(key, gw.request("/v1/leases").header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(body.encode())));
    }

    private static URI events(GatewayHarness gw, String groupId) {
        return URI.create(gw.uri() + "v1/leases/" + groupId + "/events");
    }

    /** The locks the issuer lists as held under {@code prefix}. */
    private static List<String> listed(GatewayHarness gw, String key, String prefix) throws Exception {
        HttpResponse<String> r = as(key, gw.request("/v1/leases?prefix=" + prefix).GET());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new JsonObject(r.body()).getJsonArray("leases").stream()
                .map(l -> ((JsonObject) l).getString("lock")).toList();
    }

    private static HttpResponse<String> as(String key, HttpRequest.Builder request) throws Exception {
        return a.send(request.header("Authorization", "Bearer " + key));
    }
}
