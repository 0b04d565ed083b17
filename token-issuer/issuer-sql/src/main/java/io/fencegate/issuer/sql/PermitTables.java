package io.fencegate.issuer.sql;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements of fenced semaphores. A semaphore is a row of {@code fencegate_semaphore} (its
 * permit count, fixed by the first acquire); each slot is an ordinary lock with its own fence row,
 * and a permit is a write lease on it granted by the write grant's statements: renew, release,
 * expiry and {@code wasGranted} are a lease's. A permit grant locks the semaphore's row first, so
 * permit grants of one semaphore take turns and its line of waiters is FIFO; then it locks every
 * slot's fence row (one statement) and judges the slots under those locks, as a write grant would.
 * A permit's lock-delay is kept in its slot's fence row ({@code free_us}) as a write lease's is, so
 * a slot in its delay is not free.
 */
final class PermitTables {

    private final LeaseTables tables;
    private final String insertSemaphore;
    private final String lockSemaphore;
    private final String keptPermits;
    private final String oldestWaiter;
    /** The slot rows' locking SELECT by permit count (its IN list has one marker a slot). */
    private final Map<Integer, String> lockSlots = new ConcurrentHashMap<>();

    PermitTables(LeaseTables tables) {
        this.tables = tables;
        this.insertSemaphore = "INSERT INTO fencegate_semaphore (sem_key, sem_name, permits) VALUES (?, ?, ?)";
        this.lockSemaphore = "SELECT permits FROM fencegate_semaphore WHERE sem_key = ? FOR UPDATE";
        this.keptPermits = "SELECT permits FROM fencegate_semaphore WHERE sem_key = ?";
        this.oldestWaiter = tables.dialect.sql("SELECT MIN(id) FROM fencegate_lease_waiter WHERE lock_key = ? AND " + LeaseTables.WAITER_LIVE);
    }

    /**
     * Creates the semaphore's row with {@code permits} if it has none (a concurrent creator winning is
     * as good) and answers the count it keeps, so a count asked differently is refused before anything
     * is written for its slots.
     */
    int ensureSemaphore(byte[] key, byte[] name, int permits) throws SQLException {
        try {
            tables.once(c -> {
                try (PreparedStatement s = tables.prepare(c, insertSemaphore)) {
                    s.setBytes(1, key);
                    s.setBytes(2, name);
                    s.setInt(3, permits);
                    return s.executeUpdate();
                }
            });
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
        return tables.once(c -> {
            try (PreparedStatement s = tables.prepare(c, keptPermits)) {
                s.setBytes(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : permits; // gone again (a restore): the grant's transaction says
                }
            }
        });
    }

    /**
     * Locks every slot's fence row in one statement, in key order (what any transaction locking
     * several fence rows keeps to; permit grants of one semaphore take turns under its row anyway),
     * and reads them: one round trip however many permits, where a statement a slot took one each.
     *
     * @return the rows, slot k at index k; null if any is missing (create them and try again)
     */
    private List<LeaseTables.FenceRow> lockSlots(Connection c, List<byte[]> slotKeys) throws SQLException {
        String sql = lockSlots.computeIfAbsent(slotKeys.size(), n -> "SELECT lock_key, token, secret, free_us, ttl_ms, delay_ms"
                + " FROM fencegate_lock_fence WHERE lock_key IN (" + String.join(", ", Collections.nCopies(n, "?"))
                + ") ORDER BY lock_key FOR UPDATE");
        Map<ByteBuffer, LeaseTables.FenceRow> found = new HashMap<>();
        try (PreparedStatement s = tables.prepare(c, sql)) {
            for (int k = 0; k < slotKeys.size(); k++) {
                s.setBytes(k + 1, slotKeys.get(k));
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    byte[] key = rs.getBytes(1);
                    String secret = rs.getString(3);
                    long freeUs = rs.getLong(4);
                    boolean leased = secret != null && !rs.wasNull(); // as LeaseTables.lockRow reads a row
                    found.put(ByteBuffer.wrap(key), new LeaseTables.FenceRow(rs.getLong(2), secret, leased, freeUs,
                            rs.getLong(5), rs.getLong(6)));
                }
            }
        }
        List<LeaseTables.FenceRow> rows = new ArrayList<>(slotKeys.size());
        for (byte[] key : slotKeys) {
            LeaseTables.FenceRow row = found.get(ByteBuffer.wrap(key));
            if (row == null) {
                return null;
            }
            rows.add(row);
        }
        return rows;
    }

