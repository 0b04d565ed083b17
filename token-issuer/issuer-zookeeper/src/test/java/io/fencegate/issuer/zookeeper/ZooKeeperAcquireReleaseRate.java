package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;

/**
 * A quick, unasserted rate of acquire+release pairs against an in-process TestingServer: one
 * thread, then 8 threads on distinct locks, one issuer instance. Run by hand; not a test.
 * Args: [seconds per run, default 5] [token mode, default ZXID]
 */
public final class ZooKeeperAcquireReleaseRate {

    private ZooKeeperAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        TokenMode mode = args.length > 1 ? TokenMode.valueOf(args[1]) : TokenMode.ZXID;
        try (TestingServer server = new TestingServer(true);
             LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString())
                     .tokenMode(mode).build()) {
            run(issuer, 1, 1); // warm-up
            for (int threads : new int[] {1, 8}) {
                long pairs = run(issuer, threads, seconds);
                System.out.printf("%s mode, %d thread(s), distinct locks: %d acquire+release pairs in %d s = %.0f/s%n",
                        mode, threads, pairs, seconds, pairs / (double) seconds);
            }
        }
    }

    private static long run(LeaseIssuer issuer, int threads, long seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String lock = "rate/" + t + "/" + System.nanoTime();
            counts.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    Lease lease = issuer.acquire(lock, Duration.ofSeconds(30), Duration.ZERO)
                            .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                    issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> count : counts) {
            total += count.get();
        }
        pool.shutdown();
        return total;
    }
}
