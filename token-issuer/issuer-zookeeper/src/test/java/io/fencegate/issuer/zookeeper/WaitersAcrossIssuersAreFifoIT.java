package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Waiters on one lock through two issuer instances (two gateways), each looping acquire → release
 * and queueing again at once, as a busy client does: every grant goes to the oldest waiter in the
 * lock's queue. A waiter that just released, or a newcomer finding the lock free for a moment, never
 * takes it ahead of one already queued, whichever instance either came through.
 *
 * <p>How, without timing: while it holds the lock, each holder lists the queue behind it. Nodes only
 * join at its end, and no waiter here gives up, so the next grant must go to the first node of that
 * list (when it has one).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WaitersAcrossIssuersAreFifoIT {
    private static final int WAITERS = 8;
    private static final int ROUNDS = 6;

    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();

    /** One grant: the holder's lease node, its token and the queue behind it when it looked. */
    private record Grant(int waiter, String node, long token, List<String> queueBehind) { }

    @ParameterizedTest
    @EnumSource(TokenMode.class)
    void everyGrantGoesToTheOldestQueuedWaiter(TokenMode mode) throws Exception {
        String root = "/fencegate-fifo-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "orders/hot";
        LockNodes nodes = new LockNodes(root);
        List<Grant> grants = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(WAITERS);
        try (LeaseIssuer a = issuer(root, mode); LeaseIssuer b = issuer(root, mode); CuratorFramework look = client()) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < WAITERS; w++) {
                int me = w;
                LeaseIssuer through = w % 2 == 0 ? a : b;
                done.add(threads.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        Lease lease = join(through.acquire(lock, Duration.ofSeconds(60), Duration.ofSeconds(60))).orElseThrow();
                        String ours = LockNodes.nameOf(LeaseIds.parse(lease.leaseId(), nodes.locksPath()).orElseThrow().path());
                        List<String> queue = new ArrayList<>(LockNodes.queue(look.getChildren().forPath(nodes.lockPath(lock))));
                        assertThat(queue).as("the holder's node heads the queue").startsWith(ours);
                        queue.remove(ours);
                        synchronized (grants) { // under the lease: grants are appended in grant order
                            grants.add(new Grant(me, ours, lease.token(), queue));
                        }
                        assertThat(join(through.release(lease.leaseId()))).isTrue();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(grants).hasSize(WAITERS * ROUNDS);
        int queuedBehind = 0;
        for (int i = 0; i + 1 < grants.size(); i++) {
            Grant held = grants.get(i);
            Grant next = grants.get(i + 1);
            assertThat(next.token()).as("tokens increase in grant order").isGreaterThan(held.token());
            if (!held.queueBehind().isEmpty()) {
                queuedBehind++;
                assertThat(next.node()).as("grant %d (waiter %d) after waiter %d's release, queue behind it %s", i + 1,
                        next.waiter(), held.waiter(), held.queueBehind()).isEqualTo(held.queueBehind().get(0));
            }
        }
        // Eight loops on one lock queue behind each other almost always; a few checks prove nothing.
        assertThat(queuedBehind).as("hand-offs to a queued waiter").isGreaterThan(WAITERS * ROUNDS / 2);
    }

    private static ZooKeeperLeaseIssuer issuer(String root, TokenMode mode) {
        return ZooKeeperLeaseIssuer.builder().connectString(ZK.connectString()).root(root).tokenMode(mode).build();
    }

    private static CuratorFramework client() {
        CuratorFramework client = CuratorFrameworkFactory.newClient(ZK.connectString(), new RetryOneTime(100));
        client.start();
        return client;
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(90, TimeUnit.SECONDS);
    }
}
