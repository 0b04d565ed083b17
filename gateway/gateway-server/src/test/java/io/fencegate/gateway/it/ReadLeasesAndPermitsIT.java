package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.FencegateException;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseMode;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read leases and fenced semaphores' permits through the gateway, end to end on a real issuer that
 * keeps them: the SQL issuer and a JDBC store, both on in-memory H2 (no other server). One gateway
 * for the class; every test takes fresh lock names.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadLeasesAndPermitsIT {
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();
    private static final String POOL_KEY = ApiKeyHasher.newKey();
    private static final Duration TTL = Duration.ofSeconds(30);

    private static Vertx vertx;
    private static GatewayHarness gw;
    private static FencegateClient client;

    @BeforeAll
    static void start() throws Exception {
        String db = "jdbc:h2:mem:rwgate_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + ";DB_CLOSE_DELAY=-1";
        GatewayConfig config = ConfigLoader.parse("""
                issuer: { type: sql, url: "%s", user: sa, password: "" }
                stores:
                  main:
                    type: jdbc
                    url: "%s"
                    user: sa
                    password: ""
                    statements:
                      touch: "UPDATE fencegate_item SET token = token WHERE resource = :k"
                """.formatted(db, db), Map.of());
        vertx = Vertx.vertx();
        Backends backends = Backends.open(config, vertx);
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*")),
                new ApiKey("pool", ApiKeyHasher.sha256Hex(POOL_KEY), List.of("main"), List.of("main/pool/"))));
        gw = new GatewayHarness(new GatewayOptions().auth(auth).lockDelays(Map.of("main/delayed/", Duration.ofSeconds(1))),
                backends.issuer(), backends.stores(), List.of(backends));
        client = gw.client(ADMIN_KEY);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (gw != null) {
                gw.close();
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void readLeasesShareALockAndAWriterWaitsUntilTheyEnd() throws Exception {
        String lock = "main/shared/" + UUID.randomUUID();
        Lease one = client.acquire(lock, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
        Lease two = client.acquire(lock, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
        assertThat(List.of(one.mode(), two.mode())).containsOnly(LeaseMode.READ);
        assertThat(two.token()).as("every grant takes the lock's next token").isGreaterThan(one.token());
        assertThat(one.isPermit()).isFalse();
        assertThat(client.acquire(lock, TTL, Duration.ofMillis(300))).as("a writer while readers hold it").isEmpty();

        // Listing shows each read lease with its mode.
        JsonArray listed = new JsonObject(send("GET", "/v1/leases?prefix=" + lock, null).body()).getJsonArray("leases");
        assertThat(listed.stream().map(l -> ((JsonObject) l).getString("mode")).toList()).containsExactly("read", "read");
        // So does the status page's feed.
        try (SseStream status = SseStream.open(gw.uri().resolve("ui/events"), ADMIN_KEY)) {
            SseStream.Event shown = status.await(20_000, e -> e.name().equals("status"));
            assertThat(shown).isNotNull();
            assertThat(shown.data().getJsonArray("leases").stream().map(l -> (JsonObject) l)
                    .filter(l -> l.getString("lock").equals(lock)).map(l -> l.getString("mode")).toList())
                    .containsExactly("read", "read");
        }

        CompletableFuture<Optional<Lease>> writer = client.acquireAsync(lock, LeaseMode.WRITE, TTL, Duration.ofSeconds(60));
        assertThat(client.renew(one.leaseId())).as("a read lease renews by its id").isPresent();
        try (SseStream events = SseStream.open(gw.uri().resolve("v1/leases/" + two.leaseId() + "/events"), ADMIN_KEY)) {
            assertThat(client.release(one.leaseId())).isTrue();
            assertThat(client.release(two.leaseId())).isTrue();
            SseStream.Event released = events.await(20_000, e -> e.name().equals("released"));
            assertThat(released).isNotNull();
            assertThat(released.data().getString("mode")).isEqualTo("read");
        }
        Lease written = writer.get(60, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("the waiting writer was not granted"));
        assertThat(written.mode()).isEqualTo(LeaseMode.WRITE);
        assertThat(written.token()).isGreaterThan(two.token());
        client.release(written.leaseId());
    }

    @Test
    void aReadTokenIsRefusedOnEveryWritePathAndChangesNothing() throws Exception {
        String key = "reads/" + UUID.randomUUID();
        Lease writer = client.acquire("main/" + key, TTL, Duration.ZERO).orElseThrow();
        assertThat(client.put("main", key, writer.token(), bytes("before")).applied()).isTrue();
        client.release(writer.leaseId());
        Lease reader = client.acquire("main/" + key, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
        String token = Long.toString(reader.token());

        // A fenced read first: it accepts the read token, and the gateway caches the grant. The writes
        // after it must still be refused from that cache: the mode is cached with the grant.
        assertThat(((ReadOutcome.Value) client.get("main", key, reader.token())).bytes()).isEqualTo(bytes("before"));
        assertReadTokenRefused(send("PUT", "/v1/stores/main/items/" + key, "after", "Fencing-Token", token));
        assertReadTokenRefused(send("PUT", "/v1/stores/main/items/" + key, "after", "Fencing-Token", token));
        assertReadTokenRefused(send("DELETE", "/v1/stores/main/items/" + key, null, "Fencing-Token", token));
        assertReadTokenRefused(send("POST", "/v1/stores/main/statements/touch", new JsonObject().put("key", key).encode(),
                "Fencing-Token", token));
        assertReadTokenRefused(send("POST", "/v1/stores/main/transactions", new JsonObject().put("ops", new JsonArray()
                .add(new JsonObject().put("op", "put").put("key", key).put("token", reader.token()).put("value", "after"))).encode()));
        assertThatThrownBy(() -> client.put("main", key, reader.token(), bytes("after")))
                .isInstanceOfSatisfying(FencegateException.class, e -> assertThat(e.status()).isEqualTo(403));

        assertThat(((ReadOutcome.Value) client.get("main", key)).bytes()).as("nothing was written").isEqualTo(bytes("before"));
        client.release(reader.leaseId());
    }

    @Test
    void aFencedReadWithAReadTokenFencesOutAnOlderWriter() throws Exception {
        String fenced = "fenced/" + UUID.randomUUID();
        String plain = "plain/" + UUID.randomUUID();
        Lease oldFenced = client.acquire("main/" + fenced, TTL, Duration.ZERO).orElseThrow();
        Lease oldPlain = client.acquire("main/" + plain, TTL, Duration.ZERO).orElseThrow();
        // The older writers lose their leases (released here; a pause past the ttl is the same to the store).
        client.release(oldFenced.leaseId());
        client.release(oldPlain.leaseId());

        Lease readFenced = client.acquire("main/" + fenced, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
        Lease readPlain = client.acquire("main/" + plain, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
        assertThat(client.get("main", fenced, readFenced.token())).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(client.get("main", plain)).as("the control: a plain read raises no fence").isInstanceOf(ReadOutcome.NotFound.class);

        assertThat(client.put("main", fenced, oldFenced.token(), bytes("late")))
                .isInstanceOfSatisfying(Stale.class, s -> assertThat(s.fence()).isEqualTo(readFenced.token()));
        assertThat(client.put("main", plain, oldPlain.token(), bytes("late")).applied())
                .as("without the fenced read the older writer's write applies").isTrue();

        // The fenced multi-read takes read tokens too.
        HttpResponse<String> multi = send("POST", "/v1/stores/main/fenced-reads", new JsonObject().put("items", new JsonArray()
                .add(new JsonObject().put("key", fenced).put("token", readFenced.token()))).encode());
        assertThat(multi.statusCode()).as(multi.body()).isEqualTo(200);
        client.release(readFenced.leaseId());
        client.release(readPlain.leaseId());
    }

    @Test
    void aSemaphoreGrantsItsPermitsAsSlotsAndTheNextAcquireWaitsThen423() throws Exception {
        String semaphore = "main/pool/" + UUID.randomUUID();
        FencegateClient pool = gw.client(POOL_KEY); // a key scoped to main/pool/: the name and every slot's lock
        Lease a = pool.acquirePermit(semaphore, 2, TTL, Duration.ZERO).orElseThrow();
        Lease b = pool.acquirePermit(semaphore, 2, TTL, Duration.ZERO).orElseThrow();
        assertThat(List.of(a.slot(), b.slot())).containsExactlyInAnyOrder(0, 1);
        assertThat(a.lock()).isEqualTo(semaphore + "/" + a.slot());
        assertThat(a.mode()).isEqualTo(LeaseMode.WRITE);

        HttpResponse<String> third = send("POST", "/v1/leases",
                new JsonObject().put("lock", semaphore).put("permits", 2).put("ttlMs", 5000).put("waitMs", 300).encode());
        assertThat(third.statusCode()).as(third.body()).isEqualTo(423);
        assertThat(new JsonObject(third.body()).getString("detail")).contains("no free permit");

        HttpResponse<String> otherCount = send("POST", "/v1/leases",
                new JsonObject().put("lock", semaphore).put("permits", 3).put("ttlMs", 5000).encode());
        assertThat(otherCount.statusCode()).as(otherCount.body()).isEqualTo(400);
        assertThat(new JsonObject(otherCount.body()).getString("type")).isEqualTo("urn:fencegate:problem:bad-request");

        // A permit's token writes what its slot's lock guards: the item {semaphore's key}/{slot}.
        String slotKey = a.lock().substring("main/".length());
        assertThat(pool.put("main", slotKey, a.token(), bytes("slot")).applied()).isTrue();

        // Released, the slot goes to the next permit, whose token is above the last holder's of that slot.
        assertThat(pool.release(a.leaseId())).isTrue();
        Optional<Integer> slot = pool.withPermit(semaphore, 2, TTL, Duration.ofSeconds(20), permit -> {
            assertThat(permit.lease().lock()).isEqualTo(a.lock());
            assertThat(permit.token()).isGreaterThan(a.token());
            return permit.slot();
        });
        assertThat(slot).contains(a.slot());
        pool.release(b.leaseId());

        HttpResponse<String> outside = sendAs(POOL_KEY, "POST", "/v1/leases",
                new JsonObject().put("lock", "main/other/" + UUID.randomUUID()).put("permits", 2).put("ttlMs", 5000).encode());
        assertThat(outside.statusCode()).as("a semaphore outside the key's lock prefixes").isEqualTo(403);
    }

    @Test
    void badShapesAreRefusedWith400AndChangeNothing() throws Exception {
        String lock = "main/bad/" + UUID.randomUUID();
        Map<String, JsonObject> bad = Map.of(
                "an unknown mode", new JsonObject().put("lock", lock).put("mode", "exclusive"),
                "a mode that is no string", new JsonObject().put("lock", lock).put("mode", 1),
                "permits with a mode", new JsonObject().put("lock", lock).put("permits", 2).put("mode", "read"),
                "permits with locks", new JsonObject().put("locks", new JsonArray().add(lock)).put("permits", 2),
                "no permit at all", new JsonObject().put("lock", lock).put("permits", 0),
                "too many permits", new JsonObject().put("lock", lock).put("permits", 1001),
                "permits as a string", new JsonObject().put("lock", lock).put("permits", "2"),
                "a read group", new JsonObject().put("locks", new JsonArray().add(lock)).put("mode", "read"));
        for (Map.Entry<String, JsonObject> e : bad.entrySet()) {
            HttpResponse<String> refused = send("POST", "/v1/leases", e.getValue().put("ttlMs", 5000).encode());
            assertThat(refused.statusCode()).as(e.getKey() + ": " + refused.body()).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
        }
        JsonArray listed = new JsonObject(send("GET", "/v1/leases?prefix=" + lock, null).body()).getJsonArray("leases");
        assertThat(listed).as("nothing was granted").isEmpty();

        // A permit under a lockDelay prefix is granted with the delay (the issuer keeps it on the slot).
        HttpResponse<String> delayed = send("POST", "/v1/leases",
                new JsonObject().put("lock", "main/delayed/" + UUID.randomUUID()).put("permits", 2).put("ttlMs", 5000).encode());
        assertThat(delayed.statusCode()).as(delayed.body()).isEqualTo(201);
        assertThat(client.release(new JsonObject(delayed.body()).getString("leaseId"))).isTrue();
        Lease after = client.acquire(lock, TTL, Duration.ZERO).orElseThrow();
        assertThat(after.mode()).as("an explicit default still works after the refusals").isEqualTo(LeaseMode.WRITE);
        client.release(after.leaseId());
    }

    /** The issuer API's defaults (an issuer that keeps write leases only) reach the client as a 501 naming the issuer. */
    @Test
    void anIssuerThatDoesNotKeepTheShapesAnswers501NamingIt() throws Exception {
        try (GatewayHarness plain = new GatewayHarness(new GatewayOptions(), new MemoryIssuerProvider.MemoryIssuer(0),
                List.of(), List.of())) {
            for (JsonObject shape : List.of(new JsonObject().put("mode", "read"), new JsonObject().put("permits", 2))) {
                HttpResponse<String> refused = plain.send(plain.request("/v1/leases").header("Content-Type", "application/json")
                        .POST(BodyPublishers.ofString(shape.put("lock", "x/" + UUID.randomUUID()).put("ttlMs", 5000).encode())));
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(501);
                JsonObject problem = new JsonObject(refused.body());
                assertThat(problem.getString("type")).isEqualTo("urn:fencegate:problem:unsupported");
                assertThat(problem.getString("detail")).contains("MemoryIssuer");
            }
            assertThat(plain.client().acquire("x/" + UUID.randomUUID(), TTL, Duration.ZERO))
                    .as("its write leases are served as before").isPresent();
        }
    }

    private static void assertReadTokenRefused(HttpResponse<String> answer) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(403);
        JsonObject problem = new JsonObject(answer.body());
        assertThat(problem.getString("type")).isEqualTo("urn:fencegate:problem:read-token");
        assertThat(problem.getString("detail")).contains("read lease");
        assertThat(problem.getString("mode")).isEqualTo("read");
    }

    private static HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        return sendAs(ADMIN_KEY, method, path, body, headers);
    }

    private static HttpResponse<String> sendAs(String key, String method, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder request = gw.request(path).header("Authorization", "Bearer " + key)
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        if (body != null && body.startsWith("{")) {
            request.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return gw.send(request);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
