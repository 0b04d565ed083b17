package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.ClaimOutcome;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Refused;
import io.fencegate.client.Stale;
import io.fencegate.client.TransactionOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayLimits;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transactions across items and fenced multi-reads over HTTP and through the Java client, on a
 * gateway with a ZooKeeper issuer (in-process) in front of the real Postgres (the reactive store,
 * {@code pg}) and MariaDB (the JDBC store, {@code maria}), with API keys: all or nothing, every
 * refused item in the 409, and the 400, 403 and 413 checks, each changing nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionsIT {
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();
    private static final String ORDERS_KEY = ApiKeyHasher.newKey();
    private static final String MARIA_ONLY_KEY = ApiKeyHasher.newKey();
    private static final int MAX_ITEMS = 5;
    private static final long MAX_BYTES = 8 * 1024;
    private static GatewayHarness gw;
    private static FencegateClient admin;
    private static FencegateClient orders;

    private final String prefix = "orders/" + UUID.randomUUID().toString().substring(0, 8) + "/";

    @BeforeAll
    static void start() throws Exception {
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*")),
                new ApiKey("orders", ApiKeyHasher.sha256Hex(ORDERS_KEY), List.of("*"),
                        List.of("pg/orders/", "maria/orders/", "files/orders/")),
                new ApiKey("maria-only", ApiKeyHasher.sha256Hex(MARIA_ONLY_KEY), List.of("*"), List.of("maria/"))));
        GatewayOptions options = new GatewayOptions().auth(auth).maxBodyBytes(64 * 1024);
        GatewayLimits limits = options.limits().maxTransactionItems(MAX_ITEMS).maxTransactionBytes(MAX_BYTES);
        assertThat(limits.maxTransactionItems()).isEqualTo(MAX_ITEMS);
        gw = ThreeStores.gateway("tx-files", options);
        admin = gw.client(ADMIN_KEY);
        orders = gw.client(ORDERS_KEY);
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.assertEventLoopNeverBlocked();
            gw.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A token granted for the lock of {@code key} in {@code store}: its lease is released at once, the grant stays. */
    private static long token(String store, String key) {
        var lease = admin.acquire(store + "/" + key, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
        admin.release(lease.leaseId());
        return lease.token();
    }

    private static HttpResponse<String> post(String store, String route, String apiKey, String body) throws Exception {
        return gw.send(gw.request("/v1/stores/" + store + "/" + route).POST(BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey));
    }

    private static void assertProblem(HttpResponse<String> r, int status, String typeSuffix) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(new JsonObject(r.body()).getString("type")).isEqualTo("urn:fencegate:problem:" + typeSuffix);
    }

    private static String put(String key, long token, String value) {
        return new JsonObject().put("op", "put").put("key", key).put("token", token).put("value", value).encode();
    }

    private static String ops(String... ops) {
        return "{\"ops\":[" + String.join(",", ops) + "]}";
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria"})
    void aTransactionAppliesEveryItemOrNoneAndTheRefusalNamesEveryRefusedItem(String store) throws Exception {
        String a = prefix + "a", b = prefix + "b", c = prefix + "c";
        long ta = token(store, a), tb = token(store, b), tc = token(store, c);
        assertThat(orders.put(store, c, tc, bytes("c0")).applied()).isTrue();
        long tc2 = token(store, c);

        TransactionOutcome done = orders.transaction(store)
                .put(a, ta, bytes("a1")).put(b, tb, bytes("b1")).delete(c, tc2).commit();
        assertThat(done).isEqualTo(new TransactionOutcome.Committed(Map.of(
                a, new WriteOutcome.Applied(ta, 0), b, new WriteOutcome.Applied(tb, 0), c, new WriteOutcome.Applied(tc2, tc))));
        assertThat(orders.get(store, c)).isInstanceOf(ReadOutcome.NotFound.class);

        // A newer holder of b claims it and a with a fenced multi-read; the older tokens are fenced out.
        long ta2 = token(store, a), tb2 = token(store, b), missing = token(store, prefix + "missing");
        Map<String, Long> claims = new LinkedHashMap<>();
        claims.put(a, ta2);
        claims.put(b, tb2);
        claims.put(prefix + "missing", missing);
        ClaimOutcome claimed = orders.getAll(store, claims);
        assertThat(claimed).isInstanceOf(ClaimOutcome.Claimed.class);
        var items = ((ClaimOutcome.Claimed) claimed).items();
        assertThat(((ReadOutcome.Value) items.get(a)).bytes()).isEqualTo(bytes("a1"));
        assertThat(items.get(prefix + "missing")).isInstanceOf(ReadOutcome.NotFound.class);

        long tc3 = token(store, c);
        var stale = post(store, "transactions", ORDERS_KEY, ops(put(a, ta, "late"), put(b, tb, "late"), put(c, tc3, "c3")));
        assertProblem(stale, 409, "stale");
        JsonArray refused = new JsonObject(stale.body()).getJsonArray("refused");
        assertThat(refused).hasSize(2);
        JsonObject first = refused.getJsonObject(0), second = refused.getJsonObject(1);
        assertThat(List.of(first.getString("key"), first.getLong("token"), first.getLong("currentToken"), first.getLong("fence")))
                .containsExactly(a, ta, ta, ta2);
        assertThat(List.of(second.getString("key"), second.getLong("token"), second.getLong("currentToken"), second.getLong("fence")))
                .containsExactly(b, tb, tb, tb2);
        // Nothing applied: c (which would have passed) still holds its tombstone.
        assertThat(orders.get(store, c)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(((ReadOutcome.Value) orders.get(store, a)).bytes()).isEqualTo(bytes("a1"));
        // The client reads the same refusal.
        assertThat(orders.transaction(store).put(a, ta, bytes("late")).commit())
                .isEqualTo(new Refused(Map.of(a, new Stale(ta, ta2, ta))));
        assertThat(orders.transaction(store).put(a, ta2, bytes("a2")).put(b, tb2, bytes("b2")).commit().committed()).isTrue();
    }

    @Test
    void aFencedMultiReadWithOneStaleItemClaimsNothing() throws Exception {
        String a = prefix + "ra", b = prefix + "rb";
        long olderA = token("pg", a), olderB = token("pg", b);
        long ta = token("pg", a), tb = token("pg", b);
        assertThat(orders.put("pg", b, tb, bytes("b")).applied()).isTrue();
        Map<String, Long> claims = new LinkedHashMap<>();
        claims.put(a, ta);
        claims.put(b, olderB);
        assertThat(orders.getAll("pg", claims)).isEqualTo(new Refused(Map.of(b, new Stale(tb, tb, olderB))));
        // a was not claimed: an older token of a still writes it.
        assertThat(orders.put("pg", a, olderA, bytes("a")).applied()).isTrue();
    }

    @Test
    void everyItemIsCheckedAgainstTheKeysLockPrefixesAndGrantsBeforeAnyIsWritten() throws Exception {
        String mine = prefix + "mine";
        String theirs = "billing/" + UUID.randomUUID();
        long tm = token("pg", mine), tt = token("pg", theirs);
        var outside = post("pg", "transactions", ORDERS_KEY, ops(put(mine, tm, "x"), put(theirs, tt, "x")));
        assertProblem(outside, 403, "forbidden");
        assertThat(orders.get("pg", mine)).isInstanceOf(ReadOutcome.NotFound.class);
        var notGranted = post("pg", "transactions", ORDERS_KEY, ops(put(mine, tm, "x"), put(prefix + "other", Long.MAX_VALUE, "x")));
        assertProblem(notGranted, 403, "token-not-granted");
        var otherLocksToken = post("pg", "fenced-reads", ORDERS_KEY,
                "{\"items\":[{\"key\":\"" + prefix + "other\",\"token\":" + tm + "}]}");
        assertProblem(otherLocksToken, 403, "token-not-granted");
        assertThat(orders.get("pg", mine)).isInstanceOf(ReadOutcome.NotFound.class);
        // A key that may use no lock of the store is refused before its body is read.
        var noLock = post("pg", "transactions", MARIA_ONLY_KEY, ops(put(mine, tm, "x")));
        assertProblem(noLock, 403, "forbidden");
        assertThat(new JsonObject(noLock.body()).getString("detail")).contains("no lock of store 'pg'");
    }

    @Test
    void badBodiesAre400And413AndChangeNothing() throws Exception {
        String a = prefix + "bad";
        long t = token("maria", a);
        assertProblem(post("maria", "transactions", ADMIN_KEY, ops(put(a, t, "x"), put(a, t, "y"))), 400, "bad-key");
        assertProblem(post("maria", "transactions", ADMIN_KEY, "{\"ops\":[]}"), 400, "bad-request");
        assertProblem(post("maria", "transactions", ADMIN_KEY, "not json"), 400, "bad-request");
        assertProblem(post("maria", "transactions", ADMIN_KEY,
                "{\"ops\":[{\"op\":\"put\",\"key\":\"" + a + "\",\"token\":0,\"value\":\"x\"}]}"), 400, "bad-token");
        assertProblem(post("maria", "transactions", ADMIN_KEY,
                "{\"ops\":[{\"op\":\"put\",\"key\":\"" + a + "\",\"token\":\"5\",\"value\":\"x\"}]}"), 400, "bad-token");
        assertProblem(post("maria", "transactions", ADMIN_KEY,
                "{\"ops\":[{\"op\":\"put\",\"key\":\"" + a + "/../x\",\"token\":5,\"value\":\"x\"}]}"), 400, "bad-key");
        assertProblem(post("maria", "transactions", ADMIN_KEY,
                "{\"ops\":[{\"op\":\"upsert\",\"key\":\"" + a + "\",\"token\":" + t + "}]}"), 400, "bad-request");
        String[] many = new String[MAX_ITEMS + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = put(prefix + "many-" + i, t, "x");
        }
        assertProblem(post("maria", "transactions", ADMIN_KEY, ops(many)), 413, "too-large");
        assertProblem(post("maria", "transactions", ADMIN_KEY, ops(put(a, t, "x".repeat((int) MAX_BYTES)))), 413, "too-large");
        assertThat(admin.get("maria", a)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(post("maria", "transactions", ADMIN_KEY, ops(put(a, t, "x"))).statusCode()).isEqualTo(200);
        assertProblem(post("maria", "fenced-reads", ADMIN_KEY, "{\"items\":[{\"key\":\"" + a + "\",\"token\":" + t + "},"
                + "{\"key\":\"" + a + "\",\"token\":" + t + "}]}"), 400, "bad-key");
        var wrongMethod = gw.send(gw.request("/v1/stores/maria/transactions").GET().header("Authorization", "Bearer " + ADMIN_KEY));
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
    }

    @Test
    void theFilesStoreRefusesTransactionsWithItsReason() throws Exception {
        String a = prefix + "f";
        long t = token("files", a);
        var r = post("files", "transactions", ORDERS_KEY, ops(put(a, t, "x")));
        assertProblem(r, 400, "transactions-unsupported");
        assertThat(new JsonObject(r.body()).getString("detail")).contains("atomic");
        assertProblem(post("files", "fenced-reads", ORDERS_KEY, "{\"items\":[{\"key\":\"" + a + "\",\"token\":" + t + "}]}"),
                400, "transactions-unsupported");
        assertThat(orders.get("files", a)).isInstanceOf(ReadOutcome.NotFound.class);
    }
}
