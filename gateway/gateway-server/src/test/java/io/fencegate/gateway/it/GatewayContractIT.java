package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.StatementOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.NamedSql;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every row of DESIGN.md's HTTP contract, black-box over HTTP, against a gateway on the real
 * Postgres and MariaDB with a ZooKeeper issuer (an in-process ZooKeeper server). Store {@code pg}
 * is the reactive Postgres store; {@code lenient} is the JDBC store on the same schema.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayContractIT {
    private static TestingServer zookeeper;
    private static TestDatabases postgres;
    private static TestDatabases mariadb;
    private static GatewayHarness gw;
    private static FencegateClient client;

    private final String prefix = "it-" + UUID.randomUUID().toString().substring(0, 8) + "/";

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        postgres = TestDatabases.create(TestDatabases.Kind.POSTGRES);
        mariadb = TestDatabases.create(TestDatabases.Kind.MARIADB);
        postgres.execute("CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(5)).build();
        var lenient = postgres.store(GuardRule.SAME_LEASE); // opening it migrates the schema
        Vertx pgVertx = Vertx.vertx();
        var pg = PgGuardedStore.open(pgVertx, new PgStoreOptions().database("test").schema(postgres.name).name(postgres.name)
                .poolSize(4).operationTimeout(Duration.ofSeconds(3)));
        AutoCloseable closePgVertx = () -> pgVertx.close().await(10, TimeUnit.SECONDS);
        var maria = mariadb.store(GuardRule.STRICT);
        var shared = mariadb.store(GuardRule.STRICT);
        List<StoreBinding> stores = List.of(
                new StoreBinding("pg", pg, pg, Map.of("debit",
                        NamedSql.parse("UPDATE accounts SET balance = balance - :amount WHERE id = :id")), null),
                StoreBinding.of("maria", maria),
                StoreBinding.of("lenient", lenient),
                new StoreBinding("shared", shared, null, Map.of(), "shared-lock"));
        gw = new GatewayHarness(new GatewayOptions().maxBodyBytes(64 * 1024).maxTtl(Duration.ofMinutes(5)),
                issuer, stores, List.of(zookeeper, postgres, mariadb, issuer, closePgVertx, pg, lenient, maria, shared));
        client = gw.client();
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

    private HttpResponse<String> put(String store, String key, String token, String body) throws Exception {
        var request = gw.request("/v1/stores/" + store + "/items/" + key).PUT(BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Fencing-Token", token);
        }
        return gw.send(request);
    }

    private static JsonObject json(HttpResponse<String> r) {
        return new JsonObject(r.body());
    }

    private static void assertProblem(HttpResponse<String> r, int status, String typeSuffix) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(json(r).getString("type")).isEqualTo("urn:fencegate:problem:" + typeSuffix);
        assertThat(json(r).getInteger("status")).isEqualTo(status);
    }

    // ------------------------------------------------------------------ leases

    @Test
    void leaseIsGrantedHeldRenewedAndReleased() throws Exception {
        String lock = prefix + "lease";
        var r = gw.send(gw.request("/v1/leases").POST(BodyPublishers.ofString(
                "{\"lock\":\"" + lock + "\",\"ttlMs\":20000}")).header("Content-Type", "application/json"));
        assertThat(r.statusCode()).isEqualTo(201);
        JsonObject lease = json(r);
        assertThat(lease.getString("lock")).isEqualTo(lock);
        assertThat(lease.getLong("token")).isPositive();
        assertThat(lease.getLong("expiresAt")).isGreaterThan(System.currentTimeMillis());
        String id = lease.getString("leaseId");

        assertThat(client.acquire(lock, Duration.ofSeconds(5), Duration.ZERO)).isEmpty(); // 423
        var held = gw.send(gw.request("/v1/leases").POST(BodyPublishers.ofString(
                "{\"lock\":\"" + lock + "\",\"ttlMs\":1000,\"waitMs\":200}")));
        assertProblem(held, 423, "lock-held");

        var renewed = gw.send(gw.request("/v1/leases/" + id + "/renew").POST(BodyPublishers.noBody()));
        assertThat(renewed.statusCode()).isEqualTo(200);
        assertThat(json(renewed).getLong("expiresAt")).isGreaterThanOrEqualTo(lease.getLong("expiresAt"));

        assertThat(gw.send(gw.request("/v1/leases/" + id).DELETE()).statusCode()).isEqualTo(204);
        assertProblem(gw.send(gw.request("/v1/leases/" + id).DELETE()), 410, "lease-gone");
        assertProblem(gw.send(gw.request("/v1/leases/" + id + "/renew").POST(BodyPublishers.noBody())), 410, "lease-gone");
        assertProblem(gw.send(gw.request("/v1/leases/not-a-lease-id").DELETE()), 410, "lease-gone");

        Optional<Lease> next = client.acquire(lock, Duration.ofSeconds(5), Duration.ZERO);
        assertThat(next).isPresent();
        assertThat(next.get().token()).isGreaterThan(lease.getLong("token"));
        client.release(next.get().leaseId());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "nope", "[]", "{}", "{\"lock\":\"a\"}", "{\"lock\":\"\",\"ttlMs\":1000}", "{\"lock\":7,\"ttlMs\":1000}",
        "{\"lock\":\"a\",\"ttlMs\":99}", "{\"lock\":\"a\",\"ttlMs\":300001}", "{\"lock\":\"a\",\"ttlMs\":\"1000\"}",
        "{\"lock\":\"a\",\"ttlMs\":1000.5}", "{\"lock\":\"a\",\"ttlMs\":1000,\"waitMs\":-1}",
        "{\"lock\":\"a\",\"ttlMs\":99999999999999999999999}"})
    void badLeaseRequestsAre400(String body) throws Exception {
        assertProblem(gw.send(gw.request("/v1/leases").POST(BodyPublishers.ofString(body))), 400, "bad-request");
    }

    // ------------------------------------------------------------------ items

    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria"})
    void guardedWritesReadsAndTombstones(String store) throws Exception {
        String key = prefix + "docs/2026/report.txt";
        String lock = store + "/" + key;
        long t1 = gw.grantedToken(lock);
        long t2 = gw.grantedToken(lock);

        var applied = put(store, key, Long.toString(t1), "one");
        assertThat(applied.statusCode()).isEqualTo(200);
        assertThat(json(applied)).isEqualTo(new JsonObject().put("applied", true).put("token", t1).put("previousToken", 0));

        var read = gw.send(gw.request("/v1/stores/" + store + "/items/" + key).GET());
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("one");
        assertThat(read.headers().firstValue("Fencing-Token")).contains(Long.toString(t1));

        assertThat(client.put(store, key, t2, bytes("two"))).isEqualTo(new WriteOutcome.Applied(t2, t1));
        var stale = put(store, key, Long.toString(t1), "stale");
        assertProblem(stale, 409, "stale");
        assertThat(json(stale).getLong("currentToken")).isEqualTo(t2);
        assertThat(json(stale).getLong("fence")).isEqualTo(t2);

        // strict: a retry with the same token is recognisably already applied.
        assertThat(client.put(store, key, t2, bytes("retry"))).isEqualTo(new Stale(t2, t2, t2));
        assertThat(((ReadOutcome.Value) client.get(store, key)).bytes()).isEqualTo(bytes("two"));

        long t3 = gw.grantedToken(lock);
        var deleted = gw.send(gw.request("/v1/stores/" + store + "/items/" + key).DELETE()
                .header("Fencing-Token", Long.toString(t3)));
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(json(deleted).getLong("previousToken")).isEqualTo(t2);
        var gone = gw.send(gw.request("/v1/stores/" + store + "/items/" + key).GET());
        assertProblem(gone, 404, "not-found");
        // The tombstone keeps the token: the older holder cannot resurrect the item.
        assertThat(client.put(store, key, t2 + 0, bytes("zombie"))).isInstanceOf(Stale.class);
        assertThat(client.get(store, key)).isInstanceOf(ReadOutcome.NotFound.class);
    }

    @Test
    void sameLeaseStoreAcceptsManyWritesWithOneToken() throws Exception {
        String key = prefix + "counter";
        long t = gw.grantedToken("lenient/" + key);
        assertThat(client.put("lenient", key, t, bytes("1")).applied()).isTrue();
        assertThat(client.put("lenient", key, t, bytes("2"))).isEqualTo(new WriteOutcome.Applied(t, t));
        assertThat(((ReadOutcome.Value) client.get("lenient", key)).bytes()).isEqualTo(bytes("2"));
    }

    @Test
    void checksAnswerInTheContractsOrder() throws Exception {
        String key = prefix + "order";
        long mine = gw.grantedToken("pg/" + key);
        long foreign = gw.grantedToken("pg/" + prefix + "other");
        String big = "x".repeat(64 * 1024 + 1);

        assertProblem(put("nosuch", "..", null, big), 404, "unknown-store");
        assertProblem(put("pg", "a//b", null, big), 400, "bad-key");
        assertProblem(put("pg", "%C0%AF", null, "v"), 400, "bad-key"); // not UTF-8
        assertProblem(put("pg", key, null, big), 428, "missing-token");
        assertProblem(put("pg", key, "-1", big), 400, "bad-token");
        assertProblem(put("pg", key, Long.toString(foreign), big), 403, "token-not-granted");
        assertProblem(put("pg", key, "9223372036854775807", big), 403, "token-not-granted");
        assertProblem(put("pg", key, Long.toString(mine), big), 413, "too-large");
        assertThat(client.get("pg", key)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(put("pg", key, Long.toString(mine), "fits").statusCode()).isEqualTo(200);
        assertProblem(put("pg", key, Long.toString(mine), "again"), 409, "stale");
    }

    @Test
    void aStoreWithOneLockAcceptsOnlyThatLocksTokens() throws Exception {
        long storeToken = gw.grantedToken("shared-lock");
        long itemLockToken = gw.grantedToken("shared/" + prefix + "a");
        assertThat(client.put("shared", prefix + "a", storeToken, bytes("a")).applied()).isTrue();
        assertThat(client.put("shared", prefix + "b", storeToken, bytes("b")).applied()).isTrue();
        assertProblem(put("shared", prefix + "c", Long.toString(itemLockToken), "c"), 403, "token-not-granted");
    }

    // ------------------------------------------------------------------ fenced reads

    @Test
    void fencedReadsCloseTheReadModifyWriteHole() throws Exception {
        String key = prefix + "stock";
        String lock = "pg/" + key;
        long t0 = gw.grantedToken(lock);
        client.put("pg", key, t0, bytes("1"));
        long a = gw.grantedToken(lock);
        long b = gw.grantedToken(lock);

        // A reads with its token and pauses; B reads with a higher one: B's read fences A out.
        assertThat(client.get("pg", key, a)).isInstanceOf(ReadOutcome.Value.class);
        var bRead = gw.send(gw.request("/v1/stores/pg/items/" + key).GET().header("Fencing-Token", Long.toString(b)));
        assertThat(bRead.statusCode()).isEqualTo(200);
        assertThat(bRead.headers().firstValue("Fencing-Token")).contains(Long.toString(t0));
        var aWrite = put("pg", key, Long.toString(a), "0");
        assertProblem(aWrite, 409, "stale");
        assertThat(json(aWrite).getLong("currentToken")).isEqualTo(t0);
        assertThat(json(aWrite).getLong("fence")).isEqualTo(b);
        assertThat(client.put("pg", key, b, bytes("0")).applied()).isTrue();

        // A fenced read below the fence is stale and changes nothing.
        assertThat(client.get("pg", key, a)).isEqualTo(new Stale(b, b, a));
    }

    @Test
    void aFencedReadOfAMissingItemBlocksAStaleCreation() throws Exception {
        String key = prefix + "missing";
        long low = gw.grantedToken("pg/" + key);
        long high = gw.grantedToken("pg/" + key);
        var claim = gw.send(gw.request("/v1/stores/pg/items/" + key).GET().header("Fencing-Token", Long.toString(high)));
        assertProblem(claim, 404, "not-found");
        assertThat(json(claim).getLong("fence")).isEqualTo(high);
        assertThat(client.put("pg", key, low, bytes("stale create"))).isEqualTo(new Stale(0, high, low));
    }

    @Test
    void aFencedReadWithABadOrForeignTokenIsRefusedAndRaisesNoFence() throws Exception {
        String key = prefix + "guarded-read";
        long mine = gw.grantedToken("maria/" + key);
        long foreign = gw.grantedToken("maria/" + prefix + "elsewhere");
        for (String bad : List.of("0", "+5", "12a", "99999999999999999999")) {
            assertProblem(gw.send(gw.request("/v1/stores/maria/items/" + key).GET().header("Fencing-Token", bad)),
                    400, "bad-token");
        }
        assertProblem(gw.send(gw.request("/v1/stores/maria/items/" + key).GET()
                .header("Fencing-Token", Long.toString(foreign))), 403, "token-not-granted");
        assertProblem(gw.send(gw.request("/v1/stores/maria/items/" + key).GET()
                .header("Fencing-Token", "9223372036854775807")), 403, "token-not-granted");
        assertThat(client.put("maria", key, mine, bytes("mine")).applied()).isTrue();
    }

    // ------------------------------------------------------------------ statements

    @Test
    void namedStatementsRunUnderTheGuardRow() throws Exception {
        String id = prefix + "acct";
        postgres.execute("INSERT INTO accounts VALUES ('" + id + "', 100)");
        String key = "accounts/" + id;
        long t1 = gw.grantedToken("pg/" + key);
        long t2 = gw.grantedToken("pg/" + key);

        var done = client.statement("pg", "debit", t2, key, Map.of("id", id, "amount", 30));
        assertThat(done).isInstanceOf(StatementOutcome.Executed.class);
        assertThat(((StatementOutcome.Executed) done).rows()).isEqualTo(1);
        assertThat(client.statement("pg", "debit", t1, key, Map.of("id", id, "amount", 30))).isInstanceOf(Stale.class);

        String path = "/v1/stores/pg/statements/debit";
        long t3 = gw.grantedToken("pg/" + key);
        assertProblem(gw.send(gw.request("/v1/stores/pg/statements/nosuch").POST(BodyPublishers.ofString("{}"))
                .header("Fencing-Token", Long.toString(t3))), 404, "unknown-statement");
        assertProblem(gw.send(gw.request(path).POST(BodyPublishers.ofString("{\"key\":\"" + key + "\"}"))),
                428, "missing-token");
        assertProblem(gw.send(gw.request(path).POST(BodyPublishers.ofString("{\"key\":\"" + key + "\",\"params\":{\"id\":\""
                + id + "\"}}")).header("Fencing-Token", Long.toString(t3))), 400, "bad-request");
        assertProblem(gw.send(gw.request(path).POST(BodyPublishers.ofString("{\"key\":\"" + key + "\",\"params\":[1]}"))
                .header("Fencing-Token", Long.toString(t3))), 400, "bad-request");
        assertProblem(gw.send(gw.request(path).POST(BodyPublishers.ofString("not json"))
                .header("Fencing-Token", Long.toString(t3))), 400, "bad-request");
        assertProblem(gw.send(gw.request(path).POST(BodyPublishers.ofString("{\"key\":\"" + key + "\",\"params\":{\"id\":\""
                + id + "\",\"amount\":1}}")).header("Fencing-Token", Long.toString(t1))), 409, "stale");
        assertThat(postgres.queryLong("SELECT balance FROM accounts WHERE id = '" + id + "'")).isEqualTo(70);
        assertProblem(gw.send(gw.request("/v1/stores/maria/statements/debit").POST(BodyPublishers.ofString("{}"))
                .header("Fencing-Token", Long.toString(t3))), 404, "unknown-statement");
    }

    // ------------------------------------------------------------------ operations

    @Test
    void healthMetricsAndOpenApiAnswer() throws Exception {
        var health = gw.send(gw.request("/health").GET());
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(json(health).getString("status")).isEqualTo("UP");
        assertThat(json(health).getJsonObject("checks").fieldNames())
                .containsExactlyInAnyOrder("issuer", "store:pg", "store:maria", "store:lenient", "store:shared");

        String key = prefix + "metered";
        long low = gw.grantedToken("maria/" + key);
        long high = gw.grantedToken("maria/" + key);
        client.put("maria", key, high, bytes("v"));
        client.put("maria", key, low, bytes("v"));
        client.get("maria", key, low);
        var metrics = gw.send(gw.request("/metrics").GET());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
                .contains("fencegate_writes_total{outcome=\"applied\",store=\"maria\"}")
                .contains("fencegate_writes_total{outcome=\"stale\",store=\"maria\"}")
                .contains("fencegate_fenced_reads_total{outcome=\"stale\",store=\"maria\"}")
                .contains("fencegate_leases_total{outcome=\"granted\"}")
                .contains("fencegate_http_requests_seconds");

        var openapi = gw.send(gw.request("/openapi.yaml").GET());
        assertThat(openapi.statusCode()).isEqualTo(200);
        assertThat(openapi.body()).contains("/v1/stores/{store}/items/{key}");
    }

    /** Every operation openapi.yaml documents is routed: it answers, and never "no such route" or 405. */
    @Test
    void everyDocumentedRouteAnswers() throws Exception {
        var doc = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(gw.send(gw.request("/openapi.yaml").GET()).body());
        long t = gw.grantedToken("pg/" + prefix + "documented");
        int operations = 0;
        for (var path = doc.path("paths").fieldNames(); path.hasNext(); ) {
            String template = path.next();
            String concrete = template.replace("{store}", "pg").replace("{key}", prefix + "documented")
                    .replace("{name}", "debit").replace("{leaseId}", "no-such-lease");
            for (var method = doc.path("paths").path(template).fieldNames(); method.hasNext(); ) {
                String m = method.next().toUpperCase(java.util.Locale.ROOT);
                if (!List.of("GET", "PUT", "POST", "DELETE").contains(m)) {
                    continue;
                }
                operations++;
                // Streaming: an event-stream route (/ui/events) answers 200 and never ends its body.
                var streamed = gw.sendStreaming(gw.request(concrete).method(m, BodyPublishers.ofString("{}"))
                        .header("Fencing-Token", Long.toString(t)));
                int status = streamed.statusCode();
                String body;
                try (var in = streamed.body()) {
                    body = status == 200 ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                }
                assertThat(status).as(m + " " + template + ": " + body).isNotEqualTo(405);
                if (status == 404) {
                    assertThat(new JsonObject(body).getString("type")).as(m + " " + template).doesNotEndWith("no-such-route");
                }
            }
        }
        assertThat(operations).isGreaterThanOrEqualTo(10);
    }

    @Test
    void unknownRoutesAndMethodsAreProblems() throws Exception {
        assertProblem(gw.send(gw.request("/nope").GET()), 404, "no-such-route");
        assertProblem(gw.send(gw.request("/v1/stores/pg/nothing").GET()), 404, "no-such-route");
        assertProblem(gw.send(gw.request("/v1/stores/pg/items/" + prefix + "x").POST(BodyPublishers.noBody())),
                405, "method-not-allowed");
    }
}
