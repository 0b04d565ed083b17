package io.fencegate.issuer.redis;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.backend.ExpiryChecks;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;

/**
 * Tells the holder when a lease granted here ends without a release. Redis's PX is the clock: at
 * the lease's expiry the watch asks Redis whether the lock still holds this lease (a renew from any
 * instance moves the next check to the key's new PTTL); gone, or held by another lease, and no
 * release marker: EXPIRED. No polling in between, one timer per lease.
 */
final class ExpiryWatch extends ExpiryChecks {

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final ScheduledExecutorService scheduler;
    private final BiConsumer<Lease, LeaseEnd> ended;

    ExpiryWatch(RedisAsyncCommands<String, String> redis, RedisKeys keys, ScheduledExecutorService scheduler,
                BiConsumer<Lease, LeaseEnd> ended) {
        super(scheduler);
        this.redis = redis;
        this.keys = keys;
        this.scheduler = scheduler;
        this.ended = ended;
    }

    @Override
    protected void check(Tracked tracked) {
        if (tracked.lease.mode() == LeaseMode.READ) {
            checkRead(tracked);
            return;
        }
        LeaseScripts.check.<Long>run(redis,
                        new String[] {keys.lock(tracked.lease.lock()), keys.released(tracked.secret), keys.run(),
                                keys.live(), keys.holders()},
                        tracked.secret, tracked.lease.lock())
                .whenComplete((answer, error) -> judge(tracked, answer, error));
    }

    /** A read lease: alive in its lock's readers hash, released (its marker), or expired (see read-find.lua). */
    private void checkRead(Tracked tracked) {
        LeaseScripts.readFind.<List<Object>>run(redis,
                        new String[] {keys.readers(tracked.lease.lock()), keys.run(), keys.released(tracked.secret)}, tracked.secret)
                .whenComplete((reply, error) -> {
                    long code = error == null ? LeaseScripts.first(reply) : 0;
                    judge(tracked, error != null ? null : code == 1 ? LeaseScripts.asLong(reply.get(2)) : code == -1 ? -1L : -2L, error);
                });
    }

    /** {@code answer}: the remaining ms (alive), -1 released, -2 gone. */
    private void judge(Tracked tracked, Long answer, Throwable error) {
        if (!isWatched(tracked)) {
            return;
        }
        if (error != null) {
            checkAgainIn(tracked, RETRY_WHEN_UNREACHABLE_MS);
        } else if (answer >= 0) {
            checkAgainIn(tracked, answer + 1);
        } else if (stopWatching(tracked) && answer == -2) {
            try {
                scheduler.execute(() -> ended.accept(tracked.lease, LeaseEnd.EXPIRED));
            } catch (RejectedExecutionException closing) {
                // the issuer closed meanwhile; nobody is listening any more
            }
        }
    }
}
