package io.fencegate.issuer.sql;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.backend.ExpiryChecks;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;

/**
 * Tells the holder when a lease granted here ends without a release. The database decides: at the
 * lease's expiry (a local timer, only to know when to ask) the watch asks whether the lease is
 * still live by the database's clock (a renew from any instance moves the next check to the new
 * remaining time); if not, and its grant is not marked released, it ended: EXPIRED.
 */
final class SqlExpiryWatch extends ExpiryChecks {

    private final LeaseTables tables;
    private final Executor jdbc;
    private final BiConsumer<Lease, LeaseEnd> ended;

    SqlExpiryWatch(LeaseTables tables, ScheduledExecutorService scheduler, Executor jdbc, BiConsumer<Lease, LeaseEnd> ended) {
        super(scheduler);
        this.tables = tables;
        this.jdbc = jdbc;
        this.ended = ended;
    }

    /** The question is a JDBC call: asked on the issuer's JDBC threads, not the timer's. */
    @Override
    protected void check(Tracked tracked) {
        try {
            jdbc.execute(() -> ask(tracked));
        } catch (RejectedExecutionException closing) {
            // the issuer is closing; it releases what it still holds
        }
    }

    private void ask(Tracked tracked) {
        if (!isWatched(tracked)) {
            return;
        }
        byte[] key = SqlLeaseIssuer.sha256(tracked.lease.lock().getBytes(StandardCharsets.UTF_8));
        try {
            long remaining = tables.remainingMs(key, tracked.secret);
            if (remaining >= 0) {
                checkAgainIn(tracked, remaining + 1);
                return;
            }
            Boolean released = tables.wasReleased(key, tracked.lease.token());
            if (stopWatching(tracked) && !Boolean.TRUE.equals(released)) {
                ended.accept(tracked.lease, LeaseEnd.EXPIRED);
            }
        } catch (Exception e) {
            if (isWatched(tracked)) {
                checkAgainIn(tracked, RETRY_WHEN_UNREACHABLE_MS);
            }
        }
    }
}
