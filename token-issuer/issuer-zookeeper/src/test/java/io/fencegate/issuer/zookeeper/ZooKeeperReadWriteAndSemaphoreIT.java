package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lease and fenced semaphore contracts ({@link SemaphoreContract} runs both) on a real
 * (in-process) ZooKeeper server, tokens from czxid.
 */
class ZooKeeperReadWriteAndSemaphoreIT extends SemaphoreContract {

    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();
    private final String root = "/fencegate-rw-" + UUID.randomUUID().toString().substring(0, 8);

    protected TokenMode tokenMode() {
        return TokenMode.ZXID;
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return ZooKeeperLeaseIssuer.builder()
                .connectString(ZK.connectString())
                .root(root)
                .tokenMode(tokenMode())
                .build();
    }
}
