package io.fencegate.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of its own on the shared servers (127.0.0.1): a random Postgres schema in {@code test}
 * or a random MariaDB database, created by {@link #create} and dropped with all it holds by
 * {@link #close()}, so suites sharing the servers never see each other's rows. The JDBC drivers
 * come from the caller's classpath.
 *
 * @param name the schema's (Postgres) or the database's (MariaDB) name
 */
public record ScratchDatabase(Kind kind, String name) implements AutoCloseable {
    public enum Kind { POSTGRES, MARIADB }

    /** {@code prefix} says whose it is (e.g. {@code fg_gw_}); a random suffix makes it unique. */
    public static ScratchDatabase create(Kind kind, String prefix) throws SQLException {
        ScratchDatabase db = new ScratchDatabase(kind, prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10));
        db.admin(kind == Kind.POSTGRES ? "CREATE SCHEMA " + db.name : "CREATE DATABASE " + db.name);
        return db;
    }

    /** The server's port on 127.0.0.1. */
    public int port() {
        return kind == Kind.POSTGRES ? 5432 : 3306;
    }

    public String user() {
        return kind == Kind.POSTGRES ? "postgres" : "root";
    }

    /** The JDBC URL of this database reached through {@code port} (the server's, or a proxy's in front of it). */
    public String urlVia(int port) {
        return kind == Kind.POSTGRES
                ? "jdbc:postgresql://127.0.0.1:" + port + "/test?currentSchema=" + name
                : "jdbc:mariadb://127.0.0.1:" + port + "/" + name;
    }

    public String url() {
        return urlVia(port());
    }

    @Override
    public void close() throws SQLException {
        admin(kind == Kind.POSTGRES ? "DROP SCHEMA IF EXISTS " + name + " CASCADE" : "DROP DATABASE IF EXISTS " + name);
    }

    private void admin(String sql) throws SQLException {
        String server = kind == Kind.POSTGRES ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/";
        try (Connection c = DriverManager.getConnection(server, user(), ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
