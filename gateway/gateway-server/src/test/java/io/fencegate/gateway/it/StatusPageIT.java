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
        } finally {
            LeaseEventsIT.deleteTree(work);
        }
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
