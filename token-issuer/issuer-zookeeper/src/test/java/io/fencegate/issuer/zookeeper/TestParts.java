package io.fencegate.issuer.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;

/** The issuer's engine parts on a test's own client and scheduler, for tests that drive an acquisition directly. */
final class TestParts {

    private TestParts() { }

    static IssuerParts of(CuratorFramework client, ScheduledExecutorService scheduler, String root, TokenMode mode) {
        LockNodes nodes = new LockNodes(root);
        AsyncZk zk = new AsyncZk(Duration.ofSeconds(5), scheduler);
        return new IssuerParts(client, zk, nodes, mode, scheduler, new GrantLog(client, zk, nodes),
                new HeldLeases(client, zk, scheduler, Clock.systemUTC()), Clock.systemUTC());
    }
}
