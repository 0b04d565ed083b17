package io.fencegate.store.jdbc;

import io.fencegate.schema.PostgresGuardSql;
import io.fencegate.store.GuardDecision;
import io.fencegate.store.GuardRule;
import io.fencegate.store.ItemState;
import io.fencegate.store.ReadResult;
import io.fencegate.store.WriteResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL's guarded write (and fenced read) in one statement, one round trip (autocommit): a CTE locks the
 * item's row ({@code FOR UPDATE}, which in READ COMMITTED waits for and returns the newest
 * version), a second CTE updates it only if the locked token and fence admit the write, a third
 * inserts the row if there was none. The answer carries the locked row's token and fence, so
 * applied/stale and the previous token are exact without a second query.
 *
 * <p>When two first writers race, the loser's insert finds the winner's row (ON CONFLICT DO
 * NOTHING waits for the winner to commit) and the statement reports neither update nor insert:
 * {@link #write} then answers null and the caller runs it again, and the new statement's
 * snapshot sees the row.
 *
 * <p>The SQL must decide inside the statement (that is what makes it one round trip); the
 * answer is then taken from {@link GuardDecision} on the locked token and fence, which also
 * checks that the SQL decided the same.
 */
final class PostgresOneStatement {

    private static final String FENCED_READ_SQL = PostgresGuardSql.positional(PostgresGuardSql.FENCED_READ);
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

    /** The result, or null if a concurrent first writer won the insert: run it again. */
    WriteResult write(Connection c, String key, long token, byte[] value, int timeoutSeconds) throws SQLException {
        return run(c, sql, timeoutSeconds, ps -> {
            ps.setString(1, key);
            ps.setBytes(2, value);
            ps.setLong(3, token);
        }, (rs, locked) -> {
            if (rs.getBoolean(4)) { // inserted the item
                return GuardDecision.write(rule, ItemState.ABSENT, token, true);
            }
            return locked == null ? null : GuardDecision.write(rule, locked, token, rs.getBoolean(3));
        });
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
