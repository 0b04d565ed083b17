package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pins issue 18's design without timing: in steady state an uncontended acquire+release costs
 * ZooKeeper two requests in ZXID mode (one transaction each), three in CVERSION mode (its token
 * is known only once the transaction applied, so its grant node is written after). Requests are
 * counted with Curator's tracer, which sees every operation the client sends, retries included.
 */
@Timeout(60)
class UncontendedRoundTripsIT {

    private static final int WARM_UP = 5;
    private static final int PAIRS = 50; // with the warm-up, below the grant log's prune interval
    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();

    @Test
    void anUncontendedZxidAcquireAndReleaseCostTwoRequests() throws Exception {
        assertThat(requestsPerPair(TokenMode.ZXID)).isLessThanOrEqualTo(2.0);
    }

    @Test
    void anUncontendedCversionAcquireAndReleaseCostThreeRequests() throws Exception {
        assertThat(requestsPerPair(TokenMode.CVERSION)).isLessThanOrEqualTo(3.0);
    }

    /**
     * A lock never used before (every item a gateway writes for the first time): a read that finds
     * no lock node, the grant transaction and the release transaction. The release used to find no
     * grant log parent for the lock, fail, and release the long way (five more requests).
     */
    @Test
    void aFreshZxidLockCostsThreeRequests() throws Exception {
        assertThat(requestsPerPair(TokenMode.ZXID, true)).isLessThanOrEqualTo(3.0);
    }

    private static double requestsPerPair(TokenMode mode) throws Exception {
        return requestsPerPair(mode, false);
    }

    /** {@code fresh}: every pair on a lock name of its own. */
    private static double requestsPerPair(TokenMode mode, boolean fresh) throws Exception {
        Map<String, AtomicInteger> traced = new ConcurrentHashMap<>();
        AtomicInteger requests = new AtomicInteger();
        String root = "/fencegate-trips-" + UUID.randomUUID().toString().substring(0, 8);
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(ZK.connectString(), new RetryNTimes(3, 100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.getZookeeperClient().setTracerDriver(new TracerDriver() {
                @Override
                public void addTrace(String name, long time, TimeUnit unit) {
                    requests.incrementAndGet();
                    traced.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
                }

                @Override
                public void addCount(String name, int increment) { }
            });
            try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(client).root(root).tokenMode(mode).build()) {
                String lock = "trips/" + mode;
                for (int i = 0; i < WARM_UP; i++) {
                    pair(issuer, lock);
                }
                requests.set(0);
                traced.clear();
                for (int i = 0; i < PAIRS; i++) {
                    pair(issuer, fresh ? lock + "/fresh-" + i : lock);
                }
            }
            client.getZookeeperClient().setTracerDriver(new org.apache.curator.utils.DefaultTracerDriver());
        }
        double perPair = requests.get() / (double) PAIRS;
        System.out.printf("%s%s: %.2f requests per uncontended acquire+release: %s%n", mode, fresh ? " (fresh locks)" : "", perPair, traced);
        return perPair;
    }

    private static void pair(LeaseIssuer issuer, String lock) throws Exception {
        Lease lease = issuer.acquire(lock, Duration.ofSeconds(30), Duration.ofSeconds(5)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }
}
