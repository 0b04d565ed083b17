package io.fencegate.examples.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A schema of its own in the shared Postgres database {@code test} at 127.0.0.1:5432 (user postgres),
 * created here and dropped, with everything in it, on close. Needs the Postgres driver on the classpath.
 */
public final class PostgresSchema implements AutoCloseable {
    private static final String ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private final String name;

    private PostgresSchema(String name) {
        this.name = name;
    }

    public static PostgresSchema create(String prefix) throws SQLException {
        PostgresSchema schema = new PostgresSchema(prefix + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL));
        schema.admin("CREATE SCHEMA " + schema.name);
        return schema;
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return ADMIN_URL + "?currentSchema=" + name;
    }

    private void admin(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(ADMIN_URL, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        admin("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
}
