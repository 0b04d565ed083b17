package io.fencegate.check;

import java.time.Instant;

/**
 * Epoch microseconds from a monotonic source: the wall clock is read once, then only
 * {@link System#nanoTime()} advances it, so a clock step during a run never reorders a history.
 * Processes on one host agree to within the wall clock's reading at their start.
 */
public final class Clock {
    private static final long BASE_US;
    private static final long BASE_NANOS;

    static {
        Instant now = Instant.now();
        BASE_NANOS = System.nanoTime();
        BASE_US = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private Clock() {}

    public static long nowUs() {
        return BASE_US + (System.nanoTime() - BASE_NANOS) / 1_000;
    }
}
