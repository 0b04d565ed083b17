package io.fencegate.store.postgres;

import io.fencegate.store.StoreName;
import io.fencegate.store.StoreOptions;
import io.fencegate.store.backend.OptionChecks;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the reactive Postgres store connects and how it behaves. Fluent setters, sane defaults;
 * {@link #validate()} checks everything at open, naming the option. The name is the schema's: it
 * is claimed for it at open, and a store with another name on the same schema, reactive or JDBC,
 * is refused (items are keyed by the bare key, locks and API-key scopes by store). Keys are
 * further capped at the key column, {@code FencegateSchema.MAX_KEY_BYTES}.
 */
public final class PgStoreOptions extends StoreOptions<PgStoreOptions> {
    private String host = "127.0.0.1";
    private int port = 5432;
    private String database = "postgres";
    private String user = "postgres";
    private String password = "";
    private String schema;
    private int poolSize = 8;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration operationTimeout = Duration.ofSeconds(10);

    public String host() { return host; }
    public PgStoreOptions host(String host) { this.host = Objects.requireNonNull(host); return this; }

    /** The server's port, 1..65535 (default 5432). */
    public int port() { return port; }
    public PgStoreOptions port(int port) { this.port = port; return this; }

    public String database() { return database; }
    public PgStoreOptions database(String database) { this.database = Objects.requireNonNull(database); return this; }

    /** The role to log in as (default {@code postgres}); the password defaults to empty. */
    public String user() { return user; }
    public PgStoreOptions user(String user) { this.user = Objects.requireNonNull(user); return this; }

    public String password() { return password; }
    public PgStoreOptions password(String password) { this.password = password == null ? "" : password; return this; }

    /** The schema holding fencegate's tables (the connection's search_path); null: the server's default. */
    public String schema() { return schema; }
    public PgStoreOptions schema(String schema) { this.schema = schema; return this; }

    /** Connections in the pool, 1..1000 (default 8); write batches run on a quarter of them at once (at least one). */
    public int poolSize() { return poolSize; }
    public PgStoreOptions poolSize(int poolSize) { this.poolSize = poolSize; return this; }

    /** Bound on opening a connection and on waiting for one from the pool. */
    public Duration connectTimeout() { return connectTimeout; }
    public PgStoreOptions connectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; return this; }

    /** Bound on every operation, end to end: past it the stage fails with StoreUnavailableException. */
    public Duration operationTimeout() { return operationTimeout; }
    public PgStoreOptions operationTimeout(Duration operationTimeout) { this.operationTimeout = operationTimeout; return this; }

    /**
     * Checks every setting once, at open; the message names the option and its bad value.
     *
     * @throws IllegalArgumentException on the first problem
     */
    public PgStoreOptions validate() {
        StoreName.check(name());
        OptionChecks.notBlank("host", host);
        OptionChecks.inRange("port", port, 1, 65535);
        OptionChecks.notBlank("database", database);
        OptionChecks.notBlank("user", user);
        if (schema != null) {
            OptionChecks.notBlank("schema", schema);
        }
        OptionChecks.inRange("poolSize", poolSize, 1, 1000);
        OptionChecks.atLeast("connectTimeout", connectTimeout, Duration.ofMillis(1));
        OptionChecks.atLeast("operationTimeout", operationTimeout, Duration.ofMillis(1));
        return this;
    }
}
