package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.KnownGrants;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A one-trip grant whose answer is lost, on a 3-server ensemble: the client reconnects, maybe to
 * another server, which may not have applied the transaction yet (the client never saw its zxid,
 * so ZooKeeper lets it connect to a server behind it). A listing there misses the new lease node;
 * concluding "it never applied" leaves that node, owned by the issuer's session and tracked by
 * nobody, at the head of the queue until the session ends.
 *
 * <p>The lagging server is modelled on the client side ({@link LaggingFollowerView}: its next
 * listing misses the node unless a sync came first), because an in-process ensemble offers no way
 * to hold one follower behind for a bounded time; the ensemble is real.
 */
@Timeout(120)
class UncontendedGrantLaggingFollowerIT {

    private TestingCluster cluster;
    private CuratorFramework client;
    private final AtomicReference<LaggingFollowerView> view = new AtomicReference<>();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final String root = "/fencegate-lag-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        cluster = new TestingCluster(3);
        cluster.start();
        client = CuratorFrameworkFactory.builder().connectString(cluster.getConnectString())
                .retryPolicy(new RetryNTimes(3, 100))
                .zookeeperFactory((connect, timeout, watcher, readOnly) -> {
                    view.set(new LaggingFollowerView(connect, timeout, watcher, readOnly, null));
                    return view.get();
                })
                .build();
        client.start();
        assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        scheduler.shutdownNow();
        client.close();
        cluster.close();
    }

    private IssuerParts parts(TokenMode mode) {
        LockNodes nodes = new LockNodes(root);
        AsyncZk zk = new AsyncZk(Duration.ofSeconds(5), scheduler);
        return new IssuerParts(client, zk, nodes, mode, scheduler, new GrantLog(client, zk, nodes, new KnownGrants(GrantLog.CACHE_ENTRIES)),
                new HeldLeases(client, zk, scheduler, (lease, reason) -> { }), Clock.systemUTC());
    }

    @Test
    void aGrantNotYetAppliedWhereTheRecoveryListsIsFoundAfterASyncAndBlocksNothing() throws Exception {
        IssuerParts parts = parts(TokenMode.ZXID);
        LockNodes nodes = parts.nodes();
        String lock = "lag/1";
        String lockPath = nodes.lockPath(lock);
        client.create().creatingParentsIfNeeded().forPath(lockPath, new byte[0]);
        UncontendedGrant grant = new UncontendedGrant(parts, new TokenModeMarker(parts), answer -> {
            for (CuratorTransactionResult result : answer.getOpResults()) {
                if (result.getResultPath() != null && LockNodes.isLeaseNode(LockNodes.nameOf(result.getResultPath()))) {
                    view.get().lagBehind(lockPath, LockNodes.nameOf(result.getResultPath()));
                }
            }
            return connectionLoss(answer);
        });

        Acquisition acquisition = new Acquisition(parts, lock, 10_000, 2_000, 0, new AcquisitionDriver(parts, new LockDelays(parts), grant));
        Optional<Lease> lease = acquisition.start().get(20, TimeUnit.SECONDS);

        assertThat(lease).as("the acquire whose grant applied unseen").isPresent();
        String path = LeaseIds.parse(lease.get().leaseId(), nodes.locksPath()).orElseThrow().path();
        assertThat(client.getChildren().forPath(lockPath)).as("the lock's lease nodes").containsExactly(LockNodes.nameOf(path));
        try (LeaseIssuer other = ZooKeeperLeaseIssuer.builder().client(client).root(root).build()) {
            assertThat(other.release(lease.get().leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(other.acquire(lock, Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .as("the lock is free after the release").isPresent();
        }
    }

    /**
     * The queue path's create (Curator's protected mode) loses its answer the same way; Curator
     * looks for its protected id with a plain listing, misses the node and creates a second one.
     * The first, applied, sits ahead in the queue: the acquire must not wait behind its own node.
     */
    @Test
    void aQueuedCreateWhoseAnswerWasLostNeverLeavesItsTwinAheadInTheQueue() throws Exception {
        IssuerParts parts = parts(TokenMode.CVERSION); // no lock node yet: CVERSION goes to the queue path
        LockNodes nodes = parts.nodes();
        String lock = "lag/queued";
        String lockPath = nodes.lockPath(lock);
        client.create().creatingParentsIfNeeded().forPath(nodes.locksPath(), new byte[0]);
        view.get().loseNextCreateAnswer(lockPath);

        Acquisition acquisition = new Acquisition(parts, lock, 10_000, 2_000, 0, new AcquisitionDriver(parts,
                new LockDelays(parts), new UncontendedGrant(parts, new TokenModeMarker(parts))));
        Optional<Lease> lease = acquisition.start().get(20, TimeUnit.SECONDS);

        assertThat(lease).as("the acquire whose first create applied unseen").isPresent();
        String path = LeaseIds.parse(lease.get().leaseId(), nodes.locksPath()).orElseThrow().path();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(client.getChildren().forPath(lockPath)).as("the lock's lease nodes")
                        .filteredOn(LockNodes::isLeaseNode).containsExactly(LockNodes.nameOf(path)));
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
}
