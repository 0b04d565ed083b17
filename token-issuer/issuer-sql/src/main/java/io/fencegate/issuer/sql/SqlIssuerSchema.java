package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

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
        String location;
        try (Connection connection = dataSource.getConnection()) {
            location = location(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the database to migrate it: " + e.getMessage(), e);
        }
        Flyway flyway = Flyway.configure().dataSource(dataSource).locations(location).table(HISTORY_TABLE)
                .baselineOnMigrate(true).baselineVersion("0").load();
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
