package io.fencegate.issuer.sql;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The issuer's clock: the database server's wall clock plus an offset, kept in the database so
 * every instance reads the same time ({@code NOW_US} in every statement). The offset lives in a row
 * of {@code fencegate_lock_fence} of its own (key: 32 zero bytes, which no lock name hashes to;
 * {@code token}: the offset in µs), so no table is added and a backup of the issuer's tables holds it.
 *
 * <p>Why an offset: the server's clock may step (NTP, an operator, a VM restored from a snapshot)
 * and an offset row may come back older with a restore. Each instance reads the clock with the
 * monotonic bracket around the reading ({@link SqlClockWatch}); when a reading is off its course it
 * moves the offset so that the issuer's clock runs on from where it was, for every instance at once.
 * The move is a compare-and-set on the offset and its generation (kept in the row's {@code free_us}):
 * of several instances that saw the same step, one moves it, and the others take the moved clock for
 * their course at their next reading ({@link SqlClockWatch}).
 */
final class SqlIssuerClock {

    private static final Logger log = LoggerFactory.getLogger(SqlIssuerClock.class);
    private static final byte[] NAME = "fencegate/issuer-clock".getBytes(StandardCharsets.UTF_8);

    private final SqlClockWatch watch;
    private final int timeoutSeconds;
    private final String read;
    private final String insert;
    private final String move;

    SqlIssuerClock(SqlDialect dialect, int timeoutSeconds, SqlClockWatch watch) {
        this.watch = watch;
        this.timeoutSeconds = timeoutSeconds;
        this.read = dialect.sql("SELECT NOW_US, (SELECT token FROM fencegate_lock_fence WHERE lock_key = CLOCK_KEY),"
                + " (SELECT free_us FROM fencegate_lock_fence WHERE lock_key = CLOCK_KEY)");
        this.insert = dialect.sql("INSERT INTO fencegate_lock_fence (lock_key, lock_name, token, free_us) VALUES (CLOCK_KEY, ?, ?, ?)");
        this.move = dialect.sql("UPDATE fencegate_lock_fence SET token = ?, free_us = ?"
                + " WHERE lock_key = CLOCK_KEY AND token = ? AND COALESCE(free_us, 0) = ?");
    }

    SqlClockWatch watch() {
        return watch;
    }

    /**
     * Reads the issuer's clock on {@code c} and, if it stepped, moves the offset (in {@code c}'s
     * transaction, or on its own under autocommit) so it runs on its course.
     *
     * @return the issuer's clock now, on course; null if the offset could not be moved (another
     *         instance moved it first): read again in a new transaction
     */
    Long read(Connection c) throws SQLException {
        long sent = watch.nanoTime();
        long clockUs;
        long offsetUs;
        long generation;
        boolean rowKept;
        try (PreparedStatement s = prepare(c, read); ResultSet rs = s.executeQuery()) {
            rs.next();
            clockUs = rs.getLong(1);
            offsetUs = rs.getLong(2);
            rowKept = !rs.wasNull();
            generation = rs.getLong(3);
        }
        long answered = watch.nanoTime();
        long correction = watch.observe(clockUs, generation, sent, answered);
        if (correction == 0 && rowKept) {
            if (generation < watch.generation()) {
                raise(c, offsetUs, generation, watch.generation());
            }
            return clockUs;
        }
        if (correction != 0) {
            log.warn("SQL lease issuer: the issuer's clock (the database server's clock + {} µs) stepped {} by about {} ms;"
                    + " moving its offset so it runs on from where it was", offsetUs, correction < 0 ? "ahead" : "back",
                    Math.abs(correction) / 1000);
        }
        // Above every generation seen, the one just read too: a move must never look older than the one it follows.
        long movedTo = Math.max(watch.nextGeneration(), generation + 1);
        boolean moved;
        if (!rowKept) {
            moved = insert(c, offsetUs + correction, movedTo);
        } else {
            try (PreparedStatement s = prepare(c, move)) {
                s.setLong(1, offsetUs + correction);
                s.setLong(2, movedTo);
                s.setLong(3, offsetUs);
                s.setLong(4, generation);
                moved = s.executeUpdate() == 1;
            }
        }
        if (!moved) {
            return null;
        }
        watch.moved(clockUs + correction, movedTo, sent, answered);
        return clockUs + correction;
    }

    /**
     * A restore brought back the offset on course but with an older generation: puts back the one
     * this instance knows, so that an instance started since, which knows only the restored one,
     * takes the others' later moves for its course rather than judging them, and its own moves are
     * taken by them. One compare-and-set; another instance may have raised or moved it first.
     */
    private void raise(Connection c, long offsetUs, long from, long to) throws SQLException {
        try (PreparedStatement s = prepare(c, move)) {
            s.setLong(1, offsetUs);
            s.setLong(2, to);
            s.setLong(3, offsetUs);
            s.setLong(4, from);
            s.executeUpdate();
        }
    }

    /** Creates the offset row (offset 0) if it is missing: a new database, or a restore from before it existed. */
    void ensure(Connection c) throws SQLException {
        insert(c, 0, 0);
    }

    private boolean insert(Connection c, long offsetUs, long generation) throws SQLException {
        try (PreparedStatement s = prepare(c, insert)) {
            s.setBytes(1, NAME);
            s.setLong(2, offsetUs);
            s.setLong(3, generation);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
            return false; // a concurrent instance created it
        }
    }

    private PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        s.setQueryTimeout(timeoutSeconds);
        return s;
    }
}
