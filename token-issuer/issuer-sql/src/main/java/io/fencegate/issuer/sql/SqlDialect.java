package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the databases the issuer runs on: only how to read the database's clock,
 * and the Flyway folder. Every other statement is the same SQL everywhere (times are BIGINT
 * microseconds, so no date arithmetic differs).
 */
enum SqlDialect {
    /** {@code clock_timestamp()}, not {@code now()}: the time after the row lock was obtained. */
    POSTGRESQL("postgresql", "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"),
    /** UTC arithmetic: independent of each connection's {@code time_zone}, no DST fold. */
    MYSQL("mysql", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))"),
    H2("h2", "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6))");

    final String folder;
    /** The database's clock, epoch microseconds, as an SQL expression. */
    final String nowUs;

    SqlDialect(String folder, String nowUs) {
        this.folder = folder;
        this.nowUs = nowUs;
    }

    static SqlDialect of(Connection connection) throws SQLException {
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
        throw new IllegalArgumentException("the SQL lease issuer runs on PostgreSQL, MariaDB/MySQL or H2, not " + product);
    }

    /** {@code sql} with every {@code NOW_US} replaced by this database's clock. */
    String sql(String sql) {
        return sql.replace("NOW_US", nowUs);
    }
}
