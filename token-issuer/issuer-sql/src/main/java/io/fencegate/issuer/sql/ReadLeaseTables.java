package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The statements of read leases, each call one short transaction that first locks the lock's fence
 * row, as every write-lease call does: so a read grant, a write grant, a renew and a release of the
 * same lock are serialized by that one row lock, and each judges by a clock read after it.
 *
 * <p>Each read lease is a row of {@code fencegate_lease_reader}. While any may live, the fence row
 * stands for them all as one lease with the secret {@link LeaseTables#READERS}, expiring when the
 * last may end with its lock-delay: every write grant (the one-statement ones included, and those of
 * an issuer of the previous version) finds the lock held by the rule it already applies. A read grant
 * takes the lock's next token like any grant (the fence row's {@code token}, marked {@code token_read}).
 */
final class ReadLeaseTables {

    private static final String READERS = "'" + LeaseTables.READERS + "'";
    /** {@link #releaseOnce}'s answer when another instance moved the clock's offset under it: nothing was changed, try again. */
    private static final long CLOCK_MOVED = Long.MIN_VALUE;
    private static final int CLOCK_MOVED_RETRIES = 5;

    private final LeaseTables tables;
    private final String oldestWriter;
    private final String standFor;
    private final String insertReader;
    private final String insertGrant;
    private final String lockReader;
    private final String renewReader;
    private final String extendFence;
    private final String deleteReader;
    private final String markReleased;
    private final String lastReaders;
    private final String freeFence;
    private final String shrinkFence;
    private final String notifyNext;
    private final String findReader;
    private final String readerRow;
    private final String released;
    private final String mode;

