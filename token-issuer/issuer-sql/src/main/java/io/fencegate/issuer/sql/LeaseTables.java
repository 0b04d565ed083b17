package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The issuer's statements, one method per call, each its own short transaction on a connection
 * borrowed for that call only: nothing is held across calls, no session state (no advisory lock,
 * no temporary table), so it works through a transaction-mode pooler such as pgbouncer.
 *
 * <p>Every time is {@code NOW_US}, the issuer's clock in epoch microseconds ({@link SqlIssuerClock}:
 * the database server's clock plus an offset that keeps it on course across steps), computed in the
 * statement: a lease is live iff {@code expires_us > NOW_US}, a lock is grantable iff it has no
 * live lease and no lock-delay ({@code free_us}) left by that same clock. A token is a reading of
 * that clock, never above it. The Java side only sees durations (remaining ms) to time its retries,
 * and the readings {@link SqlClockWatch} checks.
 */
final class LeaseTables {

    /**
     * A grant attempt's answer: granted with {@code token}, or not, with the ms until the lock is free
     * (0: its turn belongs to an older waiter), or refused to stay safe ({@code refusal}) for about
     * {@code busyMs}.
     */
    record Attempt(boolean granted, long token, long busyMs, boolean waiterLive, Refusal refusal, int slot) {
        Attempt(boolean granted, long token, long busyMs, boolean waiterLive) {
            this(granted, token, busyMs, waiterLive, Refusal.NONE, -1);
        }

        Attempt(boolean granted, long token, long busyMs, boolean waiterLive, Refusal refusal) {
            this(granted, token, busyMs, waiterLive, refusal, -1);
        }
    }

    /** Why a lock that no lease holds was not granted, although no waiter is before the caller. */
    enum Refusal {
        NONE,
        /**
         * The lock's last token (or this instance's highest) is ahead of the database's clock: the
         * clock stepped back, or a backup taken while it ran ahead was restored. A token is never
         * above the clock (see {@link SqlLeaseIssuer}), so the lock waits until the clock passes it.
         */
        TOKEN_AHEAD_OF_CLOCK,
        /** Another instance moved the clock's offset while this attempt read it: try again at once. */
        CLOCK_MOVED
    }

    /** How a lease this instance granted stands, judged under its row's lock: live (ms left), released, or expired. */
    record Standing(long remainingMs, boolean released) {
        boolean live() {
            return remainingMs > 0;
        }
    }

    /** A live lease read back: its token, ttl and remaining time by the database's clock. */
    record Live(long token, long ttlMs, long remainingMs) {
        /**
         * A live lease read from its row: {@code leftUs} is its row's expiry less the clock, which
         * lies the margin past the lease ({@link #keptUs}); at most the ttl is left (a row written
         * before the clock stepped back may reach further), and at least 1 ms while the row lives.
         */
        static Live found(long token, long ttlMs, long leftUs) {
            return new Live(token, ttlMs, Math.max(1, Math.min(leftUs / 1000 - marginMs(ttlMs), ttlMs)));
        }
    }

    /** One listing row; {@code read} for a read lease. */
    record Listed(byte[] lockName, long token, long remainingMs, String grantedBy, boolean read) { }

    /**
     * The fence row's secret while read leases may live: they stand there as one lease no id can name
     * (a lease id's secret is lower-case hex), expiring when the last of them may end, so every write
     * grant finds the lock held by the rule it already applies ({@link ReadLeaseTables}).
     */
    static final String READERS = "r".repeat(32);

    /** SQLState 40001 (serialization failure, MariaDB's deadlock) and 40P01 (Postgres deadlock): retried. */
    private static final int RETRIES = 5;

    /**
     * A waiter row whose expiry lies further ahead than twice a waiter's ttl was written before the
     * database's clock stepped back: its waiter, if alive, rewrites it at its next poll; if dead, it
     * must not hold the line for the length of the step. Such rows count as dead.
     */
    /** The statement's clock reads within what this instance expects ({@link SqlClockWatch}: lowest, highest). */
    private static final String ON_COURSE = "NOW_US BETWEEN ? AND ?";

    static final String WAITER_LIVE = "expires_us > NOW_US AND expires_us <= NOW_US + " + 2 * SqlLeaseIssuer.WAITER_TTL_MS * 1000;

    final DataSource dataSource;
    final SqlDialect dialect;
    final int timeoutSeconds;
    final SqlIssuerClock clock;

    private final String insertFence;
    final String lockFence;
    private final String oldestWaiter;
    final String grantUpdate;
    final String grantInsert;
    private final String waiterDelete;
    private final String waiterInsert;
    private final String waiterRefresh;
    private final String lockLive;
    private final String renewUpdate;
    private final String releaseUpdate;
    private final String releaseMark;
    private final String findLive;
    private final String granted;
    private final String released;
    private final String sweepGrants;
    private final String sweepWaiters;
    private final String sweepReaders;
    /** PostgreSQL: an uncontended grant, and a release, each in one statement (one round trip); null elsewhere. */
    private final String grantFree;
    private final String releaseAtOnce;
    /** MariaDB/MySQL: the same decisions as one conditional UPDATE each, the token answered by LAST_INSERT_ID; null elsewhere. */
    private final String grantFreeUpdate;
    private final String releaseEnd;
    /** The same, with the grant row, the token read back and the COMMIT, each one request (the issuer's own MariaDB pool); else null. */
    private final String grantFreeRequest;
    private final String releaseRequest;
    final String clampLease;
    private final String lockAny;

