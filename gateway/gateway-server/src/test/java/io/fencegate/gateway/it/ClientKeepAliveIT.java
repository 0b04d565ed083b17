package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseKeepAlive;
import io.fencegate.client.LeaseLoss;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.testing.TcpProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java client's lease keep-alive and {@code withLease} against a real gateway (ZooKeeper issuer,
 * files store): renewals keep a lease past its ttl, a lost lease is told exactly once and in bounded
 * time (410 from the gateway, renewals that cannot get through), and {@code withLease} releases
 * however the work ends. The paused-process case (SIGSTOP) is in examples/java-client's test.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientKeepAliveIT {
    // Renewals every 333 ms: room for a busy 2-core machine (at 600 ms, a 400 ms stall of the first
    // renewal in a cold JVM let a lease expire in renewalsKeepTheLeaseWellPastItsTtl).
    private static final Duration TTL = Duration.ofMillis(1000);
    private static TestingServer zookeeper;
    private static Path dir;
    private static GatewayHarness gw;
    private static FencegateClient client;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "keepalive");
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(5)).build();
        var files = FilesGuardedStore.open(dir, GuardRule.STRICT);
        gw = new GatewayHarness(new GatewayOptions(), issuer, List.of(StoreBinding.of("docs", files)), List.of(issuer, files));
        client = FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.close();
        }
        zookeeper.close();
        try (var all = Files.walk(dir)) {
            all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Records every onLost call with its time. */
    private static final class Told {
        final List<LeaseLoss> reasons = new CopyOnWriteArrayList<>();
        volatile long atMillis;

        void onLost(Lease lease, LeaseLoss reason) {
            atMillis = System.currentTimeMillis();
            reasons.add(reason);
        }

        void awaitOne(long seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (reasons.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(reasons).as("onLost called").isNotEmpty();
        }
    }

    private static Lease acquire(String lock) {
        return client.acquire(lock, TTL, Duration.ofSeconds(5)).orElseThrow();
    }

    @Test
    void renewalsKeepTheLeaseWellPastItsTtl() throws Exception {
        Told told = new Told();
        Lease lease = acquire("docs/held-long");
        try (LeaseKeepAlive keepAlive = client.keepAlive(lease, TTL, told::onLost)) {
            Thread.sleep(TTL.toMillis() * 4);
            assertThat(keepAlive.held()).as("lost: %s", keepAlive.lost().toCompletableFuture().getNow(null)).isTrue();
            assertThat(client.acquire("docs/held-long", TTL, Duration.ZERO)).as("still held by us").isEmpty();
            assertThat(client.put("docs", "held-long", lease.token(), "v".getBytes(UTF_8)))
                    .isInstanceOf(WriteOutcome.Applied.class);
        }
        assertThat(told.reasons).as("a released lease is not a lost one").isEmpty();
        Lease next = client.acquire("docs/held-long", TTL, Duration.ZERO).orElseThrow(); // close() released it
        client.release(next.leaseId());
    }

    /**
     * The lease ends at the gateway (released through another client); the holder is told GONE once,
     * within one renewal period. N runs, the delay from the release to onLost reported.
     */
    @Test
    void leaseEndedAtTheGatewayIsToldOnceWithinARenewalPeriod() throws Exception {
        List<Long> delays = new ArrayList<>();
        List<Told> everyTold = new ArrayList<>();
        List<LeaseKeepAlive> everyKeepAlive = new ArrayList<>();
        for (int run = 0; run < 20; run++) {
            Told told = new Told();
            Lease lease = acquire("docs/ended-" + run);
            LeaseKeepAlive keepAlive = client.keepAlive(lease, TTL, told::onLost);
            everyTold.add(told);
            everyKeepAlive.add(keepAlive);
            Thread.sleep(50 + (run * 37) % 300); // somewhere in a renewal period
            long endedAt = System.currentTimeMillis(); // the lease ends during this call
            FencegateClient.builder(gw.uri()).build().release(lease.leaseId());
            told.awaitOne(5);
            delays.add(told.atMillis - endedAt);
        }
        // Room for a second, wrong, call: at least one ttl after each run's first (the later runs
        // gave the earlier ones more), waited once for all runs instead of once per run.
        Thread.sleep(TTL.toMillis());
        for (int run = 0; run < everyTold.size(); run++) {
            LeaseKeepAlive keepAlive = everyKeepAlive.get(run);
            assertThat(everyTold.get(run).reasons).as("run %d", run).containsExactly(LeaseLoss.GONE);
            assertThat(keepAlive.held()).isFalse();
            assertThat(keepAlive.lost().toCompletableFuture().getNow(null)).isEqualTo(LeaseLoss.GONE);
            assertThat(keepAlive.release()).isFalse();
        }
        report("release at the gateway -> onLost(GONE), ttl " + TTL.toMillis() + " ms", delays);
        assertThat(Collections.max(delays)).isLessThan(TTL.toMillis() / 3 + 500);
    }

    /**
     * Renewals hang (the link to the gateway forwards nothing): the holder is told EXPIRED once, and
     * no later than the gateway's own expiry of the lease (the last expiresAt the gateway confirmed).
     */
    @Test
    void renewalsThatCannotGetThroughAreToldExpiredNoLaterThanTheGatewayExpiry() throws Exception {
        List<Long> delays = new ArrayList<>();
        List<TcpProxy> proxies = new ArrayList<>();
        List<Told> everyTold = new ArrayList<>();
        List<LeaseKeepAlive> everyKeepAlive = new ArrayList<>();
        try {
            for (int run = 0; run < 10; run++) {
                TcpProxy proxy = TcpProxy.start("127.0.0.1", gw.gateway.port());
                proxies.add(proxy);
                FencegateClient viaProxy = FencegateClient.builder("http://127.0.0.1:" + proxy.port())
                        .timeout(Duration.ofSeconds(5)).build();
                Told told = new Told();
                // A first call opens the connection through the new proxy: the keep-alive's first
                // deadline counts from the acquire's send, so a cold connect on a loaded machine
                // would eat into the ttl before the stall this test is about.
                viaProxy.release(viaProxy.acquire("docs/warm-" + run, TTL, Duration.ZERO).orElseThrow().leaseId());
                Lease lease = viaProxy.acquire("docs/stalled-" + run, TTL, Duration.ofSeconds(5)).orElseThrow();
                LeaseKeepAlive keepAlive = viaProxy.keepAlive(lease, TTL, told::onLost);
                Thread.sleep(TTL.toMillis() / 2);
                assertThat(told.reasons).as("held until the stall").isEmpty();
                proxy.stall();
                // No renewal reaches the gateway from now on: it ends the lease at most one ttl later.
                long gatewayExpiryBound = System.currentTimeMillis() + TTL.toMillis();
                told.awaitOne(5);
                delays.add(told.atMillis - gatewayExpiryBound);
                assertThat(told.reasons).containsExactly(LeaseLoss.EXPIRED);
                // The deadline itself is never later (it counts from a renewal's send time); 25 ms is
                // for the timer thread and this test's polling to get scheduled on a busy machine.
                assertThat(told.atMillis).isLessThanOrEqualTo(gatewayExpiryBound + 25);
                assertThat(keepAlive.lastError()).isEmpty(); // hung, not failed: the deadline ended it
                everyTold.add(told);
                everyKeepAlive.add(keepAlive);
            }
            // Room for a second, wrong, call, the links still stalled: at least one ttl after each
            // run's first (the later runs gave the earlier ones more), waited once for all runs.
            Thread.sleep(TTL.toMillis());
            for (int run = 0; run < everyTold.size(); run++) {
                assertThat(everyTold.get(run).reasons).as("run %d", run).hasSize(1);
                proxies.get(run).restore();
                everyKeepAlive.get(run).release();
            }
        } finally {
            for (TcpProxy proxy : proxies) {
                proxy.close();
            }
        }
        report("renewals stalled -> onLost(EXPIRED), ms after the gateway's latest possible expiry (negative: before)", delays);
    }

    @Test
    void withLeaseReleasesWhenTheWorkSucceeds() throws Exception {
        Optional<Long> token = client.withLease("docs/work-ok", TTL, Duration.ofSeconds(5), lease -> {
            Thread.sleep(TTL.toMillis() * 2); // past one ttl: the keep-alive renews
            assertThat(lease.held()).isTrue();
            assertThat(client.put("docs", "work-ok", lease.token(), "done".getBytes(UTF_8)).applied()).isTrue();
            return lease.token();
        });
        assertThat(token).isPresent();
        Lease next = client.acquire("docs/work-ok", TTL, Duration.ZERO).orElseThrow();
        assertThat(next.token()).isGreaterThan(token.get());
        client.release(next.leaseId());
    }

    @Test
    void withLeaseReleasesWhenTheWorkThrowsAndRethrowsIt() {
        assertThatThrownBy(() -> client.withLease("docs/work-fails", TTL, Duration.ofSeconds(5), lease -> {
            throw new IOException("disk full");
        })).isInstanceOf(IOException.class).hasMessage("disk full");
        Lease next = client.acquire("docs/work-fails", TTL, Duration.ZERO).orElseThrow();
        client.release(next.leaseId());
    }

    @Test
    void withLeaseOnAHeldLockRunsNothing() {
        Lease held = acquire("docs/busy");
        try {
            Optional<String> ran = client.withLease("docs/busy", TTL, Duration.ofMillis(200), lease -> "ran");
            assertThat(ran).isEmpty();
        } finally {
            client.release(held.leaseId());
        }
    }

    private static void report(String what, List<Long> delaysMillis) throws IOException {
        List<Long> sorted = new ArrayList<>(delaysMillis);
        Collections.sort(sorted);
        String line = String.format("%s: n=%d p50=%d ms max=%d ms min=%d ms%n", what, sorted.size(),
                sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.get(0));
        System.out.print(line);
        Files.writeString(Path.of("target", "keepalive-latency.txt"), line,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
}