    ReadLeaseTables(LeaseTables tables) {
        this.tables = tables;
        SqlDialect d = tables.dialect;
        this.oldestWriter = d.sql("SELECT MIN(id) FROM fencegate_lease_waiter WHERE lock_key = ?"
                + " AND (read_lease IS NULL OR read_lease = FALSE) AND " + LeaseTables.WAITER_LIVE);
        // The fence row takes the new token and stands for the read leases: its expiry is the latest
        // any of them may live, its ttl and delay the longest (the bound a clock step is judged by).
        // Times from the clock reading the grant was judged by (the token), as a write grant writes them.
        this.standFor = d.sql("UPDATE fencegate_lock_fence SET token = ?, token_read = TRUE, granted_by = ?,"
                + " expires_us = CASE WHEN secret = " + READERS + " THEN GREATEST(expires_us, ?) ELSE ? END,"
                + " free_us = CASE WHEN secret = " + READERS + " THEN GREATEST(free_us, ?) ELSE ? END,"
                + " ttl_ms = CASE WHEN secret = " + READERS + " THEN GREATEST(ttl_ms, ?) ELSE ? END,"
                + " delay_ms = CASE WHEN secret = " + READERS + " THEN GREATEST(delay_ms, ?) ELSE ? END,"
                + " secret = " + READERS + " WHERE lock_key = ?");
        this.insertReader = "INSERT INTO fencegate_lease_reader (lock_key, secret, token, expires_us, ttl_ms, delay_ms, granted_by)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)";
        this.insertGrant = d.sql("INSERT INTO fencegate_lease_grant (lock_key, token, granted_us, released, read_lease)"
                + " VALUES (?, ?, NOW_US, FALSE, TRUE)");
        this.lockReader = "SELECT token, ttl_ms, delay_ms FROM fencegate_lease_reader WHERE lock_key = ? AND secret = ?";
        // Judged by the UPDATE's own clock, read after the fence row's lock, and only on a clock within
        // what this instance expects (a clock stepped back would write an expiry that ends the lease early).
        this.renewReader = d.sql("UPDATE fencegate_lease_reader SET expires_us = NOW_US + ? WHERE lock_key = ? AND secret = ?"
                + " AND expires_us > NOW_US + " + LeaseTables.marginUsSql("ttl_ms") + " AND NOW_US BETWEEN ? AND ?");
        // The stand-in reaches at least as far as the renewed row: taken from it, not from NOW_US again
        // (a step between the two statements would leave the stand-in ending before the reader).
        this.extendFence = "UPDATE fencegate_lock_fence SET"
                + " expires_us = GREATEST(expires_us, (SELECT r.expires_us FROM fencegate_lease_reader r WHERE r.lock_key = ? AND r.secret = ?)),"
                + " free_us = GREATEST(free_us, (SELECT r.expires_us + r.delay_ms * 1000 FROM fencegate_lease_reader r"
                + " WHERE r.lock_key = ? AND r.secret = ?)) WHERE lock_key = ? AND secret = " + READERS;
        // Release judges by a clock read under the fence row's lock (a parameter, not NOW_US): a step
        // ahead not yet seen would make the other readers look over and free the lock beside them.
        this.deleteReader = "DELETE FROM fencegate_lease_reader WHERE lock_key = ? AND secret = ? AND expires_us > ?";
        this.markReleased = "UPDATE fencegate_lease_grant SET released = TRUE WHERE lock_key = ? AND token = ?";
        // Those left, expired ones included while their lock-delay holds writers off.
        this.lastReaders = "SELECT MAX(expires_us), MAX(expires_us + delay_ms * 1000) FROM fencegate_lease_reader"
                + " WHERE lock_key = ? AND expires_us + delay_ms * 1000 > ?";
        this.freeFence = "UPDATE fencegate_lock_fence SET secret = NULL, expires_us = NULL, free_us = NULL"
                + " WHERE lock_key = ? AND secret = " + READERS;
        this.shrinkFence = "UPDATE fencegate_lock_fence SET expires_us = ?, free_us = ? WHERE lock_key = ? AND secret = " + READERS;
        this.notifyNext = d != SqlDialect.POSTGRESQL ? null : d.sql("SELECT pg_notify('" + SqlReleaseNotifications.CHANNEL
                + "', CAST(MIN(id) AS TEXT)) FROM fencegate_lease_waiter WHERE lock_key = ? AND expires_us > NOW_US HAVING MIN(id) IS NOT NULL");
        // No read lease has more than its ttl left: a row further ahead was written before the clock stepped back.
        this.findReader = d.sql("SELECT r.token, r.ttl_ms, r.expires_us - NOW_US FROM fencegate_lease_reader r"
                + " JOIN fencegate_lock_fence f ON f.lock_key = r.lock_key WHERE r.lock_key = ? AND r.secret = ?"
                + " AND r.expires_us > NOW_US AND f.secret = " + READERS);
        this.readerRow = "SELECT expires_us FROM fencegate_lease_reader WHERE lock_key = ? AND secret = ?";
        this.released = "SELECT released FROM fencegate_lease_grant WHERE lock_key = ? AND token = ?";
        // Any answer that says read wins: an issuer of the previous version leaves token_read set on its own write grants.
        this.mode = "SELECT CASE WHEN read_lease = TRUE THEN 1 ELSE 0 END FROM fencegate_lease_grant WHERE lock_key = ? AND token = ?"
                + " UNION ALL SELECT 1 FROM fencegate_lease_reader WHERE lock_key = ? AND token = ?"
                + " UNION ALL SELECT CASE WHEN token_read = TRUE THEN 1 ELSE 0 END FROM fencegate_lock_fence WHERE lock_key = ? AND token = ?";
    }