    /**
     * When an uncontended grant may go at once: the lock's last token and this instance's highest
     * (the second parameter) are below the issuer's clock, so the token, the clock itself, stays at
     * or below it; the clock reads within what this instance expects ({@link SqlClockWatch}: a step
     * either way is corrected first, by the transaction's way); no lease holds the lock; no live
     * waiter is in line. Anything else goes the transaction's way, which says why.
     */
    private static final String GRANT_FREE_WHERE = " WHERE lock_key = ? AND token < NOW_US AND ? < NOW_US"
            + " AND NOW_US BETWEEN ? AND ? AND (secret IS NULL OR free_us IS NULL OR free_us <= NOW_US)"
            + " AND NOT EXISTS (SELECT 1 FROM fencegate_lease_waiter WHERE lock_key = ? AND " + WAITER_LIVE + ")";

    LeaseTables(DataSource dataSource, SqlDialect dialect, int timeoutSeconds, boolean multiStatements, SqlIssuerClock clock) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.timeoutSeconds = timeoutSeconds;
        this.clock = clock;
        this.insertFence = "INSERT INTO fencegate_lock_fence (lock_key, lock_name, token) VALUES (?, ?, 0)";
        // The row lock first, the clock after it, in a statement of its own: a time read before the
        // wait for the lock (MariaDB's UTC_TIMESTAMP is the statement's start; Postgres computes a
        // locking SELECT's columns before it locks) would judge by a moment already past.
        this.lockFence = "SELECT token, secret, free_us, ttl_ms, delay_ms FROM fencegate_lock_fence WHERE lock_key = ? FOR UPDATE";
        this.oldestWaiter = dialect.sql("SELECT MIN(id) FROM fencegate_lease_waiter WHERE lock_key = ? AND " + WAITER_LIVE);
        this.clampLease = dialect.sql("UPDATE fencegate_lock_fence SET expires_us = LEAST(expires_us, ?), free_us = LEAST(free_us, ?)"
                + " WHERE lock_key = ?");
        this.lockAny = "SELECT token, secret, expires_us FROM fencegate_lock_fence WHERE lock_key = ? FOR UPDATE";
        // A grant in a transaction writes its times from the clock reading it judged by (the token),
        // never from NOW_US again: a step between the two statements would write an expiry off by it.
        this.grantUpdate = "UPDATE fencegate_lock_fence SET token = ?, secret = ?, expires_us = ?,"
                + " free_us = ?, ttl_ms = ?, delay_ms = ?, granted_by = ?, token_read = NULL WHERE lock_key = ?";
        this.grantInsert = dialect.sql("INSERT INTO fencegate_lease_grant (lock_key, token, granted_us, released)"
                + " VALUES (?, ?, NOW_US, FALSE)");
        this.waiterDelete = "DELETE FROM fencegate_lease_waiter WHERE id = ?";
        this.waiterInsert = dialect.sql("INSERT INTO fencegate_lease_waiter (lock_key, expires_us, read_lease) VALUES (?, NOW_US + ?, ?)");
        this.waiterRefresh = dialect.sql("UPDATE fencegate_lease_waiter SET expires_us = NOW_US + ? WHERE id = ?");
        // Renew and release lock the lease's row without judging it, then judge it by a clock read
        // after the lock, in the conditional UPDATE: a lease that expired while the call waited for
        // the lock is not renewed or released (its holder is told it expired, and only that).
        this.lockLive = "SELECT token, ttl_ms, delay_ms FROM fencegate_lock_fence WHERE lock_key = ? AND secret = ? FOR UPDATE";
        // And the clock must read within what this instance expects: a clock stepped back would
        // write an expiry that ends the lease early once the step is corrected.
        // In its margin (see keptUs) a lease is over for its holder, and find and the expiry watch say
        // so: a renew does not bring it back.
        this.renewUpdate = dialect.sql("UPDATE fencegate_lock_fence SET expires_us = NOW_US + ?, free_us = NOW_US + ?"
                + " WHERE lock_key = ? AND secret = ? AND expires_us > NOW_US + " + marginUsSql("ttl_ms")
                + " AND NOW_US BETWEEN ? AND ?");
        this.releaseUpdate = dialect.sql("UPDATE fencegate_lock_fence SET secret = NULL, expires_us = NULL, free_us = NULL"
                + " WHERE lock_key = ? AND secret = ? AND expires_us > NOW_US");
        this.releaseMark = "UPDATE fencegate_lease_grant SET released = TRUE WHERE lock_key = ? AND token = ?";
        // No lease has more than its ttl left: a row further ahead was written before the clock stepped back.
        this.findLive = dialect.sql("SELECT token, ttl_ms, expires_us - NOW_US FROM fencegate_lock_fence"
                + " WHERE lock_key = ? AND secret = ? AND expires_us > NOW_US");
        // The current fence token counts too: a lease renewed past the grant retention stays granted.
        this.granted = "SELECT 1 FROM fencegate_lease_grant WHERE lock_key = ? AND token = ?"
                + " UNION ALL SELECT 1 FROM fencegate_lock_fence WHERE lock_key = ? AND token = ?"
                + " UNION ALL SELECT 1 FROM fencegate_lease_reader WHERE lock_key = ? AND token = ?";
        this.released = "SELECT released FROM fencegate_lease_grant WHERE lock_key = ? AND token = ?";
        // Each sweep deletes only on a clock within what this instance expects: a step ahead not yet
        // seen would make live read leases (and recent grants) look a minute dead.
        this.sweepGrants = dialect.sql("DELETE FROM fencegate_lease_grant WHERE granted_us < NOW_US - ? AND " + ON_COURSE);
        this.sweepWaiters = dialect.sql("DELETE FROM fencegate_lease_waiter WHERE (expires_us < NOW_US - 60000000"
                + " OR expires_us > NOW_US + 60000000) AND " + ON_COURSE);
        // A read lease's row is kept past its expiry while its lock-delay may hold writers off.
        this.sweepReaders = dialect.sql("DELETE FROM fencegate_lease_reader WHERE expires_us + delay_ms * 1000 < NOW_US - 60000000"
                + " AND " + ON_COURSE);
        // The same rules as grant() and release(), in one statement each: the UPDATE takes the fence row's
        // lock and re-reads it (a concurrent grant waited for is seen), so exclusion and token order hold
        // as in the transaction; the grant row is written, the lease marked released and the next waiter
        // notified by the same statement, so they commit together.
        this.grantFree = dialect != SqlDialect.POSTGRESQL ? null : dialect.sql("WITH granted AS ("
                + " UPDATE fencegate_lock_fence SET token = GREATEST(token + 1, ? + 1, NOW_US), secret = ?,"
                + " expires_us = NOW_US + ?, free_us = NOW_US + ?, ttl_ms = ?, delay_ms = ?, granted_by = ?, token_read = NULL"
                + GRANT_FREE_WHERE
                + " RETURNING lock_key, token)"
                + " INSERT INTO fencegate_lease_grant (lock_key, token, granted_us, released)"
                + " SELECT lock_key, token, NOW_US, FALSE FROM granted RETURNING token");
        this.releaseAtOnce = dialect != SqlDialect.POSTGRESQL ? null : dialect.sql("WITH ended AS ("
                + " UPDATE fencegate_lock_fence SET secret = NULL, expires_us = NULL, free_us = NULL"
                + " WHERE lock_key = ? AND secret = ? AND expires_us > NOW_US RETURNING lock_key, token),"
                + " marked AS (UPDATE fencegate_lease_grant g SET released = TRUE FROM ended e"
                + " WHERE g.lock_key = e.lock_key AND g.token = e.token)"
                + " SELECT e.token, (SELECT pg_notify('" + SqlReleaseNotifications.CHANNEL + "', CAST(MIN(w.id) AS TEXT))"
                + " FROM fencegate_lease_waiter w WHERE w.lock_key = e.lock_key AND w.expires_us > NOW_US"
                + " HAVING MIN(w.id) IS NOT NULL) FROM ended e");
        // MariaDB has no RETURNING: LAST_INSERT_ID(expr) puts the fence's token in the UPDATE's own OK
        // packet, read as its generated key (no session state read back). The UPDATE takes the fence
        // row's lock, so the grant row and the release mark that follow in the transaction see it.
        this.grantFreeUpdate = dialect != SqlDialect.MYSQL ? null : dialect.sql("UPDATE fencegate_lock_fence SET"
                + " token = LAST_INSERT_ID(GREATEST(token + 1, ? + 1, NOW_US)), secret = ?, expires_us = NOW_US + ?,"
                + " free_us = NOW_US + ?, ttl_ms = ?, delay_ms = ?, granted_by = ?, token_read = NULL"
                + GRANT_FREE_WHERE);
        // One multi-table UPDATE ends the lease and marks its grant row released, so both commit together
        // (LEFT JOIN: a lease renewed past the grant retention has no grant row left to mark).
        this.releaseEnd = dialect != SqlDialect.MYSQL ? null : dialect.sql("UPDATE fencegate_lock_fence f"
                + " LEFT JOIN fencegate_lease_grant g ON g.lock_key = f.lock_key AND g.token = f.token"
                + " SET f.token = LAST_INSERT_ID(f.token), f.secret = NULL, f.expires_us = NULL, f.free_us = NULL,"
                + " g.released = TRUE WHERE f.lock_key = ? AND f.secret = ? AND f.expires_us > NOW_US");
        // On a pool that allows several statements a request, the transaction goes in one: the token
        // is read back under the row lock the UPDATE took, and COMMIT ends it (a failing statement
        // stops the rest; the caller then rolls back).
        boolean oneRequest = multiStatements && dialect == SqlDialect.MYSQL;
        this.grantFreeRequest = !oneRequest ? null : grantFreeUpdate + "; " + dialect.sql("INSERT INTO fencegate_lease_grant"
                + " (lock_key, token, granted_us, released) SELECT lock_key, token, NOW_US, FALSE FROM fencegate_lock_fence"
                + " WHERE lock_key = ? AND secret = ?") + "; SELECT token FROM fencegate_lock_fence WHERE lock_key = ? AND secret = ?;"
                + " COMMIT";
        this.releaseRequest = !oneRequest ? null : lockLive + "; " + releaseEnd
                + "; SELECT token FROM fencegate_lock_fence WHERE lock_key = ?; COMMIT";
    }

    /** Whether {@link #grantFree} can grant an uncontended lock without the read-then-write transaction (PostgreSQL, MariaDB/MySQL). */
    boolean grantsAtOnce() {
        return grantFree != null || grantFreeUpdate != null;
    }

    /**
     * The short path for a caller not in line: grants by {@link #grant}'s rule for {@code waiterId} 0
     * (no live lease, no lock-delay left, no live waiter) and answers the token, or null when it did
     * not grant (the lock is taken, someone waits, or the fence row is missing): {@link #grant} then
     * says which, and may grant after all. PostgreSQL: one statement. MariaDB/MySQL: the conditional
     * UPDATE, the grant row and the commit, in one transaction (one request on the issuer's own pool).
     */
    Long grantFree(byte[] key, String secret, long ttlMs, long delayMs, long floor, String grantedBy) throws SQLException {
        long lowest = clock.watch().lowestUs();
        long highest = clock.watch().highestUs();
        if (grantFreeRequest != null) {
            return inOneRequest(grantFreeRequest, s -> {
                bindGrantFree(s, key, secret, ttlMs, delayMs, floor, grantedBy, lowest, highest);
                s.setBytes(13, key);
                s.setString(14, secret);
                s.setBytes(15, key);
                s.setString(16, secret);
            });
        }
        if (grantFreeUpdate != null) {
            return inTransaction(c -> {
                long token;
                try (PreparedStatement s = prepareForKey(c, grantFreeUpdate)) {
                    bindGrantFree(s, key, secret, ttlMs, delayMs, floor, grantedBy, lowest, highest);
                    if (s.executeUpdate() != 1) {
                        return null;
                    }
                    token = generatedKey(s);
                }
                try (PreparedStatement s = prepare(c, grantInsert)) {
                    s.setBytes(1, key);
                    s.setLong(2, token);
                    s.executeUpdate();
                }
                return token;
            });
        }
        return once(c -> {
            try (PreparedStatement s = prepare(c, grantFree)) {
                bindGrantFree(s, key, secret, ttlMs, delayMs, floor, grantedBy, lowest, highest);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : null;
                }
            }
        });
    }

    private static void bindGrantFree(PreparedStatement s, byte[] key, String secret, long ttlMs, long delayMs, long floor,
                                      String grantedBy, long lowestUs, long highestUs) throws SQLException {
        bindGrant(s, floor, key, secret, ttlMs, delayMs, grantedBy);
        s.setLong(9, floor);
        s.setLong(10, lowestUs);
        s.setLong(11, highestUs);
        s.setBytes(12, key); // the waiter check's lock
    }

    /**
     * The eight parameters every grant statement starts with: the token (or the floor it must pass),
     * the lease's secret, its expiry and free-at offsets in µs, its ttl and lock-delay, the granting
     * instance, the lock.
     */
    static void bindGrant(PreparedStatement s, long token, byte[] key, String secret, long ttlMs, long delayMs,
                                  String grantedBy) throws SQLException {
        s.setLong(1, token);
        s.setString(2, secret);
        s.setLong(3, keptUs(ttlMs));
        s.setLong(4, keptUs(ttlMs) + delayMs * 1000);
        s.setLong(5, ttlMs);
        s.setLong(6, delayMs);
        s.setString(7, grantedBy);
        s.setBytes(8, key);
    }

    /**
     * {@link #grantUpdate}'s parameters: the token is the clock reading the grant was judged by, and
     * the lease's expiry and free-at times are that reading plus its ttl (and lock-delay).
     */
    static void bindGrantAt(PreparedStatement s, long nowUs, byte[] key, String secret, long ttlMs, long delayMs,
                            String grantedBy) throws SQLException {
        bindGrant(s, nowUs, key, secret, ttlMs, delayMs, grantedBy);
        s.setLong(3, nowUs + keptUs(ttlMs));
        s.setLong(4, nowUs + keptUs(ttlMs) + delayMs * 1000);
    }

    /**
     * How long a lease's row says it lives, in µs: its ttl and a margin past it (250 ms, and 2 ms a
     * second of ttl). Why: a lease ends by the issuer's clock, its holder by its monotonic clock, and
     * a step of the database's clock too small to tell from a slow round trip (under the clock watch's
     * tolerance, {@link SqlClockWatch#TOLERANCE_US}) or a clock slewing fast is taken for the clock's
     * course; the margin keeps either from ending a lease before its holder's deadline. A lock whose
     * holder died is free the margin later; every answer (renew, find, the listing) still says the
     * ttl, and a lease in its margin is over: it is not renewed.
     */
    static long keptUs(long ttlMs) {
        return (ttlMs + marginMs(ttlMs)) * 1000;
    }

    static long marginMs(long ttlMs) {
        return 250 + ttlMs / 500;
    }

    /** {@link #marginMs} in µs as SQL of a ttl_ms column (MariaDB divides to a decimal: a fraction of a ms off). */
    static String marginUsSql(String ttlColumn) {
        return "(250 + " + ttlColumn + " / 500) * 1000";
    }

    /** Creates the lock's fence row (token 0) if it has none; a concurrent creator winning is as good. */
    void ensureFence(byte[] key, byte[] name) throws SQLException {
        try {
            once(c -> {
                try (PreparedStatement s = prepare(c, insertFence)) {
                    s.setBytes(1, key);
                    s.setBytes(2, name);
                    return s.executeUpdate();
                }
            });
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
    }

    /**
     * One grant attempt, in one transaction holding the lock's fence row: grants iff the lock has no
     * live lease and no lock-delay left, and no live waiter older than {@code waiterId} (0: the caller
     * does not wait in line, so any live waiter comes first), and the database's clock, read after
     * the row lock, is past the lock's last token and {@code floor}: the token is that clock reading
     * in microseconds (see {@link SqlLeaseIssuer} on why a token never runs ahead of the clock). A
     * lease whose ttl and lock-delay reach further ahead than they can (written before the clock
     * stepped back) is cut to them from now: its holder's own deadline ends no later. A caller that
     * waits and was not granted has its waiter row refreshed.
     *
     * @return null if the fence row is missing (create it and try again)
     */
    Attempt grant(byte[] key, String secret, long ttlMs, long delayMs, long waiterId, long waiterTtlMs,
                  long floor, String grantedBy) throws SQLException {
        return inTransaction(c -> {
            FenceRow row = lockRow(c, key);
            if (row == null) {
                return null;
            }
            Long read = clock.read(c);
            if (read == null) {
                return refused(c, waiterId, waiterTtlMs, 1, Refusal.CLOCK_MOVED);
            }
            long nowUs = read;
            Long oldest = null;
            try (PreparedStatement s = prepare(c, oldestWaiter)) {
                s.setBytes(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        long id = rs.getLong(1);
                        oldest = rs.wasNull() ? null : id;
                    }
                }
            }
            Attempt busy = busy(c, key, row, nowUs, waiterId, waiterTtlMs);
            if (busy != null) {
                return busy;
            }
            if (oldest != null && oldest != waiterId) {
                return refused(c, waiterId, waiterTtlMs, 0, Refusal.NONE);
            }
            Attempt ahead = tokenAhead(c, Math.max(row.token(), floor), nowUs, waiterId, waiterTtlMs);
            if (ahead != null) {
                return ahead;
            }
            long token = nowUs;
            try (PreparedStatement s = prepare(c, grantUpdate)) {
                bindGrantAt(s, token, key, secret, ttlMs, delayMs, grantedBy);
                s.executeUpdate();
            }
            try (PreparedStatement s = prepare(c, grantInsert)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                s.executeUpdate();
            }
            if (waiterId > 0) {
                deleteWaiter(c, waiterId);
            }
            return new Attempt(true, token, 0, false);
        });
    }

    /** A lock's fence row as {@link #lockFence} read it under its lock: {@code leased} while a lease (or the read leases) stands there. */
    record FenceRow(long token, String secret, boolean leased, long freeUs, long ttlMs, long delayMs) {
        boolean readers() {
            return READERS.equals(secret);
        }
    }

    /** Locks the lock's fence row and reads it; null if the row is missing (create it and try again). */
    FenceRow lockRow(Connection c, byte[] key) throws SQLException {
        try (PreparedStatement s = prepare(c, lockFence)) {
            s.setBytes(1, key);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long fence = rs.getLong(1);
                String secret = rs.getString(2);
                long freeUs = rs.getLong(3);
                boolean leased = secret != null && !rs.wasNull();
                return new FenceRow(fence, secret, leased, freeUs, rs.getLong(4), rs.getLong(5));
            }
        }
    }

    /**
     * The refusal for a lock still held (a lease, or its lock-delay, not yet over at {@code nowUs}),
     * or null when it is not. A lease whose ttl and lock-delay reach further ahead than they can
     * (written before the clock stepped back) is cut to them from now first.
     */
    Attempt busy(Connection c, byte[] key, FenceRow row, long nowUs, long waiterId, long waiterTtlMs) throws SQLException {
        if (!row.leased() || row.freeUs() <= nowUs) {
            return null;
        }
        long freeUs = row.freeUs();
        long capUs = keptUs(row.ttlMs()) + row.delayMs() * 1000 + SqlClockWatch.TOLERANCE_US;
        if (freeUs - nowUs > capUs) {
            clamp(c, key, nowUs + keptUs(row.ttlMs()), nowUs + keptUs(row.ttlMs()) + row.delayMs() * 1000);
            freeUs = nowUs + keptUs(row.ttlMs()) + row.delayMs() * 1000;
        }
        return refused(c, waiterId, waiterTtlMs, Math.max(1, (freeUs - nowUs + 999) / 1000), Refusal.NONE);
    }

    /**
     * Null when a token may be granted at {@code nowUs} above {@code highest} (the lock's last token
     * and this instance's floor); else the refusal: a moment's wait within the tolerance (a grant a
     * moment ago on a clock read a moment earlier: H2 reads it at the transaction's start), or the
     * lock fails closed (the clock stepped back, or a restore), see {@link SqlLeaseIssuer}.
     */
    Attempt tokenAhead(Connection c, long highest, long nowUs, long waiterId, long waiterTtlMs) throws SQLException {
        if (highest < nowUs) {
            return null;
        }
        long aheadUs = highest - nowUs;
        Refusal why = aheadUs < SqlClockWatch.TOLERANCE_US ? Refusal.NONE : Refusal.TOKEN_AHEAD_OF_CLOCK;
        return refused(c, waiterId, waiterTtlMs, aheadUs / 1000 + 1, why);
    }

    Attempt refused(Connection c, long waiterId, long waiterTtlMs, long busyMs, Refusal why) throws SQLException {
        boolean live = waiterId > 0 && refreshWaiter(c, waiterId, waiterTtlMs);
        return new Attempt(false, 0, busyMs, live, why);
    }

    void clamp(Connection c, byte[] key, long expiresUs, long freeUs) throws SQLException {
        try (PreparedStatement s = prepare(c, clampLease)) {
            s.setLong(1, expiresUs);
            s.setLong(2, freeUs);
            s.setBytes(3, key);
            s.executeUpdate();
        }
    }

    /** Reads the issuer's clock once and corrects a step (the issuer's timer asks every second); creates its row if missing. */
    void readClock() throws SQLException {
        if (once(clock::read) == null) {
            once(clock::read);
        }
    }

    /** Creates the issuer clock's row if it is missing (at start). */
    void ensureClock() throws SQLException {
        once(c -> {
            clock.ensure(c);
            return null;
        });
    }

    private boolean refreshWaiter(Connection c, long waiterId, long waiterTtlMs) throws SQLException {
        try (PreparedStatement s = prepare(c, waiterRefresh)) {
            s.setLong(1, waiterTtlMs * 1000);
            s.setLong(2, waiterId);
            return s.executeUpdate() == 1;
        }
    }

    /** A place in line: a new waiter row, living {@code waiterTtlMs} unless refreshed. */
    long addWaiter(byte[] key, long waiterTtlMs, boolean read) throws SQLException {
        return once(c -> {
            try (PreparedStatement s = c.prepareStatement(waiterInsert, new String[] {"id"})) {
                s.setQueryTimeout(timeoutSeconds);
                s.setBytes(1, key);
                s.setLong(2, waiterTtlMs * 1000);
                s.setBoolean(3, read);
                s.executeUpdate();
                try (ResultSet rs = s.getGeneratedKeys()) {
                    if (!rs.next()) {
                        throw new SQLException("the database returned no id for the new waiter row");
                    }
                    return rs.getLong(1);
                }
            }
        });
    }

    void removeWaiter(long waiterId) throws SQLException {
        once(c -> {
            deleteWaiter(c, waiterId);
            return null;
        });
    }

    void deleteWaiter(Connection c, long waiterId) throws SQLException {
        try (PreparedStatement s = prepare(c, waiterDelete)) {
            s.setLong(1, waiterId);
            s.executeUpdate();
        }
    }

    /**
     * Extends a live lease to now + its ttl; null if the secret names no live lease of the lock.
     * Judged after the row lock is taken ({@link #lockLive}), by the UPDATE's own clock.
     */
    Live renew(byte[] key, String secret) throws SQLException {
        return inTransaction(c -> {
            long token;
            long ttlMs;
            long delayMs;
            try (PreparedStatement s = prepare(c, lockLive)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    token = rs.getLong(1);
                    ttlMs = rs.getLong(2);
                    delayMs = rs.getLong(3);
                }
            }
            if (!renewed(c, key, secret, ttlMs, delayMs)) {
                // Expired, or the clock read outside what this instance expects: read it (which
                // corrects a step) and judge again.
                if (clock.read(c) == null || !renewed(c, key, secret, ttlMs, delayMs)) {
                    return null;
                }
            }
            return new Live(token, ttlMs, ttlMs);
        });
    }

    private boolean renewed(Connection c, byte[] key, String secret, long ttlMs, long delayMs) throws SQLException {
        try (PreparedStatement s = prepare(c, renewUpdate)) {
            s.setLong(1, keptUs(ttlMs));
            s.setLong(2, keptUs(ttlMs) + delayMs * 1000);
            s.setBytes(3, key);
            s.setString(4, secret);
            s.setLong(5, clock.watch().lowestUs());
            s.setLong(6, clock.watch().highestUs());
            return s.executeUpdate() == 1;
        }
    }

    /**
     * Ends a live lease at once (a release leaves no lock-delay), marks its grant released, and on
     * PostgreSQL notifies, on commit, the next live waiter only (its id; issuers that own no such
     * waiter ignore it). Null if the secret names no live lease. Every way locks the row first and
     * judges expiry after, by a clock read once the lock is held.
     */
    Long release(byte[] key, String secret) throws SQLException {
        if (releaseRequest != null) {
            return inOneRequest(releaseRequest, s -> {
                s.setBytes(1, key);
                s.setString(2, secret);
                s.setBytes(3, key);
                s.setString(4, secret);
                s.setBytes(5, key);
            });
        }
        return inTransaction(c -> {
            if (!lockLease(c, key, secret)) {
                return null;
            }
            if (releaseAtOnce != null) {
                try (PreparedStatement s = prepare(c, releaseAtOnce)) {
                    s.setBytes(1, key);
                    s.setString(2, secret);
                    try (ResultSet rs = s.executeQuery()) {
                        return rs.next() ? rs.getLong(1) : null;
                    }
                }
            }
            if (releaseEnd != null) {
                try (PreparedStatement s = prepareForKey(c, releaseEnd)) {
                    s.setBytes(1, key);
                    s.setString(2, secret);
                    // Rows found: the fence row, plus its grant row when one is kept.
                    return s.executeUpdate() < 1 ? null : generatedKey(s);
                }
            }
            long token;
            try (PreparedStatement s = prepare(c, lockLive)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    token = rs.getLong(1);
                }
            }
            try (PreparedStatement s = prepare(c, releaseUpdate)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                if (s.executeUpdate() != 1) {
                    return null;
                }
            }
            try (PreparedStatement s = prepare(c, releaseMark)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                s.executeUpdate();
            }
            return token;
        });
    }

    /** Locks the lease's row, if the secret still names its lease (live or not: that is judged next). */
    private boolean lockLease(Connection c, byte[] key, String secret) throws SQLException {
        try (PreparedStatement s = prepare(c, lockLive)) {
            s.setBytes(1, key);
            s.setString(2, secret);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * How the lease ({@code secret}, {@code token}) stands, judged under its row's lock, so a
     * release or renew in flight is seen whole or not at all: live with the ms it has left, or
     * ended, released or not. A release is seen whether its grant row is still kept or not (the fence
     * row keeps the lease's token with no secret until the next grant).
     */
    Standing standing(byte[] key, String secret, long token) throws SQLException {
        return inTransaction(c -> {
            long fenceToken;
            String current;
            long expiresUs;
            try (PreparedStatement s = prepare(c, lockAny)) {
                s.setBytes(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        return new Standing(0, false);
                    }
                    fenceToken = rs.getLong(1);
                    current = rs.getString(2);
                    expiresUs = rs.getLong(3);
                }
            }
            if (secret.equals(current)) {
                Long nowUs = clock.read(c);
                return new Standing(nowUs == null ? 1 : Math.max(0, (expiresUs - nowUs + 999) / 1000), false);
            }
            if (fenceToken == token) {
                return new Standing(0, current == null);
            }
            try (PreparedStatement s = prepare(c, released)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                try (ResultSet rs = s.executeQuery()) {
                    return new Standing(0, rs.next() && rs.getBoolean(1));
                }
            }
        });
    }

    /** The live lease the secret names, read without changing it; null if none. */
    Live find(byte[] key, String secret) throws SQLException {
        return once(c -> {
            try (PreparedStatement s = prepare(c, findLive)) {
                s.setBytes(1, key);
                s.setString(2, secret);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? Live.found(rs.getLong(1), rs.getLong(2), rs.getLong(3)) : null;
                }
            }
        });
    }

    boolean wasGranted(byte[] key, long token) throws SQLException {
        return once(c -> {
            try (PreparedStatement s = prepare(c, granted)) {
                s.setBytes(1, key);
                s.setLong(2, token);
                s.setBytes(3, key);
                s.setLong(4, token);
                s.setBytes(5, key);
                s.setLong(6, token);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    /**
     * Live leases on locks whose name starts with {@code prefix} (bytes), after {@code after} (null:
     * from the first), in byte order of the name (a lock's read leases by token), at most
     * {@code limit} + 1 (the extra one tells that another page follows). Read leases are listed one
     * by one from their rows, never as the fence row's stand-in.
     */
    List<Listed> list(byte[] prefix, byte[] after, int limit) throws SQLException {
        // A lease in its margin (see keptUs) is over for its holder: not listed.
        String writes = "SELECT lock_name, token, expires_us - NOW_US, granted_by, 0, ttl_ms FROM fencegate_lock_fence"
                + " WHERE secret IS NOT NULL AND secret <> '" + READERS + "' AND expires_us > NOW_US + " + marginUsSql("ttl_ms")
                + listFilter("lock_name", prefix, after);
        String reads = "SELECT f.lock_name, r.token, r.expires_us - NOW_US, r.granted_by, 1, r.ttl_ms FROM fencegate_lease_reader r"
                + " JOIN fencegate_lock_fence f ON f.lock_key = r.lock_key"
                + " WHERE f.secret = '" + READERS + "' AND r.expires_us > NOW_US + " + marginUsSql("r.ttl_ms")
                + listFilter("f.lock_name", prefix, after);
        String sql = writes + " UNION ALL " + reads + " ORDER BY 1, 2 LIMIT ?";
        return once(c -> listPage(c, sql, prefix, after, limit));
    }

    private static String listFilter(String column, byte[] prefix, byte[] after) {
        return (prefix.length > 0 ? " AND SUBSTRING(" + column + " FROM 1 FOR ?) = ?" : "") + (after != null ? " AND " + column + " > ?" : "");
    }

    private List<Listed> listPage(Connection c, String sql, byte[] prefix, byte[] after, int limit) throws SQLException {
        try (PreparedStatement s = prepare(c, dialect.sql(sql))) {
            int i = 1;
            for (int part = 0; part < 2; part++) {
                if (prefix.length > 0) {
                    s.setInt(i++, prefix.length);
                    s.setBytes(i++, prefix);
                }
                if (after != null) {
                    s.setBytes(i++, after);
                }
            }
            s.setInt(i, limit + 1);
            List<Listed> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long leftMs = Math.max(1, rs.getLong(3) / 1000 - marginMs(rs.getLong(6)));
                    rows.add(new Listed(rs.getBytes(1), rs.getLong(2), leftMs, rs.getString(4), rs.getInt(5) == 1));
                }
            }
            return rows;
        }
    }

    /** Deletes grant rows older than the retention, and waiter and read-lease rows dead for a minute. */
    int sweep(long retentionMs) throws SQLException {
        return once(c -> {
            try (PreparedStatement grants = prepare(c, sweepGrants); PreparedStatement waiters = prepare(c, sweepWaiters);
                 PreparedStatement readers = prepare(c, sweepReaders)) {
                long lowest = clock.watch().lowestUs();
                long highest = clock.watch().highestUs();
                grants.setLong(1, retentionMs * 1000);
                grants.setLong(2, lowest);
                grants.setLong(3, highest);
                for (PreparedStatement s : List.of(waiters, readers)) {
                    s.setLong(1, lowest);
                    s.setLong(2, highest);
                }
                return grants.executeUpdate() + waiters.executeUpdate() + readers.executeUpdate();
            }
        });
    }

    // ------------------------------------------------------------------ plumbing

    interface InTransaction<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction of its own, committed if it returns; deadlocks are retried.
     * Autocommit is switched off and back on only on a connection that has it on: the issuer's own
     * MariaDB/MySQL pool hands out connections with it off, saving a round trip each way. On one
     * that has it on (the application's pool), switching it back on is the commit (JDBC commits an
     * open transaction then, and MariaDB/MySQL's {@code SET autocommit=1} does it on the server):
     * no {@code COMMIT} of its own, a round trip less a transaction.
     */
    <T> T inTransaction(InTransaction<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = connection()) {
                if (!c.getAutoCommit()) {
                    return committed(c, work);
                }
                c.setAutoCommit(false);
                T result;
                try {
                    result = work.run(c);
                } catch (SQLException | RuntimeException e) {
                    try {
                        c.rollback();
                        c.setAutoCommit(true);
                    } catch (SQLException rollback) {
                        e.addSuppressed(rollback);
                    }
                    throw e;
                }
                c.setAutoCommit(true); // commits
                return result;
            } catch (SQLException e) {
                if (!retryable(e, attempt)) {
                    throw e;
                }
            }
        }
    }

    private interface Binder {
        void bind(PreparedStatement s) throws SQLException;
    }

    /**
     * Sends {@code sql} (several statements: optionally a locking SELECT, then a conditional UPDATE,
     * a token SELECT, COMMIT last) as one request; answers the token (the last result set's row) if
     * the UPDATE (the first statement that counts rows) changed one, else null.
     */
    private Long inOneRequest(String sql, Binder binder) throws SQLException {
        return inTransaction(c -> {
            try (PreparedStatement s = prepare(c, sql)) {
                binder.bind(s);
                boolean resultSet = s.execute();
                Integer firstCount = null;
                Long token = null;
                while (resultSet || s.getUpdateCount() != -1) {
                    if (resultSet) {
                        try (ResultSet rs = s.getResultSet()) {
                            token = rs.next() ? rs.getLong(1) : null;
                        }
                    } else if (firstCount == null) {
                        firstCount = s.getUpdateCount();
                    }
                    resultSet = s.getMoreResults();
                }
                return firstCount != null && firstCount >= 1 ? token : null;
            }
        });
    }

    private static boolean retryable(SQLException e, int attempt) {
        String state = e.getSQLState();
        return attempt < RETRIES && ("40001".equals(state) || "40P01".equals(state));
    }

    /** Runs one statement's {@code work}: on its own under autocommit, else committed as its own transaction. */
    <T> T once(InTransaction<T> work) throws SQLException {
        try (Connection c = connection()) {
            return c.getAutoCommit() ? work.run(c) : committed(c, work);
        }
    }

    private static <T> T committed(Connection c, InTransaction<T> work) throws SQLException {
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
    }

    private Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        s.setQueryTimeout(timeoutSeconds);
        return s;
    }

    /** A statement whose LAST_INSERT_ID(expr) comes back as its generated key. */
    private PreparedStatement prepareForKey(Connection c, String sql) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
        s.setQueryTimeout(timeoutSeconds);
        return s;
    }

    private static long generatedKey(PreparedStatement s) throws SQLException {
        try (ResultSet rs = s.getGeneratedKeys()) {
            if (!rs.next()) {
                throw new SQLException("the database returned no token (LAST_INSERT_ID) for the fence row");
            }
            return rs.getLong(1);
        }
    }
}
