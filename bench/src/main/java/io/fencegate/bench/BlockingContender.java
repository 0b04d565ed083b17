package io.fencegate.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * A contender driven by {@code concurrency} threads, each calling {@link #op} in a loop: the shape
 * of a blocking lock API (acquire, release). Each worker records into its own histogram, so
 * recording takes no lock; they are added up at the end.
 */
public abstract class BlockingContender extends NamedContender {
    protected BlockingContender(String name) {
        super(name);
    }

    /** One operation of worker {@code worker} (0-based); {@code concurrency} workers run at once. */
    protected abstract void op(int worker, int concurrency) throws Exception;

    @Override
    public Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception {
        long start = System.nanoTime();
        long recordFrom = start + warmUp.toNanos();
        long stopAt = recordFrom + measure.toNanos();
        Histogram[] histograms = new Histogram[concurrency];
        long[] counts = new long[concurrency];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        LongAdder total = new LongAdder();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
            int worker = w;
            histograms[w] = Sample.newHistogram();
            Thread t = new Thread(() -> {
                try {
                    while (failure.get() == null) {
                        long before = System.nanoTime();
                        // Every worker records at least one operation, so a cold start never yields an empty sample.
                        if (before >= stopAt && counts[worker] > 0) {
                            break;
                        }
                        op(worker, concurrency);
                        long after = System.nanoTime();
                        // An operation counts if it started in the measured window.
                        if (before >= recordFrom) {
                            histograms[worker].recordValue(Math.max(1, (after - before) / 1000));
                            counts[worker]++;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    total.add(counts[worker]);
                }
            }, name() + "-" + w);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long joinBy = stopAt + Duration.ofSeconds(60).toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException(t.getName() + " did not finish within 60 s of its window"));
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(name() + " failed at c=" + concurrency + ": " + failure.get(), failure.get());
        }
        long end = Math.max(stopAt, System.nanoTime());
        Histogram all = Sample.newHistogram();
        for (Histogram h : histograms) {
            all.add(h);
        }
        return new Sample(total.sum(), (end - recordFrom) / 1e9, all, counts);
    }
}
