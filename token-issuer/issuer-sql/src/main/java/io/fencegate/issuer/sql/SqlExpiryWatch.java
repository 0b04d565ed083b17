package io.fencegate.issuer.sql;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.backend.ExpiryChecks;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;

/**
 * Tells the holder when a lease granted here ends without a release. The database decides: at the
 * lease's expiry (a local timer, only to know when to ask) the watch asks, under the lease row's
 * lock, whether the lease is still live by the issuer's clock (a renew from any instance moves the
 * next check to the new remaining time); if not, and it was not released, it ended: EXPIRED. Under
 * the lock, a release in flight is seen whole (released) or not yet begun (then it finds the lease
 * expired and refuses): never both.
 */
final class SqlExpiryWatch extends ExpiryChecks {

    private final LeaseTables tables;
    private final ReadLeaseTables reads;
    private final Executor jdbc;
    private final BiConsumer<Lease, LeaseEnd> ended;

    SqlExpiryWatch(LeaseTables tables, ReadLeaseTables reads, ScheduledExecutorService scheduler, Executor jdbc, BiConsumer<Lease, LeaseEnd> ended) {
        super(scheduler);
        this.tables = tables;
        this.reads = reads;
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
            LeaseTables.Standing standing = tracked.lease.mode() == LeaseMode.READ
                    ? reads.standing(key, tracked.secret, tracked.lease.token())
                    : tables.standing(key, tracked.secret, tracked.lease.token());
            if (standing.live()) {
                checkAgainIn(tracked, standing.remainingMs() + 1);
                return;
            }
            if (stopWatching(tracked) && !standing.released()) {
                ended.accept(tracked.lease, LeaseEnd.EXPIRED);
            }
        } catch (Exception e) {
            if (isWatched(tracked)) {
                checkAgainIn(tracked, RETRY_WHEN_UNREACHABLE_MS);
            }
        }
    }
}
