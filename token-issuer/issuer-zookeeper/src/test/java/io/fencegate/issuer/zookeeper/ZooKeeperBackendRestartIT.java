package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.BackendRestartContract;
import java.util.UUID;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Read leases and permits held across a restart of the ZooKeeper server ({@link BackendRestartContract}),
 * on a server of this test's own that keeps its data directory: the issuers' sessions outlive a restart
 * shorter than their timeout, so held leases are expected to stay valid; losing them is allowed, an
 * overlap is not.
 */
class ZooKeeperBackendRestartIT extends BackendRestartContract {

    private TestingServer server;
    private final String root = "/fencegate-restart-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stopServer() throws Exception {
        closeSuiteIssuers(); // while the server is up: closed after it, the issuers wait for their sessions to expire
        server.close();
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root).build();
    }

    @Override
    protected void restartBackend() throws Exception {
        server.restart();
    }
}
