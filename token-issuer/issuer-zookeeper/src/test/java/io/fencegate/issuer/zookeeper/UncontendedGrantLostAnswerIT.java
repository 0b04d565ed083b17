package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A one-round-trip grant whose answer is lost with the connection: the transaction may have
 * applied (all of it) or not. The acquire must find out by the lease node's protected id, grant
 * at most once, and never leave a node that blocks the lock.
 */
@Timeout(120)
class UncontendedGrantLostAnswerIT {

    private EngineTestbed bed;
    private CuratorFramework client;
    private TestingServer server;
    private final String root = "/fencegate-lost-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        bed = new EngineTestbed();
        client = bed.client;
        server = bed.server;
    }

    @AfterEach
    void stop() throws Exception {
        bed.close();
    }

    private IssuerParts parts(TokenMode mode) {
        return bed.parts(root, mode);
    }

    /** What the client reports when the connection drops before an answer arrives. */
    private static CuratorEvent connectionLoss(CuratorEvent real) {
        return (CuratorEvent) Proxy.newProxyInstance(CuratorEvent.class.getClassLoader(), new Class<?>[] {CuratorEvent.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getResultCode" -> Code.CONNECTIONLOSS.intValue();
                    case "getType" -> real.getType();
                    case "getPath" -> real.getPath();
                    case "toString" -> "lost answer";
                    default -> null;
                });
    }

    private List<String> children(String lock) throws Exception {
        return client.getChildren().forPath(new LockNodes(root).lockPath(lock));
    }

    @ParameterizedTest
    @EnumSource(TokenMode.class)
    void aGrantWhoseAnswerWasLostIsFoundByItsProtectedIdAndGrantedOnce(TokenMode mode) throws Exception {
        IssuerParts parts = parts(mode);
        AtomicInteger applied = new AtomicInteger();
        UncontendedGrant grant = new UncontendedGrant(parts, new TokenModeMarker(parts), answer -> {
            if (answer.getResultCode() == Code.OK.intValue()) {
                applied.incrementAndGet();
            }
            return connectionLoss(answer);
        });
        String lock = "lost/" + mode;
        // A lock used before (one trip needs an existing root, and in CVERSION mode the lock node).
        client.create().creatingParentsIfNeeded().forPath(new LockNodes(root).lockPath(lock), new byte[0]);
        Acquisition acquisition = new Acquisition(parts, lock, 10_000, 5_000, 0, new AcquisitionDriver(parts, new LockDelays(parts), grant));
        Lease lease = acquisition.start().get(10, TimeUnit.SECONDS).orElseThrow();

        assertThat(applied).as("transactions applied").hasValue(1);
        String path = LeaseIds.parse(lease.leaseId(), new LockNodes(root).locksPath()).orElseThrow().path();
        assertThat(children(lock)).as("the lock's lease nodes").containsExactly(LockNodes.nameOf(path));
        try (LeaseIssuer other = ZooKeeperLeaseIssuer.builder().client(client).root(root).tokenMode(mode).build()) {
            assertThat(other.wasGranted(lock, lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(other.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(children(lock)).isEmpty();
    }

    @Test
    void anAcquireAnsweredBeforeItsLostAnswerWasResolvedLeavesNoNodeBehind() throws Exception {
        IssuerParts parts = parts(TokenMode.ZXID);
        AtomicReference<Acquisition> acquisition = new AtomicReference<>();
        UncontendedGrant grant = new UncontendedGrant(parts, new TokenModeMarker(parts), answer -> {
            // The issuer closes while the answer is lost: the acquire is answered before it knows.
            acquisition.get().abort(new IssuerUnavailableException("closing"));
            return connectionLoss(answer);
        });
        String lock = "lost/aborted";
        client.create().creatingParentsIfNeeded().forPath(new LockNodes(root).lockPath(lock), new byte[0]);
        acquisition.set(new Acquisition(parts, lock, 10_000, 5_000, 0, new AcquisitionDriver(parts, new LockDelays(parts), grant)));
        assertThatThrownBy(() -> acquisition.get().start().get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IssuerUnavailableException.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(children(lock)).as("orphaned lease nodes").isEmpty());
        try (LeaseIssuer other = ZooKeeperLeaseIssuer.builder().client(client).root(root).build()) {
            assertThat(other.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS)).as("the lock is free").isPresent();
        }
    }

    /**
     * Real connection losses: the server restarts (keeping its data and sessions) while two
     * instances take one lock. Calls may fail; none may grant twice, and once everyone stops,
     * no lease node is left (failed acquires removed theirs, unreleased leases expired).
     */
    @Test
    void serverRestartsWhileAcquiringNeitherGrantTwiceNorOrphanALeaseNode() throws Exception {
        String lock = "lost/restarts";
        ExclusionCheck check = new ExclusionCheck();
        AtomicInteger grants = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (LeaseIssuer a = restartTolerant(); LeaseIssuer b = restartTolerant()) {
            List<Future<?>> workers = new ArrayList<>();
            for (LeaseIssuer issuer : List.of(a, b)) {
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        Lease lease;
                        try {
                            lease = issuer.acquire(lock, Duration.ofSeconds(2), Duration.ofSeconds(5)).toCompletableFuture()
                                    .get(30, TimeUnit.SECONDS).orElse(null);
                        } catch (ExecutionException e) {
                            failures.incrementAndGet();
                            continue;
                        }
                        if (lease == null) {
                            continue;
                        }
                        check.holds(lease);
                        grants.incrementAndGet();
                        check.letGo();
                        try {
                            issuer.release(lease.leaseId()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                        } catch (ExecutionException e) {
                            failures.incrementAndGet(); // the lease then ends by its ttl
                        }
                    }
                    return null;
                }));
            }
            for (int restart = 0; restart < 3; restart++) {
                int before = grants.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> grants.get() >= before + 20);
                server.restart();
            }
            int before = grants.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> grants.get() >= before + 20);
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            // Before the issuers close (which would end their sessions and every node with them).
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(children(lock)).as("lease nodes left").isEmpty());
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
        System.out.printf("restarts: %d grants, %d failed calls%n", grants.get(), failures.get());
        assertThat(check.violations()).isEmpty();
    }

    private LeaseIssuer restartTolerant() {
        return ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root)
                .operationTimeout(Duration.ofSeconds(3)).sessionTimeout(Duration.ofSeconds(30))
                .forgetIdleLocksAfter(Duration.ZERO).build();
    }
}
