package io.fencegate.bench;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The hand-off of one lock between two issuer instances (two gateways on one database): the holder
 * takes the lock on one, a waiter queues on the other, the holder releases after 10–110 ms (so
 * the waiter's poll back-off is sampled at every phase) and the latency recorded is from the
 * release call to the waiter's grant. The release goes through another instance than the waiter's
 * on purpose: a release wakes its own instance's waiters directly, another instance's only by
 * NOTIFY or by their polling, which is what this compares. One hand-off at a time; the
 * concurrency is ignored.
 */
final class SqlHandOff extends NamedContender {
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final LeaseIssuer holder;
    private final LeaseIssuer waiter;
    private final String lock = "hand-off";

    SqlHandOff(String name, LeaseIssuer holder, LeaseIssuer waiter) {
        super(name);
        this.holder = holder;
        this.waiter = waiter;
    }

    @Override
    public Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception {
        long recordFrom = System.nanoTime() + warmUp.toNanos();
        long stopAt = recordFrom + measure.toNanos();
        Histogram histogram = Sample.newHistogram();
        long count = 0;
        while (true) {
            long before = System.nanoTime();
            if (before >= stopAt && count > 0) {
                break;
            }
            Lease held = ZooKeeperLeases.acquired(holder, lock);
            AtomicLong grantedAt = new AtomicLong();
            CompletableFuture<Optional<Lease>> next = waiter.acquire(lock, TTL, WAIT).toCompletableFuture()
                    .whenComplete((lease, error) -> grantedAt.set(System.nanoTime()));
            Thread.sleep(10 + ThreadLocalRandom.current().nextInt(100));
            long released = System.nanoTime();
            if (!holder.release(held.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name() + ": the holder's lease was gone at release");
            }
            Lease granted = next.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS)
                    .orElseThrow(() -> new IllegalStateException(name() + ": the waiter was not granted within " + WAIT));
            if (granted.token() <= held.token()) {
                throw new IllegalStateException(name() + ": token " + granted.token() + " after " + held.token());
            }
            if (released >= recordFrom) {
                histogram.recordValue(Math.max(1, (grantedAt.get() - released) / 1000));
                count++;
            }
            waiter.release(granted.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
        long end = Math.max(stopAt, System.nanoTime());
        return new Sample(count, (end - recordFrom) / 1e9, histogram, new long[] {count});
    }
}
