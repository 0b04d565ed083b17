package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the databases the issuer runs on: only how to read the database's clock,
 * how to write the issuer clock's key, and the Flyway folder. Every other statement is the same SQL
 * everywhere (times are BIGINT microseconds, so no date arithmetic differs).
 */
enum SqlDialect {
    /** {@code clock_timestamp()}, not {@code now()}: the time after the row lock was obtained. */
    POSTGRESQL("postgresql", "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
            "decode('" + "00".repeat(32) + "', 'hex')"),
    /** UTC arithmetic: independent of each connection's {@code time_zone}, no DST fold. */
    MYSQL("mysql", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))", "X'" + "00".repeat(32) + "'"),
    H2("h2", "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6))",
            "X'" + "00".repeat(32) + "'");

    final String folder;
    /** The database server's wall clock, epoch microseconds, as an SQL expression. */
    final String serverNowUs;
    /** The issuer clock's key in {@code fencegate_lock_fence} (32 zero bytes: no lock name hashes to it) as a literal. */
    final String clockKey;
    /** The issuer clock's offset from the server's clock, µs; 0 while the row is missing. */
    final String clockOffsetUs;
    /** The issuer's clock, {@code NOW_US} in every statement: the server's clock plus the offset ({@link SqlIssuerClock}). */
    final String nowUs;

    SqlDialect(String folder, String serverNowUs, String clockKey) {
        this.folder = folder;
        this.serverNowUs = serverNowUs;
        this.clockKey = clockKey;
        this.clockOffsetUs = "COALESCE((SELECT token FROM fencegate_lock_fence WHERE lock_key = " + clockKey + "), 0)";
        this.nowUs = "(" + serverNowUs + " + " + clockOffsetUs + ")";
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

    /** {@code sql} with every {@code NOW_US} replaced by the issuer's clock and every {@code CLOCK_KEY} by its key. */
    String sql(String sql) {
        return sql.replace("NOW_US", nowUs).replace("CLOCK_KEY", clockKey);
    }
}