    static IllegalArgumentException otherCount(String semaphore, int kept, int asked) {
        return new IllegalArgumentException("semaphore '" + semaphore + "' has " + kept + " permits, asked with " + asked
                + " (a semaphore's count is fixed by its first acquire)");
    }

    /**
     * One permit grant attempt: grants the first free slot (in slot order) iff no live waiter of the
     * semaphore is older than {@code waiterId} (0: any comes first) and the slot's rules for a write
     * grant hold under its row lock. The answer's {@code slot} is the slot taken; when none is free,
     * {@code busyMs} is the soonest a held slot may free.
     *
     * @param slotKeys every slot's fence key, slot k at index k
     * @param delayMs  the permit's lock-delay, zero or positive
     * @return null if the semaphore's row or a slot's fence row is missing (create them and try again)
     * @throws IllegalArgumentException if the semaphore was created with another count
     */
    LeaseTables.Attempt grant(byte[] semKey, String semaphore, int permits, List<byte[]> slotKeys, String secret, long ttlMs,
                              long delayMs, long waiterId, long waiterTtlMs, long floor, String grantedBy) throws SQLException {
        return tables.inTransaction(c -> {
            try (PreparedStatement s = tables.prepare(c, lockSemaphore)) {
                s.setBytes(1, semKey);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    int kept = rs.getInt(1);
                    if (kept != permits) {
                        throw otherCount(semaphore, kept, permits);
                    }
                }
            }
            // Every slot's row locked before the clock is read, as a write grant does: the clock's own row comes last.
            List<LeaseTables.FenceRow> rows = lockSlots(c, slotKeys);
            if (rows == null) {
                return null;
            }
            Long read = tables.clock.read(c);
            if (read == null) {
                return tables.refused(c, waiterId, waiterTtlMs, 1, LeaseTables.Refusal.CLOCK_MOVED);
            }
            long nowUs = read;
            try (PreparedStatement s = tables.prepare(c, oldestWaiter)) {
                s.setBytes(1, semKey);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        long id = rs.getLong(1);
                        if (!rs.wasNull() && id != waiterId) {
                            return tables.refused(c, waiterId, waiterTtlMs, 0, LeaseTables.Refusal.NONE);
                        }
                    }
                }
            }
            LeaseTables.Attempt soonest = null;
            for (int slot = 0; slot < permits; slot++) {
                byte[] key = slotKeys.get(slot);
                LeaseTables.FenceRow row = rows.get(slot);
                LeaseTables.Attempt refusal = tables.busy(c, key, row, nowUs, 0, waiterTtlMs);
                if (refusal == null) {
                    refusal = tables.tokenAhead(c, Math.max(row.token(), floor), nowUs, 0, waiterTtlMs);
                }
                if (refusal == null) {
                    long token = nowUs;
                    try (PreparedStatement s = tables.prepare(c, tables.grantUpdate)) {
                        LeaseTables.bindGrantAt(s, token, key, secret, ttlMs, delayMs, grantedBy);
                        s.executeUpdate();
                    }
                    try (PreparedStatement s = tables.prepare(c, tables.grantInsert)) {
                        s.setBytes(1, key);
                        s.setLong(2, token);
                        s.executeUpdate();
                    }
                    if (waiterId > 0) {
                        tables.deleteWaiter(c, waiterId);
                    }
                    return new LeaseTables.Attempt(true, token, 0, false, LeaseTables.Refusal.NONE, slot);
                }
                // A slot failing closed says so unless another frees sooner; a held one says when it frees.
                if (soonest == null || (refusal.refusal() != LeaseTables.Refusal.TOKEN_AHEAD_OF_CLOCK
                        && (soonest.refusal() == LeaseTables.Refusal.TOKEN_AHEAD_OF_CLOCK || refusal.busyMs() < soonest.busyMs()))) {
                    soonest = refusal;
                }
            }
            // The caller's place in line is refreshed once, with the answer.
            return tables.refused(c, waiterId, waiterTtlMs, soonest.busyMs(), soonest.refusal());
        });
    }
}
