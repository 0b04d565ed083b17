package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proof of the sole holder in a one-round-trip ZXID grant is the lock node's delete, which
 * fails while any lease node is under it; the version this issuer remembers proves nothing about
 * children. Here the lock node keeps that very version while someone else holds the lock (a
 * queue-path grant never writes the lock node): the one-trip attempt must still refuse.
 */
@Timeout(60)
class UncontendedGrantSoleHolderIT {

    @Test
    void aRememberedLockNodeVersionNeverGrantsWhileAQueuePathHolderHoldsTheLock() throws Exception {
        String root = "/fencegate-sole-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "orders/sole";
        try (EngineTestbed bed = new EngineTestbed();
             LeaseIssuer remembering = ZooKeeperLeaseIssuer.builder().client(bed.client).root(root)
                     .forgetIdleLocksAfter(Duration.ZERO).build()) {
            String lockPath = new LockNodes(root).lockPath(lock);
            for (int i = 0; i < 2; i++) { // the second time in one trip: its release remembers the empty node
                Lease lease = remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS).orElseThrow();
                assertThat(remembering.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            }
            int remembered = bed.client.checkExists().forPath(lockPath).getVersion();

            IssuerParts parts = bed.parts(root, TokenMode.ZXID);
            Lease holder = new Acquisition(parts, lock, 10_000, 5_000, 0, new AcquisitionDriver(parts, new LockDelays(parts), null)).start()
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(bed.client.checkExists().forPath(lockPath).getVersion()).as("queue-path grant left the version").isEqualTo(remembered);

            assertThat(remembering.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS)).as("granted beside holder " + holder.token()).isEmpty();
            assertThat(remembering.acquire(lock, Duration.ofSeconds(10), Duration.ofMillis(300)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS)).as("granted beside holder " + holder.token() + " while waiting").isEmpty();
            assertThat(LockNodes.queue(bed.client.getChildren().forPath(lockPath))).as("lease nodes").hasSize(1);
        }
    }
}
