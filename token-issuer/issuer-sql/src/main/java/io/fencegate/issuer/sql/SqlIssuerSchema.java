package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The SQL lease issuer's tables ({@code fencegate_lock_fence}, {@code fencegate_lease_grant},
 * {@code fencegate_lease_waiter}) as Flyway migrations under {@code db/fencegate-issuer/}, one
 * folder per database, recorded in a history table of their own: the issuer's database may be the
 * stores' database or another, and neither's migrations wait for the other's.
 */
public final class SqlIssuerSchema {

    /** The history table the issuer's migrations are recorded in. */
    public static final String HISTORY_TABLE = "fencegate_issuer_schema_history";
    private static final int BASELINE_RACE_ATTEMPTS = 20;

    private SqlIssuerSchema() { }

    /** The Flyway location of the migrations for the database behind {@code connection}. */
    public static String location(Connection connection) throws SQLException {
        return "classpath:db/fencegate-issuer/" + SqlDialect.of(connection).folder;
    }

    /** Brings the issuer's tables in the data source's default schema up to date. Idempotent; safe from several processes at once. */
    public static void migrate(DataSource dataSource) {
        migrate(dataSource, null);
    }

    /**
     * Brings the issuer's tables in {@code schema} up to date (PostgreSQL only; created if needed,
     * with the history table). The issuer names its tables unqualified: the connections must have
     * {@code schema} on their search path. {@code null}: the default schema.
     */
    public static void migrate(DataSource dataSource, String schema) {
        String location;
        SqlDialect dialect;
        try (Connection connection = dataSource.getConnection()) {
            location = location(connection);
            dialect = SqlDialect.of(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("no connection to migrate with: " + e.getMessage(), e);
        }
        FluentConfiguration configuration = Flyway.configure().dataSource(dataSource).locations(location)
                .table(HISTORY_TABLE).baselineOnMigrate(true).baselineVersion("0");
        if (schema != null) {
            if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
                throw new IllegalArgumentException("schema must be a plain lower-case name (a-z, 0-9, '_', at most 63), was '" + schema + "'");
            }
            if (dialect != SqlDialect.POSTGRESQL) {
                throw new IllegalArgumentException("a schema of the issuer's own is supported on PostgreSQL only");
            }
            configuration.schemas(schema);
        }
        Flyway flyway = configuration.load();
        for (int attempt = 1; ; attempt++) {
            try {
                flyway.migrate();
                return;
            } catch (FlywayException e) {
                // As FencegateSchema: two processes baselining one fresh schema race; once the other
                // recorded its migrations, migrating again is a no-op.
                if (attempt >= BASELINE_RACE_ATTEMPTS || !String.valueOf(e.getMessage()).contains("baseline")
                        && !String.valueOf(e.getMessage()).contains("already exists, and is empty")) {
                    throw e;
                }
                try {
                    Thread.sleep(50L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
