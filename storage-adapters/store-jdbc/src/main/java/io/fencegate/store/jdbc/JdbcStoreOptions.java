package io.fencegate.store.jdbc;

import io.fencegate.store.StoreName;
import io.fencegate.store.StoreOptions;
import io.fencegate.store.backend.OptionChecks;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link JdbcGuardedStore}. Defaults are safe: strict guard, a connection attempt
 * gives up after 5 s, a statement after 10 s, so an unreachable database fails calls instead of
 * hanging them. Fluent setters; {@link #validate()} checks everything at open, naming the option.
 * The name is the database's or schema's (items are keyed by the bare key, locks and API-key
 * scopes by store); the limits are lowered further to what the database can take.
 */
public final class JdbcStoreOptions extends StoreOptions<JdbcStoreOptions> {

    private String jdbcUrl;
    private String username;
    private String password;
    private int poolSize = 8;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration queryTimeout = Duration.ofSeconds(10);
    private boolean migrate = true;

    /** The database, e.g. {@code jdbc:mariadb://127.0.0.1:3306/app}; needed only when the store builds its own pool. */
    public String jdbcUrl() { return jdbcUrl; }
    public JdbcStoreOptions jdbcUrl(String jdbcUrl) { this.jdbcUrl = jdbcUrl; return this; }

    /** Credentials of the store's own pool (unused over an application's data source). */
    public String username() { return username; }
    public JdbcStoreOptions username(String username) { this.username = username; return this; }
    public String password() { return password; }
    public JdbcStoreOptions password(String password) { this.password = password; return this; }

    /** Connections of the store's own pool, and threads running its JDBC calls: 1..1000 (default 8). */
    public int poolSize() { return poolSize; }
    public JdbcStoreOptions poolSize(int poolSize) { this.poolSize = poolSize; return this; }

    /** Bound on getting a connection, at least 250 ms (default 5 s). */
    public Duration connectTimeout() { return connectTimeout; }
    public JdbcStoreOptions connectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; return this; }

    /** Bound on each statement, at least 1 s (default 10 s); a silent socket gives up 2 s later. */
    public Duration queryTimeout() { return queryTimeout; }
    public JdbcStoreOptions queryTimeout(Duration queryTimeout) { this.queryTimeout = queryTimeout; return this; }

    /** Whether the store applies fencegate's migrations at start (default true). */
    public boolean migrate() { return migrate; }
    public JdbcStoreOptions migrate(boolean migrate) { this.migrate = migrate; return this; }

    /**
     * Checks every setting once, at open; the message names the option and its bad value. A
     * {@link #jdbcUrl}, if set, must be a JDBC URL ({@link JdbcGuardedStore#open} requires one).
     *
     * @throws IllegalArgumentException on the first problem
     */
    public JdbcStoreOptions validate() {
        if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("jdbcUrl: must be a JDBC URL, was " + jdbcUrl);
        }
        StoreName.check(name());
        OptionChecks.inRange("poolSize", poolSize, 1, 1000);
        OptionChecks.atLeast("connectTimeout", connectTimeout, Duration.ofMillis(250));
        OptionChecks.atLeast("queryTimeout", queryTimeout, Duration.ofSeconds(1));
        return this;
    }

    /** {@link #validate()}, and a store that builds its own pool needs {@link #jdbcUrl}. */
    JdbcStoreOptions validateForOwnPool() {
        OptionChecks.required("jdbcUrl", jdbcUrl);
        return validate();
    }
}
