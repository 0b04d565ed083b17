package io.fencegate.issuer.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.backend.InstanceNames;
import io.fencegate.spi.ConnectFailure;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Configures a {@link SqlLeaseIssuer}: either the application's own {@link #dataSource} (it must
 * hand out auto-commit connections; the issuer runs its own short transactions on them and
 * closes nothing of it), or a {@link #jdbcUrl} for a small HikariCP pool the issuer owns.
 */
public final class SqlLeaseIssuerBuilder {

    /** PostgreSQL start-up options of the issuer's own connections ({@link #openForcedPool}). */
    private static final String FORCED_OPTIONS = "-c synchronous_commit=on";

    private DataSource dataSource;
    private String jdbcUrl;
    private String user;
    private String password;
    private int poolSize = 8;
    private Duration statementTimeout = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration grantRetention = Duration.ofDays(1);
    private String instanceName;
    private boolean notifications = true;
    private boolean migrate = true;
    private String schema;
    private Duration durabilityCheckEvery = Duration.ofSeconds(5);

    SqlLeaseIssuerBuilder() { }

    /**
     * The application's data source; the issuer never closes it. Its connections must be in
     * auto-commit mode and not bound to a caller's transaction (no transaction-aware proxy). The
     * issuer uses up to {@link #poolSize} of them at once, plus one held for good on PostgreSQL
     * while {@link #notifications} are on.
     */
    public SqlLeaseIssuerBuilder dataSource(DataSource dataSource) {
        this.dataSource = dataSource;
        return this;
    }

    /** A JDBC URL for a pool of the issuer's own (closed with the issuer). */
    public SqlLeaseIssuerBuilder jdbcUrl(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
        return this;
    }

    public SqlLeaseIssuerBuilder user(String user) {
        this.user = user;
        return this;
    }

    public SqlLeaseIssuerBuilder password(String password) {
        this.password = password;
        return this;
    }

    /** Connections of the issuer's own pool, and its JDBC threads (default 8). */
    public SqlLeaseIssuerBuilder poolSize(int poolSize) {
        this.poolSize = poolSize;
        return this;
    }

    /** Bound on every statement (default 5 s; whole seconds, at least one). */
    public SqlLeaseIssuerBuilder statementTimeout(Duration statementTimeout) {
        this.statementTimeout = statementTimeout;
        return this;
    }

    /** Bound on getting a connection from the issuer's own pool (default 5 s). */
    public SqlLeaseIssuerBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
        return this;
    }

    /** How long {@code wasGranted}/{@code wasReleased} remember a grant (default 1 day; a lock's current token always): one row per grant. */
    public SqlLeaseIssuerBuilder grantRetention(Duration grantRetention) {
        this.grantRetention = grantRetention;
        return this;
    }

    /** The name listings show for leases granted here (default {@code host/pid}). */
    public SqlLeaseIssuerBuilder instanceName(String instanceName) {
        this.instanceName = instanceName;
        return this;
    }

    /**
     * PostgreSQL: whether to keep one LISTEN connection so a release wakes the next waiter at once
     * (default true). Turn it off behind a transaction-mode pooler (pgbouncer), where LISTEN cannot
     * work; waiters then poll.
     */
    public SqlLeaseIssuerBuilder notifications(boolean notifications) {
        this.notifications = notifications;
        return this;
    }

    /**
     * PostgreSQL: the schema build() migrates the issuer's tables into (created if needed); the
     * connections must have it on their search path (e.g. {@code currentSchema=public,<schema>}).
     * Default: the connections' default schema.
     */
    public SqlLeaseIssuerBuilder schema(String schema) {
        this.schema = schema;
        return this;
    }

    /** Whether build() applies the issuer's migrations ({@link SqlIssuerSchema}); default true. */
    public SqlLeaseIssuerBuilder migrate(boolean migrate) {
        this.migrate = migrate;
        return this;
    }

    /** How often the database's durability settings are read again ({@link SqlIssuerGuard}; default 5 s). */
    SqlLeaseIssuerBuilder durabilityCheckEvery(Duration every) {
        this.durabilityCheckEvery = every;
        return this;
    }

    /**
     * Checks the settings, opens the pool (if a URL was given), migrates and starts the issuer.
     *
     * @throws IllegalArgumentException naming the bad setting
     * @throws IssuerUnavailableException if the database cannot be reached
     */
    public SqlLeaseIssuer build() {
        if ((dataSource == null) == (jdbcUrl == null)) {
            throw new IllegalArgumentException("set either dataSource or jdbcUrl");
        }
        if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("jdbcUrl must be a JDBC URL, was '" + jdbcUrl + "'");
        }
        if (poolSize < 2 || poolSize > 200) {
            throw new IllegalArgumentException("poolSize must be from 2 to 200, was " + poolSize);
        }
        requirePositive(statementTimeout, "statementTimeout");
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(grantRetention, "grantRetention");
        requirePositive(durabilityCheckEvery, "durabilityCheckEvery");
        if (instanceName != null) {
            InstanceNames.check(instanceName);
        }
        HikariDataSource pool = jdbcUrl == null ? null : openForcedPool();
        DataSource ds = pool != null ? pool : dataSource;
        try {
            SqlDialect dialect;
            try (Connection c = ds.getConnection()) {
                dialect = SqlDialect.of(c);
                // Why: the issuer's single statements (a waiter's place, a fence row) must commit on
                // their own; on a connection inside someone's transaction they would not.
                if (pool == null && !c.getAutoCommit()) {
                    throw new IllegalArgumentException("dataSource must hand out auto-commit connections:"
                            + " the issuer runs its own short transactions, never a caller's");
                }
            }
            int timeout = (int) Math.max(1, statementTimeout.toSeconds());
            try (Connection c = ds.getConnection()) {
                requirePlace(SqlIssuerPlace.beforeMigration(c, dialect, timeout));
            }
            if (migrate) {
                SqlIssuerSchema.migrate(ds, schema);
            }
            try (Connection c = ds.getConnection()) {
                // After the migration too: two issuers started at once on an empty database under different
                // search paths each saw no tables before, and each made a set.
                requirePlace(SqlIssuerPlace.problem(c, dialect, timeout));
            }
            return new SqlLeaseIssuer(this, ds, pool, dialect);
        } catch (SQLException e) {
            closeQuietly(pool);
            // "cannot reach" only when nothing answered: a refused login or a failed statement is the database's answer.
            throw new IssuerUnavailableException(ConnectFailure.reason(e)
                    .map(why -> "SQL lease issuer: cannot reach " + where() + " (" + why + ")")
                    .orElse("SQL lease issuer: the database at " + where() + " refused: " + e.getMessage()), e);
        } catch (RuntimeException e) {
            closeQuietly(pool);
            throw e;
        }
    }

    /**
     * PostgreSQL: the pool's connections start with {@code synchronous_commit = on} (a start-up
     * option, so it is also their reset value): a grant is acknowledged only once its WAL is on disk,
     * whatever the server's default, at no cost per call. A pooler that refuses start-up options
     * (pgbouncer without {@code ignore_startup_parameters = options}) gets a pool without it; the
     * server's own setting is then checked instead ({@link SqlIssuerGuard}).
     */
    private HikariDataSource openForcedPool() {
        if (!jdbcUrl.startsWith("jdbc:postgresql:") || jdbcUrl.toLowerCase(Locale.ROOT).contains("options=")) {
            return openPool(false);
        }
        return openPool(acceptsStartupOptions());
    }

    /** One connection with the option, before the pool: a pool would retry a refused one for its whole connect timeout. */
    private boolean acceptsStartupOptions() {
        Properties props = new Properties();
        props.setProperty("user", user == null ? "" : user);
        props.setProperty("password", password == null ? "" : password);
        props.setProperty("options", FORCED_OPTIONS);
        try (Connection c = DriverManager.getConnection(jdbcUrl, props)) {
            return true;
        } catch (SQLException e) {
            // Any other failure shows again, with the pool's own message, when the pool opens.
            return !String.valueOf(e.getMessage()).contains("unsupported startup parameter");
        }
    }

    private HikariDataSource openPool(boolean forceSynchronousCommit) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("fencegate-sql-issuer");
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password == null ? "" : password);
        // One more than the JDBC threads: PostgreSQL's LISTEN connection is held for good.
        config.setMaximumPoolSize(poolSize + 1);
        config.setConnectionTimeout(Math.max(250, connectTimeout.toMillis()));
        config.setInitializationFailTimeout(Math.max(1, connectTimeout.toMillis()));
        // MariaDB/MySQL: autocommit off once for good, as the issuer's transactions want it, rather than
        // a statement to switch it off and one to switch it back a transaction; every call commits itself.
        // PostgreSQL and H2 keep it on: their grant and release are single statements.
        config.setAutoCommit(!mysqlUrl());
        if (forceSynchronousCommit) {
            config.addDataSourceProperty("options", FORCED_OPTIONS);
        }
        if (mysqlUrl() && !jdbcUrl.toLowerCase(Locale.ROOT).contains("allowmultiqueries=")) {
            // A grant's or a release's statements, the token read back and the COMMIT go in one request.
            config.addDataSourceProperty("allowMultiQueries", "true");
        }
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new IssuerUnavailableException("SQL lease issuer: cannot open " + where() + ": " + e.getMessage(), e);
        }
    }

    /** Whether the issuer's own pool talks to MariaDB/MySQL: autocommit off. */
    private boolean mysqlUrl() {
        return jdbcUrl != null && (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:"));
    }

    /** Whether the issuer's own MariaDB/MySQL pool sends several statements a request (unless the URL says otherwise). */
    boolean multiStatements() {
        String url = jdbcUrl == null ? "" : jdbcUrl.toLowerCase(Locale.ROOT);
        return mysqlUrl() && (!url.contains("allowmultiqueries=") || url.contains("allowmultiqueries=true"));
    }

    private static void requirePlace(String problem) {
        if (problem != null) {
            throw new IllegalStateException("SQL lease issuer: " + problem);
        }
    }

    private static void closeQuietly(HikariDataSource pool) {
        if (pool != null) {
            pool.close();
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    String where() {
        return jdbcUrl == null ? "the given data source" : jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    String instanceName() {
        return instanceName == null ? InstanceNames.defaultName() : instanceName;
    }

    Duration grantRetention() {
        return grantRetention;
    }

    Duration statementTimeout() {
        return statementTimeout;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    Duration durabilityCheckEvery() {
        return durabilityCheckEvery;
    }

    int threads() {
        return poolSize;
    }

    boolean notifications() {
        return notifications;
    }
}
