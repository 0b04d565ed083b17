package io.fencegate.issuer.redis;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Tells the holder when a lease granted here ends without a release. Redis's PX is the clock: at
 * the lease's expiry the watch asks Redis whether the lock still holds this lease (a renew from any
 * instance moves the next check to the key's new PTTL); gone, or held by another lease, and no
 * release marker: EXPIRED. No polling in between, one timer per lease.
 */
final class ExpiryWatch {

    private static final long RETRY_WHEN_UNREACHABLE_MS = 1000;

    static final class Tracked {
        final Lease lease;
        final String secret;
        volatile ScheduledFuture<?> check;

        Tracked(Lease lease, String secret) {
            this.lease = lease;
            this.secret = secret;
        }
    }

    private final Map<String, Tracked> bySecret = new ConcurrentHashMap<>();
    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final ScheduledExecutorService scheduler;
    private final BiConsumer<Lease, LeaseEnd> ended;

    ExpiryWatch(RedisAsyncCommands<String, String> redis, RedisKeys keys, ScheduledExecutorService scheduler,
                BiConsumer<Lease, LeaseEnd> ended) {
        this.redis = redis;
        this.keys = keys;
        this.scheduler = scheduler;
        this.ended = ended;
    }

    void track(Lease lease, String secret) {
        Tracked tracked = new Tracked(lease, secret);
        bySecret.put(secret, tracked);
        schedule(tracked, lease.expiresAt() - System.currentTimeMillis());
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
            tracked.check = scheduler.schedule(() -> check(tracked), Math.max(1, delayMs), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the issuer is closing; it releases what it still holds
        }
    }

    private void check(Tracked tracked) {
        if (bySecret.get(tracked.secret) != tracked) {
            return;
        }
        LeaseScripts.check.<Long>run(redis,
                        new String[] {keys.lock(tracked.lease.lock()), keys.released(tracked.secret), keys.run(),
                                keys.live(), keys.holders()},
                        tracked.secret, tracked.lease.lock())
                .whenComplete((answer, error) -> {
                    if (bySecret.get(tracked.secret) != tracked) {
                        return;
                    }
                    if (error != null) {
                        schedule(tracked, RETRY_WHEN_UNREACHABLE_MS);
                    } else if (answer >= 0) {
                        schedule(tracked, answer + 1);
                    } else if (bySecret.remove(tracked.secret, tracked) && answer == -2) {
                        try {
                            scheduler.execute(() -> ended.accept(tracked.lease, LeaseEnd.EXPIRED));
                        } catch (java.util.concurrent.RejectedExecutionException closing) {
                            // the issuer closed meanwhile; nobody is listening any more
                        }
                    }
                });
    }
}