    /**
     * One read grant attempt: grants iff no write lease (nor its lock-delay) holds the lock, no live
     * write waiter is older than {@code waiterId} (0: any live write waiter comes first), and the
     * clock read after the row lock is past the lock's last token and {@code floor}, like a write grant.
     *
     * @return null if the fence row is missing (create it and try again)
     */
    LeaseTables.Attempt grant(byte[] key, String secret, long ttlMs, long delayMs, long waiterId, long waiterTtlMs,
                              long floor, String grantedBy) throws SQLException {
        return tables.inTransaction(c -> {
            LeaseTables.FenceRow row = tables.lockRow(c, key);
            if (row == null) {
                return null;
            }
            Long read = tables.clock.read(c);
            if (read == null) {
                return tables.refused(c, waiterId, waiterTtlMs, 1, LeaseTables.Refusal.CLOCK_MOVED);
            }
            long nowUs = read;
            if (!row.readers()) {
                LeaseTables.Attempt busy = tables.busy(c, key, row, nowUs, waiterId, waiterTtlMs);
                if (busy != null) {
                    return busy;
                }
            }
            Long writer = oldest(c, key);
            if (writer != null && (waiterId == 0 || writer < waiterId)) {
                return tables.refused(c, waiterId, waiterTtlMs, 0, LeaseTables.Refusal.NONE);
            }
            LeaseTables.Attempt ahead = tables.tokenAhead(c, Math.max(row.token(), floor), nowUs, waiterId, waiterTtlMs);
            if (ahead != null) {
                return ahead;
            }
            long token = nowUs;
            try (PreparedStatement s = tables.prepare(c, standFor)) {
                s.setLong(1, token);
                s.setString(2, grantedBy);
                s.setLong(3, token + LeaseTables.keptUs(ttlMs));
                s.setLong(4, token + LeaseTables.keptUs(ttlMs));
                s.setLong(5, token + LeaseTables.keptUs(ttlMs) + delayMs * 1000);
                s.setLong(6, token + LeaseTables.keptUs(ttlMs) + delayMs * 1000);
                s.setLong(7, ttlMs);
                s.setLong(8, ttlMs);
                s.setLong(9, delayMs);
                s.setLong(10, delayMs);
                s.setBytes(11, key);
                s.executeUpdate();
            }
            try (PreparedStatement s = tables.prepare(c, insertReader)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                s.setLong(3, token);
                s.setLong(4, token + LeaseTables.keptUs(ttlMs));
                s.setLong(5, ttlMs);
                s.setLong(6, delayMs);
                s.setString(7, grantedBy);
                s.executeUpdate();
            }
            try (PreparedStatement s = tables.prepare(c, insertGrant)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                s.executeUpdate();
            }
            if (waiterId > 0) {
                tables.deleteWaiter(c, waiterId);
            }
            return new LeaseTables.Attempt(true, token, 0, false);
        });
    }

