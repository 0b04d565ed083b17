package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.AbstractLeaseIssuerContractTest;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lease issuer contract on a real (in-process) ZooKeeper server, tokens from czxid. */
class ZooKeeperLeaseIssuerIT extends AbstractLeaseIssuerContractTest {

    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();
    private final String root = "/fencegate-it-" + UUID.randomUUID().toString().substring(0, 8);

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
