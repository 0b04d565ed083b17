package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.LeaseIssuer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two instances of the issuer's clock on one database, as two gateways have: once one of them has
 * moved the offset after a step, a little behind the other's course, the other takes the moved
 * clock for its course and never moves it ahead. Each instance's
 * course is only as exact as the readings that set it (a correction puts the clock at the earliest
 * its window allows, seconds behind on a loaded host), and judging another instance's move by a
 * course of its own moved the clock back, the first instance moved it again, and so on at every
 * reading: the clock jumped ahead by the difference each time, which ended live leases early.
 */
class SqlIssuerClockPeersIT {

    private static final long HOUR_US = TimeUnit.HOURS.toMicros(1);
    private static final long WIDE_NANOS = TimeUnit.SECONDS.toNanos(3);

    @ParameterizedTest
    @EnumSource(value = SqlTestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void anotherInstancesCorrectionIsNeverCorrectedBack(SqlTestDatabase.Kind kind) throws Exception {
        onOneDatabase(kind, (c, dialect) -> {
            WideOnce bNanos = new WideOnce();
            SqlIssuerClock a = new SqlIssuerClock(dialect, 10, new SqlClockWatch());
            SqlIssuerClock b = new SqlIssuerClock(dialect, 10, new SqlClockWatch(bNanos));
            a.ensure(c);
            assertThat(a.read(c)).isNotNull();
            assertThat(b.read(c)).isNotNull();

            // The server's clock steps an hour ahead; B sees it first, on a reading whose answer took
            // 3 s, and moves the clock to the earliest that window allows: up to 3 s behind A's course.
            step(c, HOUR_US);
            bNanos.nextSentEarlierBy(WIDE_NANOS);
            Long afterB = b.read(c);
            assertThat(afterB).isNotNull();
            long moved = offset(c);
            assertThat(moved).as("B moved the offset back by the hour").isLessThan(HOUR_US / 2);

            // From now on neither moves it again, whoever reads.
            for (int i = 0; i < 5; i++) {
                for (SqlIssuerClock clock : new SqlIssuerClock[] {a, b}) {
                    assertThat(clock.read(c)).isNotNull();
                    assertThat(offset(c)).as("the offset after round %d", i).isEqualTo(moved);
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = SqlTestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void aGatewayStartedAfterARestoreHasItsCorrectionTakenToo(SqlTestDatabase.Kind kind) throws Exception {
        onOneDatabase(kind, (c, dialect) -> {
            WideOnce bNanos = new WideOnce();
            SqlIssuerClock a = new SqlIssuerClock(dialect, 10, new SqlClockWatch());
            SqlIssuerClock b = new SqlIssuerClock(dialect, 10, new SqlClockWatch(bNanos));
            a.ensure(c);
            a.read(c);
            b.read(c);
            step(c, HOUR_US);
            bNanos.nextSentEarlierBy(WIDE_NANOS);
            assertThat(b.read(c)).isNotNull(); // B's move: generation 1
            assertThat(a.read(c)).isNotNull();

            // A restore brings back the offset as it is now, with the backup's generation (0). A reads
            // it on course and raises the generation back; a gateway started since joins at it.
            try (PreparedStatement s = c.prepareStatement(dialect.sql("UPDATE fencegate_lock_fence SET free_us = 0 WHERE lock_key = CLOCK_KEY"))) {
                s.executeUpdate();
            }
            assertThat(a.read(c)).isNotNull();
            assertThat(generation(c)).as("the generation after A read the restored row").isEqualTo(1);
            WideOnce cNanos = new WideOnce();
            SqlIssuerClock fresh = new SqlIssuerClock(dialect, 10, new SqlClockWatch(cNanos));
            assertThat(fresh.read(c)).isNotNull();

            // The new gateway corrects the next step from a wide reading; A and B take its move.
            step(c, HOUR_US);
            cNanos.nextSentEarlierBy(WIDE_NANOS);
            assertThat(fresh.read(c)).isNotNull();
            long moved = offset(c);
            for (int i = 0; i < 3; i++) {
                for (SqlIssuerClock clock : new SqlIssuerClock[] {a, b, fresh}) {
                    assertThat(clock.read(c)).isNotNull();
                    assertThat(offset(c)).as("the offset after round %d", i).isEqualTo(moved);
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = SqlTestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void aServerStepThatLandsWithAnotherInstancesMoveIsStillCorrected(SqlTestDatabase.Kind kind) throws Exception {
        onOneDatabase(kind, (c, dialect) -> {
            SqlIssuerClock a = new SqlIssuerClock(dialect, 10, new SqlClockWatch());
            SqlIssuerClock b = new SqlIssuerClock(dialect, 10, new SqlClockWatch());
            a.ensure(c);
            a.read(c);
            b.read(c);
            step(c, HOUR_US);
            assertThat(b.read(c)).isNotNull(); // B's move: a generation A has not seen yet
            long course = b.read(c);

            // Before A reads again, the server's clock steps an hour back. A reads B's newer generation and a
            // clock an hour behind its course: taking that for the course would put the issuer's clock an hour
            // back, and every token of the last hour would come again.
            step(c, -HOUR_US);
            Long afterStep = a.read(c);
            assertThat(afterStep).as("A's reading after the step back").isNotNull();
            // A correction puts the clock at the earliest its window allows: a little behind B's reading at most, never an hour.
            assertThat(afterStep).as("the issuer's clock after a step that landed with a move")
                    .isGreaterThanOrEqualTo(course - SqlClockWatch.TOLERANCE_US);
            Long bAfter = b.read(c);
            assertThat(bAfter).isNotNull().isGreaterThanOrEqualTo(afterStep);
        });
    }

    /** What a case does with one connection to a database whose issuer tables a gateway's issuer migrated. */
    @FunctionalInterface
    private interface OnOneDatabase {
        void run(Connection c, SqlDialect dialect) throws Exception;
    }

    private static void onOneDatabase(SqlTestDatabase.Kind kind, OnOneDatabase body) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind)) {
            try (LeaseIssuer migrated = db.issuer().build()) {
                assertThat(migrated).isNotNull();
            }
            try (Connection c = db.connect()) {
                body.run(c, SqlDialect.of(c));
            }
        }
    }

    private static long generation(Connection c) throws SQLException {
        SqlDialect dialect = SqlDialect.of(c);
        try (PreparedStatement s = c.prepareStatement(dialect.sql("SELECT free_us FROM fencegate_lock_fence WHERE lock_key = CLOCK_KEY"));
             ResultSet rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    /** The server's clock steps by {@code us}: the offset's value moves by {@code -us} with its generation kept, as if NOW moved. */
    private static void step(Connection c, long us) throws SQLException {
        SqlDialect dialect = SqlDialect.of(c);
        try (PreparedStatement s = c.prepareStatement(dialect.sql("UPDATE fencegate_lock_fence SET token = token + ? WHERE lock_key = CLOCK_KEY"))) {
            s.setLong(1, us);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }

    private static long offset(Connection c) throws SQLException {
        SqlDialect dialect = SqlDialect.of(c);
        try (PreparedStatement s = c.prepareStatement(dialect.sql("SELECT token FROM fencegate_lock_fence WHERE lock_key = CLOCK_KEY"));
             ResultSet rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    /** The monotonic clock, but the next reading's send is dated earlier: a statement whose answer took that long. */
    private static final class WideOnce implements LongSupplier {
        private long earlierNanos;
        private boolean sending = true;

        void nextSentEarlierBy(long nanos) {
            earlierNanos = nanos;
            sending = true;
        }

        @Override
        public long getAsLong() {
            long now = System.nanoTime();
            if (earlierNanos > 0 && sending) {
                sending = false;
                long earlier = earlierNanos;
                earlierNanos = 0;
                return now - earlier;
            }
            return now;
        }
    }
}
