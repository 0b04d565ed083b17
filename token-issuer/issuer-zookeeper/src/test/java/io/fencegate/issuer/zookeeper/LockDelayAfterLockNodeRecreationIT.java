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
 * An issuer remembers the version at which it left a lock node empty, to grant it next time in
 * one round trip. If the lock node is swept and re-created meanwhile, the new node may reach the
 * same version carrying a lock-delay mark; re-creating it from memory would erase the mark and
 * grant inside the delay. Marks never sit at the remembered version, so the memory fails its check.
 */
@Timeout(60)
class LockDelayAfterLockNodeRecreationIT {

    @Test
    void aRememberedEmptyLockNodeIsNotMistakenForARecreatedOneCarryingAMark() throws Exception {
        String root = "/fencegate-recreated-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "orders/delayed";
        try (EngineTestbed bed = new EngineTestbed()) {
            CuratorFramework client = bed.client;
            String lockPath = new LockNodes(root).lockPath(lock);
            try (LeaseIssuer remembering = issuer(client, root); LeaseIssuer delaying = issuer(client, root)) {
                for (int i = 0; i < 2; i++) { // the second time in one trip, and remembered
                    Lease lease = remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                            .get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(remembering.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
                }
                assertThat(client.checkExists().forPath(lockPath).getVersion()).isEqualTo(UncontendedGrant.EMPTY_AFTER_RELEASE);
                client.delete().forPath(lockPath); // what an idle sweep does

                Lease delayed = delaying.acquire(lock, Duration.ofMillis(400), Duration.ZERO, Duration.ofSeconds(20))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                delaying.renew(delayed.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                // Not renewed again: it expires, and the mark keeps the lock for 20 s after.
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
