package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.GrantOrder;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kills the leader of a 3-server ensemble while holders acquire and release: tokens (czxid) keep
 * strictly increasing per lock, because the new leader's epoch is larger, and leases stay
 * exclusive. Calls may fail during the election (IssuerUnavailableException); none may hang.
 */
@Timeout(180)
class TokensIncreaseAcrossLeaderKillIT {

    private static final String[] LOCKS = {"ledger/a", "ledger/b"};

    @Test
    void tokensStrictlyIncreaseAndLeasesStayExclusiveAcrossLeaderKill() throws Exception {
        try (TestingCluster cluster = new TestingCluster(3)) {
            cluster.start();
            LeaseIssuer a = issuer(cluster);
            LeaseIssuer b = issuer(cluster);
            GrantOrder order = new GrantOrder();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger grants = new AtomicInteger();
            AtomicInteger failures = new AtomicInteger();
            long maxTokenBeforeKill;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    LeaseIssuer issuer = t % 2 == 0 ? a : b;
                    workers.add(pool.submit(() -> {
                        while (!stop.get()) {
                            String lock = LOCKS[ThreadLocalRandom.current().nextInt(LOCKS.length)];
                            Optional<Lease> granted;
                            try {
                                granted = issuer.acquire(lock, Duration.ofSeconds(3), Duration.ofSeconds(5))
                                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
                            } catch (java.util.concurrent.ExecutionException e) {
                                failures.incrementAndGet(); // election in progress
                                Thread.sleep(50);
                                continue;
                            }
                            if (granted.isEmpty()) {
                                continue;
                            }
                            Lease lease = granted.get();
                            order.granted(lock, lease);
                            grants.incrementAndGet();
                            Thread.sleep(2);
                            order.releasing(lock);
                            try {
                                issuer.release(lease.leaseId()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                            } catch (java.util.concurrent.ExecutionException e) {
                                failures.incrementAndGet(); // the lease then ends by its ttl
                            }
                        }
                        return null;
                    }));
                }
                awaitGrants(grants, 30);
                maxTokenBeforeKill = order.maxToken();
                InstanceSpec leader = leaderOf(cluster);
                assertThat(cluster.killServer(leader)).isTrue();
                int grantsAtKill = grants.get();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (grants.get() < grantsAtKill + 30 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                stop.set(true);
                for (Future<?> worker : workers) {
                    worker.get(60, TimeUnit.SECONDS);
                }
                assertThat(grants.get()).as("grants after the kill").isGreaterThanOrEqualTo(grantsAtKill + 30);
            } finally {
                stop.set(true);
                pool.shutdownNow();
                a.close();
                b.close();
            }
            assertThat(order.violations()).isEmpty();
            long epochBefore = maxTokenBeforeKill >>> 32;
            long maxEpochAfter = 0;
            for (String lock : LOCKS) {
                List<Long> seen = order.tokens(lock);
                assertThat(seen).doesNotHaveDuplicates().isSorted();
                for (long token : seen) {
                    maxEpochAfter = Math.max(maxEpochAfter, token >>> 32);
                }
            }
            System.out.printf("leader kill: %d grants, %d failed calls, epoch %d -> %d%n",
                    grants.get(), failures.get(), epochBefore, maxEpochAfter);
            assertThat(maxEpochAfter).as("tokens granted under the new leader's epoch").isGreaterThan(epochBefore);
        }
    }

    private static void awaitGrants(AtomicInteger grants, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (grants.get() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(grants.get()).as("grants before the kill").isGreaterThanOrEqualTo(atLeast);
    }

    private static LeaseIssuer issuer(TestingCluster cluster) {
        return ZooKeeperLeaseIssuer.builder()
                .connectString(cluster.getConnectString())
                .root("/fencegate-leader-kill")
                .operationTimeout(Duration.ofSeconds(3))
                .sessionTimeout(Duration.ofSeconds(20))
                .build();
    }

    /** The leader, found with the {@code srvr} four-letter word ("Mode: leader"). */
    static InstanceSpec leaderOf(TestingCluster cluster) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            for (TestingZooKeeperServer server : cluster.getServers()) {
                InstanceSpec spec = server.getInstanceSpec();
                if (srvr(spec.getPort()).contains("Mode: leader")) {
                    return spec;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no server reports Mode: leader");
    }

    private static String srvr(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (Exception e) {
            return "";
        }
    }
}
