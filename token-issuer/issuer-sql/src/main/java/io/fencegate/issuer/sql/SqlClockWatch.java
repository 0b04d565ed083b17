package io.fencegate.issuer.sql;

import io.fencegate.issuer.backend.MonotonicCourse;
import java.util.function.LongSupplier;

/**
 * This instance's cross-check of the issuer's clock against its own monotonic clock. The issuer's
 * clock ({@code NOW_US} in every statement, {@link SqlDialect}) is the database server's wall clock
 * plus an offset kept in the database ({@link SqlIssuerClock}); it must run on without jumps, for
 * two reasons: a token is a reading of it (a jump back would make tokens that a restore could hand
 * out again), and a lease's expiry is a time on it (a jump ahead ends live leases early, one back
 * lets dead ones block). Every reading is judged against this instance's {@link MonotonicCourse}
 * of it: a reading outside its window is a step of the server's clock (NTP, an operator, a VM
 * snapshot) or a restored offset row, and this instance answers the correction that puts the
 * issuer's clock back on its monotonic course.
 *
 * <p>The correction puts it at the earliest time the window allows: a lease is then never judged
 * older than it is (its holder's deadline ends first), and a token read a moment before may be ahead
 * of the corrected clock by at most the window, which the grant waits out.
 *
 * <p>Instances share the offset but each keeps its own course, and two courses differ by the width of
 * the readings that set them (seconds on a loaded host): a correction puts the clock at the earliest
 * its window allows. Judged by another instance's course, such a move looks like a small step back;
 * moving the clock ahead onto that course would end early every lease granted since on the other
 * course, and the other instance would move it back again, at every reading. So a move of the
 * offset carries a generation, one above the highest this instance has seen, and a reading of a
 * higher generation than its own that is on course or less than {@link #TAKEN_BEHIND_US} behind it
 * is taken for the course: putting a clock back ends no lease early, and a lock whose last token is
 * above it is refused until it passes. Anything else is judged as a step, whoever moved it: a server
 * step that landed with another instance's move, and a restore, which brings back an older
 * generation, never a newer one (so a restored offset never puts the clock back, and no token lost
 * with the restore comes again). A correction becomes this instance's course only once its move is
 * made ({@link #moved}).
 *
 * <p>What it cannot see: a step smaller than the tolerance (a lease's row lives a margin past its
 * ttl for that, {@link LeaseTables#keptUs}), and a step while this instance was not running (a
 * fresh instance has no reading before the step to compare with).
 */
final class SqlClockWatch {

    /**
     * Another instance's move this far behind the course at most is taken for it: far more than two
     * courses differ by (their readings' windows, each bounded by the statement timeout), far less
     * than the steps back a server's clock makes (an hour, a VM snapshot).
     */
    static final long TAKEN_BEHIND_US = 30_000_000;
    /** A reading this far outside the window counts as a step ({@link MonotonicCourse}). */
    static final long TOLERANCE_US = MonotonicCourse.TOLERANCE_US;

    private final LongSupplier nanoClock;
    private final MonotonicCourse course = new MonotonicCourse();
    /** The highest generation of the offset this instance has read or written. */
    private long generation;

    SqlClockWatch() {
        this(System::nanoTime);
    }

    SqlClockWatch(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /**
     * A reading of the issuer's clock taken between {@code sentNanos} and {@code answeredNanos}, with
     * the generation of the offset it read.
     *
     * @return the µs to add to the issuer's clock to put it back on course (negative after a step
     *         ahead), 0 if it is on course; a correction counts once {@link #moved} says it was made
     */
    synchronized long observe(long clockUs, long offsetGeneration, long sentNanos, long answeredNanos) {
        MonotonicCourse.Reading reading = new MonotonicCourse.Reading(clockUs, sentNanos, answeredNanos);
        if (!course.started()) {
            course.restart(reading);
            generation = offsetGeneration;
            return 0;
        }
        MonotonicCourse.Window window = course.window(sentNanos, answeredNanos);
        if (offsetGeneration > generation && !window.ahead(clockUs)
                && clockUs >= window.earliestUs() - window.slackUs() - TAKEN_BEHIND_US) {
            // Another instance moved the offset, at most a little behind this course: its clock is the course now.
            course.restart(reading);
            generation = offsetGeneration;
            return 0;
        }
        if (window.ahead(clockUs) || window.behind(clockUs)) {
            return window.earliestUs() - clockUs;
        }
        // The kept reading stays the narrowest (MonotonicCourse#onCourse): a correction puts the clock
        // at the earliest it may be, and from a reading whose answer took seconds that is seconds behind
        // its course. Another instance would then see a step back and move it ahead again, ending live
        // leases early, and tokens granted on the course before would come again above a restored
        // lock's last token.
        course.onCourse(reading);
        return 0;
    }

    /** The highest generation of the offset this instance has read or written. */
    synchronized long generation() {
        return generation;
    }

    /** The generation a move of the offset writes: above every one this instance has seen. */
    synchronized long nextGeneration() {
        return generation + 1;
    }

    /**
     * The offset was moved, to generation {@code movedTo}, by the correction {@link #observe} answered
     * for the reading taken between {@code sentNanos} and {@code answeredNanos}: the corrected clock
     * {@code correctedUs} is this instance's course from now on.
     */
    synchronized void moved(long correctedUs, long movedTo, long sentNanos, long answeredNanos) {
        course.restart(new MonotonicCourse.Reading(correctedUs, sentNanos, answeredNanos));
        generation = Math.max(generation, movedTo);
    }

    /**
     * The earliest issuer time a statement sent from now on may read without a step: a statement
     * that writes a time checks it, so a clock stepped back is never written into a lease before it
     * is seen. {@link Long#MIN_VALUE} before the first reading.
     */
    synchronized long lowestUs() {
        return course.lowestUs(nanoClock.getAsLong());
    }

    /**
     * The latest issuer time a statement sent now may read without a step, if it runs at once: a
     * statement that judges a lease expired checks it, so a clock stepped ahead never ends a live
     * lease before the step is seen. A statement that waited longer (a row lock, a loaded server)
     * is refused by it too, and the caller takes the slower way that reads the clock first.
     * {@link Long#MAX_VALUE} before the first reading.
     */
    synchronized long highestUs() {
        return course.highestUs(nanoClock.getAsLong());
    }
}
