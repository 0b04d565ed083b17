package io.fencegate.issuer.zookeeper;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-process ZooKeeper server for a test class, started before its first test and closed
 * after its last: {@code @RegisterExtension static final InProcessZooKeeper ZK = new InProcessZooKeeper();}
 */
final class InProcessZooKeeper implements BeforeAllCallback, AfterAllCallback {
    private TestingServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = new TestingServer(true);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        server.close();
    }

    String connectString() {
        return server.getConnectString();
    }
}
