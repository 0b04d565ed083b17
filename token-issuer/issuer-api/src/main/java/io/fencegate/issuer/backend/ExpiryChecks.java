package io.fencegate.issuer.backend;

import io.fencegate.issuer.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The leases an issuer granted and still holds, each with one timer: at the lease's expiry the
 * backend is asked whether it has ended (a renew from any instance moves the next check to the new
 * expiry). No polling in between. For backends whose leases end by the backend's own clock (Redis's
 * PX, a database's clock); each says how to ask ({@link #check}).
 */
public abstract class ExpiryChecks {

    /** How long to wait before asking again a backend that did not answer. */
    protected static final long RETRY_WHEN_UNREACHABLE_MS = 1000;

    /** A watched lease, by its secret. */
    public static final class Tracked {
        public final Lease lease;
        public final String secret;
        private volatile ScheduledFuture<?> timer;

        private Tracked(Lease lease, String secret) {
            this.lease = lease;
            this.secret = secret;
        }
    }

    private final Map<String, Tracked> bySecret = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;

    protected ExpiryChecks(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Asks the backend whether {@code tracked} still lives, then either checks again later
     * ({@link #checkAgainIn}) or stops watching it ({@link #stopWatching}) and tells of its end.
     * Runs on the scheduler's thread, only for a lease still watched.
     */
    protected abstract void check(Tracked tracked);

    /** Watches a lease granted here; the first check comes in {@code delayMs} (its ttl). */
    public final void track(Lease lease, String secret, long delayMs) {
        Tracked tracked = new Tracked(lease, secret);
        bySecret.put(secret, tracked);
        checkAgainIn(tracked, delayMs);
    }

    /** Released: no end to tell of. */
    public final void forget(String secret) {
        Tracked tracked = bySecret.remove(secret);
        if (tracked != null && tracked.timer != null) {
            tracked.timer.cancel(false);
        }
    }

    /** Stops watching everything; answers what was still watched. */
    public final List<Tracked> drain() {
        List<Tracked> all = new ArrayList<>(bySecret.values());
        all.forEach(t -> forget(t.secret));
        return all;
    }

    /** Whether {@code tracked} is still watched (not forgotten, drained or ended meanwhile). */
    protected final boolean isWatched(Tracked tracked) {
        return bySecret.get(tracked.secret) == tracked;
    }

    /** The next check of {@code tracked}, at least 1 ms from now. */
    protected final void checkAgainIn(Tracked tracked, long delayMs) {
        try {
            tracked.timer = scheduler.schedule(() -> {
                if (isWatched(tracked)) {
                    check(tracked);
                }
            }, Math.max(1, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the issuer is closing; it releases what it still holds
        }
    }

    /** Stops watching an ended lease; true for the one caller that did, which tells of the end. */
    protected final boolean stopWatching(Tracked tracked) {
        return bySecret.remove(tracked.secret, tracked);
    }
}
