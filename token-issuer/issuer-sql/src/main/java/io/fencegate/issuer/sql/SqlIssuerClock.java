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
 * The move is a compare-and-set on the offset it read: of several instances that saw the same step,
 * one moves it, and the others find the clock on course at their next reading.
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
        this.read = dialect.sql("SELECT NOW_US, (SELECT token FROM fencegate_lock_fence WHERE lock_key = CLOCK_KEY)");
        this.insert = dialect.sql("INSERT INTO fencegate_lock_fence (lock_key, lock_name, token) VALUES (CLOCK_KEY, ?, ?)");
        this.move = dialect.sql("UPDATE fencegate_lock_fence SET token = ? WHERE lock_key = CLOCK_KEY AND token = ?");
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
        boolean rowKept;
        try (PreparedStatement s = prepare(c, read); ResultSet rs = s.executeQuery()) {
            rs.next();
            clockUs = rs.getLong(1);
            offsetUs = rs.getLong(2);
            rowKept = !rs.wasNull();
        }
        long correction = watch.observe(clockUs, sent, watch.nanoTime());
        if (correction == 0 && rowKept) {
            return clockUs;
        }
        if (correction != 0) {
            log.warn("SQL lease issuer: the issuer's clock (the database server's clock + {} µs) stepped {} by about {} ms;"
                    + " moving its offset so it runs on from where it was", offsetUs, correction < 0 ? "ahead" : "back",
                    Math.abs(correction) / 1000);
        }
        if (!rowKept) {
            return insert(c, offsetUs + correction) ? clockUs + correction : null;
        }
        try (PreparedStatement s = prepare(c, move)) {
            s.setLong(1, offsetUs + correction);
            s.setLong(2, offsetUs);
            return s.executeUpdate() == 1 ? clockUs + correction : null;
        }
    }

    /** Creates the offset row (offset 0) if it is missing: a new database, or a restore from before it existed. */
    void ensure(Connection c) throws SQLException {
        insert(c, 0);
    }

    private boolean insert(Connection c, long offsetUs) throws SQLException {
        try (PreparedStatement s = prepare(c, insert)) {
            s.setBytes(1, NAME);
            s.setLong(2, offsetUs);
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
