package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.KnownGrants;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;

/** An in-process ZooKeeper, a client and a scheduler, for tests that drive the issuer's engine parts directly. */
final class EngineTestbed implements AutoCloseable {

    final TestingServer server;
    final CuratorFramework client;
    final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    EngineTestbed() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
        client.start();
    }

    IssuerParts parts(String root, TokenMode mode) {
        LockNodes nodes = new LockNodes(root);
        AsyncZk zk = new AsyncZk(Duration.ofSeconds(5), scheduler);
        return new IssuerParts(client, zk, nodes, mode, scheduler, new GrantLog(client, zk, nodes, new KnownGrants(GrantLog.CACHE_ENTRIES)),
                new HeldLeases(client, zk, scheduler, (lease, reason) -> { }), Clock.systemUTC());
    }

    @Override
    public void close() throws Exception {
        scheduler.shutdownNow();
        client.close();
        server.close();
    }
}
