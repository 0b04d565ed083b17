package io.fencegate.issuer.testkit;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A quick, unasserted rate of sequential acquire+release pairs, each thread on its own lock, with
 * the acquire latency's p50/p99: the by-hand probe each issuer module runs on its own backend
 * (bench/ holds the measured comparisons). Not a test.
 */
public final class AcquireReleaseRate {

    private AcquireReleaseRate() {
    }

    /** A one-second warm-up, then {@code seconds} at each thread count, printed with {@code label}. */
    public static void print(String label, LeaseIssuer issuer, long seconds, int... threadCounts) throws Exception {
        run(issuer, 1, 1, new ArrayList<>());
        for (int threads : threadCounts) {
            List<Long> acquireNanos = Collections.synchronizedList(new ArrayList<>());
            long pairs = run(issuer, threads, seconds, acquireNanos);
            long[] sorted = acquireNanos.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("%s threads=%d acquire+release pairs/s=%.0f (%d in %d s) acquire p50=%d us p99=%d us%n",
                    label, threads, pairs / (double) seconds, pairs, seconds,
                    sorted[sorted.length / 2] / 1000, sorted[(int) (sorted.length * 0.99)] / 1000);
        }
    }

    private static long run(LeaseIssuer issuer, int threads, long seconds, List<Long> acquireNanos) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<Long>> counts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String lock = "rate/" + t;
                counts.add(pool.submit(() -> {
                    long n = 0;
                    while (System.nanoTime() < end) {
                        long start = System.nanoTime();
                        Lease lease = issuer.acquire(lock, Duration.ofSeconds(30), Duration.ZERO)
                                .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
                        acquireNanos.add(System.nanoTime() - start);
                        issuer.release(lease.leaseId()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                        n++;
                    }
                    return n;
                }));
            }
            long total = 0;
            for (Future<Long> count : counts) {
                total += count.get();
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }
}
