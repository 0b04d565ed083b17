package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Waiters on one lock through the gateway (ZooKeeper issuer): each waiter loops acquire (waiting)
 * → release, spread over one gateway or two. Measured: hand-off latency (a release sent → the next
 * grant received), fairness (fewest grants of a waiter over the most), and the server's watch
 * count while they wait (one per queued waiter means no herd). A run stops after about 20 grants
 * a waiter, so fairness is not a matter of where a time window cut.
 */
final class LockWaiters {
    private static final int ROUNDS = 20;

    record Point(int waiters, int gateways, long grants, double handoffP50Ms, double handoffP99Ms, double fairness,
                 long maxWatches, long watchesAfter) { }

    private LockWaiters() {}

    static Point run(List<FencegateClient> gateways, int waiters, ZooKeeperFacts facts) throws Exception {
        String lock = "waiters/" + waiters + "-" + gateways.size();
        long target = (long) ROUNDS * waiters;
        long watches0 = facts.watches();
        AtomicLong grants = new AtomicLong();
        AtomicLong lastRelease = new AtomicLong();
        long[] perWaiter = new long[waiters];
        Histogram handoff = Sample.newHistogram();
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong maxWatches = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                try {
                    maxWatches.accumulateAndGet(facts.watches() - watches0, Math::max);
                    Thread.sleep(100);
                } catch (Exception e) {
                    return;
                }
            }
        }, "bench-watch-sampler");
        sampler.setDaemon(true);
        sampler.start();
        ExecutorService threads = Executors.newFixedThreadPool(waiters);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < waiters; w++) {
                int me = w;
                FencegateClient client = gateways.get(w % gateways.size());
                done.add(threads.submit(() -> {
                    while (grants.get() < target && System.nanoTime() < deadline) {
                        Optional<Lease> lease = client.acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(30));
                        if (lease.isEmpty()) {
                            continue;
                        }
                        long at = System.nanoTime();
                        long released = lastRelease.get();
                        if (released != 0) {
                            synchronized (handoff) {
                                handoff.recordValue(Math.max(1, (at - released) / 1000));
                            }
                        }
                        perWaiter[me]++;
                        grants.incrementAndGet();
                        lastRelease.set(System.nanoTime());
                        client.release(lease.get().leaseId());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(180, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            sampling.set(false);
            sampler.join(5000);
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long n : perWaiter) {
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        Thread.sleep(500);
        Point p = new Point(waiters, gateways.size(), grants.get(), handoff.getValueAtPercentile(50) / 1000.0,
                handoff.getValueAtPercentile(99) / 1000.0, waiters < 2 ? Double.NaN : (double) min / max,
                maxWatches.get(), facts.watches() - watches0);
        System.err.printf(Locale.ROOT, "bench scale: %d waiters on %d gateway(s): %d grants, hand-off p50 %.2f ms p99 %.2f ms,"
                + " fairness %.2f, watches max %d, after %d%n", waiters, gateways.size(), p.grants(), p.handoffP50Ms(),
                p.handoffP99Ms(), p.fairness(), p.maxWatches(), p.watchesAfter());
        return p;
    }

    /**
     * Waiters that give up: {@code waiters} acquires with a short wait on a lock held throughout;
     * answers the watches left on the server once they all gave up (the holder still holds).
     */
    static long watchesLeftByWaitersThatGaveUp(FencegateClient client, int waiters, ZooKeeperFacts facts) throws Exception {
        Lease holder = client.acquire("waiters/impatient", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
        long watches0 = facts.watches();
        try {
            List<CompletableFuture<Optional<Lease>>> impatient = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                impatient.add(client.acquireAsync("waiters/impatient", Duration.ofSeconds(10), Duration.ofMillis(500)));
            }
            for (CompletableFuture<Optional<Lease>> f : impatient) {
                if (f.get(60, TimeUnit.SECONDS).isPresent()) {
                    throw new IllegalStateException("an impatient waiter got a held lock");
                }
            }
            Thread.sleep(1000);
            long left = facts.watches() - watches0;
            System.err.printf("bench scale: %d waiters gave up under a held lock: %d watches left%n", waiters, left);
            return left;
        } finally {
            client.release(holder.leaseId());
        }
    }
}
