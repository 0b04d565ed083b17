package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lease and semaphore contracts with tokens from the lock parent's cversion
 * (sequence + 1). Lock-delay with read leases does not depend on the token mode: it runs once, in
 * {@link ZooKeeperReadWriteAndSemaphoreIT}.
 */
class CversionZooKeeperReadWriteAndSemaphoreIT extends SemaphoreContract {

    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();
    private final String root = "/fencegate-rw-cversion-" + UUID.randomUUID().toString().substring(0, 8);

    /** Half the ZXID class's stress rounds: the exclusion logic is the same, only the tokens differ. */
    @Override
    protected int readWriteRounds() {
        return 20;
    }

    @Override
    protected int permitRounds() {
        return 15;
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return ZooKeeperLeaseIssuer.builder()
                .connectString(ZK.connectString())
                .root(root)
                .tokenMode(TokenMode.CVERSION)
                .build();
    }
}
