package io.fencegate.gateway.it;

import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of its own on the real servers (127.0.0.1): a random MariaDB database or a random
 * Postgres schema in {@code test}; created here, dropped by {@link #close()}.
 */
final class TestDatabases implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB }

    final Kind kind;
    final String name = "fg_gw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private TestDatabases(Kind kind) {
        this.kind = kind;
    }

    static TestDatabases create(Kind kind) throws SQLException {
        TestDatabases db = new TestDatabases(kind);
        db.admin(kind == Kind.POSTGRES ? "CREATE SCHEMA " + db.name : "CREATE DATABASE " + db.name);
        return db;
    }

    InetSocketAddress backend() {
        return new InetSocketAddress("127.0.0.1", kind == Kind.POSTGRES ? 5432 : 3306);
    }

    String urlVia(int port) {
        return kind == Kind.POSTGRES
                ? "jdbc:postgresql://127.0.0.1:" + port + "/test?currentSchema=" + name
                : "jdbc:mariadb://127.0.0.1:" + port + "/" + name;
    }

    String url() {
        return urlVia(backend().getPort());
    }

    String user() {
        return kind == Kind.POSTGRES ? "postgres" : "root";
    }

    JdbcGuardedStore store(GuardRule rule) {
        return storeVia(backend().getPort(), rule);
    }

    JdbcGuardedStore storeVia(int port, GuardRule rule) {
        return JdbcGuardedStore.open(new JdbcStoreOptions().jdbcUrl(urlVia(port)).username(user()).password("")
                .name(name).rule(rule).poolSize(4)
                .connectTimeout(java.time.Duration.ofSeconds(2)).queryTimeout(java.time.Duration.ofSeconds(3)));
    }

    void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url(), user(), ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    long queryLong(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url(), user(), ""); Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void admin(String sql) throws SQLException {
        String url = kind == Kind.POSTGRES ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/";
        try (Connection c = DriverManager.getConnection(url, user(), ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        admin(kind == Kind.POSTGRES ? "DROP SCHEMA IF EXISTS " + name + " CASCADE" : "DROP DATABASE IF EXISTS " + name);
    }
}
