package io.fencegate.check;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bypass-guard control: writes an item straight into a JDBC store's table, with the token but
 * without its condition, as a service that skips the gateway would. Only for showing the checker
 * fails; never for data anyone keeps.
 */
final class BypassWriter implements AutoCloseable {
    private final Connection connection;
    private final boolean mysql;

    BypassWriter(String url, String user, String password) throws SQLException {
        this.connection = DriverManager.getConnection(url, user, password);
        this.connection.setAutoCommit(false);
        this.mysql = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    }

    /** Writes unconditionally; answers the token it replaced. */
    long write(String key, long token, byte[] value) throws SQLException {
        return writeAll(Map.of(key, token), Map.of(key, value)).get(key);
    }

    /**
     * Writes every item unconditionally, in one database transaction (as a transaction across items
     * would, without its guards); answers each item's token it replaced.
     */
    Map<String, Long> writeAll(Map<String, Long> tokens, Map<String, byte[]> values) throws SQLException {
        try {
            Map<String, Long> replaced = new LinkedHashMap<>();
            for (Map.Entry<String, byte[]> e : values.entrySet()) {
                replaced.put(e.getKey(), upsert(e.getKey(), tokens.get(e.getKey()), e.getValue()));
            }
            connection.commit();
            return replaced;
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        }
    }

    private long upsert(String key, long token, byte[] value) throws SQLException {
        long prior = 0;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT token FROM fencegate_item WHERE resource = ? FOR UPDATE")) {
            bindKey(select, 1, key);
            try (ResultSet rs = select.executeQuery()) {
                if (rs.next()) {
                    prior = rs.getLong(1);
                }
            }
        }
        String upsert = mysql
                ? "INSERT INTO fencegate_item (resource, val, token, fence) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE"
                        + " fence = GREATEST(fence, VALUES(token)), val = VALUES(val), token = VALUES(token)"
                : "INSERT INTO fencegate_item AS t (resource, val, token, fence) VALUES (?, ?, ?, ?) ON CONFLICT (resource)"
                        + " DO UPDATE SET val = EXCLUDED.val, token = EXCLUDED.token, fence = GREATEST(t.fence, EXCLUDED.token)";
        try (PreparedStatement write = connection.prepareStatement(upsert)) {
            bindKey(write, 1, key);
            write.setBytes(2, value);
            write.setLong(3, token);
            write.setLong(4, token);
            write.executeUpdate();
        }
        return prior;
    }

    private void bindKey(PreparedStatement s, int index, String key) throws SQLException {
        if (mysql) {
            s.setBytes(index, key.getBytes(StandardCharsets.UTF_8)); // VARBINARY key column
        } else {
            s.setString(index, key);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
