package io.fencegate.issuer.redis;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The script calls of read leases and semaphores' permits: lays out each script's keys and
 * arguments (see the headers of {@code read-acquire.lua}, {@code read-renew.lua},
 * {@code read-release.lua}, {@code read-find.lua} and {@code permit.lua}). One call per script run,
 * not group-committed. Permits run through a {@link RunCheckShortcut} of their own, as acquires do
 * (a permit's release is a write lease's, group-committed in {@link LeaseCalls}).
 */
final class SharedLeaseCalls {

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final RunCheckShortcut permits;
    private final LongSupplier highestToken;
    private final RedisClock clock;
    private final String grantsKept;
    private final String grantRetentionMs;
    private final String instanceName;
    private final String releasedMarkerSlackMs;

    SharedLeaseCalls(RedisAsyncCommands<String, String> redis, RedisKeys keys, RunCheckShortcut permits,
                     RedisIssuerOptions options, LongSupplier highestToken, RedisClock clock, String releasedMarkerSlackMs) {
        this.redis = redis;
        this.keys = keys;
        this.permits = permits;
        this.highestToken = highestToken;
        this.clock = clock;
        this.grantsKept = Integer.toString(options.grantsKeptPerLock());
        this.grantRetentionMs = Long.toString(options.grantRetention().toMillis());
        this.instanceName = options.instanceName();
        this.releasedMarkerSlackMs = releasedMarkerSlackMs;
    }

    /** {1, token, ceiling}, {0, pttl}, {-1}, {-2, counter} or {-4, lease clock}. */
    CompletionStage<List<Object>> acquireRead(String lock, String secret, long ttlMs, long lockDelayMs,
                                              long waitersMarkMs, long othersMarkMs) {
        return LeaseScripts.readAcquire.run(redis,
                new String[] {keys.counter(), keys.ceiling(), keys.run(), keys.live(), keys.holders(),
                        keys.lock(lock), keys.grants(lock), keys.delay(lock), keys.waiters(lock), keys.readers(lock),
                        keys.clockOffset()},
                grantsKept, grantRetentionMs, Long.toString(highestToken.getAsLong()), instanceName, secret,
                Long.toString(ttlMs), Long.toString(lockDelayMs), lock, Long.toString(waitersMarkMs),
                Long.toString(othersMarkMs), clock.highestArg());
    }

    /** {1, token, ceiling, slot}, {0, -1}, {-1}, {-2, counter}, {-3, count, slot} or {-4, lease clock}. */
    CompletionStage<List<Object>> acquirePermit(String semaphore, int permits, String secret, long ttlMs, long lockDelayMs,
                                                long waitersMarkMs, long othersMarkMs) {
        String[] scriptKeys = {keys.counter(), keys.ceiling(), keys.run(), keys.live(), keys.holders(),
                keys.permits(semaphore), keys.permitWaiters(semaphore), keys.clockOffset()};
        String[] args = {"check", // the run-check mode, set by the shortcut
                grantsKept, grantRetentionMs, Long.toString(highestToken.getAsLong()), instanceName, secret,
                Long.toString(ttlMs), semaphore, Integer.toString(permits), Long.toString(waitersMarkMs),
                Long.toString(othersMarkMs), keys.lock(""), keys.delay(""), keys.grants(""), Long.toString(lockDelayMs),
                clock.highestArg()};
        return this.permits.<List<Object>>run(scriptKeys, args).thenApply(reply -> {
            if (LeaseScripts.first(reply) == LeaseScripts.GRANTED) {
                // a checked grant just proved the run: arm the copy that skips the check
                this.permits.armIfIdle(scriptKeys, args);
            }
            return reply;
        });
    }

    /** {1, token, ttlMs} or {0}. */
    CompletionStage<List<Object>> renewRead(String lock, String secret) {
        return LeaseScripts.readRenew.run(redis,
                new String[] {keys.lock(lock), keys.readers(lock), keys.grants(lock), keys.run()}, secret, grantRetentionMs);
    }

    /** 1 released, 0 no live read lease with this secret. */
    CompletionStage<Long> releaseRead(String lock, String secret) {
        return LeaseScripts.readRelease.run(redis,
                new String[] {keys.lock(lock), keys.readers(lock), keys.released(secret), keys.waiters(lock),
                        keys.live(), keys.holders()},
                secret, lock, keys.releaseChannel(), releasedMarkerSlackMs);
    }

    /** {1, token, remaining ms} alive, {-1} released, {0} expired or gone. */
    CompletionStage<List<Object>> findRead(String lock, String secret) {
        return LeaseScripts.readFind.run(redis, new String[] {keys.readers(lock), keys.run(), keys.released(secret)}, secret);
    }
}
