package io.fencegate.issuer.redis;

import io.fencegate.issuer.IssuerUnavailableException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongFunction;
import javax.sql.DataSource;

/**
 * A {@link TokenHighWaterMark} in a SQL database, for issuers on several hosts: every gateway on
 * one Redis key prefix shares one row of {@code fencegate_token_mark}, so the mark covers all their
 * tokens (a {@link FileTokenHighWaterMark} only covers the processes that share its file).
 *
 * <p>The row is locked ({@code SELECT ... FOR UPDATE}) for a raise and for {@link #whileFrozen},
 * which serialises them across processes; a raise commits before it returns. The table comes
 * from fencegate's Flyway migrations ({@code FencegateSchema.migrate(dataSource)}). Works on
 * PostgreSQL, MariaDB/MySQL (InnoDB) and H2. Every statement is bounded by the statement
 * timeout; the data source bounds connecting (set its connect and socket timeouts).
 *
 * <p>The mark's {@link #identity()} is a random number in a row of its own, {@code <name>#id},
 * made the first time it is asked for: every issuer on this database and name shares it, a mark
 * in another database (or under another name) has another.
 */
public final class JdbcTokenHighWaterMark implements TokenHighWaterMark {

    private static final String SELECT = "SELECT mark FROM fencegate_token_mark WHERE name = ?";
    private static final String LOCK = SELECT + " FOR UPDATE";
    private static final String INSERT = "INSERT INTO fencegate_token_mark (name, mark) VALUES (?, 0)";
    private static final String UPDATE = "UPDATE fencegate_token_mark SET mark = ? WHERE name = ?";
    private static final String ID_SUFFIX = "#id";
    private static final String INSERT_ID = "INSERT INTO fencegate_token_mark (name, mark) VALUES (?, ?)";
    /** SQLState class 23: integrity constraint violation (here: the row exists already). */
    private static final String INTEGRITY_VIOLATION = "23";

    private final DataSource dataSource;
    private final String name;
    private final int timeoutSeconds;
    private volatile boolean rowExists;
    private volatile String identity;

    /**
     * @param name the mark's row: one per Redis key prefix (use the prefix itself)
     * @param statementTimeout bound on each statement, at least one second
     */
    public JdbcTokenHighWaterMark(DataSource dataSource, String name, Duration statementTimeout) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        if (name == null || name.isEmpty() || name.length() > 255 - ID_SUFFIX.length()) {
            throw new IllegalArgumentException("the mark's name must be 1.." + (255 - ID_SUFFIX.length())
                    + " characters, was " + name);
        }
        this.name = name;
        this.timeoutSeconds = (int) Math.max(1, statementTimeout.toSeconds());
    }

    @Override
    public long read() {
        try (Connection c = dataSource.getConnection(); PreparedStatement select = prepare(c, SELECT)) {
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    @Override
    public long raise(long floor, long block) {
        if (block <= 0) {
            throw new IllegalArgumentException("block must be positive, was " + block);
        }
        return locked((c, mark) -> {
            long base = Math.max(mark, floor);
            if (base > Long.MAX_VALUE - block) {
                throw new IllegalStateException("fencing tokens exhausted: high-water mark " + base + " + " + block);
            }
            long raised = base + block;
            try (PreparedStatement update = c.prepareStatement(UPDATE)) {
                update.setQueryTimeout(timeoutSeconds);
                update.setLong(1, raised);
                update.setString(2, name);
                update.executeUpdate();
            }
            return raised;
        });
    }

    @Override
    public String identity() {
        if (identity != null) {
            return identity;
        }
        String row = name + ID_SUFFIX;
        try (Connection c = dataSource.getConnection(); PreparedStatement insert = c.prepareStatement(INSERT_ID)) {
            insert.setQueryTimeout(timeoutSeconds);
            insert.setString(1, row);
            insert.setLong(2, new SecureRandom().nextLong() & Long.MAX_VALUE);
            insert.executeUpdate();
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state == null || !state.startsWith(INTEGRITY_VIOLATION)) {
                throw unavailable(e); // else another issuer made it first: read theirs
            }
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement select = c.prepareStatement(SELECT)) {
            select.setQueryTimeout(timeoutSeconds);
            select.setString(1, row);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("token high-water mark row '" + row + "' vanished");
                }
                identity = "row " + name + " #" + rs.getLong(1);
                return identity;
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    @Override
    public <T> T whileFrozen(LongFunction<T> action) {
        return locked((c, mark) -> action.apply(mark));
    }

    private interface LockedAction<T> {
        T apply(Connection c, long mark) throws SQLException;
    }

    /**
     * Runs {@code action} in a transaction holding the mark's row lock; commits if it returns. A
     * row that vanished is re-created at 0, as a lost mark file reads 0: the issuer then raises
     * it past Redis's counter (only losing Redis and the mark together can repeat tokens).
     */
    private <T> T locked(LockedAction<T> action) {
        for (int attempt = 0; ; attempt++) {
            ensureRow();
            try (Connection c = dataSource.getConnection()) {
                boolean autoCommit = c.getAutoCommit();
                c.setAutoCommit(false);
                try {
                    Long mark = lockRow(c);
                    if (mark != null) {
                        T result = action.apply(c, mark);
                        c.commit();
                        return result;
                    }
                    c.rollback();
                    rowExists = false;
                    if (attempt > 0) {
                        throw new IllegalStateException("token high-water mark row '" + name + "' keeps vanishing");
                    }
                } catch (SQLException | RuntimeException | Error e) {
                    try {
                        c.rollback();
                    } catch (SQLException rollback) {
                        e.addSuppressed(rollback);
                    }
                    throw e;
                } finally {
                    c.setAutoCommit(autoCommit);
                }
            } catch (SQLException e) {
                throw unavailable(e);
            }
        }
    }

    /** The mark, with its row locked until the transaction ends; null if the row is gone. */
    private Long lockRow(Connection c) throws SQLException {
        try (PreparedStatement lock = prepare(c, LOCK); ResultSet rs = lock.executeQuery()) {
            return rs.next() ? rs.getLong(1) : null;
        }
    }

    /** Creates the row at 0 once; a concurrent creator winning is just as good. */
    private void ensureRow() {
        if (rowExists) {
            return;
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement insert = prepare(c, INSERT)) {
            if (!c.getAutoCommit()) {
                throw new IllegalStateException("the token high-water mark's data source must hand out auto-commit connections");
            }
            insert.executeUpdate();
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state == null || !state.startsWith(INTEGRITY_VIOLATION)) {
                throw unavailable(e);
            }
        }
        rowExists = true;
    }

    private PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement statement = c.prepareStatement(sql);
        statement.setQueryTimeout(timeoutSeconds);
        statement.setString(1, name);
        return statement;
    }

    private IssuerUnavailableException unavailable(SQLException e) {
        return new IssuerUnavailableException("token high-water mark " + this + " unavailable: " + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "JdbcTokenHighWaterMark[" + name + "]";
    }
}
