package io.fencegate.issuer.redis;

import io.fencegate.issuer.backend.MonotonicCourse;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This issuer's watch on Redis's lease clock, and the repair of its steps ahead.
 *
 * <p>Why: Redis ends a lease when its key's expiry passes on Redis's wall clock; the holder counts
 * its ttl on its own monotonic clock. An NTP step, an operator or a VM restored from a snapshot
 * can step Redis's host clock ahead: every lease then ends early by the step in Redis's eyes, and
 * its lock could be granted again while its holder still holds it. The lease clock is Redis's
 * {@code TIME} minus an offset kept in Redis (the steps repaired so far), the same for every
 * issuer on the prefix.
 *
 * <p>How: every reading ({@code clock.lua}) is judged against this issuer's {@link MonotonicCourse}
 * of the lease clock. A reading past its window is a step ahead, and {@code clock-repair.lua} repairs it atomically: leases
 * still there are lengthened by the step, locks whose key has gone are held off for the step (their
 * holders may still hold them), and the offset grows by it, so every issuer's lease clock is back
 * on its course. Before that, no grant may go through: every granting script compares the lease
 * clock with {@link #highestArg()} and refuses past it ({@code lease-clock.lua}); the issuer then
 * reads the clock ({@link #read}, which repairs) and sends the grant again. A reading behind the
 * window is a step back: leases last longer, nothing to repair, and the new reading is the course.
 *
 * <p>What it cannot see: a step smaller than the tolerance, a clock that slews faster than
 * 1 ms a second (both covered by the lock key's margin past its lease, see
 * {@code expiry-margin.lua}), and a step while no issuer on the prefix was running (a fresh issuer
 * has no reading before the step to compare with).
 */
final class RedisClock {

    private static final Logger log = LoggerFactory.getLogger(RedisClock.class);

    /** A reading this far past its window is a step ({@link MonotonicCourse}). */
    static final long TOLERANCE_MS = MonotonicCourse.TOLERANCE_US / 1000;

    /** Locks held off after a step, until a monotonic time. */
    private record HeldOff(long untilNanos, long stepMs, long locks) { }

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final LongSupplier nanoClock;
    private final AtomicReference<CompletableFuture<Void>> reading = new AtomicReference<>();
    private final MonotonicCourse course = new MonotonicCourse(); // guarded by this, in µs
    private volatile HeldOff heldOff;
    private volatile String unrepaired;

    RedisClock(RedisAsyncCommands<String, String> redis, RedisKeys keys) {
        this(redis, keys, System::nanoTime);
    }

    RedisClock(RedisAsyncCommands<String, String> redis, RedisKeys keys, LongSupplier nanoClock) {
        this.redis = redis;
        this.keys = keys;
        this.nanoClock = nanoClock;
    }

    /**
     * Reads the lease clock and repairs a step ahead; callers that come while a reading is in flight
     * share it. Completes once this issuer's course is on the clock again.
     */
    CompletionStage<Void> read() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = reading.compareAndExchange(null, mine);
        if (running != null) {
            return running;
        }
        readAndRepair().whenComplete((ignored, error) -> {
            reading.set(null);
            if (error != null) {
                mine.completeExceptionally(error);
            } else {
                mine.complete(null);
            }
        });
        return mine;
    }

    private CompletionStage<Void> readAndRepair() {
        long sent = nanoClock.getAsLong();
        return LeaseScripts.clock.<List<Object>>run(redis, new String[] {keys.clockOffset(), keys.clockRepair()})
                .thenCompose(reply -> {
                    long answered = nanoClock.getAsLong();
                    long clockMs = LeaseScripts.asLong(reply.get(0));
                    noteRepair(LeaseScripts.str(reply.get(2)), clockMs, answered);
                    return observe(clockMs, sent, answered) ? repair() : CompletableFuture.completedFuture(null);
                });
    }

    /**
     * Judges a reading against the course.
     *
     * @return whether it is past the window (a step ahead, to repair); a reading behind it is taken
     *         for the course (a step back)
     */
    synchronized boolean observe(long clockMs, long sentNanos, long answeredNanos) {
        long clockUs = clockMs * 1000;
        MonotonicCourse.Reading reading = new MonotonicCourse.Reading(clockUs, sentNanos, answeredNanos);
        if (!course.started()) {
            course.restart(reading);
            return false;
        }
        MonotonicCourse.Window window = course.window(sentNanos, answeredNanos);
        if (window.ahead(clockUs)) {
            return true;
        }
        if (window.behind(clockUs)) {
            log.warn("Redis lease issuer: Redis's clock stepped back by about {} ms; its leases last that much longer than"
                    + " their holders count (the lease clock runs on from here)", (window.earliestUs() - clockUs) / 1000);
            course.restart(reading);
            return false;
        }
        course.onCourse(reading);
        return false;
    }

    private CompletionStage<Void> repair() {
        long sent = nanoClock.getAsLong();
        long earliest;
        long highest;
        synchronized (this) {
            earliest = course.window(sent, sent).earliestUs() / 1000;
            highest = course.highestUs(sent) / 1000;
        }
        return LeaseScripts.clockRepair.<List<Object>>run(redis,
                        new String[] {keys.clockOffset(), keys.clockRepair(), keys.live()},
                        Long.toString(earliest), Long.toString(highest), keys.lock(""), keys.delay(""), keys.readers(""),
                        Long.toString(TOLERANCE_MS))
                .handle((reply, error) -> {
                    long answered = nanoClock.getAsLong();
                    if (error != null) {
                        unrepaired = "Redis's clock stepped ahead and the step could not be repaired yet (" + error
                                + "): grants are refused until it is";
                        throw new java.util.concurrent.CompletionException(error);
                    }
                    unrepaired = null;
                    long clockMs = LeaseScripts.asLong(reply.get(1));
                    if (LeaseScripts.first(reply) == 1) {
                        long stepMs = LeaseScripts.asLong(reply.get(2));
                        long heldOffLocks = LeaseScripts.asLong(reply.get(4));
                        log.warn("Redis lease issuer: Redis's clock stepped ahead by about {} ms (an NTP step, an operator, a"
                                + " VM snapshot); repaired: {} leases lengthened by the step, {} locks whose leases it may have"
                                + " ended early held off for {} ms, the lease clock put back on course", stepMs,
                                LeaseScripts.asLong(reply.get(3)), heldOffLocks, stepMs + TOLERANCE_MS);
                        heldOff = new HeldOff(answered + TimeUnit.MILLISECONDS.toNanos(stepMs + TOLERANCE_MS), stepMs, heldOffLocks);
                        synchronized (this) {
                            course.restart(new MonotonicCourse.Reading(clockMs * 1000, sent, answered));
                        }
                    } else {
                        observe(clockMs, sent, answered); // another issuer repaired it first: on course again
                    }
                    return null;
                });
    }

    /** The last repair's record ({@code heldOffUntil:stepMs:locks} on the lease clock), so every issuer reports it. */
    private void noteRepair(String record, long clockMs, long answeredNanos) {
        String[] parts = record.split(":");
        if (parts.length != 3) {
            return;
        }
        long leftMs = Long.parseLong(parts[0]) - clockMs;
        HeldOff known = heldOff;
        long untilNanos = answeredNanos + TimeUnit.MILLISECONDS.toNanos(leftMs);
        if (leftMs > 0 && (known == null || untilNanos - known.untilNanos > TimeUnit.MILLISECONDS.toNanos(TOLERANCE_MS))) {
            heldOff = new HeldOff(untilNanos, Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
    }

    /**
     * The highest lease clock a granting script sent now may read without a step, if it runs at
     * once; empty before the first reading. A script that waited longer (a loaded server) is refused
     * too, and the issuer reads the clock before it sends it again.
     */
    String highestArg() {
        long now = nanoClock.getAsLong();
        synchronized (this) {
            return course.started() ? Long.toString(course.highestUs(now) / 1000) : "";
        }
    }

    /** Why grants are refused now, if some are: locks held off after a step, or a step not yet repaired. */
    Optional<String> failingClosed() {
        String notYet = unrepaired;
        if (notYet != null) {
            return Optional.of("Redis lease issuer: " + notYet);
        }
        HeldOff h = heldOff;
        if (h == null || h.locks == 0) {
            return Optional.empty();
        }
        long leftNanos = h.untilNanos - nanoClock.getAsLong();
        if (leftNanos <= 0) {
            heldOff = null;
            return Optional.empty();
        }
        return Optional.of("Redis lease issuer: Redis's clock stepped ahead by about " + h.stepMs + " ms; " + h.locks
                + (h.locks == 1 ? " lock" : " locks") + " whose leases the step may have ended early are refused for up to "
                + Math.max(1, TimeUnit.NANOSECONDS.toSeconds(leftNanos)) + " s more (their holders may still hold them)");
    }

}
