package io.fencegate.examples.transfer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * Mode 1's bank: a plain Postgres table {@code account(id, balance)}, read and written with plain
 * SQL as a service that trusts its lock does. One connection, used by one thread.
 */
final class SqlAccounts implements Balances, AutoCloseable {
    private final Connection connection;

    SqlAccounts(String jdbcUrl, String user, String password) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("connectTimeout", "10"); // seconds: no call waits forever on a database that went away
        props.setProperty("socketTimeout", "60");
        this.connection = DriverManager.getConnection(jdbcUrl, props);
    }

    void create(List<String> accounts, long each) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE account (id VARCHAR(100) PRIMARY KEY, balance BIGINT NOT NULL)");
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO account (id, balance) VALUES (?, ?)")) {
            for (String id : accounts) {
                insert.setString(1, id);
                insert.setLong(2, each);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** A plain read of both balances: nothing in the database remembers who read them. */
    long[] read(String a, String b) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT id, balance FROM account WHERE id IN (?, ?)")) {
            select.setString(1, a);
            select.setString(2, b);
            long[] balances = new long[2];
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    balances[rs.getString(1).equals(a) ? 0 : 1] = rs.getLong(2);
                }
            }
            return balances;
        }
    }

    /**
     * Both new balances in one database transaction. All or nothing, and still wrong when the lock
     * has passed on: the database has no way to tell that these balances were read too long ago.
     */
    void write(String a, long balanceA, String b, long balanceB) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement update = connection.prepareStatement("UPDATE account SET balance = ? WHERE id = ?")) {
            update.setLong(1, balanceA);
            update.setString(2, a);
            update.addBatch();
            update.setLong(1, balanceB);
            update.setString(2, b);
            update.addBatch();
            update.executeBatch();
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    @Override
    public long of(String account) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
            select.setString(1, account);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public long total() throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
