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
        assertThat(watch.observe(5_000, 0, ms(0), ms(10))).isZero(); // a quick reading
        // A statement sent at 1 s whose answer took 3 s (a stalled link); the server read its clock at once.
        assertThat(watch.observe(1_100_000, 0, ms(1_000), ms(4_000))).as("on course").isZero();
        // The server's clock steps an hour ahead; a quick reading at 5 s sees it.
        long clockUs = 5_005_000 + HOUR_US;
        long corrected = clockUs + watch.observe(clockUs, 0, ms(5_000), ms(5_010));
        assertThat(corrected).as("the corrected clock against its course, 5.005 s")
                .isBetween(5_005_000 - SqlClockWatch.TOLERANCE_US, 5_005_000L);
    }

    @Test
    void aStepBackIsCorrectedToWithinTheToleranceOfItsCourseEvenAfterASlowReading() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        watch.observe(5_000, 0, ms(0), ms(10));
        watch.observe(1_100_000, 0, ms(1_000), ms(4_000));
        long clockUs = 5_005_000 - HOUR_US;
        long corrected = clockUs + watch.observe(clockUs, 0, ms(5_000), ms(5_010));
        assertThat(corrected).isBetween(5_005_000 - SqlClockWatch.TOLERANCE_US, 5_005_000L);
    }

    @Test
    void readingsOnCourseAreNotCorrectedWhateverTheirOrderOrRoundTrip() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        assertThat(watch.observe(5_000, 0, ms(0), ms(10))).isZero();
        // Overlapping readings answered out of order, one slow.
        assertThat(watch.observe(2_500_000, 0, ms(2_000), ms(9_000))).isZero();
        assertThat(watch.observe(3_005_000, 0, ms(3_000), ms(3_010))).isZero();
        assertThat(watch.observe(8_900_000, 0, ms(8_800), ms(9_100))).isZero();
        // Much later, after the kept reading has aged.
        assertThat(watch.observe(60_005_000, 0, ms(60_000), ms(60_010))).isZero();
    }

    @Test
    void theBoundsAStatementIsCheckedAgainstFollowTheNarrowestReading() {
        long[] now = {ms(4_000)};
        SqlClockWatch watch = new SqlClockWatch(() -> now[0]);
        watch.observe(5_000, 0, ms(0), ms(10));
        watch.observe(1_100_000, 0, ms(1_000), ms(4_000));
        now[0] = ms(5_000);
        assertThat(watch.lowestUs()).isBetween(5_000_000 - SqlClockWatch.TOLERANCE_US - 20_000, 5_000_000L);
        assertThat(watch.highestUs()).isBetween(5_000_000L, 5_000_000 + SqlClockWatch.TOLERANCE_US + 20_000);
    }

    @Test
    void aCorrectionCountsOnlyOnceItsMoveIsMade() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        watch.observe(5_000, 0, ms(0), ms(10));
        // A step an hour ahead: the correction is answered, but another instance moved the offset first.
        assertThat(watch.observe(1_005_000 + HOUR_US, 0, ms(1_000), ms(1_010))).isNegative();
        // Its move put the clock on this course: nothing to correct.
        assertThat(watch.observe(2_005_000, 0, ms(2_000), ms(2_010))).isZero();
    }

    @Test
    void anOffsetMovedByAnotherInstanceIsTheCourseFromThen() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        watch.observe(5_000, 3, ms(0), ms(10));
        // Another instance moved it 2 s behind this course (generation 4): taken as it is, not moved back.
        assertThat(watch.observe(1_005_000 - 2_000_000, 4, ms(1_000), ms(1_010))).isZero();
        assertThat(watch.nextGeneration()).isEqualTo(5);
        assertThat(watch.observe(2_005_000 - 2_000_000, 4, ms(2_000), ms(2_010))).isZero();
        // A restore brings back an older generation: its offset is judged, and a step is corrected.
        assertThat(watch.observe(3_005_000 + 5_000_000, 2, ms(3_000), ms(3_010))).isNegative();
    }

    @Test
    void anotherInstancesMoveIsJudgedWhenAServerStepCameWithIt() {
        SqlClockWatch watch = new SqlClockWatch(() -> 0);
        watch.observe(5_000, 3, ms(0), ms(10));
        // Generation 4, but an hour behind this course: a server step back landed with the move.
        long back = 1_005_000 - HOUR_US;
        assertThat(back + watch.observe(back, 4, ms(1_000), ms(1_010)))
                .isBetween(1_005_000 - SqlClockWatch.TOLERANCE_US, 1_005_000L);
        // Generation 4 and ahead of this course: moved back too, never taken.
        assertThat(watch.observe(2_005_000 + 5_000_000, 4, ms(2_000), ms(2_010))).isNegative();
    }

    private static long ms(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
