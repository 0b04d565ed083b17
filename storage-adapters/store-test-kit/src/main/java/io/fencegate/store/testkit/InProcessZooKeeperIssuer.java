package io.fencegate.store.testkit;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import org.apache.curator.test.TestingServer;

/** The contract's default real issuer: a {@link ZooKeeperLeaseIssuer} on an in-process ZooKeeper server. */
final class InProcessZooKeeperIssuer {
    private InProcessZooKeeperIssuer() {
    }

    /** Where the server and the issuer go to be closed after the test. */
    interface Closer {
        <T extends AutoCloseable> T closeAfter(T resource);
    }

    static LeaseIssuer start(Closer closer) throws Exception {
        TestingServer zooKeeper = closer.closeAfter(new TestingServer(true));
        return closer.closeAfter(ZooKeeperLeaseIssuer.builder().connectString(zooKeeper.getConnectString()).build());
    }
}
