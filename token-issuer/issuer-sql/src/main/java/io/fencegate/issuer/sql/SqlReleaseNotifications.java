package io.fencegate.issuer.sql;

import io.fencegate.issuer.backend.DaemonThreads;
import java.sql.Connection;
import java.sql.Statement;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL only: one connection that {@code LISTEN}s for releases. A release notifies, on commit,
 * the id of the lock's oldest live waiter, so a release wakes the next waiter and nobody else.
 * The connection is the only one the issuer keeps; while it is down (or behind a transaction-mode
 * pooler, where LISTEN cannot work: turn notifications off there), waiters fall back to polling
 * with a short cap, so a lost notification costs latency, never a grant.
 */
final class SqlReleaseNotifications implements AutoCloseable {

    static final String CHANNEL = "fencegate_lease_release";
    private static final Logger log = LoggerFactory.getLogger(SqlReleaseNotifications.class);
    private static final int POLL_MS = 250;
    private static final long RECONNECT_MS = 1000;

    private final DataSource dataSource;
    private final LongConsumer wake;
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean listening;

    SqlReleaseNotifications(DataSource dataSource, LongConsumer wake) {
        this.dataSource = dataSource;
        this.wake = wake;
        this.thread = DaemonThreads.named("fencegate-sql-issuer-listen").newThread(this::run);
        thread.start();
    }

    /** Whether the LISTEN connection is up: waiters may then poll less often. */
    boolean listening() {
        return listening;
    }

    private void run() {
        while (!closed) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                PGConnection pg = c.unwrap(PGConnection.class);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                listening = true;
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MS);
                    if (notifications != null) {
                        for (PGNotification n : notifications) {
                            wakeWaiter(n.getParameter());
                        }
                    }
                }
            } catch (Exception e) {
                listening = false;
                if (!closed) {
                    log.warn("SQL lease issuer: LISTEN connection lost ({}); waiters poll until it is back", e.toString());
                    sleep();
                }
            }
        }
        listening = false;
    }

    private void wakeWaiter(String payload) {
        try {
            wake.accept(Long.parseLong(payload));
        } catch (NumberFormatException ignored) {
            // not ours
        }
    }

    private void sleep() {
        try {
            Thread.sleep(RECONNECT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
