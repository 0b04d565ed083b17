package io.fencegate.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * fencegate's tables ({@code fencegate_item}, {@code fencegate_fence}, {@code fencegate_token_mark},
 * {@code fencegate_store_claim}: see {@code io.fencegate.store.sql.StoreClaim}) as Flyway migrations under
 * {@code db/fencegate/}: one folder per database for what its SQL needs of its own, and
 * {@code common/} for migrations every database runs as written (one file, not three copies).
 * Applications that run Flyway themselves may add {@link #locations(Dialect)} to their locations
 * instead of calling {@link #migrate}, if their own versions do not collide with these (V1 to V6);
 * else fencegate's history table, or a schema of fencegate's own, keeps the two apart.
 */
public final class FencegateSchema {

    /**
     * The width of the key columns ({@code resource} of {@code fencegate_item} and
     * {@code fencegate_fence}): VARBINARY(2048) on MySQL/MariaDB and H2 (compared as bytes, whatever
     * collation or IGNORECASE setting the database has), VARCHAR(2048) on PostgreSQL (whose default
     * collation is always deterministic: text that differs in any byte is unequal). Stores
     * cap their key limit here, in UTF-8 bytes: a key of at most 2048 bytes has at most 2048
     * characters, so it fits every column, and a longer one is refused before it reaches a
     * database that could truncate it (MariaDB's INSERT IGNORE) into another item's key.
     */
    public static final int MAX_KEY_BYTES = 2048;

    /** The history table fencegate's own migrations are recorded in, apart from the application's. */
    public static final String HISTORY_TABLE = "fencegate_schema_history";

    /** The databases the migrations are written for. */
    public enum Dialect {
        POSTGRESQL("postgresql"),
        /** MySQL 8 and MariaDB 10.6+. */
        MYSQL("mysql"),
        H2("h2");

        private final String folder;

        Dialect(String folder) {
            this.folder = folder;
        }

        /** The dialect of the database behind {@code connection}. */
        public static Dialect of(Connection connection) throws SQLException {
            String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
            if (product.contains("postgres")) {
                return POSTGRESQL;
            }
            if (product.contains("mysql") || product.contains("mariadb")) {
                return MYSQL;
            }
            if (product.contains("h2")) {
                return H2;
            }
            throw new IllegalArgumentException("unsupported database: " + product);
        }
    }

    /** Waits 50 ms, 100 ms, ... between attempts: about 10 s in all. */
    private static final int BASELINE_RACE_ATTEMPTS = 20;

    private FencegateSchema() {
    }

    /**
     * The Flyway locations of the migrations for {@code dialect}: its own folder and the common one.
     * A file moved between them keeps its name and content, so Flyway's checksum, and with it every
     * database migrated before the move, stays valid.
     */
    public static String[] locations(Dialect dialect) {
        return new String[] {"classpath:db/fencegate/" + dialect.folder, "classpath:db/fencegate/common"};
    }

    /**
     * Brings fencegate's tables in the data source's default schema up to date. Idempotent;
     * safe to call from several processes at once, also on a fresh schema (see below).
     */
    public static void migrate(DataSource dataSource) {
        migrate(dataSource, null);
    }

    /**
     * Brings fencegate's tables in {@code schema} up to date (PostgreSQL only), creating the schema
     * if needed; its history table sits there too, so an application's own Flyway, in its own
     * schema, never sees fencegate's tables. fencegate's statements name their tables unqualified:
     * the connections must have {@code schema} on their search path (PgJDBC:
     * {@code currentSchema=public,<schema>}).
     * {@code null}: the data source's default schema, as {@link #migrate(DataSource)}.
     */
    public static void migrate(DataSource dataSource, String schema) {
        Dialect dialect;
        try (Connection connection = dataSource.getConnection()) {
            dialect = Dialect.of(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("no connection to migrate with: " + e.getMessage(), e);
        }
        FluentConfiguration configuration = Flyway.configure()
                .dataSource(dataSource)
                .locations(locations(dialect))
                .table(HISTORY_TABLE)
                // The schema may already hold the application's own tables.
                .baselineOnMigrate(true)
                .baselineVersion("0");
        if (schema != null) {
            checkSchemaName(schema);
            if (dialect != Dialect.POSTGRESQL) {
                throw new IllegalArgumentException("a schema of fencegate's own is supported on PostgreSQL only, not " + dialect);
            }
            configuration.schemas(schema);
        }
        Flyway flyway = configuration.load();
        for (int attempt = 1; ; attempt++) {
            try {
                flyway.migrate();
                return;
            } catch (FlywayException e) {
                // Flyway serialises migrations with its own lock, but not the baseline of a fresh
                // schema: a process that finds the history table just created by another (still
                // empty, or already holding the other's migrations) refuses to baseline. Once the
                // other has recorded them, migrating again is a no-op.
                if (attempt >= BASELINE_RACE_ATTEMPTS || !isBaselineRace(e)) {
                    throw e;
                }
                pause(Duration.ofMillis(50L * attempt));
            }
        }
    }

    /** Schema names are put into SQL by Flyway: plain lower-case identifiers only. */
    static void checkSchemaName(String schema) {
        if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("schema must be a plain lower-case name (a-z, 0-9, '_', at most 63), was '" + schema + "'");
        }
    }

    private static boolean isBaselineRace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && (message.contains("already exists, and is empty")
                    || (message.contains("Unable to baseline") && message.contains("already contains migrations")))) {
                return true;
            }
        }
        return false;
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while migrating", e);
        }
    }
}
