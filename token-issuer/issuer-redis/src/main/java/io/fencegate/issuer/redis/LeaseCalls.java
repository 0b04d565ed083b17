package io.fencegate.issuer.redis;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The acquire and release scripts' calls, each kind group-committed ({@link GroupCommit}): lays
 * out a batch's keys and arguments (the ones all elements share once, then each element's) and
 * hands each element its own reply. Acquires run through the {@link RunCheckShortcut}, so a batch
 * skips the run check exactly when a single call would.
 */
final class LeaseCalls {

    /** One acquire script element; its reply is {1, token, ceiling}, {0, pttl}, {-1}, {-2, counter} or {-4, lease clock}. */
    record Acquire(String lock, String secret, long ttlMs, long lockDelayMs, long waitersMarkMs, long othersMarkMs) { }

    private record Release(String lock, String secret, String waitersKey) { }

    private final RedisKeys keys;
    private final RunCheckShortcut shortcut;
    private final LongSupplier highestToken;
    private final RedisClock clock;
    private final String grantsKept;
    private final String grantRetentionMs;
    private final String instanceName;
    private final String releasedMarkerSlackMs;
    private final RedisAsyncCommands<String, String> redis;
    private final GroupCommit<Acquire, List<Object>> acquires = new GroupCommit<>(this::sendAcquires);
    private final GroupCommit<Release, Long> releases = new GroupCommit<>(this::sendReleases);

    LeaseCalls(RedisAsyncCommands<String, String> redis, RedisKeys keys, RunCheckShortcut shortcut, RedisIssuerOptions options,
               LongSupplier highestToken, RedisClock clock, String releasedMarkerSlackMs) {
        this.redis = redis;
        this.keys = keys;
        this.shortcut = shortcut;
        this.highestToken = highestToken;
        this.clock = clock;
        this.grantsKept = Integer.toString(options.grantsKeptPerLock());
        this.grantRetentionMs = Long.toString(options.grantRetention().toMillis());
        this.instanceName = options.instanceName();
        this.releasedMarkerSlackMs = releasedMarkerSlackMs;
    }

    CompletionStage<List<Object>> acquire(Acquire call) {
        return acquires.submit(call);
    }

    /** Answers whether the lease held the lock (and released it). */
    CompletionStage<Long> release(String lock, String secret) {
        return releases.submit(new Release(lock, secret, keys.waiters(lock)));
    }

    /** A release whose wake-up goes to the callers that marked {@code waitersKey} (a permit's: its semaphore's). */
    CompletionStage<Long> release(String lock, String secret, String waitersKey) {
        return releases.submit(new Release(lock, secret, waitersKey));
    }

    /** Fails queued acquires at once; releases still go out (closing releases what it holds). */
    void closeAcquires() {
        acquires.close();
    }

    void closeReleases() {
        releases.close();
    }

    private CompletionStage<List<List<Object>>> sendAcquires(List<Acquire> batch) {
        String[] scriptKeys = new String[5 + 4 * batch.size()];
        scriptKeys[0] = keys.counter();
        scriptKeys[1] = keys.ceiling();
        scriptKeys[2] = keys.run();
        scriptKeys[3] = keys.live();
        scriptKeys[4] = keys.clockOffset();
        String[] args = new String[6 + 6 * batch.size()];
        args[0] = "check"; // the run-check mode, set by the shortcut
        args[1] = grantsKept;
        args[2] = grantRetentionMs;
        args[3] = Long.toString(highestToken.getAsLong());
        args[4] = instanceName;
        args[5] = clock.highestArg();
        int k = 5;
        int a = 6;
        for (Acquire call : batch) {
            scriptKeys[k++] = keys.lock(call.lock());
            scriptKeys[k++] = keys.grants(call.lock());
            scriptKeys[k++] = keys.delay(call.lock());
            scriptKeys[k++] = keys.waiters(call.lock());
            args[a++] = call.secret();
            args[a++] = Long.toString(call.ttlMs());
            args[a++] = Long.toString(call.lockDelayMs());
            args[a++] = call.lock();
            args[a++] = Long.toString(call.waitersMarkMs());
            args[a++] = Long.toString(call.othersMarkMs());
        }
        return shortcut.<List<List<Object>>>run(scriptKeys, args).thenApply(replies -> {
            for (List<Object> reply : replies) {
                if (LeaseScripts.first(reply) == LeaseScripts.GRANTED) {
                    // a checked grant just proved the run: arm the copy that skips the check
                    shortcut.armIfIdle(scriptKeys, args);
                    break;
                }
            }
            return replies;
        });
    }

    private CompletionStage<List<Long>> sendReleases(List<Release> batch) {
        String[] scriptKeys = new String[1 + 4 * batch.size()];
        scriptKeys[0] = keys.live();
        String[] args = new String[2 + 2 * batch.size()];
        args[0] = keys.releaseChannel();
        args[1] = releasedMarkerSlackMs;
        int k = 1;
        int a = 2;
        for (Release call : batch) {
            scriptKeys[k++] = keys.lock(call.lock());
            scriptKeys[k++] = keys.released(call.secret());
            scriptKeys[k++] = keys.delay(call.lock());
            scriptKeys[k++] = call.waitersKey();
            args[a++] = call.secret();
            args[a++] = call.lock();
        }
        return LeaseScripts.release.run(redis, scriptKeys, args);
    }
}
