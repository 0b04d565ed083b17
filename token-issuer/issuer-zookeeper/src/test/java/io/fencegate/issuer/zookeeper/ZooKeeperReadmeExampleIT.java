package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the README's ZooKeeper issuer snippet; the watchdog keeps a short lease past its ttl. */
@Timeout(60)
class ZooKeeperReadmeExampleIT {

    @Test
    void readmeSnippetRunsAndWatchdogKeepsTheLeaseAlive() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        try (TestingServer server = new TestingServer(true)) {
            String connectString = server.getConnectString();
            // --- README snippet begins
            LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder()
                    .connectString(connectString)              // e.g. "zk1:2181,zk2:2181,zk3:2181"
                    .tokenMode(TokenMode.ZXID)                 // default; CVERSION = dense per-lock tokens
                    .operationTimeout(Duration.ofSeconds(5))   // every ZooKeeper call is bounded
                    .build();
            issuer.addListener((lease, reason) -> told.add(lease.lock() + " ended: " + reason));
            try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
                Duration ttl = Duration.ofMillis(600);
                Optional<Lease> lease = issuer.acquire("orders/42", ttl, Duration.ofSeconds(2))
                        .toCompletableFuture().join();
                if (lease.isPresent()) {
                    LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(lease.get(), ttl,
                            lost -> told.add("stop writing, lease gone: " + lost.token()));
                    long token = lease.get().token();          // send as Fencing-Token with every write
                    // ... token-guarded writes, each while keepAlive.holds() ...
                    // --- README snippet pauses
                    assertThat(token).isPositive();
                    Thread.sleep(1_500); // 2.5 ttls: alive only thanks to the watchdog
                    try (LeaseIssuer other = ZooKeeperLeaseIssuer.builder().connectString(connectString).build()) {
                        assertThat(other.acquire("orders/42", ttl, Duration.ZERO).toCompletableFuture().join()).isEmpty();
                        assertThat(other.wasGranted("orders/42", token).toCompletableFuture().join()).isTrue();
                    }
                    // --- README snippet resumes
                    keepAlive.release().toCompletableFuture().join();
                }
            }
            issuer.close();
            // --- README snippet ends
        }
        assertThat(told).isEmpty();
    }
}