    private Long oldest(Connection c, byte[] key) throws SQLException {
        try (PreparedStatement s = tables.prepare(c, oldestWriter)) {
            s.setBytes(1, key);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    long id = rs.getLong(1);
                    return rs.wasNull() ? null : id;
                }
                return null;
            }
        }
    }

    /** Extends a live read lease to now + its ttl (and the fence row's stand-in with it); null if none. */
    LeaseTables.Live renew(byte[] key, String secret) throws SQLException {
        return tables.inTransaction(c -> {
            LeaseTables.FenceRow row = tables.lockRow(c, key);
            if (row == null || !row.readers()) {
                return null;
            }
            long token;
            long ttlMs;
            try (PreparedStatement s = tables.prepare(c, lockReader)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    token = rs.getLong(1);
                    ttlMs = rs.getLong(2);
                }
            }
            if (!renewed(c, key, secret, ttlMs)) {
                // Expired, or the clock read outside what this instance expects: read it (which corrects a step) and judge again.
                if (tables.clock.read(c) == null || !renewed(c, key, secret, ttlMs)) {
                    return null;
                }
            }
            try (PreparedStatement s = tables.prepare(c, extendFence)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                s.setBytes(3, key);
                s.setString(4, secret);
                s.setBytes(5, key);
                s.executeUpdate();
            }
            return new LeaseTables.Live(token, ttlMs, ttlMs);
        });
    }

    private boolean renewed(Connection c, byte[] key, String secret, long ttlMs) throws SQLException {
        try (PreparedStatement s = tables.prepare(c, renewReader)) {
            s.setLong(1, LeaseTables.keptUs(ttlMs));
            s.setBytes(2, key);
            s.setString(3, secret);
            s.setLong(4, tables.clock.watch().lowestUs());
            s.setLong(5, tables.clock.watch().highestUs());
            return s.executeUpdate() == 1;
        }
    }

    /**
     * Ends a live read lease at once (a release leaves no lock-delay) and marks its grant released;
     * the fence row's stand-in shrinks to the read leases left, or frees the lock (on PostgreSQL
     * notifying the next waiter on commit). Null if the secret names no live read lease.
     */
    Long release(byte[] key, String secret) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Long token = releaseOnce(key, secret);
            if (token == null || token != CLOCK_MOVED) {
                return token;
            }
            if (attempt == CLOCK_MOVED_RETRIES) {
                // Nothing changed: the lease stays until its ttl, and its holder hears why.
                throw new SQLException("the issuer's clock offset kept moving under the release (another instance"
                        + " correcting a clock step); the read lease was not released", "40001");
            }
        }
    }

    private Long releaseOnce(byte[] key, String secret) throws SQLException {
        return tables.inTransaction(c -> {
            LeaseTables.FenceRow row = tables.lockRow(c, key);
            if (row == null || !row.readers()) {
                return null;
            }
            // Read (and if it stepped, corrected) after the row lock: the readers left are judged by it.
            Long read = tables.clock.read(c);
            if (read == null) {
                return CLOCK_MOVED;
            }
            long nowUs = read;
            long token;
            try (PreparedStatement s = tables.prepare(c, lockReader)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    token = rs.getLong(1);
                }
            }
            try (PreparedStatement s = tables.prepare(c, deleteReader)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                s.setLong(3, nowUs);
                if (s.executeUpdate() != 1) {
                    return null; // expired: told so, and only that
                }
            }
            try (PreparedStatement s = tables.prepare(c, markReleased)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                s.executeUpdate();
            }
            Long expiresUs = null;
            long freeUs = 0;
            try (PreparedStatement s = tables.prepare(c, lastReaders)) {
                s.setBytes(1, key);
                s.setLong(2, nowUs);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        long e = rs.getLong(1);
                        expiresUs = rs.wasNull() ? null : e;
                        freeUs = rs.getLong(2);
                    }
                }
            }
            if (expiresUs == null) {
                try (PreparedStatement s = tables.prepare(c, freeFence)) {
                    s.setBytes(1, key);
                    s.executeUpdate();
                }
                if (notifyNext != null) {
                    try (PreparedStatement s = tables.prepare(c, notifyNext)) {
                        s.setBytes(1, key);
                        s.executeQuery().close();
                    }
                }
            } else {
                try (PreparedStatement s = tables.prepare(c, shrinkFence)) {
                    s.setLong(1, expiresUs);
                    s.setLong(2, freeUs);
                    s.setBytes(3, key);
                    s.executeUpdate();
                }
            }
            return token;
        });
    }

    /** The live read lease the secret names, read without changing it; null if none. */
    LeaseTables.Live find(byte[] key, String secret) throws SQLException {
        return tables.once(c -> {
            try (PreparedStatement s = tables.prepare(c, findReader)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? LeaseTables.Live.found(rs.getLong(1), rs.getLong(2), rs.getLong(3)) : null;
                }
            }
        });
    }

    /**
     * How a read lease stands, judged under the fence row's lock (a release or renew in flight is seen
     * whole or not at all): live with the ms it has left, or ended, released or not. A released read
     * lease has no row; one that expired keeps it until the sweep, so it is never taken for released.
     */
    LeaseTables.Standing standing(byte[] key, String secret, long token) throws SQLException {
        return tables.inTransaction(c -> {
            LeaseTables.FenceRow row = tables.lockRow(c, key);
            if (row == null) {
                return new LeaseTables.Standing(0, false);
            }
            Long expiresUs = null;
            try (PreparedStatement s = tables.prepare(c, readerRow)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        expiresUs = rs.getLong(1);
                    }
                }
            }
            if (expiresUs != null) {
                if (!row.readers()) {
                    return new LeaseTables.Standing(0, false);
                }
                Long nowUs = tables.clock.read(c);
                return new LeaseTables.Standing(nowUs == null ? 1 : Math.max(0, (expiresUs - nowUs + 999) / 1000), false);
            }
            try (PreparedStatement s = tables.prepare(c, released)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                try (ResultSet rs = s.executeQuery()) {
                    return new LeaseTables.Standing(0, rs.next() && rs.getBoolean(1));
                }
            }
        });
    }

    /** The mode {@code token} was granted in for the lock, or empty if it was not granted (as far as the tables remember). */
    Optional<LeaseMode> mode(byte[] key, long token) throws SQLException {
        return tables.once(c -> {
            try (PreparedStatement s = tables.prepare(c, mode)) {
                for (int i = 0; i < 3; i++) {
                    s.setBytes(2 * i + 1, key);
                    s.setLong(2 * i + 2, token);
                }
                boolean any = false;
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getInt(1) == 1) {
                            return Optional.of(LeaseMode.READ);
                        }
                        any = true;
                    }
                }
                return any ? Optional.of(LeaseMode.WRITE) : Optional.empty();
            }
        });
    }
}
