package io.fencegate.spring.integration;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The registry contract on ZooKeeper (Curator's TestingServer). */
class ZooKeeperFencedLockRegistryIT extends FencedLockRegistryContract {
    private static TestingServer zookeeper;
    private String root;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stop() throws Exception {
        zookeeper.close();
    }

    @BeforeEach
    void root() {
        root = "/fg-si-" + ThreadLocalRandom.current().nextInt(1 << 30);
    }

    @Override
    protected LeaseIssuer newIssuer() {
        if (root == null) {
            root();
        }
        return ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).root(root).build();
    }
}
