package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CVERSION tokens come from the lock parent's child counter. If that parent were a CONTAINER
 * node, the server would reap it while empty and its successor would count from 0 again:
 * tokens would go backwards. This runs the server's container reaper every 100 ms, proves it
 * really reaps (a control container vanishes), and proves the lock's parent does not.
 */
@Timeout(60)
class CversionTokensSurviveContainerReapingIT {

    private static final String REAP_INTERVAL = "znode.container.checkIntervalMs";
    private static TestingServer server;
    private static String previousInterval;

    @BeforeAll
    static void startServerWithFastReaper() throws Exception {
        // Read once at server start, so it must be set before.
        previousInterval = System.setProperty(REAP_INTERVAL, "100");
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
        if (previousInterval == null) {
            System.clearProperty(REAP_INTERVAL);
        } else {
            System.setProperty(REAP_INTERVAL, previousInterval);
        }
    }

    @Test
    void tokensKeepIncreasingAfterLockParentStayedEmptyPastReapInterval() throws Exception {
        String root = "/fencegate-reap-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "inventory/sku-1";
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
             LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(startedClient(client))
                     .root(root).tokenMode(TokenMode.CVERSION).build()) {
            long last = 0;
            for (int i = 0; i < 3; i++) {
                Lease lease = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS).orElseThrow();
                assertThat(lease.token()).isGreaterThan(last);
                last = lease.token();
                assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            }
            String lockParent = new LockNodes(root).lockPath(lock);
            assertThat(client.getChildren().forPath(lockParent)).as("lock parent is empty").isEmpty();

            // Control: a container parent that once had a child is reaped here.
            String control = root + "-control/container";
            client.create().creatingParentContainersIfNeeded().forPath(control + "/child");
            client.delete().forPath(control + "/child");
            await().atMost(Duration.ofSeconds(10)).until(() -> client.checkExists().forPath(control) == null);

            Thread.sleep(1_000); // ten reaper rounds past the control's reaping
            assertThat(client.checkExists().forPath(lockParent)).as("persistent lock parent survives").isNotNull();

            Lease next = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.token()).isGreaterThan(last);
            assertThat(issuer.wasGranted(lock, next.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static CuratorFramework startedClient(CuratorFramework client) throws InterruptedException {
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }
}
