package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import io.fencegate.issuer.MultiLock;
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
                Duration ttl = Duration.ofSeconds(2); // renewed every ttl/3: room for a loaded machine
                Optional<Lease> lease = issuer.acquire("orders/42", ttl, Duration.ofSeconds(2))
                        .toCompletableFuture().join();
                if (lease.isPresent()) {
                    LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(lease.get(), ttl,
                            lost -> told.add("stop writing, lease gone: " + lost.token()));
                    long token = lease.get().token();          // send as Fencing-Token with every write
                    // ... token-guarded writes, each while keepAlive.holds() ...
                    // --- README snippet pauses
                    assertThat(token).isPositive();
                    Thread.sleep(5_000); // 2.5 ttls: alive only thanks to the watchdog
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

    /** Runs library.md's MultiLock snippet: two locks as one group, each with its own lock's token. */
    @Test
    void multiLockSnippetRuns() throws Exception {
        try (TestingServer server = new TestingServer(true);
                LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).build()) {
            // library.md's snippet, as printed there
            MultiLock multi = new MultiLock(issuer);
            Optional<LeaseGroup> group = multi.acquire(List.of("accounts/bob", "accounts/alice"),
                    Duration.ofSeconds(10), Duration.ofSeconds(2)).toCompletableFuture().join();
            if (group.isPresent()) {                       // empty: a lock stayed held, and nothing is held
                long alice = group.get().token("accounts/alice");  // each lock's own token
                long bob = group.get().token("accounts/bob");
                // ... write alice's item with alice's token, bob's with bob's ...
                // renew every ttl/3; empty means a member is gone: stop writing
                boolean held = multi.renew(group.get()).toCompletableFuture().join().isPresent();
                multi.release(group.get()).toCompletableFuture().join();
            }
            // the snippet ends
            assertThat(group).isPresent();
            assertThat(group.get().locks()).containsExactly("accounts/alice", "accounts/bob");
            assertThat(group.get().token("accounts/alice")).isPositive().isNotEqualTo(group.get().token("accounts/bob"));
            assertThat(issuer.acquire("accounts/alice", Duration.ofSeconds(1), Duration.ZERO).toCompletableFuture().join())
                    .as("released").isPresent();
            assertThat(multi.renew(group.get()).toCompletableFuture().join()).as("a released group renews no more").isEmpty();
        }
    }
}
