package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Idle locks leave nothing behind in ZooKeeper (their lock node too in ZXID mode, never in
 * CVERSION mode, where it is the counter), while a held or recently used lock keeps its grants,
 * and tokens keep growing across a sweep.
 */
@Timeout(120)
class IdleLockSweeperIT {
    private static final Duration IDLE = Duration.ofMillis(300);

    private TestingServer server;
    private CuratorFramework client;
    private final String root = "/fencegate-sweep-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    private ZooKeeperLeaseIssuer issuer(TokenMode mode, Duration idle) {
        return ZooKeeperLeaseIssuer.builder().client(client).root(root).tokenMode(mode).forgetIdleLocksAfter(idle).build();
    }

    private ZooKeeperLeaseIssuer issuer(TokenMode mode, Duration idle, Clock clock) {
        return ZooKeeperLeaseIssuer.builder().client(client).root(root).tokenMode(mode).forgetIdleLocksAfter(idle)
                .clock(clock).build();
    }

    private boolean exists(String path) throws Exception {
        return client.checkExists().forPath(path) != null;
    }

    private static Lease acquire(LeaseIssuer issuer, String lock, Duration ttl) throws Exception {
        return issuer.acquire(lock, ttl, Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
    }

    private static boolean granted(LeaseIssuer issuer, String lock, long token) throws Exception {
        return issuer.wasGranted(lock, token).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aReleasedLockIsForgottenAndTokensStillGrowInZxidMode() throws Exception {
        LockNodes nodes = new LockNodes(root);
        try (ZooKeeperLeaseIssuer issuer = issuer(TokenMode.ZXID, IDLE)) {
            Lease first = acquire(issuer, "orders/1", Duration.ofSeconds(10));
            assertThat(issuer.release(first.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.grantsPath("orders/1"))
                    && !exists(nodes.lockPath("orders/1")));
            try (ZooKeeperLeaseIssuer fresh = issuer(TokenMode.ZXID, Duration.ZERO)) {
                assertThat(granted(fresh, "orders/1", first.token())).as("forgotten: a write with it is refused").isFalse();
            }
            Lease again = acquire(issuer, "orders/1", Duration.ofSeconds(10));
            assertThat(again.token()).isGreaterThan(first.token());
            assertThat(granted(issuer, "orders/1", again.token())).isTrue();
        }
    }

    /**
     * A lock granted and released in one transaction each (every new item a gateway writes) is swept
     * in one request; the careful sweep (read, list, three deletes) could not keep up with a gateway
     * that touches thousands of new locks a second. Counted with Curator's tracer.
     */
    @Test
    void aLockReleasedInOneTransactionIsSweptInOneRequest() throws Exception {
        int locks = 200;
        AtomicInteger requests = new AtomicInteger();
        try (CuratorFramework traced = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100))) {
            traced.start();
            assertThat(traced.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            try (ZooKeeperLeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(traced).root(root)
                    .forgetIdleLocksAfter(Duration.ofSeconds(2)).build()) {
                Lease warm = acquire(issuer, "warm", Duration.ofSeconds(10)); // makes the root's parents
                issuer.release(warm.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                for (int i = 0; i < locks; i++) {
                    Lease lease = acquire(issuer, "items/" + i, Duration.ofSeconds(10));
                    assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
                }
                // Counted from here: the sweeps come due 2 s after each release (earlier ones only lower the count).
                traced.getZookeeperClient().setTracerDriver(new TracerDriver() {
                    @Override
                    public void addTrace(String name, long time, TimeUnit unit) {
                        requests.incrementAndGet();
                    }

                    @Override
                    public void addCount(String name, int increment) { }
                });
                await().atMost(Duration.ofSeconds(60)).until(() -> client.getChildren().forPath(root + "/locks").isEmpty()
                        && client.getChildren().forPath(root + "/grants").isEmpty());
            }
        }
        // The warm-up lock was granted the long way (a fresh root): its careful sweep is five more, and
        // the session's own calls a few; the careful way for all would be five a lock.
        assertThat(requests.get()).isLessThanOrEqualTo(locks + locks / 10);
    }

    @Test
    void anExpiredLeaseIsSweptToo() throws Exception {
        LockNodes nodes = new LockNodes(root);
        try (ZooKeeperLeaseIssuer issuer = issuer(TokenMode.ZXID, IDLE)) {
            acquire(issuer, "orders/2", Duration.ofMillis(200)); // never renewed
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.lockPath("orders/2"))
                    && !exists(nodes.grantsPath("orders/2")));
        }
    }

    @Test
    void cversionModeKeepsTheLockNodeItsCounterLivesIn() throws Exception {
        LockNodes nodes = new LockNodes(root);
        try (ZooKeeperLeaseIssuer issuer = issuer(TokenMode.CVERSION, IDLE)) {
            Lease first = acquire(issuer, "orders/3", Duration.ofSeconds(10));
            issuer.release(first.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.grantsPath("orders/3")));
            Thread.sleep(IDLE.toMillis() * 3); // several more sweep runs
            assertThat(exists(nodes.lockPath("orders/3"))).isTrue();
            Lease again = acquire(issuer, "orders/3", Duration.ofSeconds(10));
            assertThat(again.token()).isGreaterThan(first.token());
        }
    }

    @Test
    void aHeldLockKeepsItsNodesWhenItsSweepComesDue() throws Exception {
        LockNodes nodes = new LockNodes(root);
        try (ZooKeeperLeaseIssuer issuer = issuer(TokenMode.ZXID, IDLE)) {
            Lease earlier = acquire(issuer, "orders/held", Duration.ofSeconds(60));
            issuer.release(earlier.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS); // a sweep comes due
            Lease held = acquire(issuer, "orders/held", Duration.ofSeconds(60));
            Thread.sleep(IDLE.toMillis() * 4); // the sweep ran and found the lock held
            try (ZooKeeperLeaseIssuer fresh = issuer(TokenMode.ZXID, Duration.ZERO)) {
                assertThat(granted(fresh, "orders/held", held.token())).isTrue();
            }
            assertThat(exists(nodes.lockPath("orders/held"))).isTrue();
            issuer.release(held.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.lockPath("orders/held")));
        }
    }

    /** Taken again through another issuer (this one is not told): its sweep finds a young grant and waits. */
    @Test
    void aLockTakenAgainElsewhereWithinTheIdleTimeKeepsItsNewGrant() throws Exception {
        LockNodes nodes = new LockNodes(root);
        // Idle 3 s, sweeps checked every 300 ms: the first sweep comes due at 3.0 s and runs by 3.3 s;
        // the look below is at about 3.5 s; the second lease's sweep is not due before 4.5 s.
        try (ZooKeeperLeaseIssuer sweeping = issuer(TokenMode.ZXID, Duration.ofSeconds(3));
                ZooKeeperLeaseIssuer elsewhere = issuer(TokenMode.ZXID, Duration.ZERO)) {
            Lease first = acquire(sweeping, "orders/4", Duration.ofSeconds(10));
            sweeping.release(first.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Thread.sleep(1500);
            Lease second = acquire(elsewhere, "orders/4", Duration.ofSeconds(10));
            elsewhere.release(second.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Thread.sleep(2000); // the first release's sweep came due; the newest grant was too young
            try (ZooKeeperLeaseIssuer fresh = issuer(TokenMode.ZXID, Duration.ZERO)) {
                assertThat(granted(fresh, "orders/4", second.token())).isTrue();
            }
            // ... and it comes back once that grant is old enough.
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.grantsPath("orders/4")));
        }
    }

    /**
     * A gateway whose clock runs an hour ahead must not take a fresh grant for an old one: the
     * holder of that grant would get 403 on its writes. Idleness is judged on one clock, never by
     * comparing ZooKeeper's ctime with the gateway's wall clock.
     */
    @Test
    void aGatewayWhoseClockRunsAheadKeepsFreshGrants() throws Exception {
        LockNodes nodes = new LockNodes(root);
        Clock anHourAhead = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
        // Idle 2 s, checked every 200 ms: the first release's sweep runs at about 2.2 s, while the
        // grant made elsewhere at about 0.1 s is 2.1 s old; the look below is at about 2.6 s.
        try (ZooKeeperLeaseIssuer ahead = issuer(TokenMode.ZXID, Duration.ofSeconds(2), anHourAhead);
                ZooKeeperLeaseIssuer elsewhere = issuer(TokenMode.ZXID, Duration.ZERO)) {
            Lease first = acquire(ahead, "orders/5", Duration.ofSeconds(10));
            ahead.release(first.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Lease fresh = acquire(elsewhere, "orders/5", Duration.ofSeconds(10));
            elsewhere.release(fresh.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Thread.sleep(2600); // the first release's sweep came due and ran
            try (ZooKeeperLeaseIssuer look = issuer(TokenMode.ZXID, Duration.ZERO)) {
                assertThat(granted(look, "orders/5", fresh.token())).as("a grant made %s ago", "2.5 s").isTrue();
            }
            // A lock that stays idle is still forgotten, clock or no clock.
            await().atMost(Duration.ofSeconds(20)).until(() -> !exists(nodes.grantsPath("orders/5"))
                    && !exists(nodes.lockPath("orders/5")));
        }
    }
}
