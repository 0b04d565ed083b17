package io.fencegate.issuer.backend;

import java.util.concurrent.TimeUnit;

/**
 * The course of a backend's wall clock as this process sees it, for an issuer whose leases end by
 * that clock (the database server's, Redis's). Each reading of it is bracketed by the
 * {@link System#nanoTime()} before its request was sent and after its answer came, so a slow round
 * trip widens the window of what a reading may be instead of looking like a step. A reading outside
 * the window the kept reading allows, by more than {@link #TOLERANCE_US} and the drift allowed since,
 * is a step of the backend's clock (NTP, an operator, a VM restored from a snapshot); what to do
 * about it is the issuer's. Times in µs. Not thread-safe: its owner synchronizes.
 */
public final class MonotonicCourse {

    /** A reading this far outside its window counts as a step: far above NTP's slew between readings a second apart. */
    public static final long TOLERANCE_US = 250_000;
    /** Monotonic time and a slewing wall clock drift apart by at most this many µs a second between readings (NTP's 500 ppm, doubled). */
    private static final long DRIFT_US_PER_S = 1_000;
    /** A round trip this short always makes a reading the one later readings are judged against. */
    private static final long NARROW_NANOS = TimeUnit.MICROSECONDS.toNanos(TOLERANCE_US / 4);
    /** A kept reading older than this gives way to any later one: the drift allowed since it outgrows a wide bracket. */
    private static final long KEPT_AT_MOST_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** One reading: the backend's clock and the monotonic bracket around it. */
    public record Reading(long clockUs, long sentNanos, long answeredNanos) {
        long windowNanos() {
            return answeredNanos - sentNanos;
        }
    }

    /**
     * Where a reading taken in a bracket lies on course: between {@code earliestUs} and
     * {@code latestUs}, give or take {@code slackUs} (the tolerance and the drift allowed since the
     * kept reading).
     */
    public record Window(long earliestUs, long latestUs, long slackUs) {
        /** Past the window: a step ahead. */
        public boolean ahead(long clockUs) {
            return clockUs > latestUs + slackUs;
        }

        /** Before the window: a step back. */
        public boolean behind(long clockUs) {
            return clockUs < earliestUs - slackUs;
        }
    }

    private Reading kept;

    /** Whether a reading set the course yet. */
    public boolean started() {
        return kept != null;
    }

    /** The window for a reading taken between {@code sentNanos} and {@code answeredNanos}; only once {@link #started()}. */
    public Window window(long sentNanos, long answeredNanos) {
        // The bounds hold whatever the order: readings on several threads overlap, and each is
        // checked against the kept one.
        return new Window(kept.clockUs + micros(sentNanos - kept.answeredNanos),
                kept.clockUs + micros(answeredNanos - kept.sentNanos), slackUs(answeredNanos - kept.sentNanos));
    }

    /**
     * A reading on course: it becomes the one later readings are judged against if its bracket is
     * no wider (a wide one, from a stalled link or a loaded host, would widen every later window by
     * its width), or once the kept one has aged.
     */
    public void onCourse(Reading reading) {
        if (reading.windowNanos() <= Math.max(kept.windowNanos(), NARROW_NANOS)
                || reading.answeredNanos - kept.answeredNanos > KEPT_AT_MOST_NANOS) {
            kept = reading;
        }
    }

    /** The course starts anew from this reading: the first, a step taken for the course, or a corrected clock. */
    public void restart(Reading reading) {
        kept = reading;
    }

    /**
     * The earliest the backend's clock may read now without a step, given the slack; a request that
     * writes a time checks it. {@link Long#MIN_VALUE} before the first reading.
     */
    public long lowestUs(long nowNanos) {
        if (kept == null) {
            return Long.MIN_VALUE;
        }
        long elapsed = nowNanos - kept.answeredNanos;
        return kept.clockUs + micros(elapsed) - slackUs(elapsed);
    }

    /**
     * The latest the backend's clock may read now without a step, if the request runs at once; a
     * request that judges a lease expired checks it. {@link Long#MAX_VALUE} before the first reading.
     */
    public long highestUs(long nowNanos) {
        if (kept == null) {
            return Long.MAX_VALUE;
        }
        long elapsed = nowNanos - kept.sentNanos;
        return kept.clockUs + micros(elapsed) + slackUs(elapsed);
    }

    private static long slackUs(long elapsedNanos) {
        return TOLERANCE_US + DRIFT_US_PER_S * Math.max(0, TimeUnit.NANOSECONDS.toSeconds(elapsedNanos));
    }

    private static long micros(long nanos) {
        return nanos / 1000;
    }
}
