package io.fencegate.store.jdbc;

import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of its own for one test class on a shared server: a random MariaDB database, a
 * random Postgres schema in {@code test}, or a named in-memory H2; created here, dropped by
 * {@link #close()}. The shared servers are never reconfigured.
 */
final class TestDatabase implements AutoCloseable {

    enum Kind { MARIADB, POSTGRES, H2 }

    private final Kind kind;
    private final String name;

    private TestDatabase(Kind kind) {
        this.kind = kind;
        this.name = "fg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    static TestDatabase create(Kind kind) throws SQLException {
        TestDatabase db = new TestDatabase(kind);
        switch (kind) {
            case MARIADB -> db.admin("CREATE DATABASE " + db.name);
            case POSTGRES -> db.admin("CREATE SCHEMA " + db.name);
            case H2 -> { }
        }
        return db;
    }

    String name() {
        return name;
    }

    Kind kind() {
        return kind;
    }

    io.fencegate.schema.FencegateSchema.Dialect dialect() {
        return switch (kind) {
            case MARIADB -> io.fencegate.schema.FencegateSchema.Dialect.MYSQL;
            case POSTGRES -> io.fencegate.schema.FencegateSchema.Dialect.POSTGRESQL;
            case H2 -> io.fencegate.schema.FencegateSchema.Dialect.H2;
        };
    }

    String url() {
        return urlVia(backend());
    }

    /** The same database reached at {@code address} (a proxy in front of the server). */
    String urlVia(InetSocketAddress address) {
        String hostPort = "127.0.0.1:" + address.getPort();
        return switch (kind) {
            case MARIADB -> "jdbc:mariadb://" + hostPort + "/" + name;
            case POSTGRES -> "jdbc:postgresql://" + hostPort + "/test?currentSchema=" + name;
            case H2 -> "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        };
    }

    String username() {
        return switch (kind) {
            case MARIADB -> "root";
            case POSTGRES -> "postgres";
            case H2 -> "sa";
        };
    }

    InetSocketAddress backend() {
        return switch (kind) {
            case MARIADB -> new InetSocketAddress("127.0.0.1", 3306);
            case POSTGRES -> new InetSocketAddress("127.0.0.1", 5432);
            case H2 -> new InetSocketAddress("127.0.0.1", 0);
        };
    }

    JdbcStoreOptions options() {
        return new JdbcStoreOptions().jdbcUrl(url()).username(username()).password("").name(name);
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), username(), "");
    }

    private void admin(String sql) throws SQLException {
        String url = switch (kind) {
            case MARIADB -> "jdbc:mariadb://127.0.0.1:3306/";
            case POSTGRES -> "jdbc:postgresql://127.0.0.1:5432/test";
            case H2 -> url();
        };
        try (Connection c = DriverManager.getConnection(url, username(), ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        switch (kind) {
            case MARIADB -> admin("DROP DATABASE IF EXISTS " + name);
            case POSTGRES -> admin("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            case H2 -> admin("SHUTDOWN");
        }
    }
}
