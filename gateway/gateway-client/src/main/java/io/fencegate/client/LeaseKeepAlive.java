package io.fencegate.client;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a lease alive: renews it at ttl/3 and tells its {@link LeaseLostListener} exactly once when
 * the lease is lost ({@link LeaseLoss}). Made by {@link FencegateClient#keepAlive} and
 * {@link FencegateClient#withLease}; {@link #close()} stops renewing and releases the lease.
 *
 * <p>Why a local deadline as well as the gateway's 410: a holder whose renewals cannot get through,
 * or whose process was paused, must stop before the gateway hands the lock on, not when it next
 * hears from the gateway. The deadline is the send time of the last confirmed renewal plus the ttl,
 * on the monotonic clock (which keeps running while the process is stopped), so it never falls
 * after the gateway's own expiry. The first deadline counts from the acquire's send time
 * ({@link Lease#startedAtNanos()}), not from when the keep-alive starts; a lease whose acquire
 * answered only after that much time (a wait longer than the ttl) is confirmed by one renewal,
 * waited for, before {@code keepAlive} returns. A renewal due after the deadline is not sent: the
 * lease is reported {@link LeaseLoss#EXPIRED} at once. Writes stay fenced either way; this is how
 * the holder learns to stop early.
 */
public final class LeaseKeepAlive implements AutoCloseable {
    /** One daemon timer for every keep-alive: it only schedules; renewals run on {@link #RENEWALS}. */
    private static final ScheduledExecutorService TIMER = timer();
    /**
     * Renewals of every keep-alive, a few at a time, each a blocking call on one of a small fixed set
     * of threads. Why not one asynchronous request each: a request in flight takes a thread and a
     * connection of its own, and a thousand leases whose renewals came due together took hundreds of
     * both. A renewal that waits its turn is still checked against the deadline when it is sent.
     */
    private static final ExecutorService RENEWALS = renewers(4);
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final FencegateClient client;
    private final Lease lease;
    private final long ttlNanos;
    private final LeaseLostListener listener;
    private final CompletableFuture<LeaseLoss> lost = new CompletableFuture<>();
    private long deadlineNanos;            // guarded by this
    private boolean closed;                // guarded by this
    private ScheduledFuture<?> nextRenewal; // guarded by this
    private ScheduledFuture<?> expiryCheck; // guarded by this
    private volatile Throwable lastError;

    private LeaseKeepAlive(FencegateClient client, Lease lease, Duration ttl, LeaseLostListener listener) {
        this.client = client;
        this.lease = lease;
        this.ttlNanos = ttl.toNanos();
        this.listener = listener;
    }

    static LeaseKeepAlive start(FencegateClient client, Lease lease, Duration ttl, LeaseLostListener listener) {
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        LeaseKeepAlive keepAlive = new LeaseKeepAlive(client, lease, ttl, listener == null ? (l, r) -> {} : listener);
        long now = System.nanoTime();
        long deadline;
        if (lease.startKnown()) {
            // The gateway granted the lease no earlier than the acquire was sent.
            deadline = lease.startedAtNanos() + keepAlive.ttlNanos;
        } else {
            // A lease built by hand: trust the gateway's expiresAt, but never beyond one ttl from now.
            long untilExpiry = TimeUnit.MILLISECONDS.toNanos(lease.expiresAt().toEpochMilli() - System.currentTimeMillis());
            deadline = now + Math.max(0, Math.min(untilExpiry, keepAlive.ttlNanos));
        }
        synchronized (keepAlive) {
            keepAlive.deadlineNanos = deadline;
        }
        if (lease.startKnown() && deadline - now <= 0) {
            // The answer came after the ttl had run out since the acquire's send (a wait longer than
            // the ttl, or a pause): only a renewal sent now can show the lease is still ours.
            keepAlive.confirmAtOnce();
        }
        synchronized (keepAlive) {
            if (!keepAlive.lost.isDone()) {
                keepAlive.expiryCheck = TIMER.schedule(keepAlive::checkExpiry, 0, TimeUnit.NANOSECONDS);
                if (keepAlive.nextRenewal == null) {
                    keepAlive.nextRenewal = TIMER.schedule(keepAlive::renewSoon, 0, TimeUnit.NANOSECONDS);
                }
            }
        }
        return keepAlive;
    }

    /** One renewal, waited for: its send time plus the ttl is the deadline if it is confirmed. */
    private void confirmAtOnce() {
        long sentAt = System.nanoTime();
        Optional<Instant> answer = null;
        Throwable error = null;
        try {
            answer = client.renewAsync(lease.leaseId()).join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            error = e;
        }
        renewed(sentAt, answer, error);
    }

    public Lease lease() {
        return lease;
    }

    /** The lease's mode: a {@link LeaseMode#READ} lease's token makes fenced reads only. */
    public LeaseMode mode() {
        return lease.mode();
    }

    /** A semaphore permit's slot ({@link Lease#slot()}); {@link Lease#NO_SLOT} for any other lease. */
    public int slot() {
        return lease.slot();
    }

    /** The lease's fencing token: send it with every write and fenced read. */
    public long token() {
        return lease.token();
    }

    /**
     * True while the lease is neither lost nor closed and its ttl has not passed since the last
     * renewal. Finding the deadline passed reports the loss here and now (the timer may not have run
     * yet: after a pause, the holder's own thread often wakes first).
     */
    public boolean held() {
        reportIfExpired();
        synchronized (this) {
            return !closed && !lost.isDone() && System.nanoTime() - deadlineNanos < 0;
        }
    }

    /** How long the lease surely lasts without another renewal; zero once lost or closed. */
    public synchronized Duration remaining() {
        long left = deadlineNanos - System.nanoTime();
        return closed || lost.isDone() || left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** Completes, once, with the reason when the lease is lost; never if it is closed first. */
    public CompletionStage<LeaseLoss> lost() {
        return lost.minimalCompletionStage();
    }

    /** The last renewal error (transport, timeout, 5xx), if the last renewal failed. */
    public Optional<Throwable> lastError() {
        return Optional.ofNullable(lastError);
    }

    /**
     * Stops renewing and releases the lease. True if this released it; false if it was lost or
     * already gone. After a loss the release is still tried (the gateway may not have ended it yet,
     * and releasing frees the lock sooner), and its failure is ignored; otherwise a failed release
     * throws, as {@link FencegateClient#release} does.
     */
    public boolean release() {
        reportIfExpired(); // a lease that ended before its release is a lost one, and is told so
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            cancelTimers();
        }
        if (!lost.isDone()) {
            return client.release(lease.leaseId());
        }
        if (lost.getNow(null) != LeaseLoss.GONE) {
            try {
                client.release(lease.leaseId());
            } catch (RuntimeException ignored) {
                // the lease is over for us either way; the gateway ends it at its ttl
            }
        }
        return false;
    }

    /** {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    // ---- the timer's side ----------------------------------------------------------------------

    /** The timer's task: hands the renewal to a renewer thread. */
    private void renewSoon() {
        RENEWALS.execute(this::renew);
    }

    private void renew() {
        long sentAt;
        synchronized (this) {
            if (closed || lost.isDone()) {
                return;
            }
            sentAt = System.nanoTime();
            if (sentAt - deadlineNanos >= 0) {
                sentAt = 0; // too late to renew: the gateway may already have handed the lock on
            }
        }
        if (sentAt == 0) {
            lose(LeaseLoss.EXPIRED);
            return;
        }
        Optional<Instant> answer = null;
        Throwable error = null;
        try {
            answer = client.renew(lease.leaseId());
        } catch (RuntimeException e) { // FencegateException, or the transport's UncheckedIOException
            error = e;
        }
        renewed(sentAt, answer, error);
    }

    private void renewed(long sentAt, Optional<Instant> expiresAt, Throwable error) {
        if (error == null && expiresAt.isEmpty()) {
            lose(LeaseLoss.GONE);
            return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof FencegateException refused && !retryable(refused.status())) {
            lastError = cause;
            lose(LeaseLoss.RENEW_REFUSED);
            return;
        }
        synchronized (this) {
            if (closed || lost.isDone()) {
                return;
            }
            long now = System.nanoTime();
            if (cause == null) {
                lastError = null;
                if (sentAt + ttlNanos - deadlineNanos > 0) {
                    deadlineNanos = sentAt + ttlNanos;
                }
                nextRenewal = TIMER.schedule(this::renewSoon, Math.max(0, sentAt + ttlNanos / 3 - now), TimeUnit.NANOSECONDS);
            } else {
                // Transient (unreachable, timeout, 5xx): try again soon; the expiry check ends it in time.
                lastError = cause;
                nextRenewal = TIMER.schedule(this::renewSoon, Math.max(MIN_RETRY_NANOS, ttlNanos / 10), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Runs at the deadline; re-arms itself when a renewal has moved the deadline on. */
    private void checkExpiry() {
        synchronized (this) {
            if (closed || lost.isDone()) {
                return;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left > 0) {
                expiryCheck = TIMER.schedule(this::checkExpiry, left, TimeUnit.NANOSECONDS);
                return;
            }
        }
        lose(LeaseLoss.EXPIRED);
    }

    private void reportIfExpired() {
        boolean expired;
        synchronized (this) {
            expired = !closed && !lost.isDone() && System.nanoTime() - deadlineNanos >= 0;
        }
        if (expired) {
            lose(LeaseLoss.EXPIRED);
        }
    }

    private void lose(LeaseLoss reason) {
        synchronized (this) {
            if (closed || !lost.complete(reason)) {
                return; // told once: the first reason wins
            }
            cancelTimers();
        }
        try {
            listener.onLost(lease, reason);
        } catch (RuntimeException e) {
            System.getLogger(LeaseKeepAlive.class.getName()).log(System.Logger.Level.WARNING,
                    "onLost for lease " + lease.leaseId() + " of " + lease.lock() + " threw", e);
        }
    }

    private void cancelTimers() {
        if (nextRenewal != null) {
            nextRenewal.cancel(false);
        }
        if (expiryCheck != null) {
            expiryCheck.cancel(false);
        }
    }

    /** 408, 429 and 5xx may pass; any other 4xx (bad key, forbidden) will not. */
    private static boolean retryable(int status) {
        return status == 408 || status == 429 || status >= 500;
    }

    private static ExecutorService renewers(int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "fencegate-lease-renewer");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fencegate-lease-keepalive");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
