package io.fencegate.issuer.sql;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A quick, unasserted rate of sequential acquire+release pairs on each database (a scratch
 * schema/database, dropped), with 1 and 8 threads on distinct locks, and the acquire latency's
 * p50/p99. Run by hand; not part of the test suite. Args: [seconds per run, default 5]
 */
public final class SqlAcquireReleaseRate {

    private SqlAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        for (SqlTestDatabase.Kind kind : SqlTestDatabase.Kind.values()) {
            try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer issuer = db.issuer().poolSize(8).build()) {
                run(issuer, 1, 1, new ArrayList<>()); // warm-up
                for (int threads : new int[] {1, 8}) {
                    List<Long> acquireNanos = java.util.Collections.synchronizedList(new ArrayList<>());
                    long pairs = run(issuer, threads, seconds, acquireNanos);
                    long[] sorted = acquireNanos.stream().mapToLong(Long::longValue).sorted().toArray();
                    System.out.printf("%s threads=%d acquire+release pairs/s=%.0f acquire p50=%d us p99=%d us%n", kind,
                            threads, pairs / (double) seconds, sorted[sorted.length / 2] / 1000, sorted[(int) (sorted.length * 0.99)] / 1000);
                }
            }
        }
    }

    private static long run(SqlLeaseIssuer issuer, int threads, long seconds, List<Long> acquireNanos) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String lock = "rate/" + t;
            counts.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    Lease lease = issuer.acquire(lock, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture().get().orElseThrow();
                    acquireNanos.add(System.nanoTime() - start);
                    issuer.release(lease.leaseId()).toCompletableFuture().get();
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
