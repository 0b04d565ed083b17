package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.AbstractLeaseIssuerContractTest;
import java.util.UUID;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lease issuer contract on a real (in-process) ZooKeeper server, tokens from czxid. */
class ZooKeeperLeaseIssuerIT extends AbstractLeaseIssuerContractTest {

    private static TestingServer server;
    private final String root = "/fencegate-it-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    protected TokenMode tokenMode() {
        return TokenMode.ZXID;
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return ZooKeeperLeaseIssuer.builder()
                .connectString(server.getConnectString())
                .root(root)
                .tokenMode(tokenMode())
                .build();
    }
}
