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
import java.util.function.LongSupplier;

/**
 * Keeps in-process holders' leases alive: renews each every ttl/3 until it is released or the
 * watchdog closes, with any {@link LeaseIssuer}. Why ttl/3: two renews may fail (a slow or
 * briefly unreachable backend) before the lease runs out, and a holder is still told in time.
 *
 * <p>The holder's deadline is the send time of the last confirmed acquire or renew plus the ttl,
 * on {@link System#nanoTime()} (the acquire's is {@link Lease#startedAtNanos()}, taken by the
 * issuer). Why that clock and that moment: the issuer cannot end the lease earlier, and a monotonic
 * clock keeps running while the process is paused (GC, SIGSTOP, a frozen VM) and never steps with
 * the wall clock, so a paused holder wakes up already past its deadline instead of believing the
 * lease's wall-clock expiry. {@link KeepAlive#holds()} answers from it; a renew due after it is not
 * sent.
 *
 * <p>When a renew answers that the lease is gone, or the deadline passes without a confirmed
 * renew, the holder's callback runs once and renewing stops: from then on the holder must stop
 * writing.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private final LeaseIssuer issuer;
    private final ScheduledThreadPoolExecutor scheduler;
    private final LongSupplier nanoClock;

    public LeaseWatchdog(LeaseIssuer issuer) {
        this(issuer, System::nanoTime);
    }

    /** {@code nanoClock}: the monotonic clock deadlines are kept on (a test's own clock). */
    LeaseWatchdog(LeaseIssuer issuer, LongSupplier nanoClock) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
        this.nanoClock = nanoClock;
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("fencegate-lease-watchdog"));
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /**
     * Starts renewing {@code lease}, whose ttl is {@code ttl}. The first deadline is
     * {@link Lease#startedAtNanos()} plus {@code ttl}; for a lease whose start this process did not
     * see, it is now plus the time left until its {@code expiresAt}, never more than {@code ttl}.
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
        KeepAlive keepAlive = new KeepAlive(lease, ttl.toNanos(), onLost);
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
        private final long ttlNanos;
        private final Consumer<Lease> onLost;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private volatile Lease current;
        /** Send time of the last confirmed acquire or renew plus the ttl, on nanoClock. */
        private volatile long deadlineNanos;
        private volatile ScheduledFuture<?> next;
        private volatile ScheduledFuture<?> expiryCheck;

        private KeepAlive(Lease lease, long ttlNanos, Consumer<Lease> onLost) {
            this.current = lease;
            this.ttlNanos = ttlNanos;
            this.onLost = onLost;
            long now = nanoClock.getAsLong();
            this.deadlineNanos = lease.startKnown() ? lease.startedAtNanos() + ttlNanos
                    : now + Math.max(0, Math.min(ttlNanos,
                            TimeUnit.MILLISECONDS.toNanos(lease.expiresAt() - System.currentTimeMillis())));
        }

        /** The lease with the latest expiry a renew answered. */
        public Lease lease() {
            return current;
        }

        /**
         * True while renewing has not stopped and the deadline has not passed. Finding it passed
         * tells the holder here and now (after a pause, the holder's own thread often wakes before
         * the watchdog's): a holder checks this before each write or step of its work.
         */
        public boolean holds() {
            if (stopped.get() || scheduler.isShutdown()) {
                return false;
            }
            if (nanoClock.getAsLong() - deadlineNanos >= 0) {
                lost();
                return false;
            }
            return true;
        }

        /** How long the lease surely lasts without another confirmed renew; zero once it does not hold. */
        public Duration remaining() {
            long left = deadlineNanos - nanoClock.getAsLong();
            return stopped.get() || left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
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
            cancel(next);
            cancel(expiryCheck);
        }

        private void schedule() {
            scheduleRenew(Math.max(1, ttlNanos / 3 - Math.max(0, nanoClock.getAsLong() - (deadlineNanos - ttlNanos))));
            scheduleExpiryCheck();
        }

        private void scheduleRenew(long delayNanos) {
            if (stopped.get()) {
                return;
            }
            try {
                next = scheduler.schedule(this::renew, Math.max(1, delayNanos), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                stopped.set(true); // watchdog closed
            }
        }

        /** Runs at the deadline, so renews that hang (not only ones that fail) end the lease in time. */
        private void scheduleExpiryCheck() {
            if (stopped.get()) {
                return;
            }
            try {
                expiryCheck = scheduler.schedule(() -> {
                    if (!stopped.get() && holds()) {
                        scheduleExpiryCheck(); // a renew moved the deadline on
                    }
                }, Math.max(1, deadlineNanos - nanoClock.getAsLong()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                stopped.set(true);
            }
        }

        private void renew() {
            if (stopped.get()) {
                return;
            }
            long sentAt = nanoClock.getAsLong();
            if (sentAt - deadlineNanos >= 0) {
                lost(); // too late to renew: the issuer may already have handed the lock on
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
                    if (sentAt + ttlNanos - deadlineNanos > 0) {
                        deadlineNanos = sentAt + ttlNanos;
                    }
                    scheduleRenew(sentAt + ttlNanos / 3 - nanoClock.getAsLong());
                } else if (error == null || nanoClock.getAsLong() - deadlineNanos >= 0) {
                    lost();
                } else {
                    scheduleRenew(ttlNanos / 10); // a failed renew; the lease may still be alive, try again
                }
            });
        }

        private void lost() {
            if (stopped.compareAndSet(false, true)) {
                cancel(next);
                cancel(expiryCheck);
                onLost.accept(current);
            }
        }

        private void cancel(ScheduledFuture<?> timer) {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}
