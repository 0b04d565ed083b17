package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.KeyShares;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /v1/stores/{store}/writes} and the Java client's batching, on a gateway with a
 * ZooKeeper issuer (in-process) in front of the real Postgres (the reactive store, {@code pg}),
 * MariaDB (the JDBC store, {@code maria}) and a directory ({@code files}), with API keys: each write
 * of a batch answered as it would be alone, none affecting another, the caps refusing the whole batch
 * and changing nothing, scopes and request shares counted per write.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WriteBatchesIT {
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();
    private static final String ORDERS_KEY = ApiKeyHasher.newKey();
    private static final String MARIA_ONLY_KEY = ApiKeyHasher.newKey();
    private static final int MAX_WRITES = 40;
    private static final long MAX_BYTES = 16 * 1024;
    private static final long MAX_VALUE = 4 * 1024;
    private static final int REQUESTS_PER_KEY = 30;
    private static GatewayHarness gw;
    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();
    private static FencegateClient admin;

    private final String prefix = "orders/" + UUID.randomUUID().toString().substring(0, 8) + "/";

    @BeforeAll
    static void start() throws Exception {
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*")),
                new ApiKey("orders", ApiKeyHasher.sha256Hex(ORDERS_KEY), List.of("*"),
                        List.of("pg/orders/", "maria/orders/", "files/orders/")),
                new ApiKey("maria-only", ApiKeyHasher.sha256Hex(MARIA_ONLY_KEY), List.of("maria"), List.of("maria/"))));
        GatewayOptions options = new GatewayOptions().auth(auth).maxBodyBytes(MAX_VALUE)
                .keyShares(new KeyShares().requests(REQUESTS_PER_KEY));
        options.limits().maxBatchWrites(MAX_WRITES).maxBatchBytes(MAX_BYTES);
        gw = ThreeStores.gateway("batch-files", options);
        admin = gw.client(ADMIN_KEY);
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
        var lease = admin.acquire(store + "/" + key, Duration.ofSeconds(30), Duration.ofSeconds(30)).orElseThrow();
        admin.release(lease.leaseId());
        return lease.token();
    }

    private static HttpResponse<String> batch(String store, String apiKey, String... writes) throws Exception {
        return post(store, apiKey, "{\"writes\":[" + String.join(",", writes) + "]}");
    }

    private static HttpResponse<String> post(String store, String apiKey, String body) throws Exception {
        // Not gw.send: its 20 s bound is short for a batch on a machine as loaded as CI's can be.
        return HTTP.send(gw.request("/v1/stores/" + store + "/writes").POST(BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey)
                .timeout(Duration.ofSeconds(90)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** The results of a batch that was answered 200. */
    private static JsonArray results(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new JsonObject(r.body()).getJsonArray("results");
    }

    private static HttpResponse<String> single(String store, String apiKey, String method, String key, String token,
            String value) throws Exception {
        HttpRequest.Builder b = gw.request("/v1/stores/" + store + "/items/" + URLEncoder.encode(key, StandardCharsets.UTF_8)
                        .replace("%2F", "/"))
                .method(method, value == null ? BodyPublishers.noBody() : BodyPublishers.ofString(value))
                .header("Authorization", "Bearer " + apiKey);
        if (token != null) {
            b.header("Fencing-Token", token);
        }
        return gw.send(b);
    }

    private static String put(String key, long token, String value) {
        return new JsonObject().put("op", "put").put("key", key).put("token", token).put("value", value).encode();
    }

    private static String delete(String key, long token) {
        return new JsonObject().put("op", "delete").put("key", key).put("token", token).encode();
    }

    private static void assertResult(JsonObject result, int status, String typeSuffix) {
        assertThat(result.getInteger("status")).as(result.encode()).isEqualTo(status);
        if (typeSuffix != null) {
            assertThat(result.getJsonObject("body").getString("type")).isEqualTo("urn:fencegate:problem:" + typeSuffix);
        }
    }

    /** The same as {@code single}'s answer: its status, and its body but the detail (which names the place in the batch). */
    private static void assertSameAsSingle(JsonObject result, HttpResponse<String> single) {
        assertThat(result.getInteger("status")).as(result.encode()).isEqualTo(single.statusCode());
        JsonObject alone = new JsonObject(single.body());
        JsonObject inBatch = result.getJsonObject("body").copy();
        alone.remove("detail");
        inBatch.remove("detail");
        assertThat(inBatch).isEqualTo(alone);
    }

    private static byte[] value(String store, String key) {
        return ((ReadOutcome.Value) admin.get(store, key)).bytes();
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria", "files"})
    void eachWriteOfAMixedBatchIsAnsweredAsItsSingleWriteWouldBeAndNoneAffectsAnother(String store) throws Exception {
        String fresh = prefix + "fresh", stale = prefix + "stale", gone = prefix + "gone", big = prefix + "big";
        String scoped = "billing/" + UUID.randomUUID();
        long tStaleOld = token(store, stale), tStale = token(store, stale);
        assertThat(admin.put(store, stale, tStale, bytes("kept")).applied()).isTrue();
        long tGone = token(store, gone);
        assertThat(admin.put(store, gone, tGone, bytes("g")).applied()).isTrue();
        long tGone2 = token(store, gone), tFresh = token(store, fresh), tBig = token(store, big), tScoped = token(store, scoped);

        JsonArray r = results(batch(store, ORDERS_KEY,
                put(fresh, tFresh, "f1"),                                              // 200
                put(stale, tStaleOld, "late"),                                         // 409: a stale token
                "{\"op\":\"put\",\"key\":\"" + prefix + "x/../y\",\"token\":5,\"value\":\"v\"}", // 400 bad-key
                "{\"op\":\"put\",\"key\":\"" + prefix + "nt\",\"value\":\"v\"}",       // 428
                "{\"op\":\"put\",\"key\":\"" + prefix + "bt\",\"token\":0,\"value\":\"v\"}", // 400 bad-token
                put(scoped, tScoped, "v"),                                             // 403: outside the key's prefixes
                put(prefix + "ng", tFresh, "v"),                                       // 403: not granted for this lock
                put(big, tBig, "x".repeat((int) MAX_VALUE + 1)),                       // 413: over the value limit
                "{\"op\":\"upsert\",\"key\":\"" + prefix + "op\",\"token\":5}",         // 400: no such op
                delete(gone, tGone2)));                                                // 200: a tombstone
        assertThat(r).hasSize(10);
        assertThat(r.getJsonObject(0).getJsonObject("body"))
                .isEqualTo(new JsonObject().put("applied", true).put("token", tFresh).put("previousToken", 0L));
        assertResult(r.getJsonObject(1), 409, "stale");
        assertThat(r.getJsonObject(1).getJsonObject("body").getLong("currentToken")).isEqualTo(tStale);
        assertResult(r.getJsonObject(2), 400, "bad-key");
        assertResult(r.getJsonObject(3), 428, "missing-token");
        assertResult(r.getJsonObject(4), 400, "bad-token");
        assertResult(r.getJsonObject(5), 403, "forbidden");
        assertResult(r.getJsonObject(6), 403, "token-not-granted");
        assertResult(r.getJsonObject(7), 413, "too-large");
        assertResult(r.getJsonObject(8), 400, "bad-request");
        assertThat(r.getJsonObject(9).getJsonObject("body"))
                .isEqualTo(new JsonObject().put("applied", true).put("token", tGone2).put("previousToken", tGone));

        // Each refusal is what the same write sent alone answers (nothing changed since, so it is refused again alike).
        assertSameAsSingle(r.getJsonObject(1), single(store, ORDERS_KEY, "PUT", stale, Long.toString(tStaleOld), "late"));
        assertSameAsSingle(r.getJsonObject(3), single(store, ORDERS_KEY, "PUT", prefix + "nt", null, "v"));
        assertSameAsSingle(r.getJsonObject(4), single(store, ORDERS_KEY, "PUT", prefix + "bt", "0", "v"));
        assertSameAsSingle(r.getJsonObject(5), single(store, ORDERS_KEY, "PUT", scoped, Long.toString(tScoped), "v"));
        assertSameAsSingle(r.getJsonObject(6), single(store, ORDERS_KEY, "PUT", prefix + "ng", Long.toString(tFresh), "v"));
        assertSameAsSingle(r.getJsonObject(7), single(store, ORDERS_KEY, "PUT", big, Long.toString(tBig),
                "x".repeat((int) MAX_VALUE + 1)));
        // The applied ones applied; the refused ones changed nothing.
        assertThat(value(store, fresh)).isEqualTo(bytes("f1"));
        assertThat(value(store, stale)).isEqualTo(bytes("kept"));
        assertThat(admin.get(store, gone)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(admin.get(store, big)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(admin.get(store, scoped)).isInstanceOf(ReadOutcome.NotFound.class);
        // A retry of the batch's applied write is recognisably "already applied" (strict), as a retried PUT.
        JsonObject retry = results(batch(store, ORDERS_KEY, put(fresh, tFresh, "f1"))).getJsonObject(0);
        assertResult(retry, 409, "stale");
        assertThat(retry.getJsonObject("body").getLong("currentToken")).isEqualTo(tFresh);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria"})
    void aStaleTokenInsideABatchIsRefusedWhileEveryOtherWriteApplies(String store) throws Exception {
        List<String> keys = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        List<String> writes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String key = prefix + "s" + i;
            keys.add(key);
            tokens.add(token(store, key));
        }
        // Item 5's newer holder wrote it first: the batch's token for it is stale.
        long newer = token(store, keys.get(5));
        assertThat(admin.put(store, keys.get(5), newer, bytes("newer")).applied()).isTrue();
        for (int i = 0; i < keys.size(); i++) {
            writes.add(put(keys.get(i), tokens.get(i), "v" + i));
        }
        JsonArray r = results(batch(store, ADMIN_KEY, writes.toArray(String[]::new)));
        for (int i = 0; i < keys.size(); i++) {
            if (i == 5) {
                assertResult(r.getJsonObject(i), 409, "stale");
                assertThat(r.getJsonObject(i).getJsonObject("body").getLong("currentToken")).isEqualTo(newer);
                assertThat(value(store, keys.get(i))).isEqualTo(bytes("newer"));
            } else {
                assertThat(r.getJsonObject(i).getInteger("status")).as(r.getJsonObject(i).encode()).isEqualTo(200);
                assertThat(value(store, keys.get(i))).isEqualTo(bytes("v" + i));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria", "files"})
    void writesToOneKeyInOneBatchApplyInTheBatchsOrder(String store) throws Exception {
        String k = prefix + "twice";
        long t1 = token(store, k), t2 = token(store, k);
        JsonArray r = results(batch(store, ADMIN_KEY, put(k, t1, "a"), put(k, t2, "b"), put(k, t1, "c"), delete(k, t2)));
        assertThat(r.getJsonObject(0).getJsonObject("body").getLong("previousToken")).isEqualTo(0L);
        assertThat(r.getJsonObject(1).getJsonObject("body").getLong("previousToken")).isEqualTo(t1);
        assertResult(r.getJsonObject(2), 409, "stale");
        assertResult(r.getJsonObject(3), 409, "stale"); // strict: t2 already wrote it
        assertThat(value(store, k)).isEqualTo(bytes("b"));
    }

    /**
     * Batches and single PUTs race over the same keys with tokens of every age. Whatever the
     * interleaving, the guard holds per write: for each key the applied writes form one chain (each
     * one's previousToken is the token applied before it, tokens rising), the highest token is
     * applied last and holds the value, and every refusal saw a token at least as high as its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria"})
    void batchesAndSingleWritesRacingOverTheSameKeysNeverLetALowerTokenWin(String store) throws Exception {
        int keys = 6, tokensEach = 6;
        record W(String key, long token) {}
        List<W> all = new ArrayList<>();
        Map<String, Long> highest = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            String key = prefix + "race" + k;
            for (int t = 0; t < tokensEach; t++) {
                long token = token(store, key);
                all.add(new W(key, token));
                highest.merge(key, token, Math::max);
            }
        }
        Collections.shuffle(all);
        // Chunks of 1 go as single PUTs, larger ones as batches; 4 threads at once.
        List<List<W>> chunks = new ArrayList<>();
        for (int i = 0, size = 1; i < all.size(); i += size, size = size % 5 + 1) {
            chunks.add(all.subList(i, Math.min(all.size(), i + size)));
        }
        Map<W, JsonObject> answers = Collections.synchronizedMap(new HashMap<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (List<W> chunk : chunks) {
                done.add(pool.submit(() -> {
                    if (chunk.size() == 1) {
                        W w = chunk.get(0);
                        var r = single(store, ADMIN_KEY, "PUT", w.key(), Long.toString(w.token()), "v" + w.token());
                        answers.put(w, new JsonObject().put("status", r.statusCode()).put("body", new JsonObject(r.body())));
                    } else {
                        JsonArray r = results(batch(store, ADMIN_KEY,
                                chunk.stream().map(w -> put(w.key(), w.token(), "v" + w.token())).toArray(String[]::new)));
                        for (int i = 0; i < chunk.size(); i++) {
                            answers.put(chunk.get(i), r.getJsonObject(i));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(answers).hasSize(all.size());
        for (String key : highest.keySet()) {
            List<long[]> applied = new ArrayList<>(); // {token, previousToken}
            for (W w : all) {
                if (!w.key().equals(key)) {
                    continue;
                }
                JsonObject a = answers.get(w);
                if (a.getInteger("status") == 200) {
                    applied.add(new long[] {w.token(), a.getJsonObject("body").getLong("previousToken")});
                } else {
                    assertResult(a, 409, "stale");
                    assertThat(a.getJsonObject("body").getLong("fence")).isGreaterThanOrEqualTo(w.token());
                }
            }
            applied.sort((x, y) -> Long.compare(x[0], y[0]));
            long before = 0;
            for (long[] a : applied) {
                assertThat(a[1]).as("previousToken of the write of %d to %s", a[0], key).isEqualTo(before);
                before = a[0];
            }
            assertThat(before).isEqualTo(highest.get(key));
            assertThat(value(store, key)).isEqualTo(bytes("v" + highest.get(key)));
        }
    }

    @Test
    void theCapsRefuseTheWholeBatchWith413Or400AndChangeNothing() throws Exception {
        String a = prefix + "cap";
        long t = token("maria", a);
        String[] many = new String[MAX_WRITES + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = put(i == 0 ? a : prefix + "many-" + i, t, "x");
        }
        var tooMany = batch("maria", ADMIN_KEY, many);
        assertThat(tooMany.statusCode()).isEqualTo(413);
        assertThat(new JsonObject(tooMany.body()).getString("type")).isEqualTo("urn:fencegate:problem:too-large");
        assertThat(new JsonObject(tooMany.body()).getInteger("limit")).isEqualTo(MAX_WRITES);
        String[] heavy = new String[5];
        for (int i = 0; i < heavy.length; i++) {
            heavy[i] = put(i == 0 ? a : prefix + "heavy-" + i, t, "x".repeat((int) MAX_VALUE - 100));
        }
        var tooBig = batch("maria", ADMIN_KEY, heavy);
        assertThat(tooBig.statusCode()).isEqualTo(413);
        assertThat(new JsonObject(tooBig.body()).getString("type")).isEqualTo("urn:fencegate:problem:too-large");
        for (String body : List.of("not json", "{\"writes\":[]}", "{\"writes\":{}}", "[]")) {
            var bad = post("maria", ADMIN_KEY, body);
            assertThat(bad.statusCode()).as(body).isEqualTo(400);
            assertThat(new JsonObject(bad.body()).getString("type")).isEqualTo("urn:fencegate:problem:bad-request");
        }
        assertThat(admin.get("maria", a)).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(admin.get("maria", prefix + "many-1")).isInstanceOf(ReadOutcome.NotFound.class);
        var wrongMethod = gw.send(gw.request("/v1/stores/maria/writes").GET().header("Authorization", "Bearer " + ADMIN_KEY));
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        // The same write within the caps applies.
        assertThat(results(batch("maria", ADMIN_KEY, put(a, t, "x"))).getJsonObject(0).getInteger("status")).isEqualTo(200);
    }

    @Test
    void authAndScopesApplyToTheBatchAndToEachWrite() throws Exception {
        String mine = prefix + "auth";
        long t = token("pg", mine);
        var noKey = gw.send(gw.request("/v1/stores/pg/writes").POST(BodyPublishers.ofString(
                "{\"writes\":[" + put(mine, t, "x") + "]}")).header("Content-Type", "application/json"));
        assertThat(noKey.statusCode()).isEqualTo(401);
        var wrongStore = batch("pg", MARIA_ONLY_KEY, put(mine, t, "x"));
        assertThat(wrongStore.statusCode()).isEqualTo(403);
        var unknown = batch("nope", ADMIN_KEY, put(mine, t, "x"));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(admin.get("pg", mine)).isInstanceOf(ReadOutcome.NotFound.class);
        // maria-only may use store maria under maria/ only: each write is judged on its own lock.
        String inScope = "x" + UUID.randomUUID();
        long tIn = token("maria", inScope);
        JsonArray r = results(batch("maria", MARIA_ONLY_KEY, put(inScope, tIn, "ok")));
        assertThat(r.getJsonObject(0).getInteger("status")).isEqualTo(200);
        JsonArray scoped = results(batch("pg", ORDERS_KEY, put(mine, t, "ok"), put("billing/" + UUID.randomUUID(), t, "no")));
        assertThat(scoped.getJsonObject(0).getInteger("status")).isEqualTo(200);
        assertResult(scoped.getJsonObject(1), 403, "forbidden");
    }

    @Test
    void eachWriteCountsAgainstTheKeysShareOfRequestsInFlight() throws Exception {
        String[] writes = new String[MAX_WRITES];
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < writes.length; i++) {
            String key = prefix + "share" + i;
            keys.add(key);
            writes[i] = put(key, token("pg", key), "v");
        }
        JsonArray r = results(batch("pg", ORDERS_KEY, writes));
        // The batch is the first request of the key's share; each further write takes one more.
        for (int i = 0; i < writes.length; i++) {
            if (i < REQUESTS_PER_KEY) {
                assertThat(r.getJsonObject(i).getInteger("status")).as(r.getJsonObject(i).encode()).isEqualTo(200);
            } else {
                assertResult(r.getJsonObject(i), 429, "too-many");
                assertThat(r.getJsonObject(i).getLong("retryAfter")).isPositive();
                assertThat(admin.get("pg", keys.get(i))).isInstanceOf(ReadOutcome.NotFound.class);
            }
        }
        // The shares were given back with the answer.
        assertThat(results(batch("pg", ORDERS_KEY, put(prefix + "after", token("pg", prefix + "after"), "v")))
                .getJsonObject(0).getInteger("status")).isEqualTo(200);
    }

    /**
     * 48 writes in flight through a batching client, half with a token that is stale: each
     * caller's future completes with exactly its own write's result, and they went in fewer
     * exchanges than writes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pg", "maria"})
    void theBatchingClientAnswersEachCallerWithItsOwnResultUnderConcurrency(String store) throws Exception {
        int n = 48;
        List<String> keys = new ArrayList<>();
        long[] older = new long[n], current = new long[n], newer = new long[n];
        for (int i = 0; i < n; i++) {
            String key = prefix + "c" + i;
            keys.add(key);
            older[i] = token(store, key);
            current[i] = token(store, key);
            assertThat(admin.put(store, key, current[i], bytes("before")).applied()).isTrue();
            newer[i] = token(store, key);
        }
        long exchangesBefore = exchanges(store);
        {
            FencegateClient batching = FencegateClient.builder(gw.uri()).apiKey(ADMIN_KEY).timeout(Duration.ofSeconds(20))
                    .batchWrites(16, 64 * 1024, 1000).build();
            List<CompletableFuture<WriteOutcome>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // Even: a newer holder's write, applied; odd: an older holder's, stale.
                futures.add(batching.putAsync(store, keys.get(i), i % 2 == 0 ? newer[i] : older[i], bytes("v" + i)));
            }
            for (int i = 0; i < n; i++) {
                WriteOutcome outcome = futures.get(i).get(60, TimeUnit.SECONDS);
                if (i % 2 == 0) {
                    assertThat(outcome).isEqualTo(new WriteOutcome.Applied(newer[i], current[i]));
                    assertThat(value(store, keys.get(i))).isEqualTo(bytes("v" + i));
                } else {
                    assertThat(outcome).isEqualTo(new Stale(current[i], current[i], older[i]));
                    assertThat(value(store, keys.get(i))).isEqualTo(bytes("before"));
                }
            }
            // The blocking form goes through the same batches and reads the same result.
            assertThat(batching.put(store, keys.get(1), older[1], bytes("late"))).isEqualTo(new Stale(current[1], current[1], older[1]));
        }
        // Submitted in a tight loop while the first was on the wire: some went together. (Not a
        // timing assertion: only if every one of 48 writes finished before the next was even
        // queued would this fail.)
        assertThat(exchanges(store) - exchangesBefore).isLessThan(n);
    }

    /** HTTP exchanges on the single-write and batch routes so far, from the gateway's metrics (all stores). */
    private static long exchanges(String store) throws Exception {
        String scrape = gw.send(gw.request("/metrics").GET()).body();
        long total = 0;
        // Line by line: the route label holds braces ({store}).
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("fencegate_http_requests_seconds_count{")) {
                continue;
            }
            if (line.contains("route=\"/v1/stores/{store}/items/{key}\"") && line.contains("method=\"PUT\"")
                    || line.contains("route=\"/v1/stores/{store}/writes\"")) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        assertThat(total).as("requests counted in /metrics").isPositive();
        return total;
    }
}
