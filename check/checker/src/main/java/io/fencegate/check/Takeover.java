package io.fencegate.check;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The schedule of the {@code rw} plain-reads control, arranged among the clients of one process: a
 * writer that read the item plainly holds its value past its ttl until its lock's next writer has
 * read the item too, then writes; the next writer writes after it. Both read the same value and both
 * writes are acknowledged (no read raised the fence, and the paused writer's token is still the
 * highest written), so one increment is lost: the anomaly a paused holder without fenced reads
 * causes, made to happen in every round instead of when a pause and a successor's read happen to
 * line up. Left to chance, a 20 s control on a slow deployment once showed none.
 *
 * <p>The clients stay real: every call goes to the gateways and is recorded as any other, and the
 * checker judges the history without knowing of this schedule.
 */
final class Takeover {
    private final Map<String, Paused> paused = new ConcurrentHashMap<>();

    /** A writer holding a stale value; its successor's read and then its own write are the two signals. */
    private record Paused(long token, CountDownLatch successorRead, CountDownLatch written) {}

    /** What the caller does after its write: tell a successor waiting on it that it wrote. */
    interface Turn {
        void written();
    }

    private static final Turn NONE = () -> {};

    /**
     * Between the plain read of {@code key} and the write, by a writer holding {@code token}: the
     * successor of a paused writer lets it write and waits for that write; otherwise, with the pause
     * chance and if no other writer of the item is paused, it becomes the paused writer and waits up to
     * {@code waitMs} for a successor's read; otherwise it thinks or pauses as ever.
     */
    Turn between(ClientLoop client, String key, long token, long waitMs) throws InterruptedException {
        Paused stale = paused.get(key);
        // Only a later grant takes over: a holder granted before the paused one is itself stale.
        if (stale != null && stale.token() < token && paused.remove(key, stale)) {
            stale.successorRead().countDown();
            stale.written().await(waitMs, TimeUnit.MILLISECONDS);
            return NONE;
        }
        Paused mine = new Paused(token, new CountDownLatch(1), new CountDownLatch(1));
        if (client.nextDouble() >= client.options().pauseChance() || paused.putIfAbsent(key, mine) != null) {
            client.pauseOrThink();
            return NONE;
        }
        // No release, no renew: the lease runs out and the lock goes to the next asker.
        if (!mine.successorRead().await(waitMs, TimeUnit.MILLISECONDS) && !paused.remove(key, mine)) {
            mine.successorRead().await(waitMs, TimeUnit.MILLISECONDS); // taken over just now: its read is under way
        }
        return mine.written()::countDown;
    }
}
