package io.fencegate.examples.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A schema of its own in a Postgres database (by default the shared {@code test} at 127.0.0.1:5432,
 * user postgres), created here and dropped, with everything in it, on close. Needs the Postgres
 * driver on the classpath.
 */
public final class PostgresSchema implements AutoCloseable {
    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private final String name;
    private final String adminUrl;
    private final String user;
    private final String password;

    private PostgresSchema(String name, String adminUrl, String user, String password) {
        this.name = name;
        this.adminUrl = adminUrl;
        this.user = user;
        this.password = password;
    }

    public static PostgresSchema create(String prefix) throws SQLException {
        return create(prefix, DEFAULT_URL, "postgres", "");
    }

    /** A schema named {@code prefix_<random>} in the database {@code adminUrl} names. */
    public static PostgresSchema create(String prefix, String adminUrl, String user, String password) throws SQLException {
        String name = prefix + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        PostgresSchema schema = new PostgresSchema(name, adminUrl, user, password);
        schema.admin("CREATE SCHEMA " + schema.name);
        return schema;
    }

    /** Whether a schema of that name is in the default database: an example's teardown must leave none behind. */
    public static boolean exists(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(DEFAULT_URL, "postgres", "");
             PreparedStatement s = c.prepareStatement("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    public String name() {
        return name;
    }

    /** The database's URL with every connection pinned to this schema. */
    public String jdbcUrl() {
        return adminUrl + (adminUrl.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    private void admin(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        admin("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
}
