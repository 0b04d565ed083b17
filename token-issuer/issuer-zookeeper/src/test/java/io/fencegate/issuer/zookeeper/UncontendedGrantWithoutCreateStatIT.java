package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.KnownGrants;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ZooKeeper server before 3.9 answers a create inside a transaction without the node's stat
 * (ZOOKEEPER-4026). A one-trip ZXID grant then reads the lease node's stat: the token is still
 * its czxid, and the grant is still the one the lock node records.
 */
@Timeout(60)
class UncontendedGrantWithoutCreateStatIT {

    @Test
    void aGrantAnsweredWithoutTheCreatesStatReadsItsTokenFromTheLeaseNode() throws Exception {
        String root = "/fencegate-nostat-" + UUID.randomUUID().toString().substring(0, 8);
        try (EngineTestbed bed = new EngineTestbed()) {
            IssuerParts parts = bed.parts(root, TokenMode.ZXID);
            UncontendedGrant grant = new UncontendedGrant(parts, new TokenModeMarker(parts),
                    UncontendedGrantWithoutCreateStatIT::withoutCreateStats);
            String lock = "nostat/1";
            bed.client.create().creatingParentsIfNeeded().forPath(new LockNodes(root).lockPath(lock), new byte[0]);

            Lease lease = new Acquisition(parts, lock, 10_000, 5_000, 0, new AcquisitionDriver(parts, new LockDelays(parts), grant)).start()
                    .get(10, TimeUnit.SECONDS).orElseThrow();

            List<String> queue = LockNodes.queue(bed.client.getChildren().forPath(new LockNodes(root).lockPath(lock)));
            assertThat(queue).hasSize(1);
            Stat leaseNode = bed.client.checkExists().forPath(new LockNodes(root).lockPath(lock) + "/" + queue.get(0));
            assertThat(lease.token()).as("token").isEqualTo(leaseNode.getCzxid());
            Stat lockNode = bed.client.checkExists().forPath(new LockNodes(root).lockPath(lock));
            assertThat(lockNode.getMzxid()).as("the grant the lock node records").isEqualTo(lease.token());
            assertThat(new GrantLog(bed.client, parts.zk(), parts.nodes(), new KnownGrants(GrantLog.CACHE_ENTRIES)).wasGranted(lock, lease.token())
                    .get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** The answer as a server before 3.9 gives it: create results without a stat. */
    private static CuratorEvent withoutCreateStats(CuratorEvent real) {
        List<CuratorTransactionResult> results = real.getOpResults() == null ? null : real.getOpResults().stream()
                .map(r -> new CuratorTransactionResult(r.getType(), r.getForPath(), r.getResultPath(),
                        r.getResultPath() != null ? null : r.getResultStat(), r.getError()))
                .toList();
        return (CuratorEvent) Proxy.newProxyInstance(CuratorEvent.class.getClassLoader(), new Class<?>[] {CuratorEvent.class},
                (proxy, method, args) -> method.getName().equals("getOpResults") ? results : method.invoke(real, args));
    }
}
