package io.fencegate.store.jdbc;

import io.fencegate.schema.StoreClaim;
import io.fencegate.store.GuardRule;
import io.fencegate.store.StoreLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link JdbcGuardedStore}. Defaults are safe: strict guard, a connection attempt
 * gives up after 5 s, a statement after 10 s, so an unreachable database fails calls instead of
 * hanging them.
 */
public final class JdbcStoreOptions {

    private String jdbcUrl;
    private String username;
    private String password;
    private String name = "default";
    private GuardRule rule = GuardRule.STRICT;
    private StoreLimits limits = StoreLimits.DEFAULT;
    private int poolSize = 8;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration queryTimeout = Duration.ofSeconds(10);
    private boolean migrate = true;

    /** The database, e.g. {@code jdbc:mariadb://127.0.0.1:3306/app}; needed only when the store builds its own pool. */
    public JdbcStoreOptions jdbcUrl(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
        return this;
    }

    public JdbcStoreOptions username(String username) {
        this.username = username;
        return this;
    }

    public JdbcStoreOptions password(String password) {
        this.password = password;
        return this;
    }

    /**
     * The store's name (default {@code "default"}; 1-64 of A-Z a-z 0-9 _ . -): the database /
     * schema is claimed for it at open, and a store with another name on the same schema is
     * refused (items are keyed by the bare key, locks and API-key scopes by store). Several
     * stores, processes or gateways on one schema must use the same name. Also in thread names.
     */
    public JdbcStoreOptions name(String name) {
        this.name = StoreClaim.checkName(name);
        return this;
    }

    public JdbcStoreOptions rule(GuardRule rule) {
        this.rule = Objects.requireNonNull(rule, "rule");
        return this;
    }

    public JdbcStoreOptions limits(StoreLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        return this;
    }

    /** Connections of the store's own pool, and threads running its JDBC calls. */
    public JdbcStoreOptions poolSize(int poolSize) {
        this.poolSize = poolSize;
        return this;
    }

    public JdbcStoreOptions connectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
        return this;
    }

    public JdbcStoreOptions queryTimeout(Duration queryTimeout) {
        this.queryTimeout = queryTimeout;
        return this;
    }

    /** Whether the store applies fencegate's migrations at start (default true). */
    public JdbcStoreOptions migrate(boolean migrate) {
        this.migrate = migrate;
        return this;
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    String username() {
        return username;
    }

    String password() {
        return password;
    }

    String name() {
        return name;
    }

    GuardRule rule() {
        return rule;
    }

    StoreLimits limits() {
        return limits;
    }

    int poolSize() {
        return poolSize;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    Duration queryTimeout() {
        return queryTimeout;
    }

    boolean migrate() {
        return migrate;
    }

    void validate(boolean needsUrl) {
        if (needsUrl && (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:"))) {
            throw new IllegalArgumentException("jdbcUrl must be a JDBC URL, was " + jdbcUrl);
        }
        if (poolSize < 1 || poolSize > 1000) {
            throw new IllegalArgumentException("poolSize must be 1..1000, was " + poolSize);
        }
        if (connectTimeout == null || connectTimeout.toMillis() < 250) {
            throw new IllegalArgumentException("connectTimeout must be at least 250 ms, was " + connectTimeout);
        }
        if (queryTimeout == null || queryTimeout.toSeconds() < 1) {
            throw new IllegalArgumentException("queryTimeout must be at least 1 s, was " + queryTimeout);
        }
    }
}
