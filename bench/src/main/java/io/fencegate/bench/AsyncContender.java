package io.fencegate.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * A contender that keeps {@code concurrency} asynchronous operations in flight: the shape of an
 * HTTP load generator (each slot sends its next request when its previous one is answered). The
 * histogram is written under its own monitor: completions arrive on a few event-loop threads.
 */
public abstract class AsyncContender extends NamedContender {
    protected AsyncContender(String name) {
        super(name);
    }

    /** One operation of slot {@code slot}; the stage completes when it is answered. */
    protected abstract CompletionStage<?> op(int slot);

    @Override
    public Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception {
        long recordFrom = System.nanoTime() + warmUp.toNanos();
        long stopAt = recordFrom + measure.toNanos();
        Histogram histogram = Sample.newHistogram();
        long[] counts = new long[concurrency];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CompletableFuture<?>[] slotsDone = new CompletableFuture<?>[concurrency];
        for (int s = 0; s < concurrency; s++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            slotsDone[s] = done;
            next(s, recordFrom, stopAt, histogram, counts, failure, done);
        }
        CompletableFuture.allOf(slotsDone).get(measure.toMillis() + warmUp.toMillis() + 60_000, TimeUnit.MILLISECONDS);
        if (failure.get() != null) {
            throw new IllegalStateException(name() + " failed at c=" + concurrency + ": " + failure.get(), failure.get());
        }
        long end = Math.max(stopAt, System.nanoTime());
        long total = 0;
        for (long n : counts) {
            total += n;
        }
        return new Sample(total, (end - recordFrom) / 1e9, histogram, counts);
    }

    private void next(int slot, long recordFrom, long stopAt, Histogram histogram, long[] counts,
                      AtomicReference<Throwable> failure, CompletableFuture<Void> done) {
        long before = System.nanoTime();
        // Every slot records at least one operation, so a cold start never yields an empty sample.
        if ((before >= stopAt && counts[slot] > 0) || failure.get() != null) {
            done.complete(null);
            return;
        }
        CompletionStage<?> stage;
        try {
            stage = op(slot);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((ok, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
                done.complete(null);
                return;
            }
            long after = System.nanoTime();
            if (before >= recordFrom) {
                synchronized (histogram) { // completions arrive on several event-loop threads
                    histogram.recordValue(Math.max(1, (after - before) / 1000));
                    counts[slot]++;
                }
            }
            next(slot, recordFrom, stopAt, histogram, counts, failure, done);
        });
    }
}
