package io.fencegate.store.jdbc;

import io.fencegate.schema.FencegateSchema.Dialect;
import io.fencegate.store.StoreLimits;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a database can take, so an oversized value is refused with a clear
 * {@link IllegalArgumentException} (naming the limit) before the driver fails on it.
 */
final class ValueLimits {

    private static final Logger log = LoggerFactory.getLogger(ValueLimits.class);

    /** Room in a packet for the statement text, the key and the numbers. */
    private static final int STATEMENT_OVERHEAD = 64 * 1024;

    private ValueLimits() {
    }

    /**
     * MySQL/MariaDB refuse any packet over {@code max_allowed_packet}, and the drivers send a
     * client-side prepared statement as text, where a byte may be escaped to two: the value
     * limit is half of the packet, less the rest of the statement.
     */
    static StoreLimits effective(Connection c, Dialect dialect, StoreLimits configured) throws SQLException {
        if (dialect != Dialect.MYSQL) {
            return configured;
        }
        long packet;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
            rs.next();
            packet = rs.getLong(1);
        }
        if (!c.getAutoCommit()) {
            c.rollback();
        }
        long fits = (packet - STATEMENT_OVERHEAD - 2L * configured.maxKeyBytes()) / 2;
        if (fits >= configured.maxValueBytes()) {
            return configured;
        }
        int lowered = (int) Math.max(0, fits);
        log.info("fencegate JDBC store: values limited to {} bytes by max_allowed_packet={} (raise it for larger values)",
                lowered, packet);
        return new StoreLimits(configured.maxKeyBytes(), lowered);
    }
}
