package io.fencegate.shedlock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * What a {@code @SchedulerLock} job running under a {@link FencedLockProvider} reads about its
 * lease, from the job's own thread (as ShedLock's {@code LockAssert} works):
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @SchedulerLock(name = "daily-report", lockAtMostFor = "30s")
 * void report() {
 *     long token = FencedJob.token();
 *     ... compute ...
 *     FencedJob.checkHeld();                       // stop early if the lease was lost
 *     dsl.update(REPORT).set(...).set(guard.advanceTo(token)).where(...).and(guard.admits(token)).execute();
 * }
 * }</pre>
 */
public final class FencedJob {
    private static final ThreadLocal<Deque<FencedLease>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private FencedJob() { }

    /** The innermost lease held on this thread, if any. */
    public static Optional<FencedLease> lease() {
        return Optional.ofNullable(HELD.get().peek());
    }

    /** The token of the innermost lease held on this thread. */
    public static long token() {
        return required().token();
    }

    /** Throws {@link LeaseLostException} if this thread's lease was lost. */
    public static void checkHeld() {
        required().checkHeld();
    }

    private static FencedLease required() {
        FencedLease lease = HELD.get().peek();
        if (lease == null) {
            throw new IllegalStateException("no fencegate lease on this thread: call it from a @SchedulerLock method "
                    + "whose LockProvider is a FencedLockProvider");
        }
        return lease;
    }

    static void push(FencedLease lease) {
        HELD.get().push(lease);
    }

    static void remove(FencedLease lease) {
        Deque<FencedLease> held = HELD.get();
        held.removeFirstOccurrence(lease);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
