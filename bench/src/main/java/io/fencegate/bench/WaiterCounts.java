package io.fencegate.bench;

/**
 * Grants per waiter of one lock, counted from the moment every waiter has been granted once: from
 * then on each of them has a place in the lock's queue (or is about to take one back after its
 * release), so the counts measure how the lock is handed on, not who reached it first. Why: a
 * waiter whose first acquire takes longer to reach the queue (a gateway's first request, a new
 * connection) misses the rounds the others made meanwhile, and counting those rounds scored that
 * late start as unfairness (two gateways, 16 waiters: 0.83, with the grants in strict queue order).
 */
final class WaiterCounts {
    private final long[] counted;
    private final boolean[] joined;
    private int joinedCount;
    private long total;

    WaiterCounts(int waiters) {
        this.counted = new long[waiters];
        this.joined = new boolean[waiters];
    }

    /** Records a grant to {@code waiter}; true if it counts (every waiter had been granted before it). */
    synchronized boolean granted(int waiter) {
        if (joinedCount < joined.length) {
            if (!joined[waiter]) {
                joined[waiter] = true;
                joinedCount++;
            }
            return false;
        }
        counted[waiter]++;
        total++;
        return true;
    }

    /** Grants counted so far. */
    synchronized long counted() {
        return total;
    }

    /** The fewest counted grants of a waiter over the most; NaN for fewer than two waiters or none counted. */
    synchronized double fairness() {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long n : counted) {
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        return counted.length < 2 || max == 0 ? Double.NaN : (double) min / max;
    }
}
