package io.fencegate.store.jdbc;

import io.fencegate.schema.FencegateSchema.Dialect;
import io.fencegate.store.backend.ItemState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;

/**
 * The one place a row of {@code fencegate_item} or {@code fencegate_fence} is locked, created and
 * advanced, inside the caller's transaction. Every guarded operation starts with
 * {@link #lock}: {@code SELECT … FOR UPDATE} holds the row until commit, so the guard check and
 * the change that follows are atomic. A missing row is created with an insert that ignores a
 * duplicate; whoever loses that race locks the winner's row (waiting for its commit) instead.
 */
final class GuardRow {

    /** MySQL/MariaDB ER_DUP_ENTRY: the one warning INSERT IGNORE is used for. */
    private static final int MYSQL_DUPLICATE_ENTRY = 1062;

    private final Dialect dialect;
    private final String table;
    private final boolean hasValue;
    private final String lockSql;
    private final String lockWithValueSql;
    private final String insertSql;
    private final String advanceSql;
    private final String fenceSql;

    private GuardRow(Dialect dialect, String table, boolean hasValue) {
        this.dialect = dialect;
        this.table = table;
        this.hasValue = hasValue;
        this.lockSql = "SELECT token, fence FROM " + table + " WHERE resource = ? FOR UPDATE";
        this.lockWithValueSql = "SELECT token, fence, val FROM " + table + " WHERE resource = ? FOR UPDATE";
        String columns = hasValue ? "(resource, val, token, fence) VALUES (?, ?, ?, ?)" : "(resource, token, fence) VALUES (?, ?, ?)";
        this.insertSql = switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + table + " " + columns + " ON CONFLICT (resource) DO NOTHING";
            // INSERT IGNORE: its count is 0 on a duplicate under both found-rows and affected-rows
            // reporting (ON DUPLICATE KEY UPDATE x = x would count 1 under MariaDB's found rows).
            // It also turns a truncation into a warning: insertIfMissing fails on any but a duplicate.
            case MYSQL -> "INSERT IGNORE INTO " + table + " " + columns;
            case H2 -> "INSERT INTO " + table + " " + columns;
        };
        this.advanceSql = hasValue
                ? "UPDATE " + table + " SET val = ?, token = ?, fence = ? WHERE resource = ?"
                : "UPDATE " + table + " SET token = ?, fence = ? WHERE resource = ?";
        this.fenceSql = "UPDATE " + table + " SET fence = ? WHERE resource = ?";
    }

    static GuardRow items(Dialect dialect) {
        return new GuardRow(dialect, "fencegate_item", true);
    }

    static GuardRow fences(Dialect dialect) {
        return new GuardRow(dialect, "fencegate_fence", false);
    }

    /** Locks {@code key}'s row: its token, fence and (items, when asked for) value; null if it does not exist. */
    ItemState lock(Connection c, String key, boolean withValue, int timeoutSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(withValue ? lockWithValueSql : lockSql)) {
            ps.setQueryTimeout(timeoutSeconds);
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new ItemState(rs.getLong(1), rs.getLong(2), withValue ? rs.getBytes(3) : null);
            }
        }
    }

    /**
     * Creates {@code key}'s row unless it exists; true if this call created it (and now holds
     * it). False: another transaction created it first; {@link #lock} then waits for that one.
     */
    boolean insertIfMissing(Connection c, String key, byte[] value, long token, long fence, int timeoutSeconds)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setQueryTimeout(timeoutSeconds);
            int i = 1;
            bindKey(ps, i++, key);
            if (hasValue) {
                ps.setBytes(i++, value);
            }
            ps.setLong(i++, token);
            ps.setLong(i, fence);
            int inserted = ps.executeUpdate();
            if (dialect == Dialect.MYSQL) {
                refuseIgnoredErrors(ps.getWarnings(), key);
            }
            return inserted == 1;
        } catch (SQLException e) {
            // H2 has no insert-or-ignore outside its compatibility modes; a statement that fails
            // on a duplicate key leaves H2's transaction usable.
            if (dialect == Dialect.H2 && "23505".equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * INSERT IGNORE ignores more than the duplicate key it is here for: a value too long for its
     * column is truncated with a warning (a 2049-byte key would be stored, and acknowledged,
     * under its first 2048 bytes: another item, guarded by another lock). So any warning but a
     * duplicate fails the insert; the transaction rolls back and nothing is written. Stores
     * refuse such keys before this point; this is the database-side backstop.
     */
    static void refuseIgnoredErrors(SQLWarning warning, String key) throws SQLException {
        for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
            if (w.getErrorCode() != MYSQL_DUPLICATE_ENTRY) {
                throw new SQLException("insert of key '" + abbreviated(key) + "' refused: the database would have"
                        + " changed it (warning " + w.getErrorCode() + ": " + w.getMessage() + ")", "22001", w);
            }
        }
    }

    private static String abbreviated(String key) {
        return key.length() <= 64 ? key : key.substring(0, 64) + "…";
    }

    /** Locks {@code key}'s row, creating it empty (token 0, fence 0) if it is missing. */
    ItemState lockOrCreate(Connection c, String key, boolean withValue, int timeoutSeconds) throws SQLException {
        ItemState row = lock(c, key, withValue, timeoutSeconds);
        if (row != null) {
            return row;
        }
        if (insertIfMissing(c, key, null, 0, 0, timeoutSeconds)) {
            return new ItemState(0, 0, null);
        }
        return lockAfterLostRace(c, key, withValue, timeoutSeconds);
    }

    /** After a lost creation race the row exists (rows are never removed): lock it. */
    ItemState lockAfterLostRace(Connection c, String key, boolean withValue, int timeoutSeconds) throws SQLException {
        ItemState row = lock(c, key, withValue, timeoutSeconds);
        if (row == null) {
            // Only if the other creator rolled back: the caller's retry loop starts over.
            throw new SQLException("guard row of " + key + " vanished after a creation race", "40001");
        }
        return row;
    }

    /** Sets the locked row's token and fence (and value, for items). */
    void advance(Connection c, String key, byte[] value, long token, int timeoutSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(advanceSql)) {
            ps.setQueryTimeout(timeoutSeconds);
            int i = 1;
            if (hasValue) {
                ps.setBytes(i++, value);
            }
            ps.setLong(i++, token);
            ps.setLong(i++, token);
            bindKey(ps, i, key);
            ps.executeUpdate();
        }
    }

    /** Raises the locked row's fence. */
    void raiseFence(Connection c, String key, long fence, int timeoutSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(fenceSql)) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setLong(1, fence);
            bindKey(ps, 2, key);
            ps.executeUpdate();
        }
    }

    String table() {
        return table;
    }

    /**
     * MySQL and H2 keys are VARBINARY (compared as bytes, whatever the database's collation or
     * IGNORECASE say): bind the UTF-8 bytes, independent of the connection's charset (H2 refuses
     * to compare VARBINARY with a string). PostgreSQL's text keys compare by bytes under its
     * always-deterministic default collation.
     */
    void bindKey(PreparedStatement ps, int index, String key) throws SQLException {
        if (dialect == Dialect.MYSQL || dialect == Dialect.H2) {
            ps.setBytes(index, key.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, key);
        }
    }
}
