package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.Stale;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code GET /ui} in a real headless Chromium: without a key it shows health only; with one, a
 * stale write driven through the API appears on the page live, with the attempted token, the
 * current token and the fence, next to the live lease and the store's counts. With
 * {@code server.ui: false} there is no page.
 */
class StatusPageIT {
    private static final String KEY = ApiKeyHasher.newKey();
    private static final long WAIT_MS = 15_000;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aStaleWriteAppearsLiveOnThePageWithItsTokensAndWithoutAKeyOnlyHealthShows() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "status-page");
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .instanceName("gateway-1").build();
            JdbcGuardedStore shop = db.store(GuardRule.STRICT);
            GatewayOptions options = new GatewayOptions().auth(new AuthConfig(List.of(
                    new ApiKey("ops", ApiKeyHasher.sha256Hex(KEY), List.of("*"), List.of("*")))));
            try (GatewayHarness gw = new GatewayHarness(options, issuer, List.of(StoreBinding.of("shop", shop)),
                    List.of(issuer, shop));
                    HeadlessChromium browser = new HeadlessChromium(work)) {
                browser.open(gw.uri().resolve("/ui"));
                await(() -> browser.text("#health"), t -> t.contains("gateway UP") && t.contains("store:shop UP"));
                assertThat(browser.text("#scope")).isEqualTo("health only (no key)");
                assertThat(browser.script("return document.getElementById('key').placeholder;")).isEqualTo("(none: health only)");
                assertThat(browser.text("#refusals")).isEqualTo("an API key shows the refusals");
                assertThat(browser.text("#leases")).isEmpty();

                browser.script("const k = document.getElementById('key'); k.value = arguments[0];"
                        + " k.dispatchEvent(new Event('change'));", KEY);
                await(() -> browser.text("#scope"), t -> t.equals("key: ops"));

                // The textbook story: A holds token t1 and pauses; B gets t2 and writes; A wakes and writes.
                FencegateClient client = gw.client(KEY);
                Lease a = client.acquire("shop/stock", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                client.release(a.leaseId());
                Lease b = client.acquire("shop/stock", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                assertThat(client.put("shop", "stock", b.token(), "0".getBytes(StandardCharsets.UTF_8)).applied()).isTrue();
                assertThat(client.put("shop", "stock", a.token(), "0".getBytes(StandardCharsets.UTF_8)))
                        .isInstanceOf(Stale.class);

                String css = ".refusal[data-attempted='" + a.token() + "']";
                String refusal = await(() -> browser.text(css), t -> t != null);
                assertThat(refusal).contains("shop / stock", "token " + a.token() + " refused",
                        "the item is at token " + b.token() + ", fence " + b.token(), "kept out");
                assertThat(browser.script("return document.querySelector(arguments[0]).dataset.current;", css))
                        .isEqualTo(Long.toString(b.token()));
                await(() -> browser.text("#leases"), t -> t.contains("shop/stock") && t.contains(Long.toString(b.token()))
                        && t.contains("gateway-1"));
                await(() -> browser.text("#store-shop .totals"), t -> t.contains("writes 1 applied, 1 stale"));
                // The holder retries its applied write with the same token: 409, "already applied", not stale.
                assertThat(client.put("shop", "stock", b.token(), "0".getBytes(StandardCharsets.UTF_8)))
                        .isInstanceOf(Stale.class);
                await(() -> browser.text("#store-shop .totals"),
                        t -> t.contains("writes 1 applied, 1 stale, 1 retried (already applied), 0 refused"));
                assertThat(browser.script("return document.querySelectorAll('.refusal').length;")).hasToString("1");
                // The chart has axes with units, and says it waits until there are two points to draw.
                assertThat(browser.script("const c = document.createElement('canvas');"
                        + " c.width = CHART.width; c.height = CHART.height;"
                        + " draw(c, [{applied: 0, stale: 0, refused: 0, reads: 0}]);"
                        + " const g = c.getContext('2d');"
                        + " const ink = (x, y) => g.getImageData(x, y, 1, 1).data[3] > 0;"
                        + " return [c.dataset.state, ink(CHART.left, CHART.top + 20),"
                        + "   ink(CHART.left + 40, CHART.height - CHART.bottom)];"))
                        .hasToString("[\"waiting\",true,true]");
                await(() -> String.valueOf(browser.script(
                        "return document.querySelector('#store-shop canvas').dataset.state;")), t -> t.equals("drawn"));
                // A few more seconds of traffic, so the charts have something to draw (docs/status-page.png).
                Lease holder = b;
                for (int i = 0; i < 4; i++) {
                    client.release(holder.leaseId());
                    Lease next = client.acquire("shop/stock", Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
                    client.put("shop", "stock", next.token(), "1".getBytes(StandardCharsets.UTF_8));
                    client.get("shop", "stock", next.token());
                    client.put("shop", "stock", holder.token(), "late".getBytes(StandardCharsets.UTF_8));
                    holder = next;
                    Thread.sleep(1000);
                }
                browser.screenshot(Path.of(System.getProperty("java.io.tmpdir")).resolve("status-page.png"));
                gw.assertEventLoopNeverBlocked();
            }
            LeaseIssuer other = issuer2(zookeeper);
            try (var off = new GatewayHarness(new GatewayOptions().ui(false), other, List.of(), List.of(other))) {
                assertThat(off.send(off.request("/ui").GET()).statusCode()).as("server.ui: false").isEqualTo(404);
            }
            // No auth.keys: the page shows everything, and the key field says so instead of "health only".
            LeaseIssuer third = issuer2(zookeeper);
            try (var open = new GatewayHarness(new GatewayOptions(), third, List.of(), List.of(third));
                    HeadlessChromium browser = new HeadlessChromium(work)) {
                browser.open(open.uri().resolve("/ui"));
                await(() -> browser.text("#scope"), t -> t.equals("everything (no auth.keys configured)"));
                assertThat(browser.script("const k = document.getElementById('key'); return [k.placeholder, k.disabled];"))
                        .hasToString("[\"(not needed: auth is off)\",true]");
            }
        } finally {
            LeaseEventsIT.deleteTree(work);
        }
    }

    /**
     * Two keys on one store, each scoped to its own lock prefix, as {@code /v1} scopes them: alice's
     * status stream (and the page in the browser, after another key was shown in the same tab) holds
     * her own lease and refusal and nothing of bob's: not his key, lock, lease or tokens, and no
     * store counts that his writes went into. The all-stores key sees both, so there was something
     * to leak.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aScopedKeySeesNothingOfAnotherKeysItemsOnTheStatusPage() throws Exception {
        String aliceKey = ApiKeyHasher.newKey();
        String bobKey = ApiKeyHasher.newKey();
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "status-scope");
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
            JdbcGuardedStore main = db.store(GuardRule.STRICT);
            GatewayOptions options = new GatewayOptions().auth(new AuthConfig(List.of(
                    new ApiKey("ops", ApiKeyHasher.sha256Hex(KEY), List.of("*"), List.of("*")),
                    new ApiKey("alice", ApiKeyHasher.sha256Hex(aliceKey), List.of("main"), List.of("main/alice/")),
                    new ApiKey("bob", ApiKeyHasher.sha256Hex(bobKey), List.of("main"), List.of("main/bob/")))));
            try (GatewayHarness gw = new GatewayHarness(options, issuer, List.of(StoreBinding.of("main", main)),
                    List.of(issuer, main))) {
                String bobItem = "bob/payroll-" + java.util.UUID.randomUUID();
                long[] bobTokens = staleWrite(gw.client(bobKey), "main", bobItem);
                long[] aliceTokens = staleWrite(gw.client(aliceKey), "main", "alice/notes");
                // /v1 refuses alice bob's item and a listing of his leases: the page must not be a way round.
                assertThat(gw.send(gw.request("/v1/stores/main/items/" + bobItem).GET()
                        .header("Authorization", "Bearer " + aliceKey)).statusCode()).isEqualTo(403);
                assertThat(gw.send(gw.request("/v1/leases?prefix=main/bob/").GET()
                        .header("Authorization", "Bearer " + aliceKey)).statusCode()).isEqualTo(403);

                JsonObject ops = status(gw, KEY, aliceTokens[0]);
                assertThat(ops.encode()).as("the all-stores key sees bob's refusal").contains(bobItem);
                assertThat(numbersIn(ops)).contains(bobTokens[0], bobTokens[1]);

                JsonObject alice = status(gw, aliceKey, aliceTokens[0]);
                assertThat(alice.encode()).as("alice's status").doesNotContain("bob");
                assertThat(numbersIn(alice)).as("numbers in alice's status").doesNotContain(bobTokens[0], bobTokens[1]);
                assertThat(alice.getJsonArray("leases").stream().map(l -> ((JsonObject) l).getString("lock")))
                        .containsExactly("main/alice/notes");
                assertThat(alice.getJsonObject("stores").getJsonObject("main"))
                        .as("main's counts include bob's writes").isEqualTo(new JsonObject().put("partial", true));

                try (HeadlessChromium browser = new HeadlessChromium(work)) {
                    browser.open(gw.uri().resolve("/ui"));
                    enterKey(browser, KEY);
                    await(() -> browser.text("#refusals"), t -> t.contains(bobItem));
                    await(() -> browser.text("#store-main .totals"), t -> t.contains("2 stale"));
                    enterKey(browser, aliceKey); // the same tab, another key: nothing of the first may stay
                    await(() -> browser.text("#scope"), t -> t.equals("key: alice"));
                    await(() -> browser.text("#refusals"), t -> t.contains("alice/notes"));
                    assertThat(browser.text("body")).as("the page shown to alice").doesNotContain("bob");
                    // Tokens are small numbers that clock times also hold: compare the shown tokens, not the text.
                    assertThat(shownTokens(browser)).as("tokens on the page shown to alice")
                            .contains(aliceTokens[0], aliceTokens[1]).doesNotContain(bobTokens[0], bobTokens[1]);
                    assertThat(browser.text("#stores")).as("main's counts, shown to alice").doesNotContain("applied");
                    assertThat(browser.text("#leases")).contains("main/alice/notes");
                }
                gw.assertEventLoopNeverBlocked();
            }
        } finally {
            LeaseEventsIT.deleteTree(work);
        }
    }

    /** Through {@code client}: a holder's write refused after the next holder wrote; both leases' tokens, the refused one first. The second lease stays held. */
    private static long[] staleWrite(FencegateClient client, String store, String key) {
        String lock = store + "/" + key;
        Lease a = client.acquire(lock, Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
        client.release(a.leaseId());
        Lease b = client.acquire(lock, Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
        assertThat(client.put(store, key, b.token(), "new".getBytes(StandardCharsets.UTF_8)).applied()).isTrue();
        assertThat(client.put(store, key, a.token(), "late".getBytes(StandardCharsets.UTF_8))).isInstanceOf(Stale.class);
        return new long[] {a.token(), b.token()};
    }

    /** The first status {@code key} is sent that lists the refusal of {@code refusedToken} (so every earlier one is in). */
    private static JsonObject status(GatewayHarness gw, String key, long refusedToken) throws Exception {
        try (SseStream events = SseStream.open(gw.uri().resolve("/ui/events"), key)) {
            return events.await(WAIT_MS, e -> e.name().equals("status") && e.data().getJsonArray("refusals", new JsonArray())
                    .stream().anyMatch(r -> ((JsonObject) r).getLong("attemptedToken") == refusedToken)).data();
        }
    }

    /** Every number anywhere in {@code json}. */
    private static List<Long> numbersIn(Object json) {
        List<Long> out = new java.util.ArrayList<>();
        if (json instanceof JsonObject o) {
            o.forEach(e -> out.addAll(numbersIn(e.getValue())));
        } else if (json instanceof JsonArray a) {
            a.forEach(v -> out.addAll(numbersIn(v)));
        } else if (json instanceof Number n) {
            out.add(n.longValue());
        }
        return out;
    }

    /** Every token the page shows: the refusals' three and the leases' token column. */
    private static List<Long> shownTokens(HeadlessChromium browser) throws Exception {
        Object shown = browser.script("const out = [];"
                + " document.querySelectorAll('.refusal').forEach(r => out.push(r.dataset.attempted, r.dataset.current, r.dataset.fence));"
                + " document.querySelectorAll('#leases tr').forEach(tr => out.push(tr.children[1].innerText));"
                + " return out;");
        return ((JsonArray) shown).stream().map(t -> Long.parseLong(t.toString())).toList();
    }

    private static void enterKey(HeadlessChromium browser, String key) throws Exception {
        browser.script("const k = document.getElementById('key'); k.value = arguments[0];"
                + " k.dispatchEvent(new Event('change'));", key);
    }

    private static LeaseIssuer issuer2(TestingServer zookeeper) {
        return ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
    }

    private static String await(Callable<String> read, java.util.function.Predicate<String> done) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        String last = null;
        while (System.currentTimeMillis() < deadline) {
            last = read.call();
            if (last != null && done.test(last)) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the page did not show it within " + WAIT_MS + " ms; last seen: " + last);
    }
}
