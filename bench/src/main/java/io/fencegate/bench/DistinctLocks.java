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
 * Distinct locks: for each size, fresh lock names are leased and released once until that many
 * are there (the sizes add up), then left idle. The fill runs {@link #LOAD_IN_FLIGHT} in flight;
 * the last {@code timed} locks of every size (the same count at every size) are measured apart,
 * {@link #IN_FLIGHT} in flight, so the p99 compares like with like. The acquire+release p99 at the
 * largest size over the smallest is the flatness figure; the backend's and the issuer's growth
 * over their empty baselines, per idle lock, are its cost; after the idle time
 * ({@code forgetIdleLocksAfter} on ZooKeeper, the grant retention on Redis) both should be back
 * near their baselines.
 */
final class DistinctLocks {
    static final int IN_FLIGHT = 16;
    static final int LOAD_IN_FLIGHT = 64;
    /** Timed at the end of every size (fewer if the smallest size is smaller). */
    static final int TIMED = 1000;

    /** One size's result: the timed phase's latency and rate, the fill's rate, the backend's growth and count. */
    record Point(long locks, double p50Ms, double p99Ms, double opsPerSec, double loadOpsPerSec, long backendGrowth,
                 long backendCount) { }

    /**
     * Memory at one moment: the bench JVM's heap after a full GC (the issuers; nothing else of size
     * lives there), the backend's bytes (zk_approximate_data_size, used_memory) and, for the
     * ZooKeeper child, its heap after a full GC and RSS (-1 for Redis).
     */
    record Memory(long issuerHeap, long backendBytes, long backendHeap, long backendRss) { }

    /** One backend's curve, its baseline and what is left after the idle time. */
    record Curve(String backend, String countName, String bytesName, long baselineCount, List<Point> points,
                 long countAfterForget, long waitedForgetMs, Duration forgetAfter, Memory empty, Memory full,
                 Memory forgotten) {
        /** Locks present at the largest size: its count over the baseline, over the smallest size's count per lock. */
        double locksAtFull() {
            Point first = points.get(0);
            Point last = points.get(points.size() - 1);
            double perLock = (first.backendCount() - baselineCount) / (double) first.locks();
            return perLock <= 0 ? last.locks() : (last.backendCount() - baselineCount) / perLock;
        }
    }

    /** One backend being filled, then forgotten: {@link #fill}, then {@link #finish}. */
    static final class Run implements AutoCloseable {
        private final String backend;
        private final String countName;
        private final String bytesName;
        private final LeaseIssuer issuer;
        private final String prefix;
        private final Counter count;
        private final Counter bytes;
        private final ZooKeeperChild child;
        private final Duration forgetAfter;
        private final AutoCloseable cleanUp;
        private long count0;
        private Memory empty;
        private Memory full;
        private long filledAt;
        private final List<Point> points = new ArrayList<>();

        private Run(String backend, String countName, String bytesName, LeaseIssuer issuer, String prefix, Counter count,
                    Counter bytes, ZooKeeperChild child, Duration forgetAfter, AutoCloseable cleanUp) {
            this.backend = backend;
            this.countName = countName;
            this.bytesName = bytesName;
            this.issuer = issuer;
            this.prefix = prefix;
            this.count = count;
            this.bytes = bytes;
            this.child = child;
            this.forgetAfter = forgetAfter;
            this.cleanUp = cleanUp;
        }

        private Memory memory() throws Exception {
            long heap = ProcessMemory.heapAfterGc(ProcessHandle.current().pid());
            return new Memory(heap, bytes.get(), child == null ? -1 : ProcessMemory.heapAfterGc(child.pid()),
                    child == null ? -1 : ProcessMemory.rss(child.pid(), false));
        }

        /** The JIT and the connections warm, on lock names of their own, before anything is measured. */
        Run warmUp() throws Exception {
            run(issuer, "warm-", 0, 3000, IN_FLIGHT, null);
            return this;
        }

        /** Leases and releases fresh locks until each size is reached; {@link #warmUp} first. */
        Run fill(long[] sizes) throws Exception {
            count0 = count.get();
            empty = memory();
            int timed = (int) Math.min(TIMED, sizes[0]);
            long done = 0;
            for (long n : sizes) {
                long start = System.nanoTime();
                run(issuer, prefix, done, n - timed, LOAD_IN_FLIGHT, null);
                double loadSeconds = (System.nanoTime() - start) / 1e9;
                long loaded = Math.max(0, n - timed - done);
                Histogram latency = Sample.newHistogram();
                long t0 = System.nanoTime();
                run(issuer, prefix, Math.max(done, n - timed), n, IN_FLIGHT, latency);
                double seconds = (System.nanoTime() - t0) / 1e9;
                done = n;
                Point p = new Point(n, latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
                        timed / seconds, loaded == 0 ? Double.NaN : loaded / loadSeconds, bytes.get() - empty.backendBytes(),
                        count.get());
                System.err.printf(Locale.ROOT, "bench scale: %s %,d locks: filled at %.0f/s; timed %d: %.0f/s, p50 %.2f ms,"
                                + " p99 %.2f ms; growth %d B, count %d%n", backend, n, p.loadOpsPerSec(), timed, p.opsPerSec(),
                        p.p50Ms(), p.p99Ms(), p.backendGrowth(), p.backendCount());
                points.add(p);
            }
            filledAt = System.nanoTime();
            full = memory();
            return this;
        }

        /** Waits for the idle time to forget the locks, then measures what is left. */
        Curve finish() throws Exception {
            awaitBack(count, count0, forgetAfter);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - filledAt);
            return new Curve(backend, countName, bytesName, count0, points, count.get(), waited, forgetAfter, empty, full,
                    memory());
        }

        @Override
        public void close() throws Exception {
            try {
                issuer.close();
            } finally {
                cleanUp.close();
            }
        }
    }

    private DistinctLocks() {}

    static Run zookeeper(ZooKeeperChild zookeeper, ZooKeeperFacts facts, Duration forgetAfter) {
        String root = "/scale-locks-" + UUID.randomUUID().toString().substring(0, 8);
        LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.connectString()).root(root)
                .forgetIdleLocksAfter(forgetAfter).build();
        return new Run("ZooKeeper", "znodes", "zk_approximate_data_size", issuer, "z-", facts::znodes, facts::dataBytes,
                zookeeper, forgetAfter, () -> { });
    }

    static Run redis(Path workDir, Duration forgetAfter) {
        String prefix = "fencegate-scale:" + UUID.randomUUID() + ":";
        RedisClient lettuce = RedisClient.create(RedisLeases.URI);
        StatefulRedisConnection<String, String> redis = lettuce.connect();
        LeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisLeases.URI).keyPrefix(prefix)
                .grantRetention(forgetAfter)
                .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("scale-tokens.mark"))));
        return new Run("Redis", "keys under the prefix", "used_memory", issuer, "r-", () -> countKeys(redis, prefix),
                () -> usedMemory(redis), null, forgetAfter, () -> {
                    List<String> left = new ArrayList<>();
                    scan(redis, prefix, left);
                    for (int i = 0; i < left.size(); i += 1000) {
                        redis.sync().del(left.subList(i, Math.min(left.size(), i + 1000)).toArray(String[]::new));
                    }
                    redis.close();
                    lettuce.shutdown();
                });
    }

    @FunctionalInterface
    interface Counter {
        long get() throws Exception;
    }

    /**
     * Leases and releases locks {@code prefix + from} to {@code prefix + (to - 1)}, {@code inFlight}
     * at once; each acquire+release's latency goes into {@code latency} unless it is null.
     */
    private static void run(LeaseIssuer issuer, String prefix, long from, long to, int inFlight, Histogram latency)
            throws Exception {
        Semaphore slots = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (long i = from; i < to && failure.get() == null; i++) {
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
                        } else if (latency != null) {
                            synchronized (latency) {
                                latency.recordValue(Math.max(1, (System.nanoTime() - before) / 1000));
                            }
                        }
                        slots.release();
                    });
        }
        if (!slots.tryAcquire(inFlight, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the last acquire+release did not finish in 120 s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("acquire+release failed: " + failure.get(), failure.get());
        }
    }

    /**
     * Waits (bounded) until {@code count} is back within 10% of {@code baseline} (the warm-up's locks,
     * forgotten too, are in it): at most the idle time and five minutes more.
     */
    private static void awaitBack(Counter count, long baseline, Duration forgetAfter) throws Exception {
        long start = System.nanoTime();
        long limitMs = forgetAfter.toMillis() + 300_000;
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(limitMs)) {
            if (count.get() <= baseline + Math.max(10, baseline / 10)) {
                break;
            }
            Thread.sleep(1000);
        }
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

    /** The shared Redis's used_memory now. */
    static long redisUsedMemory() {
        RedisClient lettuce = RedisClient.create(RedisLeases.URI);
        try (StatefulRedisConnection<String, String> redis = lettuce.connect()) {
            return usedMemory(redis);
        } finally {
            lettuce.shutdown();
        }
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
