package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Losing the ZooKeeper session ends every lease it held, and the holder is told. */
@Timeout(60)
class ZooKeeperSessionLossIT {

    private TestingServer server;
    private CuratorFramework client;
    private final String root = "/fencegate-session-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(5_000)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void sessionExpiryEndsLeasesAndTellsListenerSessionLost() throws Exception {
        List<Map.Entry<Lease, LeaseEnd>> ended = new CopyOnWriteArrayList<>();
        try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(client).root(root).build();
             LeaseIssuer other = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root).build()) {
            issuer.addListener((lease, reason) -> ended.add(Map.entry(lease, reason)));
            Lease a = issuer.acquire("orders/1", Duration.ofMinutes(5), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            Lease b = issuer.acquire("orders/2", Duration.ofMinutes(5), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).orElseThrow();

            expireSession(client.getZookeeperClient().getZooKeeper(), server.getConnectString());

            await().atMost(Duration.ofSeconds(20)).until(() -> ended.size() == 2);
            assertThat(ended).extracting(Map.Entry::getValue).containsOnly(LeaseEnd.SESSION_LOST);
            assertThat(ended).extracting(e -> e.getKey().token()).containsExactlyInAnyOrder(a.token(), b.token());

            // The ephemeral lease nodes went with the session: the lock is free well before the 5 min ttl.
            Lease next = other.acquire("orders/1", Duration.ofSeconds(10), Duration.ofSeconds(10))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.token()).isGreaterThan(a.token());
            assertThat(other.renew(a.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(other.release(b.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();

            // The issuer carries on with a new session.
            Lease again = issuer.acquire("orders/2", Duration.ofSeconds(10), Duration.ofSeconds(10))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(again.token()).isGreaterThan(b.token());
        }
    }

    @Test
    void sessionExpiryEndsReadLeasesAndPermitsAndTheirPlacesGoToTheWaiters() throws Exception {
        List<Map.Entry<Lease, LeaseEnd>> ended = new CopyOnWriteArrayList<>();
        try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(client).root(root).build();
             LeaseIssuer other = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root).build()) {
            issuer.addListener((lease, reason) -> ended.add(Map.entry(lease, reason)));
            Lease read = issuer.acquire("docs/1", LeaseMode.READ, Duration.ofMinutes(5), Duration.ZERO, Duration.ZERO)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            Lease otherRead = other.acquire("docs/1", LeaseMode.READ, Duration.ofMinutes(5), Duration.ZERO, Duration.ZERO)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            Lease permit = issuer.acquirePermit("pool", 1, Duration.ofMinutes(5), Duration.ZERO)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            CompletableFuture<Optional<Lease>> writer = other.acquire("docs/1", LeaseMode.WRITE, Duration.ofSeconds(10),
                    Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture();
            CompletableFuture<Optional<Lease>> nextPermit = other.acquirePermit("pool", 1, Duration.ofSeconds(10),
                    Duration.ofSeconds(30)).toCompletableFuture();

            expireSession(client.getZookeeperClient().getZooKeeper(), server.getConnectString());

            await().atMost(Duration.ofSeconds(20)).until(() -> ended.size() == 2);
            assertThat(ended).extracting(Map.Entry::getValue).containsOnly(LeaseEnd.SESSION_LOST);
            assertThat(ended).extracting(Map.Entry::getKey).containsExactlyInAnyOrder(read, permit);
            // The permit's slot went with the session, well before the 5 min ttl; the waiter takes it.
            Lease taken = nextPermit.get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(taken.slot()).isEqualTo(permit.slot());
            assertThat(taken.token()).isGreaterThan(permit.token());
            // The other session's reader still holds the writer off.
            Thread.sleep(300);
            assertThat(writer).isNotDone();
            assertThat(other.release(otherRead.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            Lease written = writer.get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(written.token()).isGreaterThan(Math.max(read.token(), otherRead.token()));
            assertThat(other.grantedMode("docs/1", read.token()).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .as("a lost read lease's token stays a read token").contains(LeaseMode.READ);
            assertThat(other.renew(read.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();

            // The issuer carries on with a new session, readers after the writer.
            CompletableFuture<Optional<Lease>> again = issuer.acquire("docs/1", LeaseMode.READ, Duration.ofSeconds(10),
                    Duration.ofSeconds(20), Duration.ZERO).toCompletableFuture();
            assertThat(other.release(written.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(again.get(20, TimeUnit.SECONDS).orElseThrow().token()).isGreaterThan(written.token());
        }
    }

    @Test
    void closeEndsHeldLeasesAtOnceAndLaterCallsFailClearly() throws Exception {
        LeaseIssuer closing = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root).build();
        try (LeaseIssuer other = ZooKeeperLeaseIssuer.builder().client(client).root(root).build()) {
            Lease held = closing.acquire("job", Duration.ofMinutes(5), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> waiter = other
                    .acquire("job", Duration.ofSeconds(10), Duration.ofSeconds(20)).toCompletableFuture();
            closing.close();
            assertThat(waiter.get(10, TimeUnit.SECONDS)).as("freed by close, not by the 5 min ttl").isPresent()
                    .get().extracting(Lease::token).isNotEqualTo(held.token());
            java.util.concurrent.CompletableFuture<?> after = closing.acquire("x", Duration.ofSeconds(1), Duration.ZERO)
                    .toCompletableFuture();
            assertThat(after).failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(io.fencegate.issuer.IssuerUnavailableException.class);
        }
    }

    /**
     * Expires a session for real: a second handle on the same session id and password closes it,
     * so the server ends the session and its ephemeral nodes, as it would after a timeout.
     */
    static void expireSession(ZooKeeper zk, String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, 5_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            twin.close();
        }
    }
}
