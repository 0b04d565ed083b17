package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the issuer checks before it may grant, at start and every few seconds: that its tables are
 * the deployment's one set ({@link SqlIssuerPlace}), and that a grant the database acknowledged
 * survives a crash of the database server. A commit that
 * returns before its log is on disk ({@code synchronous_commit = off}, {@code fsync = off},
 * {@code innodb_flush_log_at_trx_commit = 0 or 2}) can vanish in a crash while its holder goes on
 * writing, and the lock is then granted again: two live holders. Where the issuer can, it forces
 * the setting on its own connections (PostgreSQL's {@code synchronous_commit}, see
 * {@link SqlLeaseIssuerBuilder}); what it cannot force (a global or server-wide setting, a setting
 * a pooler does not carry) it checks at start and every few seconds, and while it finds one the
 * issuer fails closed: {@link #refusal()} names the setting and the issuer grants, renews and
 * answers grant look-ups with nothing but that reason. Fixing the setting is enough: the next
 * check clears it.
 */
final class SqlIssuerGuard {

    private static final Logger log = LoggerFactory.getLogger(SqlIssuerGuard.class);
    /** PostgreSQL's synchronous_commit values that wait for the local WAL flush (and more). */
    private static final Set<String> PG_DURABLE_COMMIT = Set.of("on", "local", "remote_write", "remote_apply");

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final int timeoutSeconds;
    private volatile String refusal;

    SqlIssuerGuard(DataSource dataSource, SqlDialect dialect, int timeoutSeconds) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Why grants are refused now, or null. */
    String refusal() {
        return refusal;
    }

    /** Checks now, then every {@code every} on {@code jdbc} until {@code scheduler} shuts down. */
    void start(ScheduledExecutorService scheduler, Executor jdbc, Duration every) {
        check();
        long ms = every.toMillis();
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                jdbc.execute(this::check);
            } catch (RejectedExecutionException closing) {
                // the issuer is closing
            }
        }, ms, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Reads the settings once and updates {@link #refusal()}. A database that cannot be reached
     * changes nothing: every call fails on its own then, and the settings are read again after.
     */
    void check() {
        String found;
        try (Connection c = dataSource.getConnection()) {
            try {
                found = problem(c);
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        } catch (SQLException e) {
            log.debug("SQL lease issuer: check of its tables and durability failed: {}", e.toString());
            return;
        }
        String before = refusal;
        refusal = found;
        if (found != null && !found.equals(before)) {
            log.error("SQL lease issuer refuses to grant: {}", found);
        } else if (found == null && before != null) {
            log.info("SQL lease issuer grants again: its tables and the database's durability settings are as required");
        }
    }

    private String problem(Connection c) throws SQLException {
        String place = SqlIssuerPlace.problem(c, dialect, timeoutSeconds);
        if (place != null) {
            return place;
        }
        return switch (dialect) {
            case POSTGRESQL -> postgresProblem(c);
            case MYSQL -> mysqlProblem(c);
            // H2 is for tests and one process: it has no setting that makes a commit wait for the disk.
            case H2 -> null;
        };
    }

    /**
     * Both the connection's value of {@code synchronous_commit} and its reset value (what the
     * server, the database, the role and the connection's start-up options give it): behind a
     * transaction pooler each transaction may run on another server connection, which has the
     * reset value, so a value set for one session proves nothing about the next transaction.
     */
    private String postgresProblem(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(timeoutSeconds);
            try (ResultSet rs = s.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit'),"
                    + " (SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit')")) {
                rs.next();
                if (!"on".equalsIgnoreCase(rs.getString(1))) {
                    return "PostgreSQL runs with fsync = " + rs.getString(1) + ": a crash of the database server can lose"
                            + " grants it acknowledged and hand their locks out again while their holders still write."
                            + " Set fsync = on (postgresql.conf, then reload); grants resume by themselves";
                }
                for (int column = 2; column <= 3; column++) {
                    String value = String.valueOf(rs.getString(column)).toLowerCase(Locale.ROOT);
                    if (!PG_DURABLE_COMMIT.contains(value)) {
                        return "PostgreSQL's synchronous_commit is " + value + " for the issuer's connections"
                                + (column == 3 ? " (their reset value: what a pooler's server connections run with)" : "")
                                + ": a crash of the database server can lose grants it acknowledged and hand their locks"
                                + " out again while their holders still write. Set synchronous_commit = on for the issuer's"
                                + " role or database (ALTER ROLE … SET synchronous_commit = on) or in postgresql.conf;"
                                + " grants resume by themselves";
                    }
                }
                return null;
            }
        }
    }

    /** Global only (no session can force it): 1 flushes the redo log at each commit, MariaDB's 3 too. */
    private String mysqlProblem(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(timeoutSeconds);
            try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")) {
                rs.next();
                int value = rs.getInt(1);
                if (value == 1 || value == 3) {
                    return null;
                }
                return "MariaDB/MySQL runs with innodb_flush_log_at_trx_commit = " + value + ": a crash of the database"
                        + " server can lose grants it acknowledged and hand their locks out again while their holders"
                        + " still write. Set it to 1 (SET GLOBAL innodb_flush_log_at_trx_commit = 1, and in the server's"
                        + " configuration); grants resume by themselves";
            }
        }
    }
}
