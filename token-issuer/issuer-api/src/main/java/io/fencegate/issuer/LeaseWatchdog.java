package io.fencegate.issuer;

import io.fencegate.issuer.backend.DaemonThreads;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Keeps in-process holders' leases alive: renews each every ttl/3 until it is released or the
 * watchdog closes, with any {@link LeaseIssuer}. Why ttl/3: two renews may fail (a slow or
 * briefly unreachable backend) before the lease runs out, and a holder is still told in time.
 *
 * <p>When a renew answers that the lease is gone, or renews keep failing until its expiry passed,
 * the holder's callback runs once and renewing stops: from then on the holder must stop writing.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private final LeaseIssuer issuer;
    private final ScheduledThreadPoolExecutor scheduler;

    public LeaseWatchdog(LeaseIssuer issuer) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("fencegate-lease-watchdog"));
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /**
     * Starts renewing {@code lease}, whose ttl is {@code ttl}.
     *
     * @param onLost told once, with the last known lease, if the lease is gone or could not be renewed
     *               before it expired
     */
    public KeepAlive keepAlive(Lease lease, Duration ttl, Consumer<Lease> onLost) {
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(onLost, "onLost");
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        if (scheduler.isShutdown()) {
            throw new IllegalStateException("watchdog closed");
        }
        KeepAlive keepAlive = new KeepAlive(lease, Math.max(1, ttl.toMillis() / 3), onLost);
        keepAlive.schedule();
        return keepAlive;
    }

    /** Stops every renewal (leases are not released: they run out by their ttl). */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    /** One lease being kept alive. */
    public final class KeepAlive {
        private final long periodMs;
        private final Consumer<Lease> onLost;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private volatile Lease current;
        private volatile ScheduledFuture<?> next;

        private KeepAlive(Lease lease, long periodMs, Consumer<Lease> onLost) {
            this.current = lease;
            this.periodMs = periodMs;
            this.onLost = onLost;
        }

        /** The lease with the latest expiry a renew answered. */
        public Lease lease() {
            return current;
        }

        /** Whether renewing stopped (released, stopped, lost, or the watchdog closed). */
        public boolean isStopped() {
            return stopped.get() || scheduler.isShutdown();
        }

        /** Stops renewing and releases the lease. */
        public CompletionStage<Boolean> release() {
            stop();
            return issuer.release(current.leaseId());
        }

        /** Stops renewing without releasing (the lease runs out by its ttl). */
        public void stop() {
            stopped.set(true);
            ScheduledFuture<?> timer = next;
            if (timer != null) {
                timer.cancel(false);
            }
        }

        private void schedule() {
            if (stopped.get()) {
                return;
            }
            try {
                next = scheduler.schedule(this::renew, periodMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                stopped.set(true); // watchdog closed
            }
        }

        private void renew() {
            if (stopped.get()) {
                return;
            }
            CompletionStage<Optional<Lease>> renewal;
            try {
                renewal = issuer.renew(current.leaseId());
            } catch (RuntimeException e) {
                renewal = CompletableFuture.failedFuture(e);
            }
            renewal.whenComplete((renewed, error) -> {
                if (stopped.get()) {
                    return;
                }
                if (error == null && renewed.isPresent()) {
                    current = renewed.get();
                    schedule();
                } else if (error == null || System.currentTimeMillis() >= current.expiresAt()) {
                    lost();
                } else {
                    schedule(); // a failed renew; the lease may still be alive, try again
                }
            });
        }

        private void lost() {
            if (stopped.compareAndSet(false, true)) {
                onLost.accept(current);
            }
        }
    }
}
