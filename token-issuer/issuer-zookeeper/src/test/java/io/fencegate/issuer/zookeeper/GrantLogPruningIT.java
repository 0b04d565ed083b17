package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The durable grant record keeps the newest grants per lock and forgets the oldest. */
@Timeout(120)
class GrantLogPruningIT {

    @Test
    void newestGrantsStayKnownOldestAreForgottenAndTheRecordStaysBounded() throws Exception {
        String root = "/fencegate-prune-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "hot/lock";
        int grants = GrantLog.KEEP_PER_LOCK + 150;
        try (EngineTestbed bed = new EngineTestbed()) {
            CuratorFramework client = bed.client;
            List<Long> tokens = new ArrayList<>();
            try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(client).root(root).build()) {
                for (int i = 0; i < grants; i++) {
                    Lease lease = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                            .get(10, TimeUnit.SECONDS).orElseThrow();
                    tokens.add(lease.token());
                    issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                }
            }
            String grantsPath = new LockNodes(root).grantsPath(lock);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> client.getChildren().forPath(grantsPath).size() <= GrantLog.KEEP_PER_LOCK + 100);
            // A fresh instance has no cache: it answers from ZooKeeper alone.
            try (LeaseIssuer fresh = ZooKeeperLeaseIssuer.builder().client(client).root(root).build()) {
                assertThat(fresh.wasGranted(lock, tokens.get(0)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("oldest grant forgotten").isFalse();
                for (long token : tokens.subList(tokens.size() - GrantLog.KEEP_PER_LOCK, tokens.size())) {
                    assertThat(fresh.wasGranted(lock, token).toCompletableFuture().get(10, TimeUnit.SECONDS))
                            .as("recent grant %d", token).isTrue();
                }
            }
        }
    }
}
