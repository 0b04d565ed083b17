package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An issuer remembers the version at which it left a lock node empty
 * ({@link UncontendedGrant#EMPTY_AFTER_RELEASE}), to grant it next time in one round trip. If the
 * lock node is swept and re-created meanwhile, the new node may reach the same version carrying a
 * lock-delay mark; re-creating it from memory would erase the mark and grant inside the delay.
 * Marks never sit at the remembered version, so the memory fails its check: whether the mark was
 * moved on by a renewal or stays where its first write put it.
 */
@Timeout(60)
class LockDelayAfterLockNodeRecreationIT {

    @Test
    void aRememberedEmptyLockNodeIsNotMistakenForARecreatedOneCarryingAMark() throws Exception {
        inALockDelayOnARecreatedLockNode("recreated", (bed, delaying, lock, lockPath) -> {
            Lease delayed = delaying.acquire(lock, Duration.ofMillis(400), Duration.ZERO, Duration.ofSeconds(20))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            delaying.renew(delayed.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            // Not renewed again: it expires, and the mark keeps the lock for 20 s after.
        });
    }

    @Test
    void aFirstMarkOnARecreatedLockNodeIsNeverMistakenForTheRememberedEmptyNode() throws Exception {
        inALockDelayOnARecreatedLockNode("first-mark", (bed, delaying, lock, lockPath) -> {
            delaying.acquire(lock, Duration.ofMillis(300), Duration.ZERO, Duration.ofSeconds(20))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(bed.client.checkExists().forPath(lockPath).getVersion()).as("the mark's version")
                    .isNotEqualTo(UncontendedGrant.EMPTY_AFTER_RELEASE);
        });
    }

    /** How the delaying issuer's lease sets a lock-delay mark on the re-created lock node. */
    @FunctionalInterface
    private interface MarkTheDelay {
        void run(EngineTestbed bed, LeaseIssuer delaying, String lock, String lockPath) throws Exception;
    }

    /**
     * One issuer grants and releases a lock twice (the second time in one trip, so it remembers the
     * empty node), the node is swept, another issuer's lease leaves a lock-delay mark on the
     * re-created node and expires: the remembering issuer must not grant inside the delay.
     */
    private static void inALockDelayOnARecreatedLockNode(String name, MarkTheDelay markTheDelay) throws Exception {
        String root = "/fencegate-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "orders/" + name;
        try (EngineTestbed bed = new EngineTestbed()) {
            CuratorFramework client = bed.client;
            String lockPath = new LockNodes(root).lockPath(lock);
            try (LeaseIssuer remembering = issuer(client, root); LeaseIssuer delaying = issuer(client, root)) {
                for (int i = 0; i < 2; i++) {
                    Lease lease = remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                            .get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(remembering.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
                }
                assertThat(client.checkExists().forPath(lockPath).getVersion()).isEqualTo(UncontendedGrant.EMPTY_AFTER_RELEASE);
                client.delete().forPath(lockPath); // what an idle sweep does

                markTheDelay.run(bed, delaying, lock, lockPath);
                await().atMost(Duration.ofSeconds(20)).until(() -> client.getChildren().forPath(lockPath).isEmpty());

                assertThat(remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS)).as("granted inside the lock-delay").isEmpty();
            }
        }
    }

    private static LeaseIssuer issuer(CuratorFramework client, String root) {
        return ZooKeeperLeaseIssuer.builder().client(client).root(root).forgetIdleLocksAfter(Duration.ZERO).build();
    }
}
