package io.fencegate.store.testkit;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.time.Duration;
import org.apache.curator.test.TestingServer;

/**
 * The real issuer the suite's counter test takes tokens from: a {@link ZooKeeperLeaseIssuer}
 * (zxid tokens) on an in-process ZooKeeper ({@link TestingServer}) that lives as long as the
 * test. Nothing shared, nothing to clean up. Swap in another issuer by overriding
 * {@link AbstractGuardedStoreContractTest#newLeaseIssuer()}.
 */
final class ContractIssuer implements AutoCloseable {

    private final TestingServer server;
    private final LeaseIssuer issuer;

    ContractIssuer() {
        try {
            server = new TestingServer(true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start an in-process ZooKeeper: " + e.getMessage(), e);
        }
        issuer = ZooKeeperLeaseIssuer.builder()
                .connectString(server.getConnectString())
                .operationTimeout(Duration.ofSeconds(5))
                .build();
    }

    LeaseIssuer issuer() {
        return issuer;
    }

    @Override
    public void close() throws java.io.IOException {
        try {
            issuer.close();
        } finally {
            server.close();
        }
    }
}
