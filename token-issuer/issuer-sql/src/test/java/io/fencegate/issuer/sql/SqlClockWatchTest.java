package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cross-check of the issuer's clock, on readings made up to the microsecond: the true course
 * here is the monotonic clock itself (µs = ns / 1000), and a reading is taken somewhere between
 * sending its statement and getting its answer.
 */
class SqlClockWatchTest {

    private static final long HOUR_US = TimeUnit.HOURS.toMicros(1);

    @Test
    void aStepIsCorrectedToWithinTheToleranceOfItsCourseEvenAfterASlowReading() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        assertThat(watch.observe(5_000, ms(0), ms(10))).isZero(); // a quick reading
        // A statement sent at 1 s whose answer took 3 s (a stalled link); the server read its clock at once.
        assertThat(watch.observe(1_100_000, ms(1_000), ms(4_000))).as("on course").isZero();
        // The server's clock steps an hour ahead; a quick reading at 5 s sees it.
        long clockUs = 5_005_000 + HOUR_US;
        long corrected = clockUs + watch.observe(clockUs, ms(5_000), ms(5_010));
        assertThat(corrected).as("the corrected clock against its course, 5.005 s")
                .isBetween(5_005_000 - SqlClockWatch.TOLERANCE_US, 5_005_000L);
    }

    @Test
    void aStepBackIsCorrectedToWithinTheToleranceOfItsCourseEvenAfterASlowReading() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        watch.observe(5_000, ms(0), ms(10));
        watch.observe(1_100_000, ms(1_000), ms(4_000));
        long clockUs = 5_005_000 - HOUR_US;
        long corrected = clockUs + watch.observe(clockUs, ms(5_000), ms(5_010));
        assertThat(corrected).isBetween(5_005_000 - SqlClockWatch.TOLERANCE_US, 5_005_000L);
    }

    @Test
    void readingsOnCourseAreNotCorrectedWhateverTheirOrderOrRoundTrip() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        assertThat(watch.observe(5_000, ms(0), ms(10))).isZero();
        // Overlapping readings answered out of order, one slow.
        assertThat(watch.observe(2_500_000, ms(2_000), ms(9_000))).isZero();
        assertThat(watch.observe(3_005_000, ms(3_000), ms(3_010))).isZero();
        assertThat(watch.observe(8_900_000, ms(8_800), ms(9_100))).isZero();
        // Much later, after the kept reading has aged.
        assertThat(watch.observe(60_005_000, ms(60_000), ms(60_010))).isZero();
    }

    @Test
    void theBoundsAStatementIsCheckedAgainstFollowTheNarrowestReading() {
        long[] now = {ms(4_000)};
        SqlClockWatch watch = new SqlClockWatch(() -> now[0]);
        watch.observe(5_000, ms(0), ms(10));
        watch.observe(1_100_000, ms(1_000), ms(4_000));
        now[0] = ms(5_000);
        assertThat(watch.lowestUs()).isBetween(5_000_000 - SqlClockWatch.TOLERANCE_US - 20_000, 5_000_000L);
        assertThat(watch.highestUs()).isBetween(5_000_000L, 5_000_000 + SqlClockWatch.TOLERANCE_US + 20_000);
    }

    @Test
    void aReadingALittleBehindItsCourseIsTakenForTheCourseNotMovedAhead() {
        long[] now = {ms(2_010)};
        SqlClockWatch watch = new SqlClockWatch(() -> now[0]);
        watch.observe(5_000, ms(0), ms(10));
        // Another instance put the clock 3 s behind this course (its correction, from a wide reading).
        assertThat(watch.observe(2_005_000 - 3_000_000, ms(2_000), ms(2_010))).isZero();
        // It is the course from now on: statements are checked against it, and a later reading on it is not a step.
        assertThat(watch.lowestUs()).isLessThanOrEqualTo(2_005_000 - 3_000_000);
        assertThat(watch.observe(3_005_000 - 3_000_000, ms(3_000), ms(3_010))).isZero();
        // Far behind (a step back of the server's clock) is moved ahead, onto the course.
        long clockUs = 4_005_000 - 3_000_000 - HOUR_US;
        assertThat(clockUs + watch.observe(clockUs, ms(4_000), ms(4_010)))
                .isBetween(4_005_000 - 3_000_000 - SqlClockWatch.TOLERANCE_US, 4_005_000L - 3_000_000);
    }

    private static long ms(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
