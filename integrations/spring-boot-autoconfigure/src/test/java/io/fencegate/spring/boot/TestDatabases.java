package io.fencegate.spring.boot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/** A Postgres schema or a MariaDB database of the test's own, dropped on close. */
record TestDatabases(String adminUrl, String user, String name, String jdbcUrl, String drop) implements AutoCloseable {

    static TestDatabases postgres(String prefix) throws SQLException {
        String name = prefix + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        TestDatabases db = new TestDatabases("jdbc:postgresql://127.0.0.1:5432/test", "postgres", name,
                "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + name, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
        db.admin("CREATE SCHEMA " + name);
        return db;
    }

    static TestDatabases mariadb(String prefix) throws SQLException {
        String name = prefix + "_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        TestDatabases db = new TestDatabases("jdbc:mariadb://127.0.0.1:3306/test", "root", name,
                "jdbc:mariadb://127.0.0.1:3306/" + name, "DROP DATABASE IF EXISTS " + name);
        db.admin("CREATE DATABASE " + name);
        return db;
    }

    void admin(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, user, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        admin(drop);
    }
}
