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
 * A lock node swept and re-created by the queue path starts again at version 0, and its first
 * lock-delay mark would land on version 1: the very version at which another issuer remembers it
 * empty after a one-trip release ({@link UncontendedGrant#EMPTY_AFTER_RELEASE}). Landing there,
 * that issuer's one-trip grant would delete the node with the mark and grant inside the delay.
 * Unlike {@link LockDelayAfterLockNodeRecreationIT}, nothing renews the lease, so the mark stays
 * where its first write put it.
 */
@Timeout(60)
class LockDelayMarkNeverAtARememberedVersionIT {

    @Test
    void aFirstMarkOnARecreatedLockNodeIsNeverMistakenForTheRememberedEmptyNode() throws Exception {
        String root = "/fencegate-first-mark-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "orders/first-mark";
        try (EngineTestbed bed = new EngineTestbed()) {
            CuratorFramework client = bed.client;
            String lockPath = new LockNodes(root).lockPath(lock);
            try (LeaseIssuer remembering = issuer(client, root); LeaseIssuer delaying = issuer(client, root)) {
                for (int i = 0; i < 2; i++) { // the second time in one trip, and remembered
                    Lease lease = remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                            .get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(remembering.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
                }
                client.delete().forPath(lockPath); // what an idle sweep does

                delaying.acquire(lock, Duration.ofMillis(300), Duration.ZERO, Duration.ofSeconds(20))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                assertThat(client.checkExists().forPath(lockPath).getVersion()).as("the mark's version")
                        .isNotEqualTo(UncontendedGrant.EMPTY_AFTER_RELEASE);
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
