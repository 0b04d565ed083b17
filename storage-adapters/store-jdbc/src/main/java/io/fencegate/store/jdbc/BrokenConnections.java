package io.fencegate.store.jdbc;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;

/**
 * Tells HikariCP to drop a connection whose link is gone. Hikari evicts on SQLState class 08 by
 * itself, but H2's remote driver reports a dropped TCP link as "database is already closed"
 * (90121) or "connection is broken" (90067): without this the dead connection went back to the
 * pool and every later call failed, so the store never recovered after an outage.
 */
final class BrokenConnections implements SQLExceptionOverride {
    private static final int H2_CONNECTION_BROKEN = 90067;
    private static final int H2_DATABASE_CLOSED = 90121;

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLNonTransientConnectionException) {
                return Override.MUST_EVICT;
            }
            if (t instanceof SQLException s
                    && (s.getErrorCode() == H2_CONNECTION_BROKEN || s.getErrorCode() == H2_DATABASE_CLOSED)) {
                return Override.MUST_EVICT;
            }
        }
        return Override.CONTINUE_EVICT;
    }
}
