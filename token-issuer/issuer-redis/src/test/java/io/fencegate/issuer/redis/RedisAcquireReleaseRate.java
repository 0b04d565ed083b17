package io.fencegate.issuer.redis;

import io.fencegate.issuer.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A quick, unasserted rate of sequential acquire+release pairs on 127.0.0.1:6379 (random prefix,
 * cleaned up), with 1 and 16 threads on distinct locks, and the acquire latency's p50/p99. Run by
 * hand; not part of the test suite.
 * Args: [seconds per run, default 5]
 */
public final class RedisAcquireReleaseRate {

    private RedisAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        String prefix = RedisTestPrefix.random();
        Path dir = Files.createTempDirectory("fencegate-rate");
        try (RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix).highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))))) {
            run(issuer, 1, 1, new ArrayList<>()); // warm-up
            for (int threads : new int[] {1, 16}) {
                List<Long> acquireNanos = java.util.Collections.synchronizedList(new ArrayList<>());
                long pairs = run(issuer, threads, seconds, acquireNanos);
                long[] sorted = acquireNanos.stream().mapToLong(Long::longValue).sorted().toArray();
                System.out.printf("threads=%d acquire+release pairs/s=%.0f (%d in %d s) acquire p50=%d us p99=%d us%n",
                        threads, pairs / (double) seconds, pairs, seconds,
                        sorted[sorted.length / 2] / 1000, sorted[(int) (sorted.length * 0.99)] / 1000);
            }
        } finally {
            RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
        }
    }

    private static long run(RedisLeaseIssuer issuer, int threads, long seconds, List<Long> acquireNanos) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String lock = "rate-" + t;
            counts.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    long started = System.nanoTime();
                    Lease lease = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO)
                            .toCompletableFuture().get(5, TimeUnit.SECONDS).orElseThrow();
                    acquireNanos.add(System.nanoTime() - started);
                    issuer.release(lease.leaseId()).toCompletableFuture().get(5, TimeUnit.SECONDS);
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
