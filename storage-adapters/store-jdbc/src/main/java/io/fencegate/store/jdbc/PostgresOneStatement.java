package io.fencegate.store.jdbc;

import io.fencegate.store.GuardRule;
import io.fencegate.store.ReadResult;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.sql.PostgresGuardSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL's guarded write and fenced read, each one statement in autocommit
 * ({@link PostgresGuardSql}). A write is one guarded upsert: ON CONFLICT locks the newest version
 * of the row (waiting for a concurrent first writer to commit) and judges the guard on it; it
 * answers the previous token if it applied, nothing if the guard refused, and then a second look
 * reads the token and fence that refused it (they only rise, so they still refuse it).
 *
 * <p>A fenced read is CTEs: one locks the item's row ({@code FOR UPDATE}, which in READ
 * COMMITTED waits for and returns the newest version), a second raises the fence if the token
 * admits it, a third inserts a fence-only row if there was none. When two first readers race,
 * the loser's insert finds the winner's row and the statement reports neither: {@link #fencedRead}
 * then answers null and the caller runs it again; the new statement's snapshot sees the row.
 *
 * <p>The SQL decides inside the statement; the answer is then taken from {@link GuardDecision},
 * which also checks that the SQL decided the same.
 */
final class PostgresOneStatement {

    private static final String FENCED_READ_SQL = PostgresGuardSql.positional(PostgresGuardSql.FENCED_READ);
    private static final String CURRENT_SQL = PostgresGuardSql.positional(PostgresGuardSql.CURRENT);
    private final GuardRule rule;
    private final String sql;

    PostgresOneStatement(GuardRule rule) {
        this.rule = rule;
        this.sql = PostgresGuardSql.positional(PostgresGuardSql.write(rule == GuardRule.STRICT));
    }

    /**
     * A fenced read in one statement, the same way: lock, raise the fence if it is below the
     * token, or create a fence-only row. Null if a concurrent creator won: run it again.
     */
    ReadResult fencedRead(Connection c, String key, long token, int timeoutSeconds) throws SQLException {
        return run(c, FENCED_READ_SQL, timeoutSeconds, ps -> {
            ps.setString(1, key);
            ps.setLong(2, token);
        }, (rs, locked) -> {
            if (rs.getBoolean(4)) { // inserted a fence-only row
                return GuardDecision.fencedRead(ItemState.ABSENT, token);
            }
            return locked == null ? null
                    : GuardDecision.fencedRead(new ItemState(locked.token(), locked.fence(), rs.getBytes(3)), token);
        });
    }

    /** Applied with the previous token, or stale with the token and fence that refused it. */
    WriteResult write(Connection c, String key, long token, byte[] value, int timeoutSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setString(1, key);
            ps.setBytes(2, value);
            ps.setLong(3, token);
            ps.setLong(4, token);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    // The old fence is not returned; GuardDecision checks the SQL's answer on the token.
                    long previous = rs.getLong(1);
                    return GuardDecision.write(rule, ItemState.of(previous, previous), token, true);
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(CURRENT_SQL)) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setArray(1, c.createArrayOf("varchar", new String[] {key}));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("row of " + key + " refused a write, then vanished");
                }
                return GuardDecision.write(rule, ItemState.of(rs.getLong(2), rs.getLong(3)), token, false);
            }
        }
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Reads the answer row; {@code locked} is the row's token and fence, null if there was no row. */
    @FunctionalInterface
    private interface Answer<T> {
        T read(ResultSet rs, ItemState locked) throws SQLException;
    }

    /** Runs one of the guard statements, whose answer starts with the locked row's token and fence. */
    private static <T> T run(Connection c, String sql, int timeoutSeconds, Binder binder, Answer<T> answer)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long current = rs.getLong(1);
                ItemState locked = rs.wasNull() ? null : ItemState.of(current, rs.getLong(2));
                return answer.read(rs, locked);
            }
        }
    }
}
