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
 * a waiter, so fairness is not a matter of where a time window cut; grants and hand-offs count
 * from the moment every waiter has been granted once ({@link WaiterCounts}).
 */
final class LockWaiters {
    private static final int ROUNDS = 20;
    /** The unmeasured loops each gateway runs first: waiters × rounds; one waiter warms the uncontended path. */
    private static final int[][] WARM_UP = {{1, 50}, {16, 5}};

    record Point(int waiters, int gateways, long grants, double handoffP50Ms, double handoffP99Ms, double fairness,
                 long maxWatches, long watchesAfter) { }

    private LockWaiters() {}

    /**
     * Runs the loop on each gateway alone, unmeasured. Why: a gateway's first requests are slow (its
     * JIT and its first ZooKeeper calls: 1.4–1.6 s for the first acquire on a busy 2-core machine);
     * a gateway first used by a measured run starts its waiters late and cold, which is not what a
     * hand-off costs.
     */
    static void warmUp(List<FencegateClient> gateways) throws Exception {
        for (FencegateClient gateway : gateways) {
            for (int[] loop : WARM_UP) {
                loop(List.of(gateway), loop[0], loop[1], "waiters/warm-up", new WaiterCounts(loop[0]), Sample.newHistogram());
            }
        }
    }

    static Point run(List<FencegateClient> gateways, int waiters, ZooKeeperFacts facts) throws Exception {
        String lock = "waiters/" + waiters + "-" + gateways.size();
        long watches0 = facts.watches();
        WaiterCounts counts = new WaiterCounts(waiters);
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
        try {
            loop(gateways, waiters, ROUNDS, lock, counts, handoff);
        } finally {
            sampling.set(false);
            sampler.join(5000);
        }
        Thread.sleep(500);
        Point p = new Point(waiters, gateways.size(), counts.counted(), handoff.getValueAtPercentile(50) / 1000.0,
                handoff.getValueAtPercentile(99) / 1000.0, counts.fairness(), maxWatches.get(), facts.watches() - watches0);
        System.err.printf(Locale.ROOT, "bench scale: %d waiters on %d gateway(s): %d grants, hand-off p50 %.2f ms p99 %.2f ms,"
                + " fairness %.2f, watches max %d, after %d%n", waiters, gateways.size(), p.grants(), p.handoffP50Ms(),
                p.handoffP99Ms(), p.fairness(), p.maxWatches(), p.watchesAfter());
        return p;
    }

    /**
     * {@code waiters} threads, waiter w on gateway w mod n, each looping acquire (waiting) → release
     * until {@code rounds} grants a waiter were counted ({@link WaiterCounts}) or 90 s passed; a
     * counted grant's hand-off (the previous release sent → this grant received) goes to {@code handoff}.
     */
    private static void loop(List<FencegateClient> gateways, int waiters, int rounds, String lock, WaiterCounts counts,
                             Histogram handoff) throws Exception {
        long target = (long) rounds * waiters;
        AtomicLong lastRelease = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(waiters);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < waiters; w++) {
                int me = w;
                FencegateClient client = gateways.get(w % gateways.size());
                done.add(threads.submit(() -> {
                    while (counts.counted() < target && System.nanoTime() < deadline) {
                        Optional<Lease> lease = client.acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(30));
                        if (lease.isEmpty()) {
                            continue;
                        }
                        long at = System.nanoTime();
                        long released = lastRelease.get();
                        if (counts.granted(me) && released != 0) {
                            synchronized (handoff) {
                                handoff.recordValue(Math.max(1, (at - released) / 1000));
                            }
                        }
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
        }
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
