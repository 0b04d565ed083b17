package io.fencegate.bench;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Distinct locks: for each size, that many fresh lock names are each leased and released once
 * (16 in flight), then left idle. The acquire+release p99 at the largest size over the smallest
 * is the flatness figure; the backend's growth over the empty baseline, per idle lock, is its
 * cost; after the idle time ({@code forgetIdleLocksAfter} on ZooKeeper, the grant retention on
 * Redis) the backend should be back near its baseline.
 */
final class DistinctLocks {
    static final int IN_FLIGHT = 16;
    static final Duration FORGET_AFTER = Duration.ofSeconds(10);

    /** One size's result. */
    record Point(long locks, double p50Ms, double p99Ms, double opsPerSec, long backendGrowth, long backendCount) { }

    /** One backend's curve, its baseline and what is left after the idle time. */
    record Curve(String backend, String countName, String bytesName, long baselineCount, long baselineBytes,
                 List<Point> points, long countAfterForget, long bytesAfterForget, long waitedForgetMs) { }

    private DistinctLocks() {}

    static Curve zookeeper(String connectString, ZooKeeperFacts facts, long[] sizes) throws Exception {
        String root = "/scale-locks-" + UUID.randomUUID().toString().substring(0, 8);
        try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(connectString).root(root)
                .forgetIdleLocksAfter(FORGET_AFTER).build()) {
            warmUp(issuer);
            long count0 = facts.znodes();
            long bytes0 = facts.dataBytes();
            List<Point> points = new ArrayList<>();
            for (long n : sizes) {
                Point p = run(issuer, "z" + n + "-", n, () -> facts.dataBytes() - bytes0, facts::znodes);
                points.add(p);
            }
            long waited = awaitBack(facts::znodes, count0, sizes);
            return new Curve("ZooKeeper", "znodes", "zk_approximate_data_size", count0, bytes0, points,
                    facts.znodes(), facts.dataBytes(), waited);
        }
    }

    static Curve redis(Path workDir, long[] sizes) throws Exception {
        String prefix = "fencegate-scale:" + UUID.randomUUID() + ":";
        RedisClient lettuce = RedisClient.create(RedisLeases.URI);
        try (StatefulRedisConnection<String, String> redis = lettuce.connect();
             LeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisLeases.URI).keyPrefix(prefix)
                     .grantRetention(FORGET_AFTER)
                     .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("scale-tokens.mark"))))) {
            warmUp(issuer);
            Counter keys = () -> countKeys(redis, prefix);
            Counter used = () -> usedMemory(redis);
            long count0 = keys.get();
            long bytes0 = used.get();
            List<Point> points = new ArrayList<>();
            for (long n : sizes) {
                points.add(run(issuer, "r" + n + "-", n, () -> used.get() - bytes0, keys));
            }
            long waited = awaitBack(keys, count0, sizes);
            Curve curve = new Curve("Redis", "keys under the prefix", "used_memory", count0, bytes0, points,
                    keys.get(), used.get(), waited);
            List<String> left = new ArrayList<>();
            scan(redis, prefix, left);
            if (!left.isEmpty()) {
                for (int i = 0; i < left.size(); i += 1000) {
                    redis.sync().del(left.subList(i, Math.min(left.size(), i + 1000)).toArray(String[]::new));
                }
            }
            return curve;
        } finally {
            lettuce.shutdown();
        }
    }

    @FunctionalInterface
    interface Counter {
        long get() throws Exception;
    }

    /** The JIT and the connections warm, on lock names of their own, before anything is measured. */
    private static void warmUp(LeaseIssuer issuer) throws Exception {
        run(issuer, "warm-", 3000, () -> 0, () -> 0);
    }

    private static Point run(LeaseIssuer issuer, String prefix, long n, Counter growth, Counter count) throws Exception {
        Histogram latency = Sample.newHistogram();
        Semaphore slots = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        for (long i = 0; i < n && failure.get() == null; i++) {
            if (!slots.tryAcquire(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no acquire+release finished in 120 s");
            }
            long before = System.nanoTime();
            issuer.acquire(prefix + i, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .thenCompose(lease -> lease.isPresent()
                            ? issuer.release(lease.get().leaseId()).toCompletableFuture()
                            : CompletableFuture.failedFuture(new IllegalStateException("a fresh lock was held")))
                    .whenComplete((ok, error) -> {
                        if (error != null) {
                            failure.compareAndSet(null, error);
                        } else {
                            synchronized (latency) {
                                latency.recordValue(Math.max(1, (System.nanoTime() - before) / 1000));
                            }
                        }
                        slots.release();
                    });
        }
        if (!slots.tryAcquire(IN_FLIGHT, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the last acquire+release did not finish in 120 s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("acquire+release failed: " + failure.get(), failure.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Point p = new Point(n, latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
                n / seconds, growth.get(), count.get());
        System.err.printf(Locale.ROOT, "bench scale: %s%d locks: %.0f/s, p50 %.2f ms, p99 %.2f ms, growth %d B, count %d%n",
                prefix, n, p.opsPerSec(), p.p50Ms(), p.p99Ms(), p.backendGrowth(), p.backendCount());
        return p;
    }

    /** Waits (bounded) until {@code count} is back within 10% of the sizes' total above {@code baseline}. */
    private static long awaitBack(Counter count, long baseline, long[] sizes) throws Exception {
        long start = System.nanoTime();
        long total = 0;
        for (long n : sizes) {
            total += n;
        }
        // A sweep deletes at most 1000 locks a run (every forgetIdleLocksAfter/10): give it that long, and a margin.
        long limitMs = FORGET_AFTER.toMillis() * 3 + total / 1000 * (FORGET_AFTER.toMillis() / 10) * 2;
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(limitMs)) {
            if (count.get() <= baseline + Math.max(10, baseline / 10)) {
                break;
            }
            Thread.sleep(1000);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static long countKeys(StatefulRedisConnection<String, String> redis, String prefix) {
        List<String> keys = new ArrayList<>();
        scan(redis, prefix, keys);
        return keys.size();
    }

    private static void scan(StatefulRedisConnection<String, String> redis, String prefix, List<String> into) {
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.sync().scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(10_000));
            into.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
    }

    private static long usedMemory(StatefulRedisConnection<String, String> redis) {
        for (String line : redis.sync().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        return -1;
    }
}
