package io.fencegate.issuer.sql;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Tells the holder when a lease granted here ends without a release. The database decides: at the
 * lease's expiry (a local timer, only to know when to ask) the watch asks whether the lease is
 * still live by the database's clock (a renew from any instance moves the next check to the new
 * remaining time); if not, and its grant is not marked released, it ended: EXPIRED.
 */
final class SqlExpiryWatch {

    private static final long RETRY_WHEN_UNREACHABLE_MS = 1000;

    static final class Tracked {
        final Lease lease;
        final byte[] key;
        final String secret;
        volatile ScheduledFuture<?> check;

        Tracked(Lease lease, byte[] key, String secret) {
            this.lease = lease;
            this.key = key;
            this.secret = secret;
        }
    }

    private final Map<String, Tracked> bySecret = new ConcurrentHashMap<>();
    private final LeaseTables tables;
    private final ScheduledExecutorService scheduler;
    private final Executor jdbc;
    private final BiConsumer<Lease, LeaseEnd> ended;

    SqlExpiryWatch(LeaseTables tables, ScheduledExecutorService scheduler, Executor jdbc, BiConsumer<Lease, LeaseEnd> ended) {
        this.tables = tables;
        this.scheduler = scheduler;
        this.jdbc = jdbc;
        this.ended = ended;
    }

    void track(Lease lease, byte[] key, String secret, long ttlMs) {
        Tracked tracked = new Tracked(lease, key, secret);
        bySecret.put(secret, tracked);
        schedule(tracked, ttlMs);
    }

    void forget(String secret) {
        Tracked tracked = bySecret.remove(secret);
        if (tracked != null && tracked.check != null) {
            tracked.check.cancel(false);
        }
    }

    /** Stops watching everything; answers what was still watched. */
    List<Tracked> drain() {
        List<Tracked> all = new ArrayList<>(bySecret.values());
        all.forEach(t -> forget(t.secret));
        return all;
    }

    private void schedule(Tracked tracked, long delayMs) {
        try {
            tracked.check = scheduler.schedule(() -> jdbc.execute(() -> check(tracked)), Math.max(1, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the issuer is closing; it releases what it still holds
        }
    }

    private void check(Tracked tracked) {
        if (bySecret.get(tracked.secret) != tracked) {
            return;
        }
        try {
            long remaining = tables.remainingMs(tracked.key, tracked.secret);
            if (remaining >= 0) {
                schedule(tracked, remaining + 1);
                return;
            }
            Boolean released = tables.wasReleased(tracked.key, tracked.lease.token());
            if (bySecret.remove(tracked.secret, tracked) && !Boolean.TRUE.equals(released)) {
                ended.accept(tracked.lease, LeaseEnd.EXPIRED);
            }
        } catch (Exception e) {
            if (bySecret.get(tracked.secret) == tracked) {
                schedule(tracked, RETRY_WHEN_UNREACHABLE_MS);
            }
        }
    }
}
