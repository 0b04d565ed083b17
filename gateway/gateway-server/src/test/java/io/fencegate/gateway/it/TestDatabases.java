package io.fencegate.gateway.it;

import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.testing.ScratchDatabase;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database of its own on the real servers (127.0.0.1): a random MariaDB database or a random
 * Postgres schema in {@code test} (a {@link ScratchDatabase}); created here, dropped by
 * {@link #close()}. Adds what the gateway's tests do with it: a JDBC store on it, directly or
 * through a proxy, and plain statements.
 */
final class TestDatabases implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB }

    final Kind kind;
    final String name;
    private final ScratchDatabase scratch;

    private TestDatabases(Kind kind, ScratchDatabase scratch) {
        this.kind = kind;
        this.scratch = scratch;
        this.name = scratch.name();
    }

    static TestDatabases create(Kind kind) throws SQLException {
        return new TestDatabases(kind, ScratchDatabase.create(ScratchDatabase.Kind.valueOf(kind.name()), "fg_gw_"));
    }

    InetSocketAddress backend() {
        return new InetSocketAddress("127.0.0.1", scratch.port());
    }

    String urlVia(int port) {
        return scratch.urlVia(port);
    }

    String url() {
        return scratch.url();
    }

    String user() {
        return scratch.user();
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

    @Override
    public void close() throws SQLException {
        scratch.close();
    }
}
